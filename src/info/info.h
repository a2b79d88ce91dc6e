/* SPDX-License-Identifier: MIT */
/* cfs-info: shared helpers of the subcommands. */
#ifndef CFS_INFO_H
#define CFS_INFO_H

#include <stddef.h>
#include <stdint.h>

#include "cfs/image.h"

#define TOOL "cfs-info"

/* An image opened from a file, or from stdin for "-". */
struct info_image {
	struct cfs_image img;
	const char *name;
	uint8_t *buf; /* stdin contents, else NULL */
};

/* Opens and validates; prints "cfs-info: NAME: MESSAGE" on failure. */
int info_open(struct info_image *ii, const char *path);
void info_close(struct info_image *ii);

/*
 * Subcommands; argv[0] is the subcommand name, then its operands (options
 * are parsed in main.c). Return the exit status.
 */
int cmd_dump(int argc, char **argv, const char *basedir);
int cmd_ls(int argc, char **argv, const char *basedir);
int cmd_objects(int argc, char **argv, const char *basedir);
int cmd_missing_objects(int argc, char **argv, const char *basedir);
int cmd_check(int argc, char **argv, const char *basedir);
int cmd_measure(int argc, char **argv, const char *basedir);

/* Usage errors (printed, -1) unless argv holds at least min operands... */
int need_operands(int argc, int min, const char *cmd);
/* ... or at most one. */
int at_most_one(int argc, const char *cmd);

#endif
