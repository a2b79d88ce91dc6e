// SPDX-License-Identifier: MIT
/*
 * The hash table of cfs/hashtab.h: every key found after growth or a
 * reserve, keys with one hash all handed back, removal amid clusters,
 * clear, and the hash functions' spread.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "cfs/hashtab.h"

#define N 100000

/* The values stored under hash h that the table hands back, as a count. */
static size_t count_under(const struct cfs_htab *t, uint64_t h, size_t want)
{
	struct cfs_htab_probe p;
	size_t found = 0;

	for (size_t v = cfs_htab_first(t, h, &p); v; v = cfs_htab_next(t, &p))
		found += v == want;
	return found;
}

static void test_many(void)
{
	struct cfs_htab t = {0};
	size_t missing = 0, wrong = 0;

	ok(cfs_htab_first(&t, 42, &(struct cfs_htab_probe){0}) == 0,
	   "empty table: nothing found");
	for (size_t i = 0; i < N; i++)
		cfs_htab_insert(&t, cfs_hash_u64(i), i + 1);
	for (size_t i = 0; i < N; i++) {
		missing += count_under(&t, cfs_hash_u64(i), i + 1) != 1;
		wrong += count_under(&t, cfs_hash_u64(i + N), i + 1) != 0;
	}
	ok(t.n == N && t.cap >= 2 * N && (t.cap & (t.cap - 1)) == 0,
	   "%d entries, cap %zu: a power of 2, at most half full", N, t.cap);
	ok(!missing, "every value found under its hash after growth (%zu not)",
	   missing);
	ok(!wrong, "no value under another key's hash (%zu)", wrong);
	cfs_htab_clear(&t);
	ok(t.n == 0 && count_under(&t, cfs_hash_u64(7), 8) == 0 && t.cap,
	   "clear empties the table and keeps its memory");
	cfs_htab_insert(&t, cfs_hash_u64(7), 8);
	ok(count_under(&t, cfs_hash_u64(7), 8) == 1, "usable after clear");
	cfs_htab_free(&t);
	ok(!t.slots && !t.cap && !t.n, "free leaves an empty table");
}

/* All keys under one hash: the probe hands back each of them once. */
static void test_collisions(void)
{
	static unsigned char seen[1001];
	struct cfs_htab t = {0};
	struct cfs_htab_probe p;
	size_t once = 0;

	for (size_t i = 1; i <= 1000; i++)
		cfs_htab_insert(&t, 0xdeadbeef, i);
	cfs_htab_insert(&t, 0xdeadbeef + 1, 5000);
	for (size_t v = cfs_htab_first(&t, 0xdeadbeef, &p); v;
	     v = cfs_htab_next(&t, &p))
		if (v <= 1000)
			seen[v]++;
	for (size_t i = 1; i <= 1000; i++)
		once += seen[i] == 1;
	ok(once == 1000, "1000 values under one hash each found once (%zu)",
	   once);
	ok(count_under(&t, 0xdeadbeef + 1, 5000) == 1,
	   "the neighbouring hash still found amid the cluster");
	cfs_htab_free(&t);
}

/* Removes value want stored under h; whether it was there. */
static bool remove_one(struct cfs_htab *t, uint64_t h, size_t want)
{
	struct cfs_htab_probe p;

	for (size_t v = cfs_htab_first(t, h, &p); v; v = cfs_htab_next(t, &p))
		if (v == want) {
			cfs_htab_remove(t, &p);
			return true;
		}
	return false;
}

/*
 * Removal amid clusters (few distinct hashes, so runs wrap around the
 * table's end): every other value goes, and each remaining one is still
 * found exactly once while the removed ones are gone.
 */
