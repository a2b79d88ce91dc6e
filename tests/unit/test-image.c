// SPDX-License-Identifier: MIT
/* Image writer and validating reader: round trips and rejections. */
#include <endian.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "cfs/image.h"
#include "cfs/util.h"
#include "cfs/store-layout.h"
#include "cfs/verity.h"

#include "tap.h"

static struct cfs_inode *add(struct cfs_node *dir, const char *name,
			     uint32_t mode, struct cfs_node **out)
{
	struct cfs_inode *ino = cfs_inode_new(mode);
	struct cfs_node *n = cfs_dir_link(dir, name, strlen(name), ino);

	ino->uid = 1000;
	ino->mtime_sec = 1700000000;
	ino->mtime_nsec = 123456789;
	if (out)
		*out = n;
	return ino;
}

static void set_file(struct cfs_inode *f, const char *content)
{
	char path[CFS_OBJECT_PATH_LEN + 1];

	f->size = strlen(content);
	cfs_verity_digest_mem(content, f->size, f->digest);
	f->has_digest = true;
	cfs_object_path(path, f->digest);
	cfs_inode_set_payload(f, path, strlen(path));
}

/* A tree with every file type, xattrs, and a hard link. */
static struct cfs_tree *sample_tree(int order)
{
	struct cfs_tree *t = cfs_tree_new();
	struct cfs_node *etc, *usr;
	struct cfs_inode *f;
	const char *names[] = {"zeta", "alpha", "m"};

	add(t->root, "etc", S_IFDIR | 0755, &etc);
	add(t->root, "usr", S_IFDIR | 0755, &usr);
	for (int i = 0; i < 3; i++) {
		const char *n = names[(i + order) % 3];

		f = add(etc, n, S_IFREG | 0644, NULL);
		set_file(f, n);
		cfs_inode_set_xattr(f, "user.b", "2", 1);
		cfs_inode_set_xattr(f, "user.a", "1", 1);
	}
	f = add(usr, "link", S_IFLNK | 0777, NULL);
	cfs_inode_set_payload(f, "../etc/alpha", 12);
	f = add(usr, "null", S_IFCHR | 0666, NULL);
	f->rdev = makedev(1, 3);
	add(usr, "fifo", S_IFIFO | 0600, NULL);
	add(usr, "empty", S_IFREG | 04755, NULL);
	f = cfs_dir_lookup(etc, "alpha", 5)->inode;
	cfs_dir_link(usr, "hard", 4, f);
	cfs_inode_set_xattr(t->root->inode, "security.capability", "\0\1", 2);
	return t;
}

static void test_round_trip(void)
{
	struct cfs_tree *a = sample_tree(0), *b = sample_tree(1), *c;
	uint8_t *ia, *ib, *ic;
	size_t la, lb, lc;
	struct cfs_image img;
	struct cfs_image_inode root, in;
	struct cfs_image_dirent de;

	ok(cfs_image_build(a, &ia, &la) == 0, "build");
	ok(cfs_image_build(b, &ib, &lb) == 0, "build in another order");
	ok(la == lb && memcmp(ia, ib, la) == 0,
	   "insertion order does not change the bytes");
	ok(cfs_image_open_mem(&img, ia, la) == 0, "image validates: %s",
	   cfs_strerror());
	ok(img.n_inodes == 10, "10 inodes (hard link shares one): %u",
	   img.n_inodes);
	cfs_image_get_inode(&img, 0, &root);
	ok(S_ISDIR(root.mode) && root.nlink == 4, "root dir, nlink 4");
	ok(cfs_image_dir_count(&root) == 2, "root has 2 entries");
	cfs_image_dir_entry(&root, 0, &de);
	ok(de.ino == 1 && de.name_len == 3 && !memcmp(de.name, "etc", 3),
	   "breadth first: etc is inode 1");
	ok(cfs_image_xattr_count(&root) == 1, "root xattr");
	cfs_image_get_inode(&img, 1, &in);
	ok(cfs_image_dir_lookup(&in, "m", 1, &de) && de.ino == 4,
	   "lookup etc/m = inode 4 (children numbered in name order)");
	ok(!cfs_image_dir_lookup(&in, "n", 1, &de), "lookup missing");
	cfs_image_get_inode(&img, 3, &in);
	ok(in.nlink == 2 && in.digest && in.size == 5,
	   "hard-linked file: nlink 2, digest, size");
	ok(cfs_image_xattr_count(&in) == 2, "file xattrs");
	c = cfs_image_to_tree(&img);
	ok(cfs_image_build(c, &ic, &lc) == 0 && lc == la &&
		   memcmp(ia, ic, la) == 0,
	   "image -> tree -> image is identical");
	cfs_tree_free(a);
	cfs_tree_free(b);
	cfs_tree_free(c);
	free(ib);
	free(ic);
	free(ia);
}

