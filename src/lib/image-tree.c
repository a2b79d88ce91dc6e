// SPDX-License-Identifier: MIT
/* Loading a validated image back into an in-memory tree. */
#include "cfs/image.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cfs/util.h"

static struct cfs_inode *load_inode(const struct cfs_image *img, uint32_t ino)
{
	struct cfs_image_inode in;
	struct cfs_inode *t;

	cfs_image_get_inode(img, ino, &in);
	t = cfs_inode_new(in.mode);
	t->uid = in.uid;
	t->gid = in.gid;
	t->rdev = in.rdev;
	t->mtime_sec = in.mtime_sec;
	t->mtime_nsec = in.mtime_nsec;
	if (S_ISREG(in.mode) || S_ISLNK(in.mode)) {
		t->size = in.size;
		if (in.vdata_len)
			t->payload =
				xstrndup((const char *)in.vdata, in.vdata_len);
	}
	if (in.digest) {
		t->has_digest = true;
		memcpy(t->digest, in.digest, CFS_DIGEST_SIZE);
	}
	for (uint32_t i = 0; i < cfs_image_xattr_count(&in); i++) {
		struct cfs_image_xattr x;
		char *key;

		cfs_image_xattr_get(&in, i, &x);
		key = xstrndup(x.key, x.key_len);
		cfs_inode_set_xattr(t, key, x.value, x.value_len);
		free(key);
	}
	return t;
}

struct cfs_tree *cfs_image_to_tree(const struct cfs_image *img)
{
	struct cfs_inode **map = xcalloc(img->n_inodes, sizeof(*map));
	struct cfs_node **queue = xcalloc(img->n_inodes, sizeof(*queue));
	struct cfs_tree *t = cfs_tree_new();
	struct cfs_inode *root = load_inode(img, CFS_ROOT_INO);
	uint32_t head = 0, tail = 0;

	/* Swap in the loaded root inode. */
	root->refcount = 1;
	root->ino = CFS_ROOT_INO;
	cfs_inode_unref(t->root->inode);
	t->root->inode = root;
	map[CFS_ROOT_INO] = root;
	queue[tail++] = t->root;
	while (head < tail) {
		struct cfs_node *dir = queue[head++];
		struct cfs_image_inode in;

		cfs_image_get_inode(img, dir->inode->ino, &in);
		for (uint32_t i = 0; i < cfs_image_dir_count(&in); i++) {
			struct cfs_image_dirent de;
			struct cfs_node *n;

			cfs_image_dir_entry(&in, i, &de);
			if (!map[de.ino]) {
				map[de.ino] = load_inode(img, de.ino);
				map[de.ino]->ino = de.ino;
			}
			n = cfs_dir_link(dir, de.name, de.name_len,
					 map[de.ino]);
			if (S_ISDIR(n->inode->mode) && tail < img->n_inodes)
				queue[tail++] = n;
		}
	}
	free(queue);
	free(map);
	return t;
}
