/* SPDX-License-Identifier: MIT */
/*
 * A layer record: the entries of one layer tar, in tar order, with file
 * contents already moved into the object store (only their digests kept).
 * It is both what a layer reader produces and what the layer cache stores
 * (keyed by DiffID), so an image can be rebuilt from records alone.
 */
#ifndef CFS_LAYER_H
#define CFS_LAYER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cfs/sha256.h"
#include "cfs/store.h"
#include "cfs/tree.h"

enum cfs_entry_kind {
	CFS_ENTRY_NODE = 0, /* a file, dir, symlink, device, fifo, socket */
	CFS_ENTRY_HARDLINK, /* link = target path */
	CFS_ENTRY_WHITEOUT, /* path is the name to hide */
	CFS_ENTRY_OPAQUE,   /* path is the directory made opaque */
};

struct cfs_layer_entry {
	uint8_t kind;
	char *path; /* cleaned: relative, no "." or ".." parts, "" = root */
	uint32_t mode, uid, gid, rdev;
	uint64_t size;
	int64_t mtime_sec;
	uint32_t mtime_nsec;
	char *link; /* symlink target (as in tar) or hardlink target path */
	bool has_digest;
	uint8_t digest[CFS_DIGEST_SIZE];
	struct cfs_xattr *xattrs; /* sorted by key */
	uint32_t n_xattrs;
};

struct cfs_layer {
	uint8_t diff_id[CFS_SHA256_SIZE];
	struct cfs_layer_entry *entries;
	size_t n_entries, cap_entries;
	uint64_t content_bytes; /* sum of regular file sizes */
};

/* Progress: called now and then with uncompressed bytes read so far. */
typedef void (*cfs_progress_fn)(void *opaque, uint64_t bytes);

/* Reads compressed or plain layer bytes: same contract as cfs_blob_read. */
typedef ssize_t (*cfs_stream_fn)(void *opaque, void *buf, size_t n);

/*
 * Reads one layer: detects gzip/zstd/plain by magic, checks the sha256 of
 * the uncompressed stream against diff_id (NULL: no check), stores every
 * regular file's content in the store. name is used in error messages.
 */
int cfs_layer_read(struct cfs_layer **out, cfs_stream_fn fn, void *opaque,
		   const uint8_t *diff_id, struct cfs_store *store,
		   const char *name, cfs_progress_fn progress, void *popaque);
void cfs_layer_free(struct cfs_layer *l);

/* Layer cache: <store>/layers/<diffid hex>. */
int cfs_layer_cache_save(struct cfs_store *store, const struct cfs_layer *l);
/*
 * Loads a cached record; returns 1 if found and valid (and every object it
 * references is in the store), 0 if absent or unusable, -1 on hard error.
 */
int cfs_layer_cache_load(struct cfs_store *store,
			 const uint8_t diff_id[CFS_SHA256_SIZE],
			 struct cfs_layer **out);
/*
 * Loads the records of n layers: out[i] is what cfs_layer_cache_load
 * would give, or NULL (absent, unusable or unreadable). The store is asked
 * about all their objects at once, which looks at each of its directories
 * once instead of once per layer. Returns how many were loaded.
 */
size_t cfs_layer_cache_load_all(struct cfs_store *store, size_t n,
				const uint8_t (*diff_ids)[CFS_SHA256_SIZE],
				struct cfs_layer **out);
/*
 * Reads a record file without looking at the store (cfs-store checks
 * which objects it names): 1 if valid, 0 if not, -1 if unreadable.
 */
int cfs_layer_cache_read(const char *path,
			 const uint8_t diff_id[CFS_SHA256_SIZE],
			 struct cfs_layer **out);

/* Applies a layer on top of a tree with OCI semantics (layer/apply.c). */
int cfs_layer_apply(struct cfs_tree *t, const struct cfs_layer *l);

#endif
