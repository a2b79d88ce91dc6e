/* SPDX-License-Identifier: MIT */
/*
 * What a conversion is about to write into a store beside its objects:
 * the files of image ID and refs/NAME. When a later step fails (oci2cfs
 * --podman: the registration with podman), the store is put back as it
 * was, so that nothing half-done is left.
 */
#ifndef CFS_STORE_UNDO_H
#define CFS_STORE_UNDO_H

#include <stdbool.h>

struct cfs_layout_undo {
	char *store, *id, *ref;
	char *old_target; /* what refs/NAME linked to before, or NULL */
	bool had_image;	  /* images/ID.cfs was there before */
};

/* Notes what is there now; id may carry "sha256:", ref may be NULL. */
void cfs_layout_undo_save(struct cfs_layout_undo *u, const char *store,
			  const char *id, const char *ref);
/*
 * Points refs/NAME back to what it linked to (or removes it), then
 * removes the image files if they are new and no ref leads to them now;
 * -1 after cfs_error() if something could not be put back.
 */
int cfs_layout_undo_apply(const struct cfs_layout_undo *u);
void cfs_layout_undo_free(struct cfs_layout_undo *u);

/* Removes images/ID.{cfs,json,manifest.json}, the manifest first. */
int cfs_layout_remove_image(const char *store, const char *id);

#endif
