// SPDX-License-Identifier: MIT
#include "cfs/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfs/escape.h"
#include "cfs/verity.h"

static _Thread_local char errbuf[1024];

/*
 * The last guard for one-line messages: a control byte (or any byte
 * outside printable ASCII) that reached a message unescaped becomes \xXY.
 * Escaping again is a no-op, so prefixing keeps the message intact.
 */
static void set_errbuf(const char *msg)
{
	cfs_printable_msg(errbuf, sizeof(errbuf), msg);
}

void cfs_error(const char *fmt, ...)
{
	char msg[sizeof(errbuf)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	set_errbuf(msg);
}

void cfs_error_prefix(const char *fmt, ...)
{
	char prefix[512], old[sizeof(errbuf)],
		msg[sizeof(prefix) + sizeof(old) + 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, errbuf, sizeof(old));
	/* Truncation of an over-long message is acceptable. */
	snprintf(msg, sizeof(msg), "%s: %s", prefix, old);
	set_errbuf(msg);
}

const char *cfs_strerror(void)
{
	return errbuf[0] ? errbuf : "unknown error";
}

const char *cfs_strerror_after(const char *subject)
{
	const char *msg = cfs_strerror();
	size_t n = strlen(subject);

	if (!strncmp(msg, subject, n) && !strncmp(msg + n, ": ", 2))
		return msg + n + 2;
	return msg;
}

static void *check_alloc(void *p)
{
	if (!p) {
		fputs("cfs: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *xmalloc(size_t n)
{
	return check_alloc(malloc(n ? n : 1));
}

void *xcalloc(size_t n, size_t size)
{
	return check_alloc(calloc(n ? n : 1, size ? size : 1));
}

void *xrealloc(void *p, size_t n)
{
	return check_alloc(realloc(p, n ? n : 1));
}

char *xstrdup(const char *s)
{
	return check_alloc(strdup(s));
}

char *xstrndup(const char *s, size_t n)
{
	return check_alloc(strndup(s, n));
}

void *xmemdup(const void *p, size_t n)
{
	void *q = xmalloc(n);

	if (n)
		memcpy(q, p, n);
	return q;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	return check_alloc(r < 0 ? NULL : s);
}

void cfs_hex(char *out, const uint8_t *in, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
	out[2 * n] = '\0';
}

/* Each hex digit's value + 1; 0 for any other byte (a lookup, no branches). */
static const uint8_t hex_digit[256] = {
	['0'] = 1,  ['1'] = 2,	['2'] = 3,  ['3'] = 4,	['4'] = 5,  ['5'] = 6,
	['6'] = 7,  ['7'] = 8,	['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12,
	['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12,
	['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

int cfs_hexval(char c)
{
	return hex_digit[(uint8_t)c] - 1;
}

int cfs_unhex(uint8_t *out, const char *in, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int hi = hex_digit[(uint8_t)in[2 * i]];
		int lo = hex_digit[(uint8_t)in[2 * i + 1]];

		if (!hi || !lo)
			return -1;
		out[i] = (uint8_t)((hi - 1) << 4 | (lo - 1));
	}
	return 0;
}

void cfs_buf_reserve(struct cfs_buf *b, size_t extra)
{
	size_t need = b->len + extra;

	if (need <= b->cap)
		return;
	b->cap = b->cap ? b->cap : 4096;
	while (b->cap < need)
		b->cap *= 2;
	b->data = xrealloc(b->data, b->cap);
}

void cfs_buf_append(struct cfs_buf *b, const void *p, size_t n)
{
	cfs_buf_reserve(b, n);
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
}

void cfs_buf_zero(struct cfs_buf *b, size_t n)
{
	cfs_buf_reserve(b, n);
	memset(b->data + b->len, 0, n);
	b->len += n;
}

void cfs_buf_align(struct cfs_buf *b, size_t a)
{
	if (b->len % a)
		cfs_buf_zero(b, a - b->len % a);
}

void cfs_buf_free(struct cfs_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

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
	r = cfs_verity_enable(fd);
	close(fd);
	if (r < 0 && !(flags & CFS_ATOMIC_REQUIRE_VERITY) &&
	    (errno == EOPNOTSUPP || errno == ENOTTY || errno == EINVAL))
		r = 0;
	return r;
}

int cfs_write_file_atomic(const char *path, const void *data, size_t len,
			  unsigned int mode, int flags)
{
	char *tmp = xasprintf("%s.tmp.%d.XXXXXX", path, (int)getpid());
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
	char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
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
