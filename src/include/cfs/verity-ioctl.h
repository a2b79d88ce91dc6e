/* SPDX-License-Identifier: MIT */
/*
 * The fs-verity ioctls on an open file (verity-ioctl.c). A leaf: it
 * includes nothing of ours but the uapi header, records no message and
 * reports through errno, so the file I/O of the base can use it.
 * Digest computation (libfsverity's Merkle tree) is cfs/verity.h.
 */
#ifndef CFS_VERITY_IOCTL_H
#define CFS_VERITY_IOCTL_H

#include <stdint.h>

#include <linux/composefs.h>

/* The Merkle tree block size of every digest cfs computes or enables. */
#define CFS_VERITY_BLOCK_SIZE 4096

/*
 * Enable fs-verity (SHA-256, 4096-byte blocks, no salt) on fd, which must
 * not be open for writing anywhere. Returns 0, or -1 with errno and no
 * message: EOPNOTSUPP/ENOTTY where the filesystem has no verity; EEXIST
 * is treated as success. cfs_verity_enable() also records a message.
 */
int cfs_verity_enable_errno(int fd);
/*
 * Measure the enabled fs-verity digest of fd: 0, or -1 with errno (ENODATA:
 * verity is not enabled) and no message: callers probe with it.
 */
int cfs_verity_measure(int fd, uint8_t out[CFS_DIGEST_SIZE]);

#endif
