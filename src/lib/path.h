/* SPDX-License-Identifier: MIT */
/*
 * Paths inside an image, with the format's limits (CFS_MAX_NAME,
 * CFS_MAX_PATH from linux/composefs.h): names, backing paths, clean
 * relative paths (layer entries, the layer cache, composefs-dump(5) PATH
 * fields) and lexical cleaning of tar member names and link targets.
 */
#ifndef CFS_PATH_H
#define CFS_PATH_H

#include <stdbool.h>
#include <stddef.h>

#include <linux/composefs.h>

/* A directory entry name: 1..255 bytes, no '/', no NUL, not "." or "..". */
bool cfs_name_ok(const void *name, size_t len);
/* A backing path: relative, 1..4095 bytes, no NUL, no ".." component. */
bool cfs_backing_path_ok(const void *path, size_t len);

/* Why a relative path is not clean, or CFS_PATH_CLEAN. */
enum cfs_path_fault {
	CFS_PATH_CLEAN,
	CFS_PATH_NOT_NORMAL, /* "//", ".", "..", or a leading or trailing '/' */
	CFS_PATH_NAME_TOO_LONG,
};
/*
 * Components of p (len bytes): each 1..255 bytes, none "." or "..";
 * "" (the top, as cfs_path_clean gives it) is clean.
 */
enum cfs_path_fault cfs_path_check(const char *p, size_t len);
/* Clean as cfs_path_clean gives it: checked, at most 4095 bytes, no NUL. */
bool cfs_path_is_clean(const char *p, size_t len);

/*
 * Lexical cleaning (malloc'ed): strips leading "/", collapses "//", drops
 * "." and resolves ".."; "" is the top. A ".." at the top stays there and
 * sets *above (if not NULL). No limits are checked.
 */
char *cfs_path_normalize(const char *in, bool *above);
/*
 * A tar member name cleaned into *out, ".." never above the top; fails
 * (cfs_error set) if it is longer than CFS_MAX_PATH or has a component
 * longer than CFS_MAX_NAME.
 */
int cfs_path_clean(const char *in, char **out);

#endif
