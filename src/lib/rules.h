/* SPDX-License-Identifier: MIT */
/* Format rules that the writer enforces and the reader checks. */
#ifndef CFS_RULES_H
#define CFS_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A file type the format knows, and no bits beyond type and permissions. */
bool cfs_mode_ok(uint32_t mode);
/* A file type the format knows (permission bits not looked at). */
bool cfs_mode_type_ok(uint32_t mode);
/* 1..255 bytes, no '/', no NUL, not "." or "..". */
bool cfs_name_ok(const void *name, size_t len);
/* Relative, 1..4095 bytes, no NUL, no ".." component. */
bool cfs_backing_path_ok(const void *path, size_t len);

#endif
