/* SPDX-License-Identifier: MIT */
/*
 * Registering composefs images with podman 4.3 (containers/storage 1.43)
 * through an additional image store (AIS, default STORE/podman): one image
 * with a single synthetic layer whose diff is the mounted composefs tree,
 * carrying the image's original OCI manifest and config.
 */
#ifndef CFS_PODMAN_STORE_H
#define CFS_PODMAN_STORE_H

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
	/* a name under STORE/refs/, or the path of a .cfs manifest */
	const char *image;
	/* NULL-terminated names ("repo:tag"; "x" means localhost/x:latest) */
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
 * Removes an image (by name, id, id prefix of at least 12 digits, or cfs
 * ref) from the AIS, refusing while a container of podman's primary store
 * uses it; then unmounts and removes its mountpoint if cfs-podman made it.
 */
int cfs_podman_remove(const struct cfs_podman_opts *o, const char *name);

#endif