static void test_remove(void)
{
	struct cfs_htab t = {0};
	size_t lost = 0, ghosts = 0, removed = 0;

	for (size_t i = 1; i <= 4000; i++)
		cfs_htab_insert(&t, (i % 7) * 0x9e3779b97f4a7c15ULL - i % 3, i);
	for (size_t i = 2; i <= 4000; i += 2)
		removed += remove_one(
			&t, (i % 7) * 0x9e3779b97f4a7c15ULL - i % 3, i);
	for (size_t i = 1; i <= 4000; i++) {
		size_t c = count_under(
			&t, (i % 7) * 0x9e3779b97f4a7c15ULL - i % 3, i);

		if (i % 2)
			lost += c != 1;
		else
			ghosts += c != 0;
	}
	ok(removed == 2000 && t.n == 2000, "2000 of 4000 removed (%zu, n %zu)",
	   removed, t.n);
	ok(!lost && !ghosts,
	   "the others still found once (%zu lost), the removed gone (%zu)",
	   lost, ghosts);
	for (size_t i = 1; i <= 4000; i += 2)
		remove_one(&t, (i % 7) * 0x9e3779b97f4a7c15ULL - i % 3, i);
	ok(t.n == 0 && count_under(&t, 0x9e3779b97f4a7c15ULL, 1) == 0,
	   "removing everything leaves an empty table");
	cfs_htab_free(&t);
}

static void test_hashes(void)
{
	uint8_t digest[32], buf[64];
	unsigned int bits = 0;

	for (size_t i = 0; i < sizeof(digest); i++)
		digest[i] = (uint8_t)(i * 37 + 1);
	ok(cfs_hash_digest(digest) ==
		   ((uint64_t)digest[0] | (uint64_t)digest[1] << 8 |
		    (uint64_t)digest[7] << 56 |
		    (cfs_hash_digest(digest) & 0x00ffffffffff0000ULL)),
	   "a digest's hash is its first 8 bytes (little-endian)");
	memset(buf, 'a', sizeof(buf));
	ok(cfs_hash_bytes(buf, sizeof(buf), 1) !=
		   cfs_hash_bytes(buf, sizeof(buf), 2),
	   "the seed changes the byte hash");
	ok(cfs_hash_bytes(buf, 3, 0) != cfs_hash_bytes(buf, 4, 0),
	   "the length changes the byte hash");
	/* one flipped byte changes about half the bits, low ones included */
	for (int i = 0; i < 64; i++) {
		uint64_t a = cfs_hash_bytes(buf, sizeof(buf), 0);

		buf[i] ^= 1;
		bits |= (unsigned int)((a ^
					cfs_hash_bytes(buf, sizeof(buf), 0)) &
				       0xff);
		buf[i] ^= 1;
	}
	ok(bits == 0xff, "flipping any byte reaches the low (slot) bits");
	ok(cfs_hash_u64(1) != cfs_hash_u64(2) &&
		   (cfs_hash_u64(1) & 0xffff) != (cfs_hash_u64(2) & 0xffff),
	   "neighbouring integers land in different slots");
}

/* A reserved table takes that many values without growing again. */
static void test_reserve(void)
{
	struct cfs_htab t = {0};
	struct cfs_htab_slot *slots;
	size_t cap, missing = 0;

	cfs_htab_insert(&t, cfs_hash_u64(0), 1);
	cfs_htab_reserve(&t, 1000);
	cap = t.cap;
	slots = t.slots;
	ok(cap >= 2 * 1001 && (cap & (cap - 1)) == 0 &&
		   count_under(&t, cfs_hash_u64(0), 1) == 1,
	   "reserve: room for 1000 more, the value already in kept");
	for (size_t i = 1; i <= 1000; i++)
		cfs_htab_insert(&t, cfs_hash_u64(i), i + 1);
	for (size_t i = 0; i <= 1000; i++)
		missing += count_under(&t, cfs_hash_u64(i), i + 1) != 1;
	ok(t.cap == cap && t.slots == slots && missing == 0,
	   "1000 inserts after it: no growth, every value found");
	cfs_htab_reserve(&t, 0);
	ok(t.cap == cap, "reserving nothing changes nothing");
	cfs_htab_free(&t);
}

int main(void)
{
	test_many();
	test_reserve();
	test_collisions();
	test_remove();
	test_hashes();
	return tap_done();
}
