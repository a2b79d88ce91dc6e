/* SPDX-License-Identifier: MIT */
/* Escaping of composefs-dump(5) fields (private to the dump code). */
#ifndef CFS_DUMP_ESCAPE_H
#define CFS_DUMP_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

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
