// SPDX-License-Identifier: MIT
/* The store lock, STORE/.lock: see cfs/store-layout.h. */
#include "cfs/store-layout.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "cfs/util.h"

/*
 * The lock file, made if need be in a marked store (an unmarked directory
 * is only inspected: nothing is made in it). Where it cannot be made or
 * written (a read-only mount, another user's store) an existing one is
 * opened for reading, which flock(2) accepts; with none at all, no writer
 * can have held the lock, and the store directory itself stands in for it.
 */
static int open_lock(const char *store, const char *path, bool marked)
{
	int fd = -1;

	errno = EACCES;
	if (marked)
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0 || (errno != EACCES && errno != EROFS))
		return fd;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 || errno != ENOENT)
		return fd;
	return open(store, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* Says so on stderr before waiting for a lock another process holds. */
static int wait_lock(int fd, int op, const char *path)
{
	if (flock(fd, op | LOCK_NB) == 0)
		return 0;
	if (errno != EWOULDBLOCK)
		return -1;
	fprintf(stderr, "%s: waiting for the store lock %s\n",
		program_invocation_short_name, path);
	return flock(fd, op);
}

int cfs_store_lock(const char *store, bool exclusive)
{
	int marked = cfs_store_marker(store), fd;
	char *path;

	if (marked < 0)
		return -1; /* a newer layout, or a file that is no marker */
	path = xasprintf("%s/" CFS_STORE_LOCK, store);
	fd = open_lock(store, path, marked > 0);
	if (fd < 0) {
		cfs_error("%s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	if (wait_lock(fd, exclusive ? LOCK_EX : LOCK_SH, path) < 0) {
		/* EINTR: a signal while waiting means the user gave up. */
		cfs_error("%s: lock: %s", path,
			  errno == EINTR ? "interrupted" : strerror(errno));
		close(fd);
		free(path);
		return -1;
	}
	free(path);
	return fd;
}

void cfs_store_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}
