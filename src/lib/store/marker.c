// SPDX-License-Identifier: MIT
/*
 * STORE/.cfs-store: the marker that tells a directory is a cfs store, and
 * of which layout. Written when a store is first written to; tools that
 * delete or move files (gc, fsck --repair, rm) refuse a directory without
 * it, and every tool refuses a layout newer than its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfs/store-layout.h"
#include "cfs/util.h"

#define MARKER_PREFIX "cfs-store layout "
#define MARKER_MAX 64 /* bytes: more is not a marker */

static int parse_marker(const char *path, const char *text)
{
	char *end;
	long v;

	if (strncmp(text, MARKER_PREFIX, strlen(MARKER_PREFIX))) {
		cfs_error("%s: not a cfs store marker", path);
		return -1;
	}
	text += strlen(MARKER_PREFIX);
	errno = 0;
	v = strtol(text, &end, 10);
	if (end == text || strcmp(end, "\n") || errno || v < 1) {
		cfs_error("%s: not a cfs store marker", path);
		return -1;
	}
	if (v > CFS_STORE_LAYOUT_VERSION) {
		cfs_error("%s: store layout %ld is newer than this cfs reads "
			  "(%d): use a newer cfs",
			  path, v, CFS_STORE_LAYOUT_VERSION);
		return -1;
	}
	return 1;
}

/* The marker's text (NUL-terminated) into buf; 1, 0 if absent, -1. */
static int read_marker(const char *path, char *buf)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	ssize_t n = -1;

	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size < MARKER_MAX)
		n = read(fd, buf, MARKER_MAX - 1);
	else if (fd >= 0 || errno == ELOOP)
		errno = EINVAL;
	if (fd >= 0)
		close(fd);
	if (n < 0) {
		cfs_error("%s: %s", path,
			  errno == EINVAL ? "not a cfs store marker"
					  : strerror(errno));
		return -1;
	}
	buf[n] = '\0';
	return 1;
}

int cfs_store_marker(const char *store)
{
	char *path = xasprintf("%s/" CFS_STORE_MARKER, store);
	char buf[MARKER_MAX];
	int r = read_marker(path, buf);

	if (r > 0)
		r = parse_marker(path, buf);
	free(path);
	return r;
}

int cfs_store_mark(const char *store)
{
	char *path, *text;
	int r = cfs_store_marker(store);

	if (r != 0)
		return r < 0 ? -1 : 0;
	path = xasprintf("%s/" CFS_STORE_MARKER, store);
	text = xasprintf(MARKER_PREFIX "%d\n", CFS_STORE_LAYOUT_VERSION);
	r = cfs_write_file_atomic(path, text, strlen(text), 0644, 0);
	free(text);
	free(path);
	return r;
}

bool cfs_store_shaped(const char *store)
{
	char *images = xasprintf("%s/images", store);
	char *lock = xasprintf("%s/" CFS_STORE_LOCK, store);
	struct stat st;
	bool r = lstat(images, &st) == 0 && S_ISDIR(st.st_mode) &&
		 lstat(lock, &st) == 0 && S_ISREG(st.st_mode);

	free(images);
	free(lock);
	return r;
}
