// SPDX-License-Identifier: MIT
/* Writing the manifest, the config beside it and the name ref. */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "convert.h"
#include "escape.h"
#include "util.h"

static int atomic_flags(const struct cfs_store *store, bool verity)
{
	const struct cfs_store_opts *so = cfs_store_options(store);
	int flags = 0;

	if (so->sync == CFS_SYNC_NONE)
		flags |= CFS_ATOMIC_NOSYNC;
	if (verity && !so->no_verity)
		flags |= so->require_verity ? CFS_ATOMIC_REQUIRE_VERITY
					    : CFS_ATOMIC_VERITY;
	return flags;
}

/* "sha256:abc..." -> "abc..." (already validated by the OCI reader). */
static const char *digest_hex(const char *digest)
{
	const char *colon = strchr(digest, ':');

	return colon ? colon + 1 : digest;
}

static bool ref_name_ok(const char *name)
{
	const char *p = name;

	if (!*name || *name == '/' || strlen(name) > 255)
		return false;
	/* Printable ASCII: a ref is a file name that tools list. */
	for (const char *c = name; *c; c++)
		if (*c < 0x21 || *c > 0x7e)
			return false;
	while (*p) {
		size_t len = strcspn(p, "/");

		if (len == 0 || (len == 1 && p[0] == '.') ||
		    (len == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += len;
		if (*p == '/')
			p++;
		else
			break;
	}
	return name[strlen(name) - 1] != '/';
}

/* refs/NAME -> ../images/ID.cfs, replaced atomically by rename. */
static int write_ref(struct cfs_store *store, const char *name, const char *id)
{
	const char *dir = cfs_store_dir(store);
	char *path = xasprintf("%s/refs/%s", dir, name), *tmp, *parent;
	struct cfs_buf target = {0};
	int r = -1;

	for (const char *p = name; *p; p++)
		if (*p == '/')
			cfs_buf_append(&target, "../", 3);
	cfs_buf_append(&target, "../images/", 10);
	cfs_buf_append(&target, id, strlen(id));
	cfs_buf_append(&target, ".cfs", 5);
	parent = xstrndup(path, (size_t)(strrchr(path, '/') - path));
	tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
	if (cfs_mkdir_p(parent, 0755) < 0)
		goto out;
	unlink(tmp);
	if (symlink((char *)target.data, tmp) < 0 || rename(tmp, path) < 0) {
		cfs_error("%s: %s", path, strerror(errno));
		unlink(tmp);
		goto out;
	}
	r = 0;
out:
	cfs_buf_free(&target);
	free(parent);
	free(tmp);
	free(path);
	return r;
}

/*
 * Re-converting an image gives the same bytes: leave an identical file
 * alone rather than rewrite (and fsync) it.
 */
static int write_unless_same(const char *path, const uint8_t *data, size_t len,
			     int flags)
{
	struct stat st;
	uint8_t *old;
	size_t old_len;
	bool same;

	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    (size_t)st.st_size == len &&
	    cfs_read_file(path, &old, &old_len) == 0) {
		same = old_len == len && memcmp(old, data, len) == 0;
		free(old);
		if (same)
			return 0;
	}
	return cfs_write_file_atomic(path, data, len, 0644, flags);
}

static int write_beside(struct cfs_store *store, const char *images,
			const char *id, const char *suffix, const uint8_t *data,
			size_t len)
{
	char *path = xasprintf("%s/%s%s", images, id, suffix);
	int r = write_unless_same(path, data, len, atomic_flags(store, false));

	free(path);
	return r;
}

int convert_write_outputs(const struct convert_opts *o,
			  struct cfs_oci_image *img, struct cfs_store *store,
			  const uint8_t *manifest, size_t len,
			  struct convert_result *res)
{
	const char *id = digest_hex(img->config_digest);
	char *images = xasprintf("%s/images", cfs_store_dir(store));
	const char *name = o->ref ? o->ref : img->ref_name;
	uint8_t digest[CFS_DIGEST_SIZE];
	int r = -1;

	cfs_verity_digest_mem(manifest, len, digest);
	cfs_hex(res->digest_hex, digest, CFS_DIGEST_SIZE);
	if (name && !ref_name_ok(name)) {
		char pbuf[CFS_SHOWN_MAX];

		cfs_error("invalid image name for a ref: '%s'",
			  cfs_printable(pbuf, sizeof(pbuf), name));
		goto out;
	}
	if (o->output) {
		res->manifest_path = xstrdup(o->output);
		r = cfs_write_file_atomic(o->output, manifest, len, 0644,
					  atomic_flags(store, true));
		goto out;
	}
	res->manifest_path = xasprintf("%s/%s.cfs", images, id);
	if (cfs_mkdir_p(images, 0755) < 0 ||
	    write_beside(store, images, id, ".json", img->config,
			 img->config_len) < 0 ||
	    write_beside(store, images, id, ".manifest.json", img->manifest,
			 img->manifest_len) < 0 ||
	    write_unless_same(res->manifest_path, manifest, len,
			      atomic_flags(store, true)) < 0)
		goto out;
	if (name) {
		if (write_ref(store, name, id) < 0)
			goto out;
		res->ref_name = xstrdup(name);
	}
	r = 0;
out:
	free(images);
	return r;
}

void convert_print_json(const struct convert_opts *o,
			const struct cfs_oci_image *img,
			const struct convert_result *res,
			const struct convert_stats *st,
			const struct cfs_store_stats *sst)
{
	json_object *j = json_object_new_object();
	double dedup =
		st->bytes ? 1.0 - (double)sst->new_bytes / (double)st->bytes
			  : 0.0;

	json_object_object_add(j, "manifest",
			       json_object_new_string(res->manifest_path));
	json_object_object_add(j, "digest",
			       json_object_new_string(res->digest_hex));
	json_object_object_add(j, "image_id",
			       json_object_new_string(img->config_digest));
	json_object_object_add(
		j, "ref",
		res->ref_name ? json_object_new_string(res->ref_name) : NULL);
	json_object_object_add(j, "layers", json_object_new_int64(st->layers));
	json_object_object_add(j, "cached_layers",
			       json_object_new_int64(st->cached_layers));
	json_object_object_add(j, "files",
			       json_object_new_int64((int64_t)st->files));
	json_object_object_add(
		j, "regular_files",
		json_object_new_int64((int64_t)st->regular_files));
	json_object_object_add(j, "bytes",
			       json_object_new_int64((int64_t)st->bytes));
	json_object_object_add(
		j, "new_objects",
		json_object_new_int64((int64_t)sst->new_objects));
	json_object_object_add(j, "new_bytes",
			       json_object_new_int64((int64_t)sst->new_bytes));
	json_object_object_add(j, "dedup_ratio", json_object_new_double(dedup));
	json_object_object_add(j, "verity",
			       json_object_new_boolean(sst->verity));
	printf("%s\n", json_object_to_json_string_ext(
			       j, JSON_C_TO_STRING_PRETTY |
					  JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(j);
}
