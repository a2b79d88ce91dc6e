// SPDX-License-Identifier: MIT
/*
 * Whole files, exact reads and writes, opens beneath a directory, atomic
 * replacement, mkdir -p.
 */
#include "cfs/file-io.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cfs/error.h"
#include "cfs/mem.h"
#include "cfs/verity-ioctl.h"

/* What a file being replaced is named after: PATH.tmp.PID[.XXXXXX]. */
#define REPLACING ".tmp."

static int read_fd_all(int fd, const char *path, struct cfs_buf *b)
{
	for (;;) {
		ssize_t n;

		cfs_buf_reserve(b, 65536);
		n = read(fd, b->data + b->len, b->cap - b->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			cfs_error("%s: %s", path, strerror(errno));
			return -1;
		}
		if (n == 0)
			return 0;
		b->len += (size_t)n;
	}
}

/*
 * Without openat2 (old kernels, some seccomp filters): each component is
 * opened with O_NOFOLLOW, so no symlink is followed at all.
 */
static int open_nofollow(int dirfd, const char *norm, int flags)
{
	char *copy = xstrdup(norm), *p = copy, *slash;
	int fd = dirfd, next;

	while ((slash = strchr(p, '/'))) {
		*slash = '\0';
		next = openat(fd, p,
			      O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd != dirfd)
			close(fd);
		if (next < 0) {
			free(copy);
			return -1;
		}
		fd = next;
		p = slash + 1;
	}
	next = openat(fd, p, flags | O_NOFOLLOW);
	if (fd != dirfd)
		close(fd);
	free(copy);
	return next;
}

/* A FIFO would block at open or at the first read: O_NONBLOCK, undone. */
int cfs_open_beneath(int dirfd, const char *rel)
{
	struct open_how how = {
		.flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	struct stat st;
	int fd;

	fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS)
		fd = open_nofollow(dirfd, rel, (int)how.flags);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    fcntl(fd, F_SETFL, O_RDONLY) < 0) {
		close(fd);
		return -CFS_ENOTREG;
	}
	return fd;
}

const char *cfs_beneath_strerror(int neg_err)
{
	switch (-neg_err) {
	case ENOENT:
		return "missing";
	case EXDEV:
		return "outside the image directory";
	case ELOOP:
		return "a symlink (not followed)";
	case CFS_ENOTREG:
		return "not a regular file";
	}
	return strerror(-neg_err);
}

int cfs_read_file(const char *path, uint8_t **data, size_t *len)
{
	struct cfs_buf b = {0};
	bool is_stdin = strcmp(path, "-") == 0;
	int fd = is_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	int r;

	if (fd < 0) {
		cfs_error("%s: %s", path, strerror(errno));
		return -1;
	}
	r = read_fd_all(fd, is_stdin ? "<stdin>" : path, &b);
	if (!is_stdin)
		close(fd);
	if (r < 0) {
		cfs_buf_free(&b);
		return -1;
	}
	cfs_buf_reserve(&b, 1);
	b.data[b.len] = '\0'; /* convenient for text parsers */
	*data = b.data;
	*len = b.len;
	return 0;
}

int cfs_write_all(int fd, const void *data, size_t len)
{
	const uint8_t *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int cfs_read_exact(int fd, void *buf, size_t count)
{
	uint8_t *p = buf;

	while (count) {
		ssize_t n = read(fd, p, count);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		count -= (size_t)n;
	}
	return 0;
}

static int fsync_parent(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	int fd, r;

	if (slash == dir)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd < 0)
		return -1;
	r = fsync(fd);
	close(fd);
	return r;
}

/* Reopen read-only: fs-verity refuses files that are open for writing. */
static int enable_verity_on(const char *tmp, int flags)
{
	int fd = open(tmp, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -1;
	r = cfs_verity_enable_errno(fd);
	close(fd);
	if (r < 0 && !(flags & CFS_ATOMIC_REQUIRE_VERITY) &&
	    (errno == EOPNOTSUPP || errno == ENOTTY || errno == EINVAL))
		r = 0;
	return r;
}

int cfs_write_file_atomic(const char *path, const void *data, size_t len,
			  unsigned int mode, int flags)
{
	char *tmp = xasprintf("%s" REPLACING "%d.XXXXXX", path, (int)getpid());
	int fd = mkostemp(tmp, O_CLOEXEC);

	if (fd < 0) {
		cfs_error("%s: cannot create: %s", path, strerror(errno));
		free(tmp);
		return -1;
	}
	if (fchmod(fd, mode) < 0 || cfs_write_all(fd, data, len) < 0 ||
	    (!(flags & CFS_ATOMIC_NOSYNC) && fsync(fd) < 0))
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if ((flags & (CFS_ATOMIC_VERITY | CFS_ATOMIC_REQUIRE_VERITY)) &&
	    enable_verity_on(tmp, flags) < 0)
		goto fail;
	if (rename(tmp, path) < 0)
		goto fail;
	if (!(flags & CFS_ATOMIC_NOSYNC))
		fsync_parent(path);
	free(tmp);
	return 0;
fail:
	cfs_error("%s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	return -1;
}

int cfs_symlink_replace(const char *target, const char *path)
{
	char *tmp = xasprintf("%s" REPLACING "%d", path, (int)getpid());
	int r = 0;

	unlink(tmp);
	if (symlink(target, tmp) < 0 || rename(tmp, path) < 0) {
		cfs_error("%s: %s", path, strerror(errno));
		unlink(tmp);
		r = -1;
	}
	free(tmp);
	return r;
}

/* A PID, then nothing or mkostemp's six characters. */
static int replacing_tail(const char *s)
{
	char *end;
	long pid;

	if (*s < '1' || *s > '9')
		return 0;
	errno = 0;
	pid = strtol(s, &end, 10);
	if (errno || pid > INT_MAX ||
	    (*end && (*end != '.' || strlen(end + 1) != 6)))
		return 0;
	return (int)pid;
}

int cfs_replacing_pid(const char *name)
{
	int pid = 0;

	for (const char *t = strstr(name, REPLACING); t && !pid;
	     t = strstr(t + 1, REPLACING))
		pid = t > name ? replacing_tail(t + strlen(REPLACING)) : 0;
	return pid;
}

int cfs_mkdir_p(const char *path, unsigned int mode)
{
	char *p = xstrdup(path);

	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;

		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST) {
			cfs_error("%s: cannot create directory: %s", p,
				  strerror(errno));
			free(p);
			return -1;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return 0;
}

DIR *cfs_opendir_at(int dirfd, const char *path)
{
	int fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d && fd >= 0) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return d;
}

char *cfs_fd_last_line(int fd, char *buf, size_t size)
{
	off_t end = lseek(fd, 0, SEEK_END);
	off_t from = end > (off_t)size - 1 ? end - ((off_t)size - 1) : 0;
	ssize_t n = end > 0 ? pread(fd, buf, (size_t)(end - from), from) : 0;
	char *line;

	if (n < 0)
		n = 0;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	line = strrchr(buf, '\n');
	return line ? line + 1 : buf;
}

static int remove_entry(const char *path, const struct stat *st, int type,
			struct FTW *ftw)
{
	if (type == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

void cfs_remove_tree(const char *path)
{
	nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}
