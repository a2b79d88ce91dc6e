/* SPDX-License-Identifier: MIT */
/*
 * Memory: allocation that cannot fail (it aborts), hex, growable buffers.
 * Part of the base (mem.c): a leaf, it includes nothing of ours.
 */
#ifndef CFS_MEM_H
#define CFS_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
void *xmemdup(const void *p, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Value of one hex digit, or -1 (no message). */
int cfs_hexval(char c);
/* Lowercase hex of n bytes into out (2n+1 bytes, NUL-terminated). */
void cfs_hex(char *out, const uint8_t *in, size_t n);
/* Parse exactly 2n hex digits; returns 0 or -1 (no message). */
int cfs_unhex(uint8_t *out, const char *in, size_t n);
/* Whether s starts with n lowercase hex digits (what cfs_hex writes). */
bool cfs_lower_hex(const char *s, size_t n);

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

#endif
