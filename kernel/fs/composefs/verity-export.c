// SPDX-License-Identifier: GPL-2.0
/*
 * A file's fs-verity digest from fsverity_get_digest(), for kernels that
 * export it (in tree, with this series).  The digest is the one fs-verity
 * computed when it loaded the file's descriptor at open, the same one it
 * verifies every read against.
 */

#include <linux/fsverity.h>
#include <linux/module.h>
#include "internal.h"

MODULE_INFO(verity_digest, "fsverity_get_digest");

int cfs_verity_init(void)
{
	return 0;
}

void cfs_verity_exit(void)
{
}

int cfs_fsverity_digest(struct inode *inode, u8 digest[CFS_DIGEST_SIZE])
{
	u8 buf[FS_VERITY_MAX_DIGEST_SIZE];
	enum hash_algo alg;
	int err;

	err = fsverity_get_digest(inode, buf, &alg);
	if (err)
		return err;
	if (alg != HASH_ALGO_SHA256)
		return -EOPNOTSUPP;
	memcpy(digest, buf, CFS_DIGEST_SIZE);
	return 0;
}
