/* SPDX-License-Identifier: MIT */
/*
 * gzip decompression with ISA-L's inflate (3-5x zlib's speed on the layers
 * of the bench image). libarchive's gzip filter does not check the gzip
 * trailer (CRC-32 and length), so a layer with a damaged trailer would pass;
 * isal_inflate in ISAL_GZIP mode checks both, for every member of a
 * multi-member file. ISA-L serves every gzip stream (any header flags, all
 * deflate block types; a generic C path where its SIMD code cannot run), so
 * no gzip layer falls back to zlib.
 */
#ifndef CFS_GUNZIP_H
#define CFS_GUNZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Next chunk of compressed input: bytes (>0), 0 at the end, -1 on error. */
typedef ssize_t (*cfs_gunzip_src)(void *opaque, const uint8_t **buf);

struct cfs_gunzip;

struct cfs_gunzip *cfs_gunzip_new(cfs_gunzip_src src, void *opaque);
void cfs_gunzip_free(struct cfs_gunzip *g);
/*
 * Next block of output: 1 with p and n set, 0 at the end of the last member,
 * -1 on error (cfs_error set; a source error keeps the source's message).
 */
int cfs_gunzip_next(struct cfs_gunzip *g, const void **p, size_t *n);
/* The same into the caller's buffer of cap bytes (n set on 1). */
int cfs_gunzip_read(struct cfs_gunzip *g, void *buf, size_t cap, size_t *n);

static inline bool cfs_is_gzip(const uint8_t *p, size_t n)
{
	return n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

#endif
