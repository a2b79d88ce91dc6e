/* SPDX-License-Identifier: MIT */
/* Writing and reading composefs images (format v1, linux/composefs.h). */
#ifndef CFS_IMAGE_H
#define CFS_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfs/tree.h"

/*
 * Serialise a tree into image bytes (malloc'ed into *out). Deterministic:
 * inodes numbered breadth first, children in name order; identical xattr
 * sets share one chunk; nlink computed from the tree. Fails (cfs_error) on
 * a tree that violates the format rules (names, payload lengths, ...).
 */
int cfs_image_build(struct cfs_tree *t, uint8_t **out, size_t *out_len);

/*
 * A validated image. cfs_image_open_mem checks every rule of the format
 * (bounds, names, sort order, types, tree shape, link counts) so that the
 * accessors below never need to check again. It survives any byte string.
 */
struct cfs_image {
	const uint8_t *data;
	size_t size;
	uint32_t n_inodes;
	const uint8_t *vdata; /* data + vdata_offset */
	uint64_t vdata_size;
	void *map; /* mmap owned by cfs_image_open_file, or NULL */
	size_t map_len;
};

/* A decoded inode (host byte order) with pointers into the image. */
struct cfs_image_inode {
	uint32_t ino;
	uint32_t mode, nlink, uid, gid, rdev;
	uint64_t size;
	int64_t mtime_sec;
	uint32_t mtime_nsec;
	int64_t ctime_sec;
	uint32_t ctime_nsec;
	const uint8_t *vdata; /* dirent chunk, backing path or target */
	uint32_t vdata_len;
	const uint8_t *xattrs; /* xattr chunk */
	uint32_t xattrs_len;
	const uint8_t *digest; /* 32 bytes or NULL */
};

struct cfs_image_dirent {
	const char *name; /* not NUL-terminated */
	uint32_t name_len;
	uint32_t ino;
	uint8_t d_type;
};

struct cfs_image_xattr {
	const char *key; /* not NUL-terminated */
	uint32_t key_len;
	const uint8_t *value;
	uint32_t value_len;
};

/* Validates; on error sets cfs_error ("corrupt image: ...") and returns -1. */
int cfs_image_open_mem(struct cfs_image *img, const void *data, size_t size);
int cfs_image_open_file(struct cfs_image *img, const char *path);
void cfs_image_close(struct cfs_image *img);

void cfs_image_get_inode(const struct cfs_image *img, uint32_t ino,
			 struct cfs_image_inode *out);
uint32_t cfs_image_dir_count(const struct cfs_image_inode *dir);
void cfs_image_dir_entry(const struct cfs_image_inode *dir, uint32_t i,
			 struct cfs_image_dirent *out);
/* Binary search; true and fills out if found (a predicate: no message). */
bool cfs_image_dir_lookup(const struct cfs_image_inode *dir, const char *name,
			  size_t len, struct cfs_image_dirent *out);
uint32_t cfs_image_xattr_count(const struct cfs_image_inode *ino);
void cfs_image_xattr_get(const struct cfs_image_inode *ino, uint32_t i,
			 struct cfs_image_xattr *out);

/*
 * Calls fn for every name in the image, the root ("/") first, depth first,
 * each directory's entries in name order; path is NUL-terminated and
 * valid during the call. A hard-linked inode is visited once per name.
 */
typedef void (*cfs_image_walk_fn)(const char *path, size_t path_len,
				  uint32_t ino_num,
				  const struct cfs_image_inode *ino,
				  void *opaque);
void cfs_image_walk(const struct cfs_image *img, cfs_image_walk_fn fn,
		    void *opaque);

/* Load a validated image back into a tree (for dump -> image round trips). */
struct cfs_tree *cfs_image_to_tree(const struct cfs_image *img);

#endif
