/* SPDX-License-Identifier: MIT */
/*
 * The store room's private parts: only the files of src/lib/store/ include
 * this header (and the unit tests of those files). Every other caller,
 * tools and the rest of the library alike, goes through the public headers
 * cfs/store.h (objects), cfs/store-layout.h (every other name in the store,
 * its lock and marker) and cfs/store-undo.h; none of them may know the
 * struct below, the temp files' names or the commit protocol.
 *
 * Within the room, files depend on each other in one direction only:
 *   objects.c -> temps.c, place.c, commit.c, verify.c, writeback.c,
 *                 marker.c, layout.c
 *   presence.c -> objects.c
 *   commit.c, temps.c -> place.c
 *   names.c -> listing.c, layout.c;  undo.c -> names.c, layout.c
 *   listing.c, verify.c -> layout.c
 *   lock.c -> marker.c
 *   layout.c, marker.c, place.c, writeback.c: leaves
 * and out of the room only down, to the base (cfs/util.h, cfs/escape.h,
 * cfs/verity.h, cfs/hashtab.h, cfs/pool.h) and to the name rules podman
 * shares (cfs/image-name.h).
 */
#ifndef CFS_STORE_INTERNAL_H
#define CFS_STORE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfs/hashtab.h"
#include "cfs/store.h"

/* ---- writing ahead of the commit (writeback.c) ---- */
/* A thread that starts writeback (syncfs) as new data accumulates. */
struct cfs_writeback;

/* A pass starts each time this many more bytes were written. */
#define CFS_WRITEBACK_STEP (32ull << 20)

/*
 * Called on the writeback thread around each pass: before() returns a mark
 * (say, how many objects were written so far); after(mark) runs once the
 * pass made everything written before that point durable, and is never
 * called again once a pass reported an error.
 */
struct cfs_writeback_hooks {
	size_t (*before)(void *opaque);
	void (*after)(void *opaque, size_t mark);
	void *opaque;
};

/*
 * NULL when no thread could be started: then nothing is written ahead.
 * hooks may be NULL.
 */
struct cfs_writeback *
cfs_writeback_start(int dirfd, const struct cfs_writeback_hooks *hooks);
/* BYTES more were written under dirfd. Both calls take w == NULL. */
void cfs_writeback_note(struct cfs_writeback *w, uint64_t bytes);
/*
 * Waits up to timeout_ms for the count of finished passes to reach passes;
 * returns the count (for tests: writeback is otherwise not observable).
 */
unsigned int cfs_writeback_wait(struct cfs_writeback *w, unsigned int passes,
				int timeout_ms);
void cfs_writeback_stop(struct cfs_writeback *w);

/* ---- existing objects (verify.c) ---- */
/*
 * A conversion must not keep trusting a damaged object. Where the store's
 * filesystem has fs-verity, an existing object is trusted only if the
 * kernel's measurement equals its name; one without verity gets it
 * enabled first (the kernel then hashes what is really there). A bad one
 * is moved aside to STORE/damaged/ and the caller writes it again. Where
 * there is no fs-verity, the object is trusted: cfs-store fsck checks it.
 */
enum cfs_existing {
	CFS_EXISTING_OK,	/* matches its name, or cannot be checked */
	CFS_EXISTING_REPLACE,	/* was bad, moved aside: write it again */
	CFS_EXISTING_NO_VERITY, /* the filesystem has no fs-verity */
};

/* path: "xx/yyyy..." relative to dirfd, an existing regular file. */
enum cfs_existing
cfs_store_check_existing(int dirfd, const char *path,
			 const uint8_t digest[CFS_DIGEST_SIZE]);

/* ---- the store handle ---- */
/* An object written and closed, waiting for the commit (--sync=batch). */
struct pending {
	char *tmp; /* path relative to the store */
	uint8_t digest[CFS_DIGEST_SIZE];
};

struct cfs_store {
	char *dir;
	int dirfd;
	struct cfs_store_opts opts;
	pthread_mutex_t lock;
	struct pending *pending;
	size_t n_pending, cap_pending;
	struct cfs_htab pending_index; /* digest -> pending entry + 1 */
	struct cfs_store_stats stats;
	atomic_bool verity_unsupported;
	atomic_bool verity_used;
	atomic_bool interrupted;
	atomic_bool fanout_made[256]; /* xx/ known to exist: no mkdir each */
	atomic_bool create_mode_ok;   /* temp files come out 0644 as made */
	atomic_uint_fast64_t tmp_seq; /* N in .tmp/obj.PID.H.N */
	atomic_int fanout_mark; /* 0 none yet, 1 made, -1 cannot: use .tmp */
	char mark[40];		/* .tmp/fanout.PID.H: see temps.c */
	int mark_fd;		/* the marker, held locked */
	char writer[24];	/* PID.H, or PID unmarked: in temps' names */
	int pid; /* getpid() at open: handles are not used across fork */
	struct cfs_writeback *writeback; /* --sync=batch: writeback ahead */
	/*
	 * Early placement (commit.c): held by it or by a commit. Under
	 * lock: pending[0..placed) have been taken (their tmp is NULL);
	 * commits counts commits, pass_commits was its value when the
	 * current writeback pass began.
	 */
	pthread_mutex_t place_lock;
	atomic_bool commit_waiting;
	size_t placed;
	unsigned int commits, pass_commits;
	char *early_error; /* under place_lock: a failed early placement */
};

/* The store directory, open for the handle's lifetime. */
int cfs_store_dirfd(const struct cfs_store *s);
/*
 * Whether an object's name alone proves it: no fs-verity measurement is
 * taken of existing objects (--no-verity, or a filesystem without it, as
 * learnt by an earlier lookup).
 */
bool cfs_store_names_trusted(struct cfs_store *s);

/* ---- placing an object (place.c) ---- */
/*
 * Enables fs-verity on the temp object tmp, unless the handle has none to
 * use; -1 after a message (--require-verity on a filesystem without it).
 */
int cfs_store_enable_verity(struct cfs_store *s, const char *tmp);
/* Verity, then the final name; losing a race to an equal object is fine. */
int cfs_store_place(struct cfs_store *s, const char *tmp,
		    const uint8_t *digest);
/*
 * Makes the xx/ directory of path ("xx/..."), once per handle: 0 or -1
 * with errno.
 */
int cfs_store_make_fanout(struct cfs_store *s, char *path, uint8_t first);

/* ---- temp objects (temps.c) ---- */
/* A new .tmp/obj.PID.H.N: fd and its store-relative name, or -1. */
int cfs_store_tmp_create(struct cfs_store *s, char **name);
/* A new xx/.obj.PID.H.N beside the final name (or in .tmp/ if not). */
int cfs_store_tmp_create_beside(struct cfs_store *s, const uint8_t *digest,
				char **name);
/* At close: removes the handle's marker, if it made one. */
void cfs_store_unmark(struct cfs_store *s);

/* ---- pending objects (commit.c); callers hold s->lock ---- */
bool cfs_store_pending_has(struct cfs_store *s, const uint8_t *digest);
/* Queues the temp object tmp (taken over: freed by the store). */
void cfs_store_pending_add(struct cfs_store *s, char *tmp,
			   const uint8_t *digest);
/* At close: removes the temps of objects never committed. */
void cfs_store_pending_free(struct cfs_store *s);
/* What the writeback thread calls around each pass: early placement. */
struct cfs_writeback_hooks cfs_store_early_hooks(struct cfs_store *s);

#endif
