// SPDX-License-Identifier: MIT
/* The fs-verity ioctl wrappers: a leaf, no message, errno only. */
#include "cfs/verity-ioctl.h"

#include <errno.h>
#include <libfsverity.h>
#include <linux/fsverity.h>
#include <string.h>
#include <sys/ioctl.h>

int cfs_verity_enable_errno(int fd)
{
	struct libfsverity_merkle_tree_params params = {
		.version = 1,
		.hash_algorithm = FS_VERITY_HASH_ALG_SHA256,
		.block_size = CFS_VERITY_BLOCK_SIZE,
	};
	int r = libfsverity_enable(fd, &params);

	if (r == -EEXIST)
		return 0;
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return 0;
}

int cfs_verity_measure(int fd, uint8_t out[CFS_DIGEST_SIZE])
{
	struct {
		struct fsverity_digest d;
		uint8_t buf[64];
	} m = {.d.digest_size = 64};

	if (ioctl(fd, FS_IOC_MEASURE_VERITY, &m) < 0)
		return -1;
	if (m.d.digest_algorithm != FS_VERITY_HASH_ALG_SHA256 ||
	    m.d.digest_size != CFS_DIGEST_SIZE) {
		errno = EINVAL;
		return -1;
	}
	memcpy(out, m.d.digest, CFS_DIGEST_SIZE);
	return 0;
}
