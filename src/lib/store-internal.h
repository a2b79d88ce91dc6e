/* SPDX-License-Identifier: MIT */
/* A store handle's state, shared by the store's files. */
#ifndef CFS_STORE_INTERNAL_H
#define CFS_STORE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "writeback.h"
#include "cfs/hashtab.h"
#include "cfs/store.h"

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
	char mark[40];		/* .tmp/fanout.PID.H: see store-temps.c */
	int mark_fd;		/* the marker, held locked */
	char writer[24];	/* PID.H, or PID unmarked: in temps' names */
	int pid; /* getpid() at open: handles are not used across fork */
	struct cfs_writeback *writeback; /* --sync=batch: writeback ahead */
	/*
	 * Early placement (store-commit.c): held by it or by a commit. Under
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

/* Verity, then the final name; losing a race to an equal object is fine. */
int cfs_store_place(struct cfs_store *s, const char *tmp,
		    const uint8_t *digest);

/* ---- pending objects (store-commit.c); callers hold s->lock ---- */
bool cfs_store_pending_has(struct cfs_store *s, const uint8_t *digest);
/* Queues the temp object tmp (taken over: freed by the store). */
void cfs_store_pending_add(struct cfs_store *s, char *tmp,
			   const uint8_t *digest);
/* At close: removes the temps of objects never committed. */
void cfs_store_pending_free(struct cfs_store *s);
/* What the writeback thread calls around each pass: early placement. */
struct cfs_writeback_hooks cfs_store_early_hooks(struct cfs_store *s);

#endif
