// SPDX-License-Identifier: MIT
/*
 * libFuzzer: arbitrary bytes as an OCI image layout. The input is split at
 * lines "--" into index.json and blobs 1..8; blob i is stored under its
 * sha256, and in index.json and in blob j < i "@i" stands for blob i's
 * digest and "#i" for its size, so the fuzzer can build nested indexes,
 * manifests, configs and layers that pass the digest checks. Opening must
 * fail with one printable line or give an image whose layers all stream.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "fuzz-common.h"
#include "cfs/oci.h"

#define MAX_PARTS 9

struct part {
	const uint8_t *p;
	size_t len;
	struct cfs_buf out; /* with references substituted */
	char digest[72], size[24];
};

static char dir[] = "/tmp/cfs-fuzz-oci-XXXXXX";
static char *blob_dir;

static size_t split(const uint8_t *data, size_t size, struct part *parts)
{
	size_t n = 0, start = 0;

	for (size_t i = 0; i + 4 <= size && n < MAX_PARTS - 1; i++) {
		if (memcmp(data + i, "\n--\n", 4))
			continue;
		parts[n].p = data + start;
		parts[n++].len = i - start;
		start = i + 4;
		i += 3;
	}
	parts[n].p = data + start;
	parts[n++].len = size - start;
	return n;
}

/* Copies part k, replacing @i and #i for every i > k. */
static void substitute(struct part *parts, size_t n, size_t k)
{
	struct part *pt = &parts[k];

	for (size_t i = 0; i < pt->len; i++) {
		uint8_t c = pt->p[i];
		size_t j = i + 1 < pt->len ? (size_t)(pt->p[i + 1] - '0') : 0;
		const char *rep = NULL;

		if ((c == '@' || c == '#') && j > k && j < n)
			rep = c == '@' ? parts[j].digest : parts[j].size;
		if (rep) {
			cfs_buf_append(&pt->out, rep, strlen(rep));
			i++;
		} else {
			cfs_buf_append(&pt->out, &c, 1);
		}
	}
}

static void write_file(const char *path, const void *p, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	fuzz_assert(fd >= 0);
	fuzz_assert(cfs_write_all(fd, p, len) == 0);
	close(fd);
}

static void write_blob(struct part *pt)
{
	uint8_t md[32];
	char hex[65], *path;

	EVP_Digest(pt->out.data, pt->out.len, md, NULL, EVP_sha256(), NULL);
	cfs_hex(hex, md, 32);
	snprintf(pt->digest, sizeof(pt->digest), "sha256:%s", hex);
	snprintf(pt->size, sizeof(pt->size), "%zu", pt->out.len);
	path = xasprintf("%s/%s", blob_dir, hex);
	write_file(path, pt->out.data, pt->out.len);
	free(path);
}

static void setup(void)
{
	char *p;

	fuzz_assert(mkdtemp(dir) != NULL);
	p = xasprintf("%s/oci-layout", dir);
	write_file(p, "{\"imageLayoutVersion\":\"1.0.0\"}", 30);
	free(p);
	p = xasprintf("%s/blobs", dir);
	fuzz_assert(mkdir(p, 0755) == 0);
	free(p);
	blob_dir = xasprintf("%s/blobs/sha256", dir);
	fuzz_assert(mkdir(blob_dir, 0755) == 0);
}

static void cleanup(void)
{
	fuzz_remove_tree(dir);
	free(blob_dir);
}

static void stream_layers(struct cfs_oci_image *img)
{
	static uint8_t buf[65536];

	for (size_t i = 0; i < img->n_layers; i++) {
		struct cfs_blob *b;
		ssize_t r;

		if (cfs_oci_open_layer(img, i, &b) < 0) {
			fuzz_check_message();
			continue;
		}
		while ((r = cfs_blob_read(b, buf, sizeof(buf))) > 0)
			;
		if (r < 0)
			fuzz_check_message();
		cfs_blob_close(b);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct part parts[MAX_PARTS] = {0};
	struct cfs_oci_image *img;
	size_t n;
	char *path;

	if (!blob_dir) {
		setup();
		atexit(cleanup);
	}
	n = split(data, size, parts);
	for (size_t k = n; k-- > 1;) {
		substitute(parts, n, k);
		write_blob(&parts[k]);
	}
	substitute(parts, n, 0);
	path = xasprintf("%s/index.json", dir);
	write_file(path, parts[0].out.data, parts[0].out.len);
	free(path);
	if (cfs_oci_open(&img, dir, NULL, "linux/amd64") == 0) {
		stream_layers(img);
		cfs_oci_close(img);
	} else {
		fuzz_check_message();
	}
	for (size_t k = 0; k < n; k++) {
		if (k) {
			path = xasprintf("%s/%s", blob_dir,
					 parts[k].digest + 7);
			unlink(path);
			free(path);
		}
		cfs_buf_free(&parts[k].out);
	}
	return 0;
}
