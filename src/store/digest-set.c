// SPDX-License-Identifier: MIT
/*
 * A set of object digests: gc marks a million objects in it. The entries
 * sit in one array (in insertion order, for the callers' loops), indexed
 * by the library's hash table (cfs/hashtab.h); digests are uniform, so
 * their first bytes are the hash.
 */
#include <stdlib.h>
#include <string.h>

#include "store-tool.h"
#include "cfs/util.h"

struct dset_entry *dset_find(const struct dset *s, const uint8_t *digest)
{
	struct cfs_htab_probe p;

	for (size_t v = cfs_htab_first(&s->index, cfs_hash_digest(digest), &p);
	     v; v = cfs_htab_next(&s->index, &p))
		if (!memcmp(s->entries[v - 1].digest, digest, CFS_DIGEST_SIZE))
			return &s->entries[v - 1];
	return NULL;
}

struct dset_entry *dset_add(struct dset *s, const uint8_t *digest, bool *added)
{
	struct dset_entry *e = dset_find(s, digest);

	*added = !e;
	if (e)
		return e;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->entries = xrealloc(s->entries, s->cap * sizeof(*s->entries));
	}
	e = &s->entries[s->n++];
	memset(e, 0, sizeof(*e));
	memcpy(e->digest, digest, CFS_DIGEST_SIZE);
	e->last = UINT32_MAX; /* no image counted yet */
	cfs_htab_insert(&s->index, cfs_hash_digest(digest), s->n);
	return e;
}

void dset_free(struct dset *s)
{
	free(s->entries);
	cfs_htab_free(&s->index);
	memset(s, 0, sizeof(*s));
}
