/* SPDX-License-Identifier: MIT */
/*
 * fs-verity digests (SHA-256, 4096-byte blocks, no salt) via libfsverity
 * (verity.c: above the base, it uses cfs/error.h, cfs/mem.h and
 * cfs/file-io.h). The ioctls are the leaf cfs/verity-ioctl.h.
 */
#ifndef CFS_VERITY_H
#define CFS_VERITY_H

#include <stddef.h>
#include <stdint.h>

#include <linux/composefs.h>

#include "cfs/verity-ioctl.h"

/* Digest of an in-memory buffer. */
int cfs_verity_digest_mem(const void *data, size_t len,
			  uint8_t out[CFS_DIGEST_SIZE]);
/* A cfs_read_fn reading memory (opaque points to a struct cfs_mem_src). */
struct cfs_mem_src {
	const uint8_t *p;
	size_t left;
};
int cfs_mem_read_fn(void *opaque, void *buf, size_t count);
/* A cfs_read_fn reading an fd (opaque points to the int fd). */
int cfs_fd_read_fn(void *opaque, void *buf, size_t count);
/* Digest of an open file's content from offset 0 (size given). */
int cfs_verity_digest_fd(int fd, uint64_t size, uint8_t out[CFS_DIGEST_SIZE]);

/*
 * Digest of a stream: read_fn is called until size bytes were produced, the
 * same contract as libfsverity's read callback (fill exactly count bytes,
 * return 0, or -errno).
 */
typedef int (*cfs_read_fn)(void *opaque, void *buf, size_t count);
int cfs_verity_digest_stream(cfs_read_fn fn, void *opaque, uint64_t size,
			     uint8_t out[CFS_DIGEST_SIZE]);

/*
 * cfs_verity_enable_errno() (cfs/verity-ioctl.h) that also records
 * "cannot enable fs-verity: REASON" with cfs_error(); errno is kept.
 */
int cfs_verity_enable(int fd);

#endif
