// SPDX-License-Identifier: MIT
/*
 * An open-addressing hash set of object digests: gc marks a million
 * objects in it. Digests are uniform, so their first bytes are the hash.
 */
#include <stdlib.h>
#include <string.h>

#include "store-tool.h"
#include "cfs/util.h"

static size_t slot_of(const uint8_t *digest, size_t cap)
{
	size_t h;

	memcpy(&h, digest, sizeof(h));
	return h & (cap - 1);
}

static bool slot_used(const struct dset_entry *e)
{
	return e->last != 0;
}

static struct dset_entry *probe(struct dset_entry *slots, size_t cap,
				const uint8_t *digest)
{
	size_t i = slot_of(digest, cap);

	while (slot_used(&slots[i]) &&
	       memcmp(slots[i].digest, digest, CFS_DIGEST_SIZE))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static void grow(struct dset *s)
{
	size_t cap = s->cap ? 2 * s->cap : 1024;
	struct dset_entry *slots = xcalloc(cap, sizeof(*slots));

	for (size_t i = 0; i < s->cap; i++)
		if (slot_used(&s->slots[i]))
			*probe(slots, cap, s->slots[i].digest) = s->slots[i];
	free(s->slots);
	s->slots = slots;
	s->cap = cap;
}

struct dset_entry *dset_add(struct dset *s, const uint8_t *digest, bool *added)
{
	struct dset_entry *e;

	if (2 * (s->n + 1) > s->cap)
		grow(s);
	e = probe(s->slots, s->cap, digest);
	*added = !slot_used(e);
	if (*added) {
		memcpy(e->digest, digest, CFS_DIGEST_SIZE);
		e->last = UINT32_MAX; /* used, no image counted yet */
		s->n++;
	}
	return e;
}

struct dset_entry *dset_find(const struct dset *s, const uint8_t *digest)
{
	struct dset_entry *e;

	if (!s->cap)
		return NULL;
	e = probe(s->slots, s->cap, digest);
	return slot_used(e) ? e : NULL;
}

void dset_free(struct dset *s)
{
	free(s->slots);
	memset(s, 0, sizeof(*s));
}
