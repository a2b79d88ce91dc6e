// SPDX-License-Identifier: MIT
/* Allocation that aborts instead of failing, hex, growable buffers. */
#include "cfs/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

bool cfs_lower_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
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
