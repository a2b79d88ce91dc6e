// SPDX-License-Identifier: MIT
/*
 * Whether a whole list of objects is in the store: the layer cache asks
 * this of every object a cached layer names before it trusts the layer.
 *
 * One stat per object costs an inode read each on a cold cache (0.16 s for
 * the 12,910 objects of the bench image), while listing a fanout directory
 * reads a few directory blocks for all its names at once (0.03 s for all
 * 256). So where a name alone proves an object (no fs-verity measurement
 * to take), a fanout directory the list wants many objects from is read
 * once; the others are looked up one by one, as cfs_store_has does. Any
 * digest the listing did not show goes through cfs_store_has too, so the
 * answer is always the one it would give (objects pending in this handle,
 * an object placed while the directory was read).
 */
#include "cfs/store.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "cfs/pool.h"
#include "cfs/store-layout.h"
#include "cfs/util.h"

#define FANOUTS 256
/*
 * On a cold cache, looking one object up reads a directory block or two
 * and the block of its inode; listing its directory reads every block of
 * it (about 56 names each). So a fanout directory is listed when it has no
 * more blocks than one plus the objects wanted from it.
 */
#define DIR_BLOCK 4096
#define PRESENCE_THREADS 8

typedef uint8_t digest_t[CFS_DIGEST_SIZE];

struct presence {
	struct cfs_store *s;
	digest_t *sorted;	   /* the digests, by fanout then whole value */
	size_t start[FANOUTS + 1]; /* fanout f from sorted[start[f]] on, */
	size_t count[FANOUTS];	   /* count[f] of them, each once */
	bool names_trusted;
	atomic_uint next;
	atomic_bool missing;
};

static int digest_cmp(const void *a, const void *b)
{
	return memcmp(a, b, CFS_DIGEST_SIZE);
}

static size_t unique(digest_t *d, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (k == 0 || memcmp(d[k - 1], d[i], CFS_DIGEST_SIZE))
			memmove(d[k++], d[i], CFS_DIGEST_SIZE);
	return k;
}

/*
 * A counting sort by first byte, then each fanout's digests in order and
 * once only (files of the same content share an object).
 */
static void sort_by_fanout(struct presence *p, const digest_t *digests,
			   size_t n)
{
	size_t fill[FANOUTS];

	memset(p->start, 0, sizeof(p->start));
	for (size_t i = 0; i < n; i++)
		p->start[digests[i][0] + 1]++;
	for (int f = 0; f < FANOUTS; f++)
		p->start[f + 1] += p->start[f];
	memcpy(fill, p->start, sizeof(fill));
	p->sorted = xmalloc((n ? n : 1) * sizeof(*p->sorted));
	for (size_t i = 0; i < n; i++)
		memcpy(p->sorted[fill[digests[i][0]]++], digests[i],
		       CFS_DIGEST_SIZE);
	for (int f = 0; f < FANOUTS; f++) {
		digest_t *d = p->sorted + p->start[f];
		size_t k = p->start[f + 1] - p->start[f];

		qsort(d, k, sizeof(*d), digest_cmp);
		p->count[f] = unique(d, k);
	}
}

static void fanout_name(char name[3], int f)
{
	uint8_t byte = (uint8_t)f;

	cfs_hex(name, &byte, 1);
}

static bool worth_listing(struct presence *p, int f, size_t wanted)
{
	char name[3];
	struct stat st;

	if (!p->names_trusted)
		return false;
	fanout_name(name, f);
	if (fstatat(cfs_store_dirfd(p->s), name, &st, 0) < 0)
		return false; /* no such fanout: the lookups say "missing" */
	return (uint64_t)st.st_size <= (wanted + 1) * DIR_BLOCK;
}

/* Marks found[i] for each digest of fanout f whose name is listed. */
static void list_fanout(struct presence *p, int f, bool *found)
{
	const digest_t *want = p->sorted + p->start[f];
	size_t n = p->count[f];
	char name[3];
	struct dirent *e;
	DIR *d;

	fanout_name(name, f);
	d = cfs_opendir_at(cfs_store_dirfd(p->s), name);
	if (!d)
		return;
	while ((e = readdir(d))) {
		digest_t key;
		const digest_t *hit;

		if (e->d_type != DT_REG ||
		    !cfs_layout_object_name((uint8_t)f, e->d_name, key))
			continue;
		hit = bsearch(key, want, n, sizeof(*want), digest_cmp);
		if (hit)
			found[hit - want] = true;
	}
	closedir(d);
}

static bool fanout_present(struct presence *p, int f)
{
	size_t n = p->count[f];
	bool *found = xcalloc(n, sizeof(*found));
	bool ok = true;

	if (worth_listing(p, f, n))
		list_fanout(p, f, found);
	for (size_t i = 0; i < n && ok; i++)
		ok = found[i] ||
		     cfs_store_has(p->s, p->sorted[p->start[f] + i]);
	free(found);
	return ok;
}

static void check_fanouts(void *opaque)
{
	struct presence *p = opaque;
	unsigned int f;

	while (!atomic_load(&p->missing) &&
	       (f = atomic_fetch_add(&p->next, 1)) < FANOUTS)
		if (p->count[f] && !fanout_present(p, f))
			atomic_store(&p->missing, true);
}

bool cfs_store_has_all(struct cfs_store *s, const digest_t *digests, size_t n)
{
	struct presence p = {.s = s};
	unsigned int fanouts = 0;

	/* the first lookup also learns whether the filesystem has verity */
	if (n == 0)
		return true;
	if (!cfs_store_has(s, digests[0]))
		return false;
	p.names_trusted = cfs_store_names_trusted(s);
	sort_by_fanout(&p, digests, n);
	for (int f = 0; f < FANOUTS; f++)
		fanouts += p.count[f] > 0;
	cfs_pool_run(cfs_pool_size(0, fanouts, PRESENCE_THREADS), check_fanouts,
		     &p);
	free(p.sorted);
	return !atomic_load(&p.missing);
}
