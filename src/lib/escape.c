// SPDX-License-Identifier: MIT
/*
 * The one escaping of untrusted bytes for messages and output, \\ and
 * \xXY. A leaf of the base: cfs_error() keeps its messages on one line
 * with it, so it includes nothing of ours but cfs/mem.h.
 */
#include "cfs/escape.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cfs/mem.h"

size_t cfs_escape_byte(char out[4], uint8_t c, bool escape)
{
	static const char hex[] = "0123456789abcdef";

	if (!escape) {
		out[0] = (char)c;
		return 1;
	}
	out[0] = '\\';
	if (c == '\\') {
		out[1] = '\\';
		return 2;
	}
	out[1] = 'x';
	out[2] = hex[c >> 4];
	out[3] = hex[c & 15];
	return 4;
}

/*
 * The one loop behind cfs_printable* (and so cfs_error's messages): bytes
 * outside 0x20-0x7e escaped into buf, cut with "..." to fit.
 */
static const char *printable(char *buf, size_t size, const uint8_t *p,
			     size_t len, bool escape_backslash)
{
	size_t n = 0;
	char e[4];

	for (size_t i = 0; i < len; i++) {
		size_t k = cfs_escape_byte(
			e, p[i],
			p[i] < 0x20 || p[i] > 0x7e ||
				(escape_backslash && p[i] == '\\'));

		if (n + k + 4 > size) {
			memcpy(buf + n, "...", 3);
			n += 3;
			break;
		}
		memcpy(buf + n, e, k);
		n += k;
	}
	buf[n] = '\0';
	return buf;
}

const char *cfs_printable_n(char *buf, size_t size, const void *s, size_t len)
{
	return printable(buf, size, s, len, true);
}

const char *cfs_printable_msg(char *buf, size_t size, const char *s)
{
	return printable(buf, size, (const uint8_t *)s, strlen(s), false);
}

const char *cfs_printable(char *buf, size_t size, const char *s)
{
	return cfs_printable_n(buf, size, s, strlen(s));
}

char *cfs_printable_dup(const char *s)
{
	size_t size = 4 * strlen(s) + 4;

	return (char *)cfs_printable(xmalloc(size), size, s);
}
