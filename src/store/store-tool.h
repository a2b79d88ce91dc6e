/* SPDX-License-Identifier: MIT */
/* cfs-store: what the subcommands share. */
#ifndef CFS_STORE_TOOL_H
#define CFS_STORE_TOOL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfs/hashtab.h"
#include "cfs/inventory.h"
#include "cfs/store-layout.h"
#include "cfs/verity.h"

#define TOOL "cfs-store"

/* --- a set of object digests (digest-set.c) */
struct dset_entry {
	uint8_t digest[CFS_DIGEST_SIZE];
	uint64_t size;	/* content size, from the manifest */
	uint32_t users; /* images referencing it */
	uint32_t last;	/* the last image counted + 1; UINT32_MAX: none */
};

struct dset {
	struct dset_entry *entries; /* n of them, in insertion order */
	size_t n, cap;
	struct cfs_htab index; /* digest -> entries index + 1 */
};

/* Finds or inserts; *added tells which. The entry moves on the next add. */
struct dset_entry *dset_add(struct dset *s, const uint8_t *digest, bool *added);
struct dset_entry *dset_find(const struct dset *s, const uint8_t *digest);
void dset_free(struct dset *s);

/* --- objects (objects.c) */
/* Calls fn for every digest a manifest references; -1 if it is corrupt. */
typedef void (*manifest_object_fn)(const uint8_t *digest, uint64_t size,
				   void *opaque);
int manifest_objects(const char *path, manifest_object_fn fn, void *opaque);

/* An object file in the store: xx/yyyy... */
struct store_object {
	uint8_t digest[CFS_DIGEST_SIZE];
	const char *path; /* relative to the store */
	uint64_t size;	  /* with want_size only */
};
/*
 * Calls fn for each object; stray files (bad names) go to stray_fn.
 * Without want_size, objects the directory entry says are regular files
 * are not stat'ed (a walk of a million objects saves a million calls).
 */
typedef int (*object_fn)(const struct store_object *o, void *opaque);
typedef void (*stray_fn)(const char *path, void *opaque);
int store_walk_objects(const char *store, object_fn fn, stray_fn stray,
		       void *opaque, bool want_size);
/* Marks every object the images reference: users counted per image. */
int mark_images(struct cfs_inventory *inv, struct dset *set, bool roots_only);

/* --- a status line on a terminal (progress.c) */
struct store_progress {
	bool on, drawn;
	const char *what;
	size_t total;
	atomic_size_t done;
	atomic_long last_ms;
};
void store_progress_start(struct store_progress *p, const char *what,
			  size_t total);
/* One more item done; safe from any thread. */
void store_progress_step(struct store_progress *p);
/* DONE items done; from one thread at a time. */
void store_progress_set(struct store_progress *p, size_t done);
void store_progress_end(struct store_progress *p);

/* --- object digests, in parallel (hash.c) */
struct hashed_object {
	uint8_t digest[CFS_DIGEST_SIZE]; /* its name */
	uint8_t actual[CFS_DIGEST_SIZE]; /* its content's */
	uint64_t size;
	bool kernel; /* actual is the kernel's fs-verity measurement */
	int error;   /* errno reading it, or 0 */
};
/* Fills actual for every object; returns how many the kernel measured. */
size_t hash_objects(const char *store, struct hashed_object *objs, size_t n,
		    int threads, struct store_progress *progress);

/* --- .tmp and leftover files of dead processes (leftovers.c) */
/*
 * Temps of writers that are gone (see store/temps.c: a live writer holds
 * its marker locked), files being replaced by a PID that runs nowhere
 * here, and orphan config or OCI manifest files: each as a store-relative
 * path.
 */
typedef void (*leftover_fn)(const char *path, void *opaque);
void store_dead_leftovers(const char *store, leftover_fn fn, void *opaque);

/* --- layer cache records (records.c) */
struct cfs_layer;
struct json_object;
/* layer: NULL for a corrupt record; name: relative to the store. */
typedef void (*record_fn)(const char *name, const struct cfs_layer *layer,
			  void *opaque);
void store_walk_records(const char *store, record_fn fn, void *opaque);
/*
 * The layer cache of the images gc keeps (cfs_inventory_is_root): the records of
 * their layers (config rootfs.diff_ids) and every object those name, even
 * one a later layer replaces, so that converting such an image again, or
 * a new tag on the same base, takes every layer from the cache. Adds the
 * objects to set and, if names is not NULL, the records' store-relative
 * names to it as keys.
 */
void mark_layer_records(const struct cfs_inventory *inv, struct dset *set,
			struct json_object *names);
/* True if every object the record names is in set (NULL: on disk). */
bool record_objects_in(const char *store, const struct cfs_layer *l,
		       const struct dset *set);

/* --- output (output.c) */
void print_json(struct json_object *j);
/* "1.5 MiB" */
const char *human_bytes(char buf[32], uint64_t n);

/* --- subcommands */
struct cmd_opts {
	const char *store;
	bool json, dry_run, repair;
	int threads;
};
int cmd_ls(const struct cmd_opts *o);
int cmd_df(const struct cmd_opts *o);
int cmd_rm(const struct cmd_opts *o, char **names, int n);
int cmd_gc(const struct cmd_opts *o);
int cmd_fsck(const struct cmd_opts *o);
/*
 * 0 if the command may act on o->store: every command refuses a newer
 * layout, those that delete or move files also an unmarked directory
 * (marker.c). -1 after printing why.
 */
int store_check_marker(const struct cmd_opts *o, const char *cmd);

#endif
