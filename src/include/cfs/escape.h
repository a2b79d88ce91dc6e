/* SPDX-License-Identifier: MIT */
/*
 * Untrusted bytes (names, link targets, refs, JSON values from an image)
 * made printable for messages and output, so an error stays one line of
 * text: \\ for a backslash, \xXY for a byte outside 0x20-0x7e. The same
 * escape as composefs-dump(5) fields (cfs/dump.h).
 *
 * Below the error code (cfs_error() escapes its messages with it), so
 * escape.c includes nothing of ours but cfs/mem.h; the dump format's
 * escaping builds on it (dump-escape.c), never the other way.
 */
#ifndef CFS_ESCAPE_H
#define CFS_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A buffer size for one escaped name in a message (longer ones are cut). */
#define CFS_SHOWN_MAX 256

/* c, escaped if escape, into out; returns the bytes written (1, 2 or 4). */
size_t cfs_escape_byte(char out[4], uint8_t c, bool escape);
/* s escaped into buf (size >= 8), cut with "..." to fit; returns buf. */
const char *cfs_printable(char *buf, size_t size, const char *s);
/* The same for len bytes of s (any bytes, NUL included). */
const char *cfs_printable_n(char *buf, size_t size, const void *s, size_t len);
/* s escaped, whole, malloc'ed. */
char *cfs_printable_dup(const char *s);
/*
 * For a whole message that may hold escaped names already: backslashes are
 * kept, so that escaping a message twice changes nothing.
 */
const char *cfs_printable_msg(char *buf, size_t size, const char *s);

#endif
