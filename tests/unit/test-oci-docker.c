// SPDX-License-Identifier: MIT
/*
 * The OCI reader on docker-archive tars (docker save, skopeo
 * docker-archive:): config digest computed, layers streamed without a blob
 * digest, RepoTags as refs.
 */
#include <stdlib.h>
#include <string.h>

#include "oci-fixture.h"
#include "tap.h"

static void test_docker_archive(void)
{
	struct fileset fs = {0}, fs2 = {0};
	struct built b;
	char cfg_hex[65], *tar, *t, *tar2;

	/* Reuse an OCI build for the bytes, then lay them out docker-style. */
	struct fileset scratch = {0};

	build_image(&scratch, &b, "dock", 2, NULL);
	sha_hex(EVP_sha256(), b.config, b.config_len, cfg_hex);
	t = xasprintf("%s.json", cfg_hex);
	fs_add(&fs, t, b.config, b.config_len);
	free(t);
	fs_add(&fs, "aaa/layer.tar", b.layer[0], b.layer_len[0]);
	fs_add(&fs, "bbb.tar", b.layer[1], b.layer_len[1]);
	fs_add_symlink(&fs, "ccc/layer.tar", "../bbb.tar");
	t = xasprintf("[{\"Config\":\"%s.json\",\"RepoTags\":["
		      "\"docker.io/library/web:1.0\",\"web:latest\"],"
		      "\"Layers\":[\"aaa/layer.tar\",\"ccc/layer.tar\"]}]",
		      cfg_hex);
	fs_add_str(&fs, "manifest.json", t);
	free(t);
	tar = fs_write_tar(&fs, "docker.tar");

	struct cfs_oci_image *img;
	bool good = cfs_oci_open(&img, tar, NULL, NULL) == 0;

	ok(good, "docker-archive opens");
	if (good) {
		ok(!strcmp(img->config_digest, b.config_digest) &&
			   !strcmp(img->ref_name, "docker.io/library/web:1.0"),
		   "docker-archive: config digest computed, first RepoTag");
		ok(layers_match(img, &b, false) && !img->layers[0].digest[0],
		   "docker-archive: layers (one via symlink) stream, no "
		   "blob digest");
		ok(img->manifest_len &&
			   strstr((char *)img->manifest, b.config_digest),
		   "docker-archive: synthesised manifest names the config");
		cfs_oci_close(img);
	}
	ok(cfs_oci_open(&img, tar, "web:latest", NULL) == 0 &&
		   !strcmp(img->ref_name, "web:latest"),
	   "docker-archive: exact RepoTag");
	cfs_oci_close(img);
	ok(cfs_oci_open(&img, tar, "web:1.0", NULL) == 0 &&
		   !strcmp(img->ref_name, "docker.io/library/web:1.0"),
	   "docker-archive: short name matches full RepoTag");
	cfs_oci_close(img);
	ok(open_fails(tar, "db:1.0", NULL,
		      "available: docker.io/library/web:"
		      "1.0, web:latest"),
	   "docker-archive: unknown ref lists the tags");
	ok(open_fails(tar, NULL, "linux/arm64", "not linux/arm64"),
	   "docker-archive: platform checked against the config");

	/* a config whose name claims another digest */
	fs_add(&fs2,
	       "000000000000000000000000000000000000000000000000000000000000000"
	       "0.json",
	       b.config, b.config_len);
	fs_add(&fs2, "l.tar", b.layer[0], b.layer_len[0]);
	fs_add_str(&fs2, "manifest.json",
		   "[{\"Config\":\"000000000000000000000000000000000000000000"
		   "0000000000000000000000.json\",\"RepoTags\":null,"
		   "\"Layers\":[\"l.tar\"]}]");
	tar2 = fs_write_tar(&fs2, "docker-bad.tar");
	ok(open_fails(tar2, NULL, NULL, "digest mismatch"),
	   "docker-archive: config named by a wrong digest");
	free(tar);
	free(tar2);
	fs_free(&fs);
	fs_free(&fs2);
	fs_free(&scratch);
	built_free(&b);
}

int main(void)
{
	oci_fixture_start();
	test_docker_archive();
	oci_fixture_end();
	return tap_done();
}
