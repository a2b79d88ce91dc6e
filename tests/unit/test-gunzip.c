// SPDX-License-Identifier: MIT
/*
 * The gzip reader (ISA-L inflate): output equal to the input of zlib's
 * independent encoder, for any split of the compressed stream; several
 * members; and every kind of damage (CRC-32, ISIZE, deflate data, header,
 * truncation, trailing bytes) an error.
 */
#include <string.h>
#include <zlib.h>

#include "layer/gunzip.h"
#include "tap.h"
#include "cfs/util.h"

struct src {
	const uint8_t *p;
	size_t len, pos, chunk;
	uint8_t buf[1 << 16];
	bool fail;
};

static ssize_t src_next(void *opaque, const uint8_t **buf)
{
	struct src *s = opaque;
	size_t n = s->len - s->pos;

	if (s->fail && s->pos >= s->len / 2) {
		cfs_error("source broke");
		return -1;
	}
	if (n > s->chunk)
		n = s->chunk;
	if (n > sizeof(s->buf))
		n = sizeof(s->buf);
	/* A copy, so the reader cannot rely on earlier chunks staying put. */
	memcpy(s->buf, s->p + s->pos, n);
	memset(s->buf + n, 0xa5, sizeof(s->buf) - n);
	s->pos += n;
	*buf = s->buf;
	return (ssize_t)n;
}

/* Decodes gz in chunks of CHUNK bytes into out; 0 or -1 (cfs_error set). */
static int decode(const struct cfs_buf *gz, size_t chunk, struct cfs_buf *out)
{
	struct src *s = xcalloc(1, sizeof(*s));
	struct cfs_gunzip *g;
	const void *p;
	size_t n;
	int rc;

	*s = (struct src){.p = gz->data, .len = gz->len, .chunk = chunk};
	memset(out, 0, sizeof(*out));
	g = cfs_gunzip_new(src_next, s);
	while ((rc = cfs_gunzip_next(g, &p, &n)) == 1)
		cfs_buf_append(out, p, n);
	cfs_gunzip_free(g);
	free(s);
	return rc;
}

static void gzip_append(struct cfs_buf *gz, const void *data, size_t len)
{
	size_t cap = compressBound(len) + 64;
	uint8_t *out = xmalloc(cap);
	z_stream z = {0};

	deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
	z.next_in = (Bytef *)data;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		fprintf(stderr, "# deflate failed\n");
	cfs_buf_append(gz, out, cap - z.avail_out);
	deflateEnd(&z);
	free(out);
}

/* Text-like bytes: compressible, with matches reaching far back. */
static uint8_t *sample(size_t len, uint32_t seed)
{
	static const char *const words[] = {
		"usr", "lib", "share",	   "doc", "x86_64-linux-gnu",
		"\n",  "/",   "libc.so.6", " ",	  "copyright"};
	uint8_t *p = xmalloc(len);

	for (size_t i = 0; i < len;) {
		const char *w;
		size_t n;

		seed = seed * 1103515245u + 12345u;
		w = words[(seed >> 16) % 10];
		n = strlen(w);
		if ((seed >> 8) % 7 == 0) {
			p[i++] = (uint8_t)(seed >> 24);
			continue;
		}
		for (size_t j = 0; j < n && i < len; j++)
			p[i++] = (uint8_t)w[j];
	}
	return p;
}

static bool same(const struct cfs_buf *b, const uint8_t *p, size_t len)
{
	return b->len == len && (len == 0 || !memcmp(b->data, p, len));
}

static bool fails_with(const struct cfs_buf *gz, size_t chunk, const char *want)
{
	struct cfs_buf out;
	int rc = decode(gz, chunk, &out);

	cfs_buf_free(&out);
	if (rc == 0)
		return false;
	printf("# error: %s\n", cfs_strerror());
	return strstr(cfs_strerror(), want) != NULL;
}

#define BIG (3u << 20)
#define SMALL (150u << 10)

static void test_round_trip(const uint8_t *big, const uint8_t *small)
{
	static const size_t chunks[] = {1, 7, 4096, 65536};
	struct cfs_buf gz_big = {0}, gz_small = {0}, out;

	gzip_append(&gz_big, big, BIG);
	gzip_append(&gz_small, small, SMALL);
	ok(decode(&gz_big, SIZE_MAX, &out) == 0 && same(&out, big, BIG),
	   "3 MiB member decodes in 64 KiB input blocks");
	cfs_buf_free(&out);
	for (size_t i = 0; i < sizeof(chunks) / sizeof(*chunks); i++) {
		ok(decode(&gz_small, chunks[i], &out) == 0 &&
			   same(&out, small, SMALL),
		   "150 KiB member decodes in %zu-byte input blocks",
		   chunks[i]);
		cfs_buf_free(&out);
	}
	cfs_buf_free(&gz_big);
	cfs_buf_free(&gz_small);
}

