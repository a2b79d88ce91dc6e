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

bool cfs_name_ok(const void *name, size_t len)
{
	const char *p = name;

	if (len < 1 || len > CFS_MAX_NAME || memchr(p, '/', len) ||
	    memchr(p, 0, len))
		return false;
	if (len == 1 && p[0] == '.')
		return false;
	return !(len == 2 && p[0] == '.' && p[1] == '.');
}

bool cfs_backing_path_ok(const void *path, size_t len)
{
	const char *p = path;
	size_t start = 0;

	if (len < 1 || len > CFS_MAX_PATH || p[0] == '/' || memchr(p, 0, len))
		return false;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && p[i] != '/')
			continue;
		if (i - start == 2 && p[start] == '.' && p[start + 1] == '.')
			return false;
		start = i + 1;
	}
	return true;
}
