/* SPDX-License-Identifier: MIT */
/*
 * The worker pool: a few threads that all run one loop, fn(arg), which
 * takes its work from a queue of the caller's (an atomic index into an
 * array, a list under a lock) and returns when none is left. oci2cfs reads
 * layers and places objects with it, cfs-store fsck hashes objects.
 */
#ifndef CFS_POOL_H
#define CFS_POOL_H

typedef void (*cfs_pool_fn)(void *arg);

struct cfs_pool;

/*
 * Starts up to n threads running fn(arg). A thread that cannot be created
 * leaves the pool smaller; with none at all, fn(arg) runs in the caller
 * before this returns, so the work is done either way. Never NULL.
 */
struct cfs_pool *cfs_pool_start(unsigned int n, cfs_pool_fn fn, void *arg);
/* How many threads the pool got (0: the caller did the work). */
unsigned int cfs_pool_threads(const struct cfs_pool *p);
/* Waits for every thread to return from fn, then frees the pool. */
void cfs_pool_join(struct cfs_pool *p);

/*
 * Runs fn(arg) on n threads at once, the caller's being one of them, and
 * returns when all have returned.
 */
void cfs_pool_run(unsigned int n, cfs_pool_fn fn, void *arg);

/*
 * Threads worth starting for todo items of work: requested if > 0, else
 * the CPUs online; at least 1, at most todo (if > 0) and max.
 */
unsigned int cfs_pool_size(long requested, unsigned long todo,
			   unsigned int max);

#endif