static void test_members(const uint8_t *big, const uint8_t *small)
{
	static const size_t chunks[] = {1, 13, 65536};
	struct cfs_buf gz = {0}, want = {0}, out;

	gzip_append(&gz, small, SMALL);
	gzip_append(&gz, "", 0);
	gzip_append(&gz, big, 100000);
	gzip_append(&gz, small + 5, 1);
	cfs_buf_append(&want, small, SMALL);
	cfs_buf_append(&want, big, 100000);
	cfs_buf_append(&want, small + 5, 1);
	for (size_t i = 0; i < sizeof(chunks) / sizeof(*chunks); i++) {
		ok(decode(&gz, chunks[i], &out) == 0 &&
			   same(&out, want.data, want.len),
		   "4 concatenated members (one empty), %zu-byte blocks",
		   chunks[i]);
		cfs_buf_free(&out);
	}
	cfs_buf_free(&gz);
	/* Damage in the first member's trailer, the second one fine. */
	gzip_append(&gz, small, 1000);
	{
		size_t first = gz.len;

		gzip_append(&gz, small, 1000);
		gz.data[first - 8] ^= 1;
		ok(fails_with(&gz, 65536, "CRC-32 or length"),
		   "bad CRC-32 in the first of two members is an error");
	}
	cfs_buf_free(&gz);
	cfs_buf_free(&want);
}

static void test_empty(void)
{
	struct cfs_buf gz = {0}, out;

	gzip_append(&gz, "", 0);
	ok(decode(&gz, 65536, &out) == 0 && out.len == 0,
	   "empty member decodes to nothing");
	cfs_buf_free(&out);
	ok(decode(&gz, 1, &out) == 0 && out.len == 0,
	   "empty member in 1-byte blocks");
	cfs_buf_free(&out);
	cfs_buf_free(&gz);
}

static void test_damage(const uint8_t *small)
{
	struct cfs_buf gz = {0};
	size_t len;

	gzip_append(&gz, small, SMALL);
	len = gz.len;
	gz.data[len - 8] ^= 0x01; /* CRC-32 */
	ok(fails_with(&gz, 65536, "CRC-32 or length"), "corrupt CRC-32");
	ok(fails_with(&gz, 1, "CRC-32 or length"),
	   "corrupt CRC-32, 1-byte blocks");
	gz.data[len - 8] ^= 0x01;
	gz.data[len - 4] ^= 0x01; /* ISIZE */
	ok(fails_with(&gz, 65536, "CRC-32 or length"), "wrong ISIZE");
	gz.data[len - 4] ^= 0x01;
	gz.data[len / 2] ^= 0x10; /* deflate data */
	ok(fails_with(&gz, 65536, "corrupt gzip"), "corrupt deflate data");
	gz.data[len / 2] ^= 0x10;
	gz.data[2] = 7; /* compression method */
	ok(fails_with(&gz, 65536, "corrupt gzip"), "unknown method");
	gz.data[2] = 8;

	static const size_t cuts[] = {1, 4, 8, 9, 100};
	for (size_t i = 0; i < sizeof(cuts) / sizeof(*cuts); i++) {
		struct cfs_buf cut = {0};

		cfs_buf_append(&cut, gz.data, len - cuts[i]);
		ok(fails_with(&cut, 4096, "truncated gzip input"),
		   "stream cut %zu bytes short is truncated", cuts[i]);
		cfs_buf_free(&cut);
	}
	{
		struct cfs_buf cut = {0};

		cfs_buf_append(&cut, gz.data, 10);
		ok(fails_with(&cut, 3, "truncated gzip input"),
		   "header alone is truncated");
		cfs_buf_free(&cut);
	}
	cfs_buf_append(&gz, "garbage garbage!", 16);
	ok(fails_with(&gz, 65536, "corrupt gzip: bad gzip header"),
	   "bytes after the last member are an error");
	gz.len = len;
	cfs_buf_append(&gz, "", 1);
	ok(fails_with(&gz, 65536, "truncated gzip input"),
	   "one zero byte after the last member is an error");
	cfs_buf_free(&gz);
}

static void test_source_error(const uint8_t *small)
{
	struct cfs_buf gz = {0};
	struct src s = {0};
	struct cfs_gunzip *g;
	const void *p;
	size_t n;
	int rc;

	gzip_append(&gz, small, SMALL);
	s.p = gz.data;
	s.len = gz.len;
	s.chunk = 1000;
	s.fail = true;
	g = cfs_gunzip_new(src_next, &s);
	while ((rc = cfs_gunzip_next(g, &p, &n)) == 1)
		;
	ok(rc < 0 && !strcmp(cfs_strerror(), "source broke"),
	   "a source error ends decoding with the source's message");
	ok(cfs_gunzip_next(g, &p, &n) < 0, "and stays an error");
	cfs_gunzip_free(g);
	cfs_buf_free(&gz);
}

int main(void)
{
	uint8_t *big = sample(BIG, 1), *small = sample(SMALL, 2);

	test_round_trip(big, small);
	test_members(big, small);
	test_empty();
	test_damage(small);
	test_source_error(small);
	free(big);
	free(small);
	return tap_done();
}
