// SPDX-License-Identifier: MIT
#include "rules.h"

#include <string.h>
#include <sys/stat.h>

#include <linux/composefs.h>

bool cfs_mode_ok(uint32_t mode)
{
	return !(mode & ~(uint32_t)(S_IFMT | 07777)) && cfs_mode_type_ok(mode);
}

bool cfs_mode_type_ok(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:
	case S_IFREG:
	case S_IFLNK:
	case S_IFCHR:
	case S_IFBLK:
	case S_IFIFO:
	case S_IFSOCK:
		return true;
	}
	return false;
}
