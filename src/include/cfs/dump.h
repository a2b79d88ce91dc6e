/* SPDX-License-Identifier: MIT */
/* The composefs-dump(5) text format: printing images, parsing into trees. */
#ifndef CFS_DUMP_H
#define CFS_DUMP_H

#include <stddef.h>
#include <stdio.h>

#include "cfs/image.h"
#include "cfs/store.h"
#include "cfs/tree.h"

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

/* Escaping of composefs-dump(5) fields, shared by the dump code and cfs-info. */
#define CFS_ESC_EQUAL 1	    /* also escape '=' (xattr keys and values) */
#define CFS_ESC_LONE_DASH 2 /* a value that is exactly "-" becomes \x2d */

/* Writes len bytes of s to out, escaped. */
void cfs_dump_escape(FILE *out, const void *s, size_t len, unsigned int flags);

/*
 * Decodes an escaped field into a malloc'ed, NUL-terminated buffer.
 * Returns 0, or -1 with a cfs_error describing the bad escape.
 */
int cfs_dump_unescape(const char *s, size_t len, char **out, size_t *out_len);

#endif
