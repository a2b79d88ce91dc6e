// SPDX-License-Identifier: MIT
#include "cfs/tree.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>

#include "cfs/util.h"

static struct cfs_node *node_new(const char *name, size_t len,
				 struct cfs_node *parent,
				 struct cfs_inode *inode)
{
	struct cfs_node *n = xcalloc(1, sizeof(*n));

	n->name = xstrndup(name, len);
	n->name_len = (uint32_t)len;
	n->parent = parent;
	n->inode = inode;
	inode->refcount++;
	return n;
}

struct cfs_tree *cfs_tree_new(void)
{
	struct cfs_tree *t = xcalloc(1, sizeof(*t));

	t->root = node_new("", 0, NULL, cfs_inode_new(S_IFDIR | 0755));
	return t;
}

static void node_free(struct cfs_node *n)
{
	cfs_inode_unref(n->inode);
	free(n->name);
	free(n);
}

void cfs_tree_free(struct cfs_tree *t)
{
	if (!t)
		return;
	node_free(t->root);
	free(t);
}

struct cfs_inode *cfs_inode_new(uint32_t mode)
{
	struct cfs_inode *ino = xcalloc(1, sizeof(*ino));

	ino->mode = mode;
	return ino;
}

void cfs_inode_clear_xattrs(struct cfs_inode *ino)
{
	for (uint32_t i = 0; i < ino->n_xattrs; i++) {
		free(ino->xattrs[i].key);
		free(ino->xattrs[i].value);
	}
	free(ino->xattrs);
	ino->xattrs = NULL;
	ino->n_xattrs = 0;
}

static void drop_index(struct cfs_inode *d)
{
	cfs_htab_free(&d->index);
}

void cfs_inode_unref(struct cfs_inode *ino)
{
	if (!ino || --ino->refcount > 0)
		return;
	for (uint32_t i = 0; i < ino->n_children; i++)
		node_free(ino->children[i]);
	free(ino->children);
	drop_index(ino);
	cfs_inode_clear_xattrs(ino);
	free(ino->payload);
	free(ino);
}

void cfs_inode_set_payload(struct cfs_inode *ino, const char *s, size_t len)
{
	free(ino->payload);
	ino->payload = s ? xstrndup(s, len) : NULL;
	if (S_ISLNK(ino->mode))
		ino->size = s ? len : 0;
}

int cfs_name_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int r = memcmp(a, b, alen < blen ? alen : blen);

	if (r)
		return r;
	return alen < blen ? -1 : alen > blen;
}

