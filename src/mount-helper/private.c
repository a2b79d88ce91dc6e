// SPDX-License-Identifier: MIT
/*
 * An upperdir= mount keeps its composefs mount at MH_PRIVATE_ROOT/HASH,
 * HASH the SHA-256 of the canonical target path, so that umount can tell
 * it from anything else and every target has its own.
 */
#include <stdlib.h>
#include <string.h>

#include "mount-helper.h"
#include "cfs/sha256.h"
#include "cfs/store-layout.h"
#include "cfs/util.h"

char *mh_private_dir(const char *target)
{
	char hex[CFS_SHA256_HEX_LEN + 1];

	if (cfs_sha256_hex(target, strlen(target), hex) < 0)
		return NULL;
	return xasprintf("%s/%s", MH_PRIVATE_ROOT, hex);
}

bool mh_is_private_dir(const char *path)
{
	size_t root = strlen(MH_PRIVATE_ROOT);
	const char *name = path + root + 1;

	return strncmp(path, MH_PRIVATE_ROOT "/", root + 1) == 0 &&
	       cfs_image_id_ok(name);
}

char *mh_private_lower(struct libmnt_fs *fs)
{
	const char *type = mnt_fs_get_fstype(fs);
	char *val = NULL;
	size_t len = 0;
	char *lower;

	if (!type || strcmp(type, "overlay") != 0 ||
	    mnt_fs_get_option(fs, "lowerdir", &val, &len) != 0 || !val)
		return NULL;
	lower = xstrndup(val, len);
	if (mh_is_private_dir(lower))
		return lower;
	free(lower);
	return NULL;
}

bool mh_is_composefs_mount(struct libmnt_fs *fs)
{
	const char *type = mnt_fs_get_fstype(fs);
	char *lower;

	if (type && strcmp(type, "composefs") == 0)
		return true;
	lower = mh_private_lower(fs);
	free(lower);
	return lower != NULL;
}
