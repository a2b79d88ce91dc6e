/* SPDX-License-Identifier: MIT */
/*
 * What a store holds and who uses it, answered once for every tool: the
 * manifests in images/ and the refs naming them (as the store's listing
 * gives them, cfs/store-layout.h), the images registered with podman
 * through cfs-podman (cfs/podman.h) and the manifests mounted now
 * (/proc/self/mountinfo). It sits above both the store and podman rooms,
 * which it asks; neither includes it.
 */
#ifndef CFS_INVENTORY_H
#define CFS_INVENTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfs/store-layout.h"

struct cfs_inv_image {
	char id[CFS_IMAGE_ID_LEN + 1];
	char **refs;
	size_t n_refs;
	bool podman, mounted; /* registered with podman, mounted now */
	char *created;	      /* the config's "created", or NULL */
	char seal[2 * CFS_DIGEST_SIZE + 1]; /* ID.seal in hex, or "" */
	bool bad_seal;			    /* ID.seal cannot be read */
	/* left 0 for whoever reads the manifests (cfs-store) */
	bool bad; /* the manifest does not validate */
	uint64_t objects, bytes, exclusive_bytes;
};

struct cfs_inv_dangling {
	char *name, *why;
};

struct cfs_inventory {
	const char *store;
	struct cfs_inv_image *images;
	size_t n_images;
	struct cfs_inv_dangling *dangling;
	size_t n_dangling;
	char **podman_ids; /* registered with podman, ids */
	char **podman_manifests;
	size_t n_podman;
	bool podman_unreadable; /* lenient load: the records cannot be read */
	char **mounted;		/* canonical manifest paths mounted now */
	size_t n_mounted;
	char **mounted_digests; /* digest= of composefs mounts, hex */
	size_t n_mounted_digests;
};

/*
 * Loads what store holds and who uses it; -1 after a message (a directory
 * that cannot be read, podman records that cannot be read, no
 * /proc/self/mountinfo). inv->store points to store.
 */
int cfs_inventory_load(struct cfs_inventory *inv, const char *store);
/* lenient: podman records that cannot be read leave n_podman 0 (fsck). */
int cfs_inventory_load_all(struct cfs_inventory *inv, const char *store,
			   bool lenient);
void cfs_inventory_free(struct cfs_inventory *inv);
/* The image of id, or NULL. */
struct cfs_inv_image *cfs_inventory_find(struct cfs_inventory *inv,
					 const char *id);
/* A root of gc: a ref, podman or a mount uses it. */
bool cfs_inventory_is_root(const struct cfs_inv_image *img);

#endif
