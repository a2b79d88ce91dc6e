/* SPDX-License-Identifier: MIT */
/* The composefs-dump(5) text format: printing images, parsing into trees. */
#ifndef CFS_DUMP_H
#define CFS_DUMP_H

#include <stddef.h>
#include <stdio.h>

#include "image.h"
#include "tree.h"

/* One line per file, depth first, children in name order. */
int cfs_dump_image(const struct cfs_image *img, FILE *out);

/* Parses a dump; name is used in error messages ("NAME:LINE: ..."). */
struct cfs_tree *cfs_dump_parse(const char *data, size_t len, const char *name);

#endif
