/* SPDX-License-Identifier: MIT */
/*
 * Internals of the podman additional image store (src/lib/podman/).
 * Included only by the files of src/lib/podman/ and the unit tests.
 * podman/ may include the base (cfs/util.h, cfs/json.h), cfs/image-name.h,
 * the store's public headers and containers/conf.h (podman's
 * storage.conf), never oci/. Inside, calls go one way: store.c and
 * check.c above names.c, which resolves names over the records that
 * records.c loads and saves; records.c calls none of the others.
 */
#ifndef CFS_PODMAN_INTERNAL_H
#define CFS_PODMAN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "cfs/podman.h"

#define PSTORE_LINK_LEN 26

/* An open additional image store: paths, locks and the loaded records. */
struct pstore {
	char *store; /* cfs store, absolute */
	char *root;  /* AIS root, absolute */
	int layers_lock, images_lock;
	struct json_object *images;  /* overlay-images/images.json array */
	struct json_object *layers;  /* overlay-layers/layers.json array */
	bool images_bad, layers_bad; /* the JSON could not be parsed */
};

/* --- records.c: paths, locks, loading and saving records */
char *pstore_path(const struct pstore *p, const char *rel);
/*
 * Resolves the paths; with create, makes the directories and lock files.
 * Without create, a missing AIS is an empty one (no locks taken).
 */
int pstore_open(struct pstore *p, const struct cfs_podman_opts *o, bool create);
/*
 * Takes the layers then the images lock (write or read) and loads both
 * JSON arrays. With tolerate_bad, an unparsable file gives an empty array
 * and sets *_bad instead of failing.
 */
int pstore_lock(struct pstore *p, bool write, bool tolerate_bad);
int pstore_save_images(struct pstore *p);
int pstore_save_layers(struct pstore *p);
void pstore_close(struct pstore *p);

/* Lookups in the loaded arrays; NULL if absent. */
struct json_object *pstore_find_image(struct pstore *p, const char *id);
struct json_object *pstore_find_layer(struct pstore *p, const char *id);
/* Removes the element whose "id" is id from an array; true if found. */
bool pjson_array_remove_id(struct json_object *arr, const char *id);
bool pjson_array_has_str(struct json_object *arr, const char *s);

/* The cfs bookkeeping kept in an image record's "metadata" string. */
struct pmeta {
	char *manifest;	  /* the .cfs manifest path */
	char *digest;	  /* its fs-verity digest (hex) */
	char *mountpoint; /* where the tree is mounted */
	bool managed;	  /* cfs-podman mounts it (at AIS/mnt/ID) */
	bool verity;	  /* mounted with digest= */
	bool was_mounted; /* an external mountpoint was a mount at add */
};
int pmeta_parse(struct json_object *image, struct pmeta *m);
char *pmeta_format(const struct pmeta *m);
void pmeta_free(struct pmeta *m);

/* Removes a layer's overlay/ entries (link, diff, l/ symlink); ignores
 * whatever is already gone. */
void pstore_remove_layer_files(struct pstore *p, const char *layer_id);
/* Removes overlay-images/ID/ and its big data files. */
void pstore_remove_big_data(struct pstore *p, const char *id);

/* Entries in a directory other than . and ..; -1 if not a directory. */
int pstore_dir_entries(const char *path);

/* --- store.c */
/*
 * Removes an image's records, big data and (if no other image uses it)
 * its layer, refusing while a container uses it. The store must be
 * locked for writing. meta_out gets its cfs metadata (zeroed if none).
 */
int pstore_remove_image(struct pstore *p, const struct cfs_podman_opts *o,
			const char *id, struct pmeta *meta_out);
/* Unmounts and removes a managed mountpoint; nothing for external ones. */
int pstore_release_mount(const struct pmeta *m);

/* --- names.c: names, their lookup, and podman's other stores */
/* "x" -> "localhost/x:latest"; NULL with cfs_error if invalid. */
char *pname_normalize(const char *name);
/*
 * The image a name, id or id prefix (>= 3 digits) or cfs ref resolves to
 * as podman resolves names (cfs_name_resolve): 1, 0 or -1 as it does.
 */
int pstore_lookup_image(struct pstore *p, const char *name,
			struct json_object **image);
/*
 * Where else (primary store, other additional stores, this AIS except the
 * image except_id) the name is used: returns a malloc'ed description, or
 * NULL if unused.
 */
char *pname_used(struct pstore *p, const struct cfs_podman_opts *o,
		 const char *name, const char *except_id);
/* Id of a container in the primary store using image id, or NULL. */
char *pcontainer_using(const struct cfs_podman_opts *o, const char *id);
/*
 * Name of an image in the primary store on this layer (podman tag copies
 * an additional store's record there), or NULL.
 */
char *pprimary_image_on_layer(const struct cfs_podman_opts *o,
			      const char *layer);
/*
 * Name of an image with this id in the primary store (pulled there too:
 * podman would show that one and hide ours), or NULL.
 */
char *pprimary_image_with_id(const struct cfs_podman_opts *o, const char *id);

/* --- mount.c */
/* 1 if path is the root of a mount, 0 if not, -1 on error. */
int pmount_is_mounted(const char *path);
/* Runs mount.composefs MANIFEST TARGET -o ro,basedir=STORE[,digest=]. */
int pmount_mount(const struct cfs_podman_opts *o, const char *store,
		 const char *manifest, const char *digest, const char *target);
int pmount_umount(const char *target);
/* Mounts a managed image's tree if it is not mounted. */
int pmount_ensure(const struct cfs_podman_opts *o, const struct pstore *p,
		  const struct pmeta *m);

#endif
