/* SPDX-License-Identifier: MIT */
/* Reading a directory tree from the filesystem into a cfs_tree. */
#ifndef CFS_SCAN_H
#define CFS_SCAN_H

#include "cfs/store.h"
#include "cfs/tree.h"

#define CFS_SCAN_USE_EPOCH 1   /* every mtime becomes 0 */
#define CFS_SCAN_SKIP_XATTRS 2 /* record no xattrs */

/*
 * Walks path (not following symlinks below it, never crossing a mount
 * point: that is an error). Regular files with content get a backing path
 * "xx/yyyy..." named by their fs-verity digest; with a store the content
 * is also added to it (the caller commits). Hard links share one inode.
 * Returns NULL with cfs_error set ("SUBPATH: problem") on failure.
 */
struct cfs_tree *cfs_scan_dir(const char *path, struct cfs_store *store,
			      unsigned int flags);

#endif
