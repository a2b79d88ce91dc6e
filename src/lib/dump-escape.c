// SPDX-License-Identifier: MIT
/*
 * composefs-dump(5) field escaping: the bytes rule of cfs/escape.h, plus
 * '=' in xattrs and a lone "-", and decoding of \n \r \t too.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cfs/dump.h"
#include "cfs/error.h"
#include "cfs/escape.h"
#include "cfs/mem.h"

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
