/* SPDX-License-Identifier: MIT */
/* Path rules for layer entries: cleaning tar member names, checking them. */
#ifndef CFS_LAYER_PATH_H
#define CFS_LAYER_PATH_H

#include <stdbool.h>
#include <stddef.h>

#define CFS_PATH_MAX 4095 /* longest name or link target accepted */
#define CFS_NAME_MAX 255  /* longest path component */

/*
 * Cleans a tar member name into *out (malloc'ed): strips leading "/" and
 * "./", collapses "//", drops "." and resolves ".." lexically, never
 * above the root. "" is the root itself. Fails (cfs_error set) if the name
 * is longer than CFS_PATH_MAX or a component longer than CFS_NAME_MAX.
 */
int cfs_layer_path_clean(const char *in, char **out);

/* True if p (len bytes) is already in the form cfs_layer_path_clean gives. */
bool cfs_layer_path_is_clean(const char *p, size_t len);

#endif
