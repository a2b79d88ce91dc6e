// SPDX-License-Identifier: MIT
#include "gunzip.h"

#include <stdlib.h>
#include <zlib.h>

#include "util.h"

#define OUT_BLOCK (1 << 20)

struct cfs_gunzip {
	z_stream z;
	cfs_gunzip_src src;
	void *opaque;
	uint8_t *out;
	bool in_eof;
	bool member_done; /* a member ended and no byte followed yet */
	bool failed;
};

struct cfs_gunzip *cfs_gunzip_new(cfs_gunzip_src src, void *opaque)
{
	struct cfs_gunzip *g = xcalloc(1, sizeof(*g));

	g->src = src;
	g->opaque = opaque;
	g->out = xmalloc(OUT_BLOCK);
	/* 16 + MAX_WBITS: gzip wrapper only, with trailer checks. */
	if (inflateInit2(&g->z, 16 + MAX_WBITS) != Z_OK) {
		free(g->out);
		free(g);
		return NULL;
	}
	return g;
}

void cfs_gunzip_free(struct cfs_gunzip *g)
{
	if (!g)
		return;
	inflateEnd(&g->z);
	free(g->out);
	free(g);
}

static int fill(struct cfs_gunzip *g)
{
	const uint8_t *buf;
	ssize_t n = g->src(g->opaque, &buf);

	if (n < 0)
		return -1;
	if (n == 0) {
		g->in_eof = true;
		return 0;
	}
	g->z.next_in = (Bytef *)buf;
	g->z.avail_in = (uInt)n;
	return 0;
}

static int fail(struct cfs_gunzip *g, const char *what)
{
	g->failed = true;
	cfs_error("corrupt gzip: %s", what);
	return -1;
}

int cfs_gunzip_next(struct cfs_gunzip *g, const void **p, size_t *n)
{
	if (g->failed)
		return -1;
	for (;;) {
		int rc;

		if (g->z.avail_in == 0 && !g->in_eof && fill(g) < 0) {
			g->failed = true;
			return -1;
		}
		if (g->z.avail_in == 0 && g->in_eof) {
			if (g->member_done)
				return 0;
			g->failed = true;
			cfs_error("truncated gzip input");
			return -1;
		}
		if (g->member_done) {
			/* Another member follows (concatenated gzip). */
			inflateReset(&g->z);
			g->member_done = false;
		}
		g->z.next_out = g->out;
		g->z.avail_out = OUT_BLOCK;
		rc = inflate(&g->z, Z_NO_FLUSH);
		if (rc == Z_STREAM_END)
			g->member_done = true;
		else if (rc != Z_OK && rc != Z_BUF_ERROR)
			return fail(g, g->z.msg ? g->z.msg : "inflate error");
		*n = OUT_BLOCK - g->z.avail_out;
		if (*n) {
			*p = g->out;
			return 1;
		}
	}
}
