// SPDX-License-Identifier: MIT
/*
 * The open-addressing hash table of cfs/hashtab.h (the image writer's blob
 * dedup, the scanner's hard links, the store's pending objects, cfs-store's
 * digest sets, the tree's index of a wide unsorted directory) and the
 * hashes its callers use.
 */
#include "cfs/hashtab.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cfs/util.h"

#define MIN_CAP 64

static void place(struct cfs_htab_slot *slots, size_t cap, uint64_t hash,
		  size_t val)
{
	size_t i = (size_t)hash & (cap - 1);

	while (slots[i].val)
		i = (i + 1) & (cap - 1);
	slots[i] = (struct cfs_htab_slot){hash, val};
}

static void resize(struct cfs_htab *t, size_t cap)
{
	struct cfs_htab_slot *slots = xcalloc(cap, sizeof(*slots));

	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i].val)
			place(slots, cap, t->slots[i].hash, t->slots[i].val);
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
}

static void grow(struct cfs_htab *t)
{
	resize(t, t->cap ? 2 * t->cap : MIN_CAP);
}

void cfs_htab_reserve(struct cfs_htab *t, size_t n)
{
	size_t cap = t->cap ? t->cap : MIN_CAP;

	while (2 * (t->n + n) > cap)
		cap *= 2;
	if (cap != t->cap)
		resize(t, cap);
}

void cfs_htab_insert(struct cfs_htab *t, uint64_t hash, size_t val)
{
	if (2 * (t->n + 1) > t->cap)
		grow(t);
	place(t->slots, t->cap, hash, val);
	t->n++;
}

/* Whether home lies cyclically in (gap, i]: the entry at i may not move. */
static bool stays(size_t home, size_t gap, size_t i)
{
	return gap <= i ? gap < home && home <= i : gap < home || home <= i;
}

void cfs_htab_remove(struct cfs_htab *t, const struct cfs_htab_probe *p)
{
	size_t mask = t->cap - 1, gap = (p->i - 1) & mask, i = gap;

	for (;;) {
		i = (i + 1) & mask;
		if (!t->slots[i].val)
			break;
		if (stays((size_t)t->slots[i].hash & mask, gap, i))
			continue;
		t->slots[gap] = t->slots[i];
		gap = i;
	}
	t->slots[gap].val = 0;
	t->n--;
}

void cfs_htab_clear(struct cfs_htab *t)
{
	if (t->slots)
		memset(t->slots, 0, t->cap * sizeof(*t->slots));
	t->n = 0;
}

void cfs_htab_free(struct cfs_htab *t)
{
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

uint64_t cfs_hash_u64(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

uint64_t cfs_hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ULL ^ seed;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return cfs_hash_u64(h);
}

uint64_t cfs_hash_digest(const uint8_t *digest)
{
	uint64_t h;

	memcpy(&h, digest, sizeof(h));
	return h;
}
