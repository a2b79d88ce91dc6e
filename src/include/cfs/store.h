/* SPDX-License-Identifier: MIT */
/*
 * The object store: <dir>/xx/yyyy... named by the hex fs-verity digest of
 * the content. The store's other files and its whole layout, drawn as a
 * tree, are in cfs/store-layout.h. New objects are written under .tmp/ and renamed into place without
 * replacing, so a final name never holds a partial object. Thread-safe.
 */
#ifndef CFS_STORE_H
#define CFS_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfs/verity.h"

enum cfs_sync {
	CFS_SYNC_BATCH = 0, /* one syncfs before objects get their names */
	CFS_SYNC_EACH,	    /* fsync every object before its rename */
	CFS_SYNC_NONE,	    /* no syncing at all (tests, scratch stores) */
};

struct cfs_store_opts {
	enum cfs_sync sync;
	bool require_verity; /* fail where fs-verity cannot be enabled */
	bool no_verity;	     /* never try to enable fs-verity */
};

struct cfs_store_stats {
	uint64_t new_objects, new_bytes; /* written by this handle */
	uint64_t existing_objects;	 /* already present, reused */
	bool verity; /* fs-verity was enabled on new objects */
};

struct cfs_store;

/* Opens (creating if needed) a store directory. */
int cfs_store_open(struct cfs_store **out, const char *dir,
		   const struct cfs_store_opts *opts);
/*
 * Unlinks any object not committed yet, then frees. Under CFS_SYNC_BATCH,
 * objects a writeback pass already made durable may have their final
 * names before the commit (complete objects nothing refers to yet: they
 * stay, for garbage collection).
 */
void cfs_store_close(struct cfs_store *s);
const char *cfs_store_dir(const struct cfs_store *s);
const struct cfs_store_opts *cfs_store_options(const struct cfs_store *s);
void cfs_store_get_stats(struct cfs_store *s, struct cfs_store_stats *st);

/* True if the object exists (or is pending commit in this handle). */
bool cfs_store_has(struct cfs_store *s, const uint8_t digest[CFS_DIGEST_SIZE]);
/*
 * True if cfs_store_has would say so of each of the n digests; much faster
 * than n calls for a long list (a cached layer's objects).
 */
bool cfs_store_has_all(struct cfs_store *s,
		       const uint8_t (*digests)[CFS_DIGEST_SIZE], size_t n);

/*
 * Stores size bytes produced by fn (see cfs_read_fn) as an object; returns
 * its digest. Reads the stream exactly once. An object already present is
 * not rewritten. size must be > 0.
 */
int cfs_store_add_stream(struct cfs_store *s, cfs_read_fn fn, void *opaque,
			 uint64_t size, uint8_t digest[CFS_DIGEST_SIZE]);
int cfs_store_add_fd(struct cfs_store *s, int fd, uint64_t size,
		     uint8_t digest[CFS_DIGEST_SIZE]);

/*
 * Makes later cfs_store_add_* calls fail with "interrupted"; safe to call
 * from a signal handler (a lock-free atomic store).
 */
void cfs_store_interrupt(struct cfs_store *s);

/*
 * Makes every object added so far durable (per the sync policy), enables
 * fs-verity on it, and gives it its final name. Must be called before a
 * manifest referencing the objects is written.
 */
int cfs_store_commit(struct cfs_store *s);

#endif
