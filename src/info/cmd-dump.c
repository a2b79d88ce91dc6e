// SPDX-License-Identifier: MIT
/* cfs-info dump and ls: print an image's files. */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfs/dump.h"
#include "info.h"
#include "cfs/util.h"

int cmd_dump(int argc, char **argv, const char *basedir)
{
	struct info_image ii;
	int ret = 0;

	if (need_operands(argc, 1, "dump") < 0)
		return 2;
	if (at_most_one(argc, "dump") < 0)
		return 2;
	if (info_open(&ii, argv[1]) < 0)
		return 1;
	if (cfs_dump_image(&ii.img, stdout) < 0) {
		fprintf(stderr, "%s: %s: %s\n", TOOL, ii.name, cfs_strerror());
		ret = 1;
	}
	info_close(&ii);
	return ret;
}

static void ls_one(const char *path, size_t path_len, uint32_t ino_num,
		   const struct cfs_image_inode *ino, void *opaque)
{
	cfs_dump_escape(stdout, path, path_len, 0);
	if (S_ISLNK(ino->mode)) {
		fputs(" -> ", stdout);
		cfs_dump_escape(stdout, ino->vdata, ino->vdata_len, 0);
	} else if (S_ISREG(ino->mode) && ino->vdata_len > 0) {
		fputs(" @ ", stdout);
		cfs_dump_escape(stdout, ino->vdata, ino->vdata_len, 0);
	}
	putchar('\n');
}

int cmd_ls(int argc, char **argv, const char *basedir)
{
	struct info_image ii;

	if (need_operands(argc, 1, "ls") < 0)
		return 2;
	if (at_most_one(argc, "ls") < 0)
		return 2;
	if (info_open(&ii, argv[1]) < 0)
		return 1;
	cfs_image_walk(&ii.img, ls_one, NULL);
	info_close(&ii);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "%s: write error\n", TOOL);
		return 1;
	}
	return 0;
}
