/* SPDX-License-Identifier: MIT */
/*
 * Format rules on modes that the writer enforces and the reader checks
 * (those on names and paths: path.h).
 */
#ifndef CFS_RULES_H
#define CFS_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A file type the format knows, and no bits beyond type and permissions. */
bool cfs_mode_ok(uint32_t mode);
/* A file type the format knows (permission bits not looked at). */
bool cfs_mode_type_ok(uint32_t mode);

#endif
