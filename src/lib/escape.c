// SPDX-License-Identifier: MIT
/*
 * The one escaping of untrusted bytes, \\ and \xXY: composefs-dump(5)
 * fields (decoding also \n \r \t) and names from images in messages.
 */
#include "cfs/escape.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cfs/dump.h"
#include "cfs/util.h"

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

static bool needs_escape(uint8_t c, unsigned int flags)
{
	if (c < 0x21 || c > 0x7e || c == '\\')
		return true;
	return c == '=' && (flags & CFS_ESC_EQUAL);
}

void cfs_dump_escape(FILE *out, const void *s, size_t len, unsigned int flags)
{
	const uint8_t *p = s;
	char e[4];

	if ((flags & CFS_ESC_LONE_DASH) && len == 1 && p[0] == '-') {
		fputs("\\x2d", out);
		return;
	}
	for (size_t i = 0; i < len; i++) {
		if (!needs_escape(p[i], flags))
			putc(p[i], out);
		else
			fwrite(e, 1, cfs_escape_byte(e, p[i], true), out);
	}
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

/* Decodes the escape at s[*i] (a backslash); advances *i past it. */
static int decode_one(const char *s, size_t len, size_t *i, char *out)
{
	size_t at = *i;
	int hi, lo;

	if (at + 1 >= len) {
		cfs_error("backslash at end of field");
		return -1;
	}
	switch (s[at + 1]) {
	case '\\':
		*out = '\\';
		break;
	case 'n':
		*out = '\n';
		break;
	case 'r':
		*out = '\r';
		break;
	case 't':
		*out = '\t';
		break;
	case 'x':
		hi = at + 2 < len ? cfs_hexval(s[at + 2]) : -1;
		lo = at + 3 < len ? cfs_hexval(s[at + 3]) : -1;
		if (hi < 0 || lo < 0) {
			cfs_error("bad \\x escape (two hex digits expected)");
			return -1;
		}
		*out = (char)(hi << 4 | lo);
		*i = at + 4;
		return 0;
	default:
		if (s[at + 1] > 0x20 && s[at + 1] < 0x7f)
			cfs_error("unknown escape '\\%c'", s[at + 1]);
		else
			cfs_error("unknown escape (backslash then byte 0x%02x)",
				  (uint8_t)s[at + 1]);
		return -1;
	}
	*i = at + 2;
	return 0;
}

int cfs_dump_unescape(const char *s, size_t len, char **out, size_t *out_len)
{
	char *buf = xmalloc(len + 1);
	size_t n = 0, i = 0;

	while (i < len) {
		if (s[i] != '\\') {
			buf[n++] = s[i++];
			continue;
		}
		if (decode_one(s, len, &i, &buf[n]) < 0) {
			free(buf);
			return -1;
		}
		n++;
	}
	buf[n] = '\0';
	*out = buf;
	*out_len = n;
	return 0;
}
