/* SPDX-License-Identifier: MIT */
/*
 * The in-memory image tree: metadata only. A cfs_node is a name in a
 * directory; it points to a cfs_inode, which hard links share.
 */
#ifndef CFS_TREE_H
#define CFS_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/composefs.h>

#include "cfs/hashtab.h"

struct cfs_node;

struct cfs_xattr {
	char *key; /* NUL-terminated, with namespace prefix */
	uint8_t *value;
	uint32_t value_len;
};

struct cfs_inode {
	uint32_t refcount; /* number of cfs_nodes naming it */
	uint32_t mode;	   /* type and permission bits (st_mode) */
	uint32_t uid, gid, rdev;
	uint64_t size; /* regular: content size; symlink: strlen */
	int64_t mtime_sec;
	uint32_t mtime_nsec;
	/* Symlink target, or a regular file's backing path; NULL if none. */
	char *payload;
	bool has_digest;
	uint8_t digest[CFS_DIGEST_SIZE];
	struct cfs_xattr *xattrs; /* sorted by key, unique */
	uint32_t n_xattrs;
	/*
	 * Directories only: children, sorted by name (memcmp, shorter first)
	 * unless unsorted: an entry out of order, or a removal, leaves them
	 * unsorted (and indexed by name in a hash table once there are
	 * many) until cfs_dir_sort(), which every walker calls first. So
	 * building a directory costs one sort at most, whatever the input
	 * order.
	 */
	struct cfs_node **children;
	uint32_t n_children, cap_children;
	bool unsorted;
	struct cfs_htab index; /* unsorted: children by name, or empty */
	/* Scratch for the writer and walkers. */
	uint32_t ino;
	uint32_t nlink;
	void *priv;
};

struct cfs_node {
	char *name; /* NUL-terminated; "" for the root */
	uint32_t name_len;
	uint32_t slot;		 /* index in the parent's children */
	struct cfs_node *parent; /* NULL for the root */
	struct cfs_inode *inode;
};

struct cfs_tree {
	struct cfs_node *root;
};

struct cfs_tree *cfs_tree_new(void);
void cfs_tree_free(struct cfs_tree *t);

/* A fresh inode, refcount 0, all other fields zero except mode. */
struct cfs_inode *cfs_inode_new(uint32_t mode);
void cfs_inode_unref(struct cfs_inode *ino); /* frees at refcount 0 */

/* Payload: copies s (len bytes); NULL clears. Also sets size for symlinks. */
void cfs_inode_set_payload(struct cfs_inode *ino, const char *s, size_t len);
/* Sets (replaces) one xattr, keeping the array sorted. */
void cfs_inode_set_xattr(struct cfs_inode *ino, const char *key,
			 const void *value, size_t value_len);
void cfs_inode_clear_xattrs(struct cfs_inode *ino);

/* Byte-order name comparison used everywhere (memcmp, shorter first). */
int cfs_name_cmp(const char *a, size_t alen, const char *b, size_t blen);

/* Child of a directory by name, or NULL. */
struct cfs_node *cfs_dir_lookup(const struct cfs_node *dir, const char *name,
				size_t len);
/*
 * Link inode under dir as name; takes a reference on inode. If name exists,
 * the old entry (and its subtree) is removed first. Returns the new node.
 */
struct cfs_node *cfs_dir_link(struct cfs_node *dir, const char *name,
			      size_t len, struct cfs_inode *inode);
/*
 * Like cfs_dir_link for a name dir is known not to hold (just looked up):
 * saves the second lookup.
 */
struct cfs_node *cfs_dir_add(struct cfs_node *dir, const char *name, size_t len,
			     struct cfs_inode *inode);
/* Removes a child and its subtree; returns false if absent. */
bool cfs_dir_unlink(struct cfs_node *dir, const char *name, size_t len);
/* Removes every child of dir. */
void cfs_dir_clear(struct cfs_node *dir);
/* Puts a directory's children in name order (a no-op when they are). */
void cfs_dir_sort(struct cfs_inode *d);

/* The absolute path of a node ("/" for the root), malloc'ed. */
char *cfs_node_path(const struct cfs_node *n);

/*
 * Depth-first pre-order walk, children in name order. The callback returns
 * 0 to continue, 1 to skip a directory's children, -1 to abort (returned).
 */
typedef int (*cfs_walk_fn)(struct cfs_node *n, void *opaque);
int cfs_tree_walk(struct cfs_tree *t, cfs_walk_fn fn, void *opaque);

#endif
