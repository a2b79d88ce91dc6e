// SPDX-License-Identifier: MIT
/*
 * The tree's directories whatever the order of operations: links in
 * ascending, descending and zigzag order, replacements and removals give
 * the same sorted children, found by lookup before and after sorting.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cfs/image.h"
#include "tap.h"
#include "cfs/tree.h"
#include "cfs/util.h"

#define N 5000

static void name_of(char *buf, unsigned i)
{
	snprintf(buf, 16, "f%05u", i);
}

/* i-th name of an order: 0 ascending, 1 descending, 2 zigzag from the middle. */
static unsigned nth(int order, unsigned i)
{
	if (order == 0)
		return i;
	if (order == 1)
		return N - 1 - i;
	return i % 2 ? N / 2 + (i - 1) / 2 : N / 2 - 1 - i / 2;
}

static struct cfs_tree *build(int order)
{
	struct cfs_tree *t = cfs_tree_new();
	struct cfs_node *d =
		cfs_dir_link(t->root, "d", 1, cfs_inode_new(S_IFDIR | 0755));
	char name[16];

	for (unsigned i = 0; i < N; i++) {
		name_of(name, nth(order, i));
		cfs_dir_link(d, name, strlen(name),
			     cfs_inode_new(S_IFREG | 0644));
	}
	/* Names j % 3 == 0 replaced, j % 7 == 0 removed, in the order. */
	for (unsigned i = 0; i < N; i++) {
		unsigned j = nth(order, i);

		name_of(name, j);
		if (j % 3 == 0)
			cfs_dir_link(d, name, strlen(name),
				     cfs_inode_new(S_IFREG | 0600));
		if (j % 7 == 0)
			cfs_dir_unlink(d, name, strlen(name));
	}
	return t;
}

static bool lookups_ok(struct cfs_node *d)
{
	char name[16];

	for (unsigned i = 0; i < N; i++) {
		struct cfs_node *n;

		name_of(name, i);
		n = cfs_dir_lookup(d, name, strlen(name));
		if (!n != (i % 7 == 0))
			return false;
		if (n && (n->inode->mode & 0777) != (i % 3 ? 0644 : 0600))
			return false;
	}
	return true;
}

int main(void)
{
	static const char *const names[] = {"ascending", "descending",
					    "zigzag"};
	uint8_t *img[3];
	size_t len[3];

	for (int order = 0; order < 3; order++) {
		struct cfs_tree *t = build(order);
		struct cfs_node *d = cfs_dir_lookup(t->root, "d", 1);
		bool sorted = true;

		ok(d && lookups_ok(d), "%s: lookups before sorting",
		   names[order]);
		cfs_dir_sort(d->inode);
		for (uint32_t i = 1; i < d->inode->n_children; i++)
			sorted &= strcmp(d->inode->children[i - 1]->name,
					 d->inode->children[i]->name) < 0 &&
				  d->inode->children[i]->slot == i;
		ok(sorted && d->inode->n_children == N - (N + 6) / 7,
		   "%s: sorted, %u children", names[order],
		   d->inode->n_children);
		ok(lookups_ok(d), "%s: lookups after sorting", names[order]);
		ok(cfs_image_build(t, &img[order], &len[order]) == 0,
		   "%s: builds", names[order]);
		cfs_tree_free(t);
	}
	ok(len[0] == len[1] && len[0] == len[2] &&
		   !memcmp(img[0], img[1], len[0]) &&
		   !memcmp(img[0], img[2], len[0]),
	   "the three orders give the same image");
	for (int i = 0; i < 3; i++)
		free(img[i]);
	return tap_done();
}
