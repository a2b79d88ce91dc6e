// SPDX-License-Identifier: MIT
#include "gunzip.h"

#include <isa-l/igzip_lib.h>
#include <stdlib.h>

#include "cfs/util.h"

/* Output block: large enough that the per-call cost of isal_inflate, the
 * tar reader and the hashing vanish against the byte work. */
#define OUT_BLOCK (1 << 20)

struct cfs_gunzip {
	struct inflate_state st;
	cfs_gunzip_src src;
	void *opaque;
	uint8_t *out;
	bool in_eof;
	bool member_done; /* a member ended and no byte followed yet */
	bool failed;
};

/* ISAL_GZIP: parse the gzip header, then verify CRC-32 and ISIZE. */
static void start_member(struct cfs_gunzip *g)
{
	isal_inflate_reset(&g->st);
	g->st.crc_flag = ISAL_GZIP;
	g->member_done = false;
}

struct cfs_gunzip *cfs_gunzip_new(cfs_gunzip_src src, void *opaque)
{
	struct cfs_gunzip *g = xcalloc(1, sizeof(*g));

	g->src = src;
	g->opaque = opaque;
	isal_inflate_init(&g->st);
	start_member(g);
	return g;
}

void cfs_gunzip_free(struct cfs_gunzip *g)
{
	if (!g)
		return;
	free(g->out);
	free(g);
}

static int fill(struct cfs_gunzip *g)
{
	const uint8_t *buf;
	ssize_t n = g->src(g->opaque, &buf);

	if (n < 0) {
		g->failed = true;
		return -1;
	}
	if (n == 0) {
		g->in_eof = true;
		return 0;
	}
	g->st.next_in = (uint8_t *)buf;
	g->st.avail_in = (uint32_t)n;
	return 0;
}

static const char *isal_msg(int rc)
{
	switch (rc) {
	case ISAL_INVALID_WRAPPER:
		return "bad gzip header";
	case ISAL_UNSUPPORTED_METHOD:
		return "unknown compression method";
	case ISAL_INCORRECT_CHECKSUM:
		return "CRC-32 or length in the trailer does not match the "
		       "data";
	case ISAL_INVALID_BLOCK:
		return "invalid deflate block";
	case ISAL_INVALID_SYMBOL:
		return "invalid deflate symbol";
	case ISAL_INVALID_LOOKBACK:
		return "invalid distance too far back";
	default:
		return "inflate error";
	}
}

static int fail(struct cfs_gunzip *g, const char *what)
{
	g->failed = true;
	cfs_error("%s", what);
	return -1;
}

/* One isal_inflate call into buf; 0 = go on (*n may be 0), -1 = error. */
static int inflate_block(struct cfs_gunzip *g, void *buf, size_t cap, size_t *n)
{
	uint32_t in_before = g->st.avail_in;
	uint32_t room = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
	int rc;

	g->st.next_out = buf;
	g->st.avail_out = room;
	rc = isal_inflate(&g->st);
	if (rc < 0) {
		g->failed = true;
		cfs_error("corrupt gzip: %s", isal_msg(rc));
		return -1;
	}
	*n = room - g->st.avail_out;
	if (g->st.block_state == ISAL_BLOCK_FINISH)
		g->member_done = true;
	else if (*n == 0 && g->st.avail_in == in_before &&
		 (g->in_eof || in_before))
		/* No progress: input ended inside a member, or is stuck. */
		return fail(g, "truncated gzip input");
	return 0;
}

int cfs_gunzip_read(struct cfs_gunzip *g, void *buf, size_t cap, size_t *n)
{
	if (g->failed)
		return -1;
	for (;;) {
		if (g->st.avail_in == 0 && !g->in_eof && fill(g) < 0)
			return -1;
		if (g->member_done) {
			if (g->st.avail_in == 0)
				return 0;
			/* Another member follows (concatenated gzip). */
			start_member(g);
		}
		if (inflate_block(g, buf, cap, n) < 0)
			return -1;
		if (*n)
			return 1;
	}
}

int cfs_gunzip_next(struct cfs_gunzip *g, const void **p, size_t *n)
{
	if (!g->out)
		g->out = xmalloc(OUT_BLOCK);
	*p = g->out;
	return cfs_gunzip_read(g, g->out, OUT_BLOCK, n);
}
