// SPDX-License-Identifier: MIT
/*
 * The SHA-256 helper of cfs/sha256.h against the FIPS 180-2 test vectors,
 * one-shot and streamed in uneven pieces.
 */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "cfs/sha256.h"
#include "cfs/util.h"

static const char abc_hex[] =
	"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
static const char two_block[] =
	"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
static const char two_block_hex[] =
	"248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
static const char million_a_hex[] =
	"cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
static const char empty_hex[] =
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

static void test_one_shot(void)
{
	char hex[CFS_SHA256_HEX_LEN + 1];
	uint8_t md[CFS_SHA256_SIZE];

	ok(cfs_sha256_hex("abc", 3, hex) == 0 && !strcmp(hex, abc_hex),
	   "\"abc\": %s", hex);
	ok(cfs_sha256_hex("", 0, hex) == 0 && !strcmp(hex, empty_hex),
	   "empty input");
	ok(cfs_sha256_hex(two_block, strlen(two_block), hex) == 0 &&
		   !strcmp(hex, two_block_hex),
	   "448-bit message (two blocks)");
	ok(cfs_sha256("abc", 3, md) == 0 && md[0] == 0xba && md[31] == 0xad,
	   "raw digest bytes match the hex");
}

static void test_streaming(void)
{
	size_t n = 1000000, step = 1;
	char *a = xmalloc(n), hex[CFS_SHA256_HEX_LEN + 1];
	uint8_t md[CFS_SHA256_SIZE];
	struct cfs_sha256 *c = cfs_sha256_new();
	int r = c ? 0 : -1;

	memset(a, 'a', n);
	/* pieces of 1, 2, 3, ... bytes: every split of a block boundary */
	for (size_t at = 0; c && at < n; at += step, step++)
		r |= cfs_sha256_update(c, a + at,
				       step < n - at ? step : n - at);
	r |= c ? cfs_sha256_final(c, md) : -1;
	cfs_hex(hex, md, sizeof(md));
	ok(r == 0 && !strcmp(hex, million_a_hex),
	   "a million 'a' streamed in growing pieces: %s", hex);
	ok(cfs_sha256_hex(a, n, hex) == 0 && !strcmp(hex, million_a_hex),
	   "the same one-shot");
	c = cfs_sha256_new();
	r = c ? cfs_sha256_final(c, md) : -1;
	cfs_hex(hex, md, sizeof(md));
	ok(r == 0 && !strcmp(hex, empty_hex), "a stream with no update");
	/* an unfinished context, and NULL: LeakSanitizer checks the first */
	cfs_sha256_free(cfs_sha256_new());
	cfs_sha256_free(NULL);
	free(a);
}

int main(void)
{
	test_one_shot();
	test_streaming();
	return tap_done();
}