/* Index of the first element >= key; *found tells whether it is equal. */
static uint32_t xattr_find(const struct cfs_inode *ino, const char *key,
			   bool *found)
{
	uint32_t lo = 0, hi = ino->n_xattrs;
	size_t klen = strlen(key);

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const char *k = ino->xattrs[mid].key;
		int c = cfs_name_cmp(k, strlen(k), key, klen);

		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

void cfs_inode_set_xattr(struct cfs_inode *ino, const char *key,
			 const void *value, size_t value_len)
{
	bool found;
	uint32_t i = xattr_find(ino, key, &found);
	struct cfs_xattr *x;

	if (found) {
		x = &ino->xattrs[i];
		free(x->value);
	} else {
		ino->xattrs = xrealloc(ino->xattrs, (ino->n_xattrs +
						     1) * sizeof(*ino->xattrs));
		memmove(&ino->xattrs[i + 1], &ino->xattrs[i],
			(ino->n_xattrs - i) * sizeof(*ino->xattrs));
		ino->n_xattrs++;
		x = &ino->xattrs[i];
		x->key = xstrdup(key);
	}
	x->value = xmemdup(value, value_len);
	x->value_len = (uint32_t)value_len;
}

/* Below this many children an unsorted directory is searched linearly. */
#define INDEX_MIN 32

static int node_cmp(const void *a, const void *b)
{
	const struct cfs_node *x = a, *y = b;

	return cfs_name_cmp(x->name, x->name_len, y->name, y->name_len);
}

static int node_ptr_cmp(const void *a, const void *b)
{
	return node_cmp(*(struct cfs_node *const *)a,
			*(struct cfs_node *const *)b);
}

/*
 * Names come from the image: the index's hash is seeded per process, so an
 * image cannot pick names that all collide.
 */
static uint64_t name_seed;
static pthread_once_t name_seed_once = PTHREAD_ONCE_INIT;

static void pick_name_seed(void)
{
	if (getrandom(&name_seed, sizeof(name_seed), GRND_NONBLOCK) !=
	    (ssize_t)sizeof(name_seed))
		name_seed =
			(uint64_t)(uintptr_t)&name_seed ^ (uint64_t)time(NULL);
}

static uint64_t name_hash(const char *name, size_t len)
{
	pthread_once(&name_seed_once, pick_name_seed);
	return cfs_hash_bytes(name, len, name_seed);
}

static void index_add(struct cfs_inode *d, struct cfs_node *n)
{
	cfs_htab_insert(&d->index, name_hash(n->name, n->name_len),
			(size_t)(uintptr_t)n);
}

/* The child named name in the index; p is left on it for a removal. */
static struct cfs_node *index_find(const struct cfs_inode *d,
				   const struct cfs_node *key,
				   struct cfs_htab_probe *p)
{
	for (size_t v = cfs_htab_first(&d->index,
				       name_hash(key->name, key->name_len), p);
	     v; v = cfs_htab_next(&d->index, p)) {
		struct cfs_node *n = (struct cfs_node *)(uintptr_t)v;

		if (!node_cmp(n, key))
			return n;
	}
	return NULL;
}

/*
 * Sorted: binary search; unsorted: the index (p is left on the hit, for a
 * removal), or a scan when small.
 */
static struct cfs_node *child_find(struct cfs_inode *d, const char *name,
				   size_t len, struct cfs_htab_probe *p)
{
	struct cfs_node key = {.name = (char *)name, .name_len = (uint32_t)len};
	uint32_t lo = 0, hi = d->n_children;

	if (d->unsorted && d->n_children >= INDEX_MIN && !d->index.n)
		for (uint32_t i = 0; i < d->n_children; i++)
			index_add(d, d->children[i]);
	if (d->index.n)
		return index_find(d, &key, p);
	if (d->unsorted) {
		for (uint32_t i = 0; i < d->n_children; i++)
			if (!node_cmp(d->children[i], &key))
				return d->children[i];
		return NULL;
	}
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int r = node_cmp(d->children[mid], &key);

		if (r == 0)
			return d->children[mid];
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

struct cfs_node *cfs_dir_lookup(const struct cfs_node *dir, const char *name,
				size_t len)
{
	struct cfs_htab_probe p;

	return child_find(dir->inode, name, len, &p);
}

static void append_child(struct cfs_inode *d, struct cfs_node *n)
{
	if (d->n_children == d->cap_children) {
		d->cap_children = d->cap_children ? 2 * d->cap_children : 4;
		d->children = xrealloc(d->children,
				       d->cap_children * sizeof(*d->children));
	}
	if (d->n_children && node_cmp(d->children[d->n_children - 1], n) > 0)
		d->unsorted = true;
	n->slot = d->n_children;
	d->children[d->n_children++] = n;
	if (d->index.n)
		index_add(d, n);
}

struct cfs_node *cfs_dir_link(struct cfs_node *dir, const char *name,
			      size_t len, struct cfs_inode *inode)
{
	struct cfs_inode *d = dir->inode;
	struct cfs_htab_probe p;
	struct cfs_node *n = child_find(d, name, len, &p);

	if (n) {
		/* Same name: the node stays, its old inode (and subtree) goes. */
		inode->refcount++;
		cfs_inode_unref(n->inode);
		n->inode = inode;
		return n;
	}
	return cfs_dir_add(dir, name, len, inode);
}

struct cfs_node *cfs_dir_add(struct cfs_node *dir, const char *name, size_t len,
			     struct cfs_inode *inode)
{
	struct cfs_node *n = node_new(name, len, dir, inode);

	append_child(dir->inode, n);
	return n;
}

bool cfs_dir_unlink(struct cfs_node *dir, const char *name, size_t len)
{
	struct cfs_inode *d = dir->inode;
	struct cfs_htab_probe p;
	struct cfs_node *n = child_find(d, name, len, &p);
	uint32_t last = d->n_children - 1;

	if (!n)
		return false;
	if (d->index.n)
		cfs_htab_remove(&d->index, &p);
	/* The last child takes the free slot: O(1), order restored later. */
	if (n->slot != last) {
		d->children[n->slot] = d->children[last];
		d->children[n->slot]->slot = n->slot;
		d->unsorted = true;
	}
	d->n_children--;
	node_free(n);
	return true;
}

void cfs_dir_clear(struct cfs_node *dir)
{
	struct cfs_inode *d = dir->inode;

	for (uint32_t i = 0; i < d->n_children; i++)
		node_free(d->children[i]);
	d->n_children = 0;
	d->unsorted = false;
	drop_index(d);
}

void cfs_dir_sort(struct cfs_inode *d)
{
	if (!d->unsorted)
		return;
	qsort(d->children, d->n_children, sizeof(*d->children), node_ptr_cmp);
	for (uint32_t i = 0; i < d->n_children; i++)
		d->children[i]->slot = i;
	d->unsorted = false;
	drop_index(d);
}

char *cfs_node_path(const struct cfs_node *n)
{
	size_t len = 0, pos;
	char *p;

	if (!n->parent)
		return xstrdup("/");
	for (const struct cfs_node *m = n; m->parent; m = m->parent)
		len += m->name_len + 1;
	p = xmalloc(len + 1);
	pos = len;
	p[pos] = '\0';
	for (const struct cfs_node *m = n; m->parent; m = m->parent) {
		pos -= m->name_len;
		memcpy(p + pos, m->name, m->name_len);
		p[--pos] = '/';
	}
	return p;
}

static int walk(struct cfs_node *n, cfs_walk_fn fn, void *opaque)
{
	int r = fn(n, opaque);

	if (r < 0)
		return r;
	if (r == 1 || !S_ISDIR(n->inode->mode))
		return 0;
	cfs_dir_sort(n->inode);
	for (uint32_t i = 0; i < n->inode->n_children; i++) {
		r = walk(n->inode->children[i], fn, opaque);
		if (r < 0)
			return r;
	}
	return 0;
}

int cfs_tree_walk(struct cfs_tree *t, cfs_walk_fn fn, void *opaque)
{
	return walk(t->root, fn, opaque);
}
