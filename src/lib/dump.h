/* SPDX-License-Identifier: MIT */
/* The composefs-dump(5) text format: printing images, parsing into trees. */
#ifndef CFS_DUMP_H
#define CFS_DUMP_H

#include <stddef.h>
#include <stdio.h>

#include "image.h"
#include "store.h"
#include "tree.h"

/* One line per file, depth first, children in name order. */
int cfs_dump_image(const struct cfs_image *img, FILE *out);

/* Parses a dump; name is used in error messages ("NAME:LINE: ..."). */
struct cfs_tree *cfs_dump_parse(const char *data, size_t len, const char *name);
/*
 * The same; inline CONTENT becomes an object in store (may be NULL: then
 * only its digest is computed). Objects need cfs_store_commit() after.
 */
struct cfs_tree *cfs_dump_parse_store(const char *data, size_t len,
				      const char *name,
				      struct cfs_store *store);

#endif
