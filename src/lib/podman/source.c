// SPDX-License-Identifier: MIT
/*
 * What an image brings to podman: its .cfs manifest (resolved from a ref
 * or a path), the original OCI manifest and config written beside it by
 * oci2cfs, and the digests derived from them.
 */
#include <errno.h>
#include <json-c/json.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cfs/image.h"
#include "source.h"
#include "cfs/json.h"
#include "cfs/sha256.h"
#include "cfs/store-layout.h"
#include "cfs/util.h"
#include "cfs/verity.h"

void psrc_sha256_hex(char out[65], const void *data, size_t len)
{
	cfs_sha256_hex(data, len, out);
}

/* "2006-01-02T15:04:05[.frac](Z|+hh:mm)", which Go's time parses. */
static bool rfc3339(const char *s)
{
	struct tm tm;
	const char *rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);

	if (!rest)
		return false;
	if (*rest == '.') {
		size_t n = strspn(rest + 1, "0123456789");

		if (!n || n > 9)
			return false;
		rest += 1 + n;
	}
	if (!strcmp(rest, "Z"))
		return true;
	return (rest[0] == '+' || rest[0] == '-') && strlen(rest) == 6 &&
	       rest[3] == ':' && strspn(rest + 1, "0123456789") == 2 &&
	       strspn(rest + 4, "0123456789") == 2;
}

static int read_side_files(struct psrc *s)
{
	char *cfg = cfs_layout_side_file(s->manifest, CFS_IMAGE_CONFIG);
	char *oci = cfs_layout_side_file(s->manifest, CFS_IMAGE_OCI_MANIFEST);
	int r = -1;

	if (cfs_read_file(cfg, &s->config, &s->config_len) == 0 &&
	    cfs_read_file(oci, &s->oci, &s->oci_len) == 0)
		r = 0;
	else
		cfs_error_prefix(
			"the image's config and OCI manifest must be "
			"beside its manifest (as oci2cfs writes them)");
	free(cfg);
	free(oci);
	return r;
}

/* The OCI manifest must name this config, as podman checks. */
static int check_config_digest(struct psrc *s)
{
	struct json_object *m = json_tokener_parse((const char *)s->oci);
	struct json_object *cfg, *dig;
	char want[72];
	int r = -1;

	snprintf(want, sizeof(want), "sha256:%s", s->id);
	if (!m || !json_object_object_get_ex(m, "config", &cfg) ||
	    !json_object_object_get_ex(cfg, "digest", &dig))
		cfs_error("%.*s.manifest.json: not an image manifest",
			  (int)strlen(s->manifest) - 4, s->manifest);
	else if (strcmp(json_object_get_string(dig), want))
		cfs_error("%.*s.manifest.json: config digest %s is not the "
			  "config's (%s)",
			  (int)strlen(s->manifest) - 4, s->manifest,
			  json_object_get_string(dig), want);
	else
		r = 0;
	json_object_put(m);
	return r;
}

static void read_created(struct psrc *s)
{
	struct json_object *c = json_tokener_parse((const char *)s->config);
	const char *created = cfs_json_str(c, "created");

	if (created && rfc3339(created))
		s->created = xstrdup(created);
	json_object_put(c);
}

static int manifest_digest(struct psrc *s)
{
	uint8_t d[CFS_DIGEST_SIZE], measured[CFS_DIGEST_SIZE];
	struct stat st;
	int fd = open(s->manifest, O_RDONLY | O_CLOEXEC);
	int r = -1;

	if (fd < 0 || fstat(fd, &st) < 0) {
		cfs_error("%s: %s", s->manifest, strerror(errno));
	} else if (cfs_verity_digest_fd(fd, st.st_size, d) == 0) {
		cfs_hex(s->digest, d, sizeof(d));
		s->verity = cfs_verity_measure(fd, measured) == 0 &&
			    !memcmp(d, measured, sizeof(d));
		r = 0;
	}
	if (fd >= 0)
		close(fd);
	return r;
}

/* Validates the manifest; size: the bytes of its regular files. */
static int validate_image(struct psrc *s)
{
	struct cfs_image img;
	struct cfs_image_inode ino;

	if (cfs_image_open_file(&img, s->manifest) < 0) {
		cfs_error_prefix("%s", s->manifest);
		return -1;
	}
	for (uint32_t i = 0; i < img.n_inodes; i++) {
		cfs_image_get_inode(&img, i, &ino);
		if (S_ISREG(ino.mode))
			s->size += ino.size;
	}
	cfs_image_close(&img);
	return 0;
}

int psrc_load(struct psrc *s, const char *store, const char *image)
{
	char digest_hex[65];

	memset(s, 0, sizeof(*s));
	s->manifest = cfs_layout_resolve(store, image, &s->ref);
	if (!s->manifest)
		return -1;
	if (!cfs_layout_manifest_name(s->manifest)) {
		cfs_error("%s: a manifest's name must end in .cfs", image);
		goto fail;
	}
	if (read_side_files(s) < 0 || validate_image(s) < 0 ||
	    manifest_digest(s) < 0)
		goto fail;
	/* NUL-terminate the JSON for the parser (cfs_read_file may not) */
	s->oci = xrealloc(s->oci, s->oci_len + 1);
	s->oci[s->oci_len] = '\0';
	s->config = xrealloc(s->config, s->config_len + 1);
	s->config[s->config_len] = '\0';
	psrc_sha256_hex(s->id, s->config, s->config_len);
	psrc_sha256_hex(digest_hex, s->oci, s->oci_len);
	snprintf(s->oci_digest, sizeof(s->oci_digest), "sha256:%s", digest_hex);
	if (check_config_digest(s) < 0)
		goto fail;
	read_created(s);
	return 0;
fail:
	psrc_free(s);
	return -1;
}

void psrc_free(struct psrc *s)
{
	free(s->manifest);
	free(s->config);
	free(s->oci);
	free(s->created);
	free(s->ref);
	memset(s, 0, sizeof(*s));
}
