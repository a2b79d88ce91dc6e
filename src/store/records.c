// SPDX-License-Identifier: MIT
/*
 * The layer cache as cfs-store sees it: records, the objects they name and
 * the records of an image's layers.
 */
#include <dirent.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfs/layer.h"
#include "store-tool.h"
#include "cfs/util.h"

/* Calls fn with layers/HEX and its record (NULL if corrupt). */
static void visit_one(const char *store, const char *hex, record_fn fn,
		      void *opaque)
{
	uint8_t diff_id[CFS_SHA256_SIZE];
	struct cfs_layer *l = NULL;
	char *name = cfs_layout_record_rel(hex);
	char *path = xasprintf("%s/%s", store, name);

	/* a DiffID's hex is an image id's: 64 lower-case digits */
	if (cfs_image_id_ok(hex) && cfs_unhex(diff_id, hex, 32) == 0)
		cfs_layer_cache_read(path, diff_id, &l);
	fn(name, l, opaque);
	cfs_layer_free(l);
	free(path);
	free(name);
}

void store_walk_records(const char *store, record_fn fn, void *opaque)
{
	char *dir = cfs_layout_records_dir(store);
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && !cfs_replacing_pid(e->d_name))
			visit_one(store, e->d_name, fn, opaque);
	if (d)
		closedir(d);
	free(dir);
}

/* The "sha256:HEX" of the config's rootfs.diff_ids, else NULL. */
static const char *diff_id_hex(struct json_object *ids, size_t i)
{
	struct json_object *v = json_object_array_get_idx(ids, i);
	const char *s = json_object_is_type(v, json_type_string)
				? json_object_get_string(v)
				: "";

	return !strncmp(s, "sha256:", 7) && cfs_image_id_ok(s + 7) ? s + 7
								   : NULL;
}

static void store_image_records(const char *store, const char *id, record_fn fn,
				void *opaque)
{
	char *path = cfs_layout_image_file(store, id, CFS_IMAGE_CONFIG);
	struct json_object *cfg = json_object_from_file(path);
	struct json_object *rootfs, *ids;
	size_t n = 0;

	if (json_object_object_get_ex(cfg, "rootfs", &rootfs) &&
	    json_object_object_get_ex(rootfs, "diff_ids", &ids) &&
	    json_object_is_type(ids, json_type_array))
		n = json_object_array_length(ids);
	/* a layer without a record reaches fn as a NULL record */
	for (size_t i = 0; i < n; i++) {
		const char *hex = diff_id_hex(ids, i);

		if (hex)
			visit_one(store, hex, fn, opaque);
	}
	json_object_put(cfg);
	free(path);
}

bool record_objects_in(const char *store, const struct cfs_layer *l,
		       const struct dset *set)
{
	char path[CFS_OBJECT_PATH_LEN + 1];
	int fd = set ? -1 : open(store, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool ok = true;

	for (size_t i = 0; ok && i < l->n_entries; i++) {
		const struct cfs_layer_entry *e = &l->entries[i];
		struct stat st;

		if (!e->has_digest)
			continue;
		if (set) {
			ok = dset_find(set, e->digest) != NULL;
			continue;
		}
		cfs_object_path(path, e->digest);
		ok = fstatat(fd, path, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		     S_ISREG(st.st_mode);
	}
	if (fd >= 0)
		close(fd);
	return ok;
}

struct marking {
	struct dset *set;
	struct json_object *names;
};

static void mark_record(const char *name, const struct cfs_layer *l,
			void *opaque)
{
	struct marking *m = opaque;
	bool added;

	if (!l)
		return;
	if (m->names)
		json_object_object_add(m->names, name, NULL);
	for (size_t i = 0; i < l->n_entries; i++)
		if (l->entries[i].has_digest)
			dset_add(m->set, l->entries[i].digest, &added);
}

void mark_layer_records(const struct cfs_inventory *inv, struct dset *set,
			struct json_object *names)
{
	struct marking m = {.set = set, .names = names};

	for (size_t i = 0; i < inv->n_images; i++)
		if (cfs_inventory_is_root(&inv->images[i]))
			store_image_records(inv->store, inv->images[i].id,
					    mark_record, &m);
}
