/* SPDX-License-Identifier: MIT */
/*
 * Registering composefs images with podman 4.3 (containers/storage 1.43)
 * through an additional image store (AIS, default STORE/podman): one image
 * with a single synthetic layer whose diff is the mounted composefs tree,
 * carrying the image's original OCI manifest and config.
 *
 * The whole contract of src/lib/podman/: setup (storage.conf), add, remove,
 * the registered images (cfs-podman list, cfs-store's gc roots) and one
 * check of the records (cfs-podman check/sync, cfs-store fsck). Functions
 * return 0 or -1 with cfs_error() set; nothing here prints, except a
 * mount helper that cannot be run (prefixed with the running program).
 */
#ifndef CFS_PODMAN_H
#define CFS_PODMAN_H

#include <stdbool.h>
#include <stddef.h>

#define CFS_PODMAN_ID_LEN 64 /* hex image id = config digest */

struct cfs_podman_opts {
	const char *store; /* the cfs store (objects, images/, refs/) */
	const char *ais;   /* NULL: STORE/podman */
	/* NULL: $CONTAINERS_STORAGE_CONF, else /etc/containers/storage.conf */
	const char *storage_conf;
	/*
	 * NULL: $CFS_MOUNT_HELPER, else mount.composefs next to the running
	 * program, else /sbin/mount.composefs.
	 */
	const char *mount_helper;
};

struct cfs_podman_add {
	/*
	 * the path of a .cfs manifest, or a name or id of the store
	 * (cfs_layout_lookup in cfs/image-name.h)
	 */
	const char *image;
	/*
	 * NULL-terminated names ("repo:tag"; "x" means localhost/x:latest);
	 * one equal to image means the ref it resolved to (none for an id)
	 */
	const char *const *names;
	/* an already mounted tree to use instead of mounting at AIS/mnt/ID */
	const char *mountpoint;
};

/*
 * Mounts the manifest read-only at AIS/mnt/ID (through mount.composefs,
 * digest= when the manifest has fs-verity) unless a->mountpoint is given,
 * then writes the containers-storage records under the store locks. A name
 * already used in any of podman's stores is refused. Adding an image that
 * is already registered from the same manifest adds the new names only.
 * On success id_out holds the hex image id.
 */
int cfs_podman_add(const struct cfs_podman_opts *o,
		   const struct cfs_podman_add *a,
		   char id_out[CFS_PODMAN_ID_LEN + 1]);

/*
 * Removes an image (by name, id, id prefix of at least 3 digits, or cfs
 * ref, as cfs_layout_lookup resolves them) from the AIS, refusing while a
 * container of podman's primary store uses it; then unmounts and removes
 * its mountpoint if cfs-podman made it.
 */
int cfs_podman_remove(const struct cfs_podman_opts *o, const char *name);

/* Looks an image up as remove does; id_out gets its id. */
int cfs_podman_lookup(const struct cfs_podman_opts *o, const char *name,
		      char id_out[CFS_PODMAN_ID_LEN + 1]);

/* --- the registered images */

enum cfs_podman_mount_state {
	CFS_PODMAN_MOUNTED,  /* mounted at its mountpoint */
	CFS_PODMAN_MISSING,  /* should be mounted (or filled) and is not */
	CFS_PODMAN_EXTERNAL, /* a tree of its own, not a mount */
};

struct cfs_podman_image {
	const char *id;		  /* as recorded ("?" if none) */
	const char *const *names; /* NULL-terminated, as recorded */
	const char *manifest;	  /* NULL: not registered by cfs-podman */
	const char *digest;	  /* fs-verity digest of the manifest */
	const char *mountpoint;	  /* where the tree is */
	enum cfs_podman_mount_state mount;
};

/* Called for each image record; non-zero stops the walk (returned). */
typedef int (*cfs_podman_image_fn)(const struct cfs_podman_image *img,
				   void *opaque);
/*
 * Calls fn for every image record of the AIS, in record order, under the
 * store's read locks (a missing AIS has none). with_mount: fill ->mount
 * (one statx per image); otherwise it is CFS_PODMAN_MISSING.
 */
int cfs_podman_images(const struct cfs_podman_opts *o, bool with_mount,
		      cfs_podman_image_fn fn, void *opaque);

/* --- check and sync: do the records, the files and the mounts agree? */

struct cfs_podman_finding {
	/* what it is about: "image 0123456789ab", "layer ...", a path */
	const char *subject;
	const char *problem; /* e.g. "manifest /x.cfs is gone" */
	bool repairable;     /* sync (repair) can fix it */
	int repaired;	     /* with repair: 1 done, -1 failed (why), else 0 */
	const char *why;     /* why the repair failed */
};

typedef void (*cfs_podman_finding_fn)(const struct cfs_podman_finding *f,
				      void *opaque);
/*
 * One check of the AIS for every caller: temporary files of interrupted
 * writes, records that do not parse or name a manifest that is gone (or
 * is another image), records without their layer or data, layers no image
 * uses, files and mountpoints without a record, registered images not
 * mounted. With repair (write locks) each finding that can be fixed
 * safely is: unmount and unregister an image whose manifest is gone,
 * remount a managed mount, remove leftovers. fn gets every finding, after
 * its repair; *remaining counts those not repaired.
 */
int cfs_podman_check(const struct cfs_podman_opts *o, bool repair,
		     cfs_podman_finding_fn fn, void *opaque, size_t *remaining);

/* --- setup: podman's storage.conf */

/*
 * The AIS directory as storage.conf names it (malloc'ed); NULL (error set)
 * if it cannot be written there (a quote, backslash or newline).
 */
char *cfs_podman_ais_dir(const struct cfs_podman_opts *o);
/* The storage.conf in use: the option, $CONTAINERS_STORAGE_CONF or /etc. */
const char *cfs_podman_storage_conf(const struct cfs_podman_opts *o);
/*
 * Makes the AIS directory and adds it to additionalimagestores in file
 * (created from podman's vendor file if missing), touching nothing else.
 * *changed: false if it was already listed.
 */
int cfs_podman_install(const struct cfs_podman_opts *o, const char *file,
		       bool *changed);

#endif
