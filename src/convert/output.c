// SPDX-License-Identifier: MIT
/* Writing the manifest, the config beside it and the name ref. */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "convert.h"
#include "cfs/escape.h"
#include "cfs/store-layout.h"
#include "cfs/util.h"

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

int convert_write_outputs(const struct convert_opts *o,
			  struct cfs_oci_image *img, struct cfs_store *store,
			  const uint8_t *manifest, size_t len,
			  const struct convert_seal *seal,
			  struct convert_result *res)
{
	const char *id = digest_hex(img->config_digest);
	const char *dir = cfs_store_dir(store);
	const char *name = o->ref ? o->ref : img->ref_name;
	struct cfs_layout_image li = {
		.id = id,
		.config = img->config,
		.config_len = img->config_len,
		.oci_manifest = img->manifest,
		.oci_manifest_len = img->manifest_len,
		.manifest = manifest,
		.manifest_len = len,
		.seal = seal->sealed ? seal->digest : NULL,
		.side_flags = atomic_flags(store, false),
		.manifest_flags = atomic_flags(store, true),
	};
	cfs_hex(res->digest_hex, res->digest, CFS_DIGEST_SIZE);
	res->sealed = seal->sealed;
	if (name && !cfs_ref_name_ok(name)) {
		char pbuf[CFS_SHOWN_MAX];

		cfs_error("invalid image name for a ref: '%s'",
			  cfs_printable(pbuf, sizeof(pbuf), name));
		return -1;
	}
	if (o->output) {
		res->manifest_path = xstrdup(o->output);
		return cfs_write_file_atomic(o->output, manifest, len, 0644,
					     atomic_flags(store, true));
	}
	res->manifest_path = cfs_layout_image_file(dir, id, CFS_IMAGE_MANIFEST);
	if (cfs_layout_write_image(dir, &li) < 0)
		return -1;
	if (name) {
		if (cfs_layout_write_ref(dir, name, id) < 0)
			return -1;
		res->ref_name = xstrdup(name);
	}
	return 0;
}

void convert_warn_no_verity(const struct convert_opts *o,
			    const struct convert_result *res)
{
	uint8_t digest[CFS_DIGEST_SIZE];
	int fd, err = 0;

	if (o->store_opts.no_verity)
		return;
	fd = open(res->manifest_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || cfs_verity_measure(fd, digest) < 0)
		err = errno;
	if (fd >= 0)
		close(fd);
	if (!err)
		return;
	fprintf(stderr,
		"oci2cfs: warning: %s: no fs-verity (%s): mount -o digest= "
		"cannot use the digest printed\n",
		res->manifest_path,
		err == ENODATA ? "not enabled"
			       : "its filesystem does not support it");
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
	json_object_object_add(j, "sealed",
			       json_object_new_boolean(res->sealed));
	/* ids as cfs-store ls --json and podman print them: bare hex */
	json_object_object_add(
		j, "id",
		json_object_new_string(digest_hex(img->config_digest)));
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