static void put32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, 4);
}

static int reject(const uint8_t *orig, size_t len, size_t off, uint32_t v)
{
	uint8_t *m = xmemdup(orig, len);
	struct cfs_image img;
	int r;

	put32(m + off, v);
	r = cfs_image_open_mem(&img, m, len);
	free(m);
	return r < 0;
}

static void test_rejections(void)
{
	struct cfs_tree *t = sample_tree(0);
	uint8_t *img_data;
	size_t len;
	struct cfs_image img;
	size_t ino1 = CFS_SUPERBLOCK_SIZE + CFS_INODE_SIZE;

	cfs_image_build(t, &img_data, &len);
	ok(cfs_image_open_mem(&img, img_data, 100) < 0, "short file rejected");
	ok(reject(img_data, len, 4, 0x12345678), "bad magic rejected");
	ok(strstr(cfs_strerror(), "magic") != NULL, "message says magic");
	ok(reject(img_data, len, 0, 2), "version 2 rejected");
	ok(reject(img_data, len, 20, 1), "reserved superblock field");
	ok(reject(img_data, len, 8, 129), "misaligned vdata offset");
	ok(reject(img_data, len, 0 + CFS_SUPERBLOCK_SIZE, S_IFREG | 0644),
	   "root not a directory");
	ok(reject(img_data, len, ino1 + 52, 0xffffff00),
	   "dirent chunk offset out of bounds");
	ok(reject(img_data, len, ino1 + 60, 0xffffff00),
	   "dirent chunk length out of bounds");
	ok(reject(img_data, len, ino1 + 36, 1000000000), "nsec >= 1e9");
	ok(reject(img_data, len, ino1 + 4, 7), "wrong nlink");
	ok(reject(img_data, len, ino1 + 88, 1), "unused inode field");
	/* The root's dirent for "etc" names inode 1; point it at the root. */
	{
		struct cfs_image_inode root;

		cfs_image_open_mem(&img, img_data, len);
		cfs_image_get_inode(&img, 0, &root);
		size_t de = (size_t)(root.vdata - img_data) + 4;

		ok(reject(img_data, len, de, 0), "dirent naming the root");
		ok(reject(img_data, len, de, 2),
		   "two dirents naming one directory");
		ok(reject(img_data, len, de, 999), "dirent inode out of range");
	}
	for (size_t i = 0; i < len; i++) {
		uint8_t *m = xmemdup(img_data, len);

		m[i] ^= 0x5a;
		cfs_image_open_mem(&img, m, len); /* must not crash */
		free(m);
	}
	ok(1, "every single-byte corruption handled without a crash");
	for (size_t l = 0; l < len; l += 7) {
		uint8_t *m = xmemdup(img_data, l);

		ok(l >= len || cfs_image_open_mem(&img, m, l) < 0 || l == len,
		   "truncated to %zu rejected", l);
		free(m);
	}
	free(img_data);
	cfs_tree_free(t);
}

static void test_bad_trees(void)
{
	struct cfs_tree *t = cfs_tree_new();
	struct cfs_inode *f = add(t->root, "f", S_IFREG | 0644, NULL);
	uint8_t *d;
	size_t l;

	f->size = 10; /* content but no backing path */
	ok(cfs_image_build(t, &d, &l) < 0, "file without backing path refused");
	cfs_tree_free(t);
	t = cfs_tree_new();
	f = add(t->root, "bad/name", S_IFREG | 0644, NULL);
	ok(cfs_image_build(t, &d, &l) < 0, "name with / refused: %s",
	   cfs_strerror());
	cfs_tree_free(t);
	t = cfs_tree_new();
	ok(cfs_image_build(t, &d, &l) == 0 && l == 128 + 96,
	   "empty tree is superblock + root");
	free(d);
	cfs_tree_free(t);
}

int main(void)
{
	test_round_trip();
	test_rejections();
	test_bad_trees();
	return tap_done();
}
