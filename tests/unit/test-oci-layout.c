// SPDX-License-Identifier: MIT
/*
 * The OCI reader on layout directories and oci-archive tars built here:
 * an image opens with its layers and config verified, by ref and platform;
 * sha512 blobs; layers of one archive read in parallel threads.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "oci-fixture.h"
#include "tap.h"

static void test_layout_and_archive(void)
{
	struct fileset fs = {0};
	struct built b;
	char *dir, *tar, *path;

	simple_layout(&fs, &b, "1.0", 3, NULL);
	dir = fs_write_dir(&fs, "simple");
	tar = fs_write_tar(&fs, "simple.tar");
	ok(opens_as(dir, NULL, NULL, &b, "1.0"), "layout dir: opens, layers "
						 "and config verified");
	ok(opens_as(tar, NULL, NULL, &b, "1.0"), "oci-archive: same image");
	ok(opens_as(tar, "1.0", NULL, &b, "1.0"), "oci-archive: by ref");
	free(tar);
	path = image_file("", b.layer_digest[1]);
	fs_add_hardlink(&fs, path + 1, path + 1);
	free(path);
	tar = fs_write_tar(&fs, "hardlinked.tar");
	ok(opens_as(tar, NULL, NULL, &b, "1.0"),
	   "oci-archive with a blob stored again as a hardlink to itself");
	ok(opens_as(dir, "web:1.0", NULL, &b, "1.0"),
	   "ref name:tag matches a tag-only annotation");
	ok(opens_as(dir, NULL, "linux/amd64", &b, "1.0"),
	   "explicit platform matches the config's");
	ok(open_fails(dir, NULL, "linux/arm64", "image is for linux/amd64"),
	   "explicit platform checked against the config");
	ok(open_fails(dir, "2.0", NULL,
		      "no manifest matching ref '2.0' "
		      "(available: 1.0)"),
	   "unknown ref: error lists the refs");
	free(dir);
	free(tar);
	fs_free(&fs);
	built_free(&b);
}

static void test_sha512_blobs(void)
{
	struct fileset fs = {0};
	struct built b;
	char d512[136], *m, *desc, *dir;
	struct cfs_oci_image *img;
	uint8_t *data = NULL;

	build_image(&fs, &b, "s", 1, NULL);
	fs_add_blob_md(&fs, EVP_sha512(), b.layer[0], b.layer_len[0], d512);
	m = xasprintf("{\"schemaVersion\":2,\"config\":{\"mediaType\":\"%s\","
		      "\"digest\":\"%s\",\"size\":%zu},\"layers\":[{"
		      "\"mediaType\":\"%s\",\"digest\":\"%s\",\"size\":%zu}]}",
		      OCI_CONFIG, b.config_digest, b.config_len, OCI_TAR, d512,
		      b.layer_len[0]);
	fs_add_blob_md(&fs, EVP_sha512(), m, strlen(m), b.manifest_digest);
	b.manifest_size = strlen(m);
	free(m);
	desc = manifest_desc(&b, "");
	add_index(&fs, 1, &desc);
	dir = fs_write_dir(&fs, "sha512");
	ok(cfs_oci_open(&img, dir, NULL, NULL) == 0 &&
		   !strcmp(img->layers[0].digest, d512) &&
		   read_layer(img, 0, &data) == (ssize_t)b.layer_len[0],
	   "sha512 manifest and layer blobs verify");
	cfs_oci_close(img);
	free(data);
	free(dir);
	fs_free(&fs);
	built_free(&b);
}

struct reader {
	struct cfs_oci_image *img;
	const struct built *b;
	int layer;
	bool good;
};

static void *reader_thread(void *arg)
{
	struct reader *r = arg;

	for (int k = 0; k < 20; k++) {
		uint8_t *data = NULL;
		ssize_t n = read_layer(r->img, r->layer, &data);

		r->good = n == (ssize_t)r->b->layer_len[r->layer] &&
			  !memcmp(data, r->b->layer[r->layer], n);
		free(data);
		if (!r->good)
			break;
	}
	return NULL;
}

static void test_concurrent_reads(void)
{
	struct fileset fs = {0};
	struct built b;
	struct cfs_oci_image *img = NULL;
	struct reader r[3];
	pthread_t t[3];
	char *tar;
	bool good;

	simple_layout(&fs, &b, "c", 3, NULL);
	tar = fs_write_tar(&fs, "concurrent.tar");
	good = cfs_oci_open(&img, tar, NULL, NULL) == 0;
	for (int i = 0; good && i < 3; i++) {
		r[i] = (struct reader){img, &b, i, false};
		pthread_create(&t[i], NULL, reader_thread, &r[i]);
	}
	for (int i = 0; good && i < 3; i++) {
		pthread_join(t[i], NULL);
		good = good && r[i].good;
	}
	ok(good, "three layers of one oci-archive read in parallel threads");
	cfs_oci_close(img);
	free(tar);
	fs_free(&fs);
	built_free(&b);
}

int main(void)
{
	oci_fixture_start();
	test_layout_and_archive();
	test_sha512_blobs();
	test_concurrent_reads();
	oci_fixture_end();
	return tap_done();
}
