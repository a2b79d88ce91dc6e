/* SPDX-License-Identifier: MIT */
/* mkcfs: shared declarations. */
#ifndef CFS_MKCFS_H
#define CFS_MKCFS_H

#include <stdbool.h>

#include "cfs/store.h"
#include "cfs/tree.h"

#define TOOL "mkcfs"

struct mkcfs_opts {
	const char *source, *image, *store_dir;
	bool from_file, print_digest, use_epoch, skip_xattrs;
	enum cfs_sync sync;
};

/*
 * Loads the source tree: a directory (scanned, contents added to store if
 * not NULL) or a dump file. Returns NULL with cfs_error set.
 */
struct cfs_tree *mkcfs_load(const struct mkcfs_opts *o,
			    struct cfs_store *store);

#endif
