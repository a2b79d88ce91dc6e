// SPDX-License-Identifier: MIT
#include "tree.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

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

void cfs_inode_unref(struct cfs_inode *ino)
{
	if (!ino || --ino->refcount > 0)
		return;
	for (uint32_t i = 0; i < ino->n_children; i++)
		node_free(ino->children[i]);
	free(ino->children);
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

static uint32_t child_find(const struct cfs_inode *dir, const char *name,
			   size_t len, bool *found)
{
	uint32_t lo = 0, hi = dir->n_children;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct cfs_node *c = dir->children[mid];
		int r = cfs_name_cmp(c->name, c->name_len, name, len);

		if (r == 0) {
			*found = true;
			return mid;
		}
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

struct cfs_node *cfs_dir_lookup(const struct cfs_node *dir, const char *name,
				size_t len)
{
	bool found;
	uint32_t i = child_find(dir->inode, name, len, &found);

	return found ? dir->inode->children[i] : NULL;
}

struct cfs_node *cfs_dir_link(struct cfs_node *dir, const char *name,
			      size_t len, struct cfs_inode *inode)
{
	struct cfs_inode *d = dir->inode;
	bool found;
	uint32_t i = child_find(d, name, len, &found);
	struct cfs_node *n = node_new(name, len, dir, inode);

	if (found) {
		node_free(d->children[i]);
		d->children[i] = n;
		return n;
	}
	if (d->n_children == d->cap_children) {
		d->cap_children = d->cap_children ? 2 * d->cap_children : 4;
		d->children = xrealloc(d->children,
				       d->cap_children * sizeof(*d->children));
	}
	memmove(&d->children[i + 1], &d->children[i],
		(d->n_children - i) * sizeof(*d->children));
	d->children[i] = n;
	d->n_children++;
	return n;
}

bool cfs_dir_unlink(struct cfs_node *dir, const char *name, size_t len)
{
	struct cfs_inode *d = dir->inode;
	bool found;
	uint32_t i = child_find(d, name, len, &found);

	if (!found)
		return false;
	node_free(d->children[i]);
	memmove(&d->children[i], &d->children[i + 1],
		(d->n_children - i - 1) * sizeof(*d->children));
	d->n_children--;
	return true;
}

void cfs_dir_clear(struct cfs_node *dir)
{
	struct cfs_inode *d = dir->inode;

	for (uint32_t i = 0; i < d->n_children; i++)
		node_free(d->children[i]);
	d->n_children = 0;
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
