// SPDX-License-Identifier: MIT
/*
 * Placing an object: fs-verity enabled on its temp, then the final name
 * xx/yyyy... given with RENAME_NOREPLACE (a concurrent writer of the same
 * object simply loses the race, and a final name never holds a partial
 * object). Both the object writer (objects.c) and the commit (commit.c)
 * place objects: this leaf keeps them from depending on each other.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfs/store-layout.h"
#include "cfs/util.h"

/* The object's xx/ directory, made once per store handle. */
int cfs_store_make_fanout(struct cfs_store *s, char *path, uint8_t first)
{
	if (atomic_load(&s->fanout_made[first]))
		return 0;
	path[2] = '\0';
	if (mkdirat(s->dirfd, path, CFS_STORE_DIR_MODE) < 0 &&
	    errno != EEXIST) {
		path[2] = '/';
		return -1;
	}
	path[2] = '/';
	atomic_store(&s->fanout_made[first], true);
	return 0;
}

int cfs_store_enable_verity(struct cfs_store *s, const char *tmp)
{
	int fd, r;

	if (s->opts.no_verity || s->verity_unsupported)
		return 0;
	fd = openat(s->dirfd, tmp, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		cfs_error("%s: %s: %s", s->dir, tmp, strerror(errno));
		return -1;
	}
	r = cfs_verity_enable(fd);
	close(fd);
	if (r == 0) {
		atomic_store(&s->verity_used, true);
		return 0;
	}
	if (errno != EOPNOTSUPP && errno != ENOTTY && errno != EINVAL) {
		cfs_error_prefix("%s: %s", s->dir, tmp);
		return -1;
	}
	if (s->opts.require_verity) {
		cfs_error("%s: filesystem does not support fs-verity "
			  "(--require-verity)",
			  s->dir);
		return -1;
	}
	s->verity_unsupported = true;
	return 0;
}

int cfs_store_place(struct cfs_store *s, const char *tmp, const uint8_t *digest)
{
	char path[CFS_OBJECT_PATH_LEN + 1];
	int r;

	cfs_object_path(path, digest);
	if (cfs_store_enable_verity(s, tmp) < 0) {
		unlinkat(s->dirfd, tmp, 0);
		return -1;
	}
	if (cfs_store_make_fanout(s, path, digest[0]) < 0)
		goto fail;
	r = renameat2(s->dirfd, tmp, s->dirfd, path, RENAME_NOREPLACE);
	if (r < 0 && errno == EINVAL) {
		/* No RENAME_NOREPLACE here: link() never replaces either. */
		r = linkat(s->dirfd, tmp, s->dirfd, path, 0);
		if (r == 0 || errno == EEXIST)
			unlinkat(s->dirfd, tmp, 0);
	}
	if (r < 0 && errno == EEXIST) {
		unlinkat(s->dirfd, tmp, 0);
		return 0;
	}
	if (r < 0)
		goto fail;
	return 0;
fail:
	cfs_error("%s: storing object %s: %s", s->dir, path, strerror(errno));
	unlinkat(s->dirfd, tmp, 0);
	return -1;
}
