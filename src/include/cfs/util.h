/* SPDX-License-Identifier: MIT */
/* Small shared helpers: error reporting, allocation, hex, atomic files. */
#ifndef CFS_UTIL_H
#define CFS_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Error convention: library functions return 0 on success and -1 on error,
 * after recording a one-line message with cfs_error() (thread-local). Tools
 * print "TOOL: SUBJECT: MESSAGE" from cfs_strerror().
 */
void cfs_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Like cfs_error, but prefixes the current message: "prefix: old message". */
void cfs_error_prefix(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
const char *cfs_strerror(void);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
void *xmemdup(const void *p, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Value of one hex digit, or -1. */
int cfs_hexval(char c);
/* Lowercase hex of n bytes into out (2n+1 bytes, NUL-terminated). */
void cfs_hex(char *out, const uint8_t *in, size_t n);
/* Parse exactly 2n hex digits; returns 0 or -1. */
int cfs_unhex(uint8_t *out, const char *in, size_t n);

/* Growable byte buffer. */
struct cfs_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
};
void cfs_buf_reserve(struct cfs_buf *b, size_t extra);
void cfs_buf_append(struct cfs_buf *b, const void *p, size_t n);
void cfs_buf_zero(struct cfs_buf *b, size_t n);	 /* append n zero bytes */
void cfs_buf_align(struct cfs_buf *b, size_t a); /* zero-pad to multiple */
void cfs_buf_free(struct cfs_buf *b);

/* write(2) until done (EINTR retried); 0, or -1 with errno. */
int cfs_write_all(int fd, const void *data, size_t len);
/* Exactly count bytes from fd: 0, -errno, or -EIO if the file ends first. */
int cfs_read_exact(int fd, void *buf, size_t count);

/* Read a whole file (or "-" for stdin) into memory. */
int cfs_read_file(const char *path, uint8_t **data, size_t *len);

/*
 * Write data to path atomically: temp file in the same directory, fsync,
 * optional fs-verity enable (flags), rename over path, fsync the directory.
 * On error nothing is left behind.
 */
#define CFS_ATOMIC_VERITY 1	    /* try to enable fs-verity on the file */
#define CFS_ATOMIC_REQUIRE_VERITY 2 /* fail if fs-verity cannot be enabled */
#define CFS_ATOMIC_NOSYNC 4	    /* skip fsync (tests, tmpfs) */
int cfs_write_file_atomic(const char *path, const void *data, size_t len,
			  unsigned int mode, int flags);

/* mkdir -p; returns 0 or -1 with cfs_error set. */
int cfs_mkdir_p(const char *path, unsigned int mode);

#endif
