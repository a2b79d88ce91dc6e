/* SPDX-License-Identifier: MIT */
/*
 * The one open-addressing hash table (linear probing, power-of-2 size, at
 * most half full): an index from 64-bit hashes to non-zero values. The
 * caller keeps its keys (a value is typically index + 1 into its own array)
 * and compares them itself, so the table is generic without callbacks and
 * a probe touches only 16-byte slots until a full hash matches:
 *
 *	struct cfs_htab_probe p;
 *	for (size_t v = cfs_htab_first(&t, h, &p); v; v = cfs_htab_next(&t, &p))
 *		if (key_equal(&items[v - 1], key))
 *			return &items[v - 1];
 *	cfs_htab_insert(&t, h, n_items + 1);
 *
 * A value found by a probe can be removed (cfs_htab_remove). A zeroed
 * struct cfs_htab is empty.
 */
#ifndef CFS_HASHTAB_H
#define CFS_HASHTAB_H

#include <stddef.h>
#include <stdint.h>

struct cfs_htab_slot {
	uint64_t hash;
	size_t val; /* 0: empty */
};

struct cfs_htab {
	struct cfs_htab_slot *slots;
	size_t cap, n;
};

struct cfs_htab_probe {
	uint64_t hash;
	size_t i;
};

/* The next value stored under the probe's hash, or 0 when there is none. */
static inline size_t cfs_htab_next(const struct cfs_htab *t,
				   struct cfs_htab_probe *p)
{
	if (!t->cap)
		return 0;
	for (;;) {
		const struct cfs_htab_slot *s = &t->slots[p->i];

		if (!s->val)
			return 0;
		p->i = (p->i + 1) & (t->cap - 1);
		if (s->hash == p->hash)
			return s->val;
	}
}

/* The first value stored under hash, or 0; then cfs_htab_next for more. */
static inline size_t cfs_htab_first(const struct cfs_htab *t, uint64_t hash,
				    struct cfs_htab_probe *p)
{
	p->hash = hash;
	p->i = t->cap ? (size_t)hash & (t->cap - 1) : 0;
	return cfs_htab_next(t, p);
}

/* Adds val (non-zero) under hash; does not look for an equal key first. */
void cfs_htab_insert(struct cfs_htab *t, uint64_t hash, size_t val);
/* Makes room for n more values at once (one allocation, not a doubling). */
void cfs_htab_reserve(struct cfs_htab *t, size_t n);
/*
 * Removes the value the probe returned last (backward-shift deletion: no
 * tombstones, so lookups stay as short as if it had never been there).
 */
void cfs_htab_remove(struct cfs_htab *t, const struct cfs_htab_probe *p);
/* Empties the table, keeping its memory. */
void cfs_htab_clear(struct cfs_htab *t);
void cfs_htab_free(struct cfs_htab *t);

/*
 * Hashes for the keys the callers have: bytes (FNV-1a with a seed, then
 * mixed so that every bit of the result depends on every byte) and a
 * 64-bit integer (splitmix64's finaliser). SHA-256 and fs-verity digests
 * are uniform already: their first 8 bytes serve (cfs_hash_digest).
 */
uint64_t cfs_hash_bytes(const void *p, size_t n, uint64_t seed);
uint64_t cfs_hash_u64(uint64_t x);
uint64_t cfs_hash_digest(const uint8_t *digest);

#endif
