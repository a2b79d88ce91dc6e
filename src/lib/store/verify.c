// SPDX-License-Identifier: MIT
/* Checking an existing object before a conversion reuses it. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfs/store-layout.h"
#include "cfs/util.h"

static bool no_verity_errno(int e)
{
	return e == ENOTTY || e == EOPNOTSUPP || e == EINVAL;
}

/*
 * Measures fd, enabling verity first if it has none. Returns 0, 1 when the
 * filesystem has no fs-verity, -1 when it cannot be measured.
 */
static int measure_or_enable(int dirfd, const char *path, uint8_t *out)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	int r, e;

	if (fd < 0)
		return -1;
	r = cfs_verity_measure(fd, out);
	e = errno;
	if (r < 0 && e == ENODATA) {
		/* enabling needs no writer: a read-only fd will do */
		r = cfs_verity_enable(fd);
		e = errno;
		if (r == 0 || e == EEXIST)
			r = cfs_verity_measure(fd, out), e = errno;
	}
	close(fd);
	if (r == 0)
		return 0;
	return no_verity_errno(e) ? 1 : -1;
}

enum cfs_existing
cfs_store_check_existing(int dirfd, const char *path,
			 const uint8_t digest[CFS_DIGEST_SIZE])
{
	uint8_t actual[CFS_DIGEST_SIZE];
	int r = measure_or_enable(dirfd, path, actual);

	if (r == 1)
		return CFS_EXISTING_NO_VERITY;
	if (r < 0 || !memcmp(actual, digest, CFS_DIGEST_SIZE))
		return CFS_EXISTING_OK;
	return cfs_layout_move_aside_at(dirfd, path) == 0 ? CFS_EXISTING_REPLACE
							  : CFS_EXISTING_OK;
}
