// SPDX-License-Identifier: MIT
#include "cfs/verity.h"

#include <errno.h>
#include <libfsverity.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfs/error.h"
#include "cfs/file-io.h"
#include "cfs/mem.h"

static int compute(void *opaque, libfsverity_read_fn_t fn, uint64_t size,
		   uint8_t out[CFS_DIGEST_SIZE])
{
	struct libfsverity_merkle_tree_params params = {
		.version = 1,
		.hash_algorithm = FS_VERITY_HASH_ALG_SHA256,
		.file_size = size,
		.block_size = CFS_VERITY_BLOCK_SIZE,
	};
	struct libfsverity_digest *d = NULL;
	int r = libfsverity_compute_digest(opaque, fn, &params, &d);

	if (r < 0) {
		if (!errno)
			errno = -r;
		cfs_error("computing fs-verity digest: %s", strerror(-r));
		return -1;
	}
	memcpy(out, d->digest, CFS_DIGEST_SIZE);
	free(d);
	return 0;
}

int cfs_mem_read_fn(void *opaque, void *buf, size_t count)
{
	struct cfs_mem_src *m = opaque;

	if (count > m->left)
		return -EIO;
	memcpy(buf, m->p, count);
	m->p += count;
	m->left -= count;
	return 0;
}

int cfs_verity_digest_mem(const void *data, size_t len,
			  uint8_t out[CFS_DIGEST_SIZE])
{
	struct cfs_mem_src m = {data, len};

	return compute(&m, cfs_mem_read_fn, len, out);
}

int cfs_fd_read_fn(void *opaque, void *buf, size_t count)
{
	int r = cfs_read_exact(*(int *)opaque, buf, count);

	if (r < 0)
		cfs_error("reading: %s",
			  r == -EIO ? "file shrank while read" : strerror(-r));
	return r;
}

int cfs_verity_digest_fd(int fd, uint64_t size, uint8_t out[CFS_DIGEST_SIZE])
{
	if (lseek(fd, 0, SEEK_SET) < 0) {
		cfs_error("seek: %s", strerror(errno));
		return -1;
	}
	return compute(&fd, cfs_fd_read_fn, size, out);
}

int cfs_verity_digest_stream(cfs_read_fn fn, void *opaque, uint64_t size,
			     uint8_t out[CFS_DIGEST_SIZE])
{
	return compute(opaque, fn, size, out);
}

int cfs_verity_enable(int fd)
{
	int e;

	if (cfs_verity_enable_errno(fd) == 0)
		return 0;
	e = errno;
	cfs_error("cannot enable fs-verity: %s", strerror(e));
	errno = e;
	return -1;
}
