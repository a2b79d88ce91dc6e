// SPDX-License-Identifier: MIT
/*
 * The registered images as callers see them (cfs-podman list, cfs-store's
 * gc roots and rm): id, names, manifest, digest, mountpoint and its state.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfs/json.h"
#include "internal.h"
#include "cfs/store-layout.h"
#include "cfs/util.h"

static enum cfs_podman_mount_state mount_state(const struct pmeta *m)
{
	int mounted = pmount_is_mounted(m->mountpoint);

	if (m->managed || m->was_mounted)
		return mounted == 1 ? CFS_PODMAN_MOUNTED : CFS_PODMAN_MISSING;
	return pstore_dir_entries(m->mountpoint) > 0 ? CFS_PODMAN_EXTERNAL
						     : CFS_PODMAN_MISSING;
}

/* The record's names that are strings, NULL-terminated. */
static const char **record_names(struct json_object *img)
{
	struct json_object *arr;
	size_t n = 0, k = 0;
	const char **v;

	if (json_object_object_get_ex(img, "names", &arr) &&
	    json_object_is_type(arr, json_type_array))
		n = json_object_array_length(arr);
	v = xcalloc(n + 1, sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		struct json_object *s = json_object_array_get_idx(arr, i);

		if (json_object_is_type(s, json_type_string))
			v[k++] = json_object_get_string(s);
	}
	return v;
}

static int visit(struct json_object *rec, bool with_mount,
		 cfs_podman_image_fn fn, void *opaque)
{
	const char *id = cfs_json_str(rec, "id");
	const char **names = record_names(rec);
	struct cfs_podman_image img = {.id = id ? id : "?",
				       .names = names,
				       .mount = CFS_PODMAN_MISSING};
	struct pmeta m;
	bool cfs = pmeta_parse(rec, &m) == 0;
	int r;

	if (cfs) {
		img.manifest = m.manifest;
		img.digest = m.digest;
		img.mountpoint = m.mountpoint;
		if (with_mount)
			img.mount = mount_state(&m);
	}
	r = fn(&img, opaque);
	if (cfs)
		pmeta_free(&m);
	free(names);
	return r;
}

int cfs_podman_images(const struct cfs_podman_opts *o, bool with_mount,
		      cfs_podman_image_fn fn, void *opaque)
{
	struct pstore p;
	size_t n;
	int r = 0;

	if (pstore_open(&p, o, false) < 0)
		return -1;
	if (access(p.root, F_OK) < 0) {
		pstore_close(&p);
		return 0; /* nothing registered yet */
	}
	if (pstore_lock(&p, false, false) < 0) {
		pstore_close(&p);
		return -1;
	}
	n = p.images ? json_object_array_length(p.images) : 0;
	for (size_t i = 0; i < n && r == 0; i++)
		r = visit(json_object_array_get_idx(p.images, i), with_mount,
			  fn, opaque);
	pstore_close(&p);
	return r;
}

int cfs_podman_lookup(const struct cfs_podman_opts *o, const char *name,
		      char id[CFS_PODMAN_ID_LEN + 1])
{
	struct pstore p;
	struct json_object *e;
	const char *s;
	int r = -1, found;

	if (pstore_open(&p, o, false) < 0 || pstore_lock(&p, false, false) < 0)
		goto out;
	found = pstore_lookup_image(&p, name, &e);
	s = e ? cfs_json_str(e, "id") : NULL;
	if (s && cfs_image_id_ok(s)) {
		memcpy(id, s, CFS_PODMAN_ID_LEN + 1);
		r = 0;
	} else if (found >= 0) {
		cfs_error("no such image in the additional image store");
	}
out:
	pstore_close(&p);
	return r;
}
