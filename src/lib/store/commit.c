// SPDX-License-Identifier: MIT
/*
 * Pending objects (--sync=batch) and their final names. A closed temp
 * object waits in s->pending until a writeback pass or the commit has
 * made it durable: then it is renamed into place, early (on the writeback
 * thread, right after the pass) or by the commit (syncfs, then several
 * threads place what is left).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "cfs/pool.h"
#include "cfs/util.h"

bool cfs_store_pending_has(struct cfs_store *s, const uint8_t *digest)
{
	struct cfs_htab_probe p;

	for (size_t v = cfs_htab_first(&s->pending_index,
				       cfs_hash_digest(digest), &p);
	     v; v = cfs_htab_next(&s->pending_index, &p))
		if (!memcmp(s->pending[v - 1].digest, digest, CFS_DIGEST_SIZE))
			return true;
	return false;
}

void cfs_store_pending_add(struct cfs_store *s, char *tmp,
			   const uint8_t *digest)
{
	if (s->n_pending == s->cap_pending) {
		s->cap_pending = s->cap_pending ? 2 * s->cap_pending : 64;
		s->pending = xrealloc(s->pending,
				      s->cap_pending * sizeof(*s->pending));
	}
	s->pending[s->n_pending].tmp = tmp;
	memcpy(s->pending[s->n_pending].digest, digest, CFS_DIGEST_SIZE);
	s->n_pending++;
	cfs_htab_insert(&s->pending_index, cfs_hash_digest(digest),
			s->n_pending);
}

void cfs_store_pending_free(struct cfs_store *s)
{
	for (size_t i = 0; i < s->n_pending; i++) {
		if (s->pending[i].tmp)
			unlinkat(s->dirfd, s->pending[i].tmp, 0);
		free(s->pending[i].tmp);
	}
	free(s->pending);
	free(s->early_error);
	cfs_htab_free(&s->pending_index);
}

/*
 * Early placement. A writeback pass (writeback.c) makes durable every
 * object that was pending when it began, so those can take their final
 * names right away, on the writeback thread, while the converter goes on:
 * the renames then use a core the last layer leaves idle, and the commit
 * finds few left. They are complete objects that nothing refers to yet,
 * like those a failed conversion leaves for garbage collection.
 */
static size_t pass_begins(void *opaque)
{
	struct cfs_store *s = opaque;
	size_t n;

	pthread_mutex_lock(&s->lock);
	n = s->n_pending;
	s->pass_commits = s->commits;
	pthread_mutex_unlock(&s->lock);
	return n;
}

/* Takes pending[i]'s temp name, unless a commit came since the pass. */
static char *take_pending(struct cfs_store *s, size_t i,
			  uint8_t digest[CFS_DIGEST_SIZE])
{
	char *tmp = NULL;

	pthread_mutex_lock(&s->lock);
	if (s->commits == s->pass_commits && i == s->placed &&
	    i < s->n_pending) {
		tmp = s->pending[i].tmp;
		s->pending[i].tmp = NULL;
		memcpy(digest, s->pending[i].digest, CFS_DIGEST_SIZE);
		s->placed = i + 1;
	}
	pthread_mutex_unlock(&s->lock);
	return tmp;
}

/* Whether early placement should stop before pending[i]. */
static bool stop_placing(struct cfs_store *s, size_t i, size_t mark)
{
	return i >= mark || s->early_error || atomic_load(&s->commit_waiting) ||
	       atomic_load(&s->interrupted);
}

static void pass_done(void *opaque, size_t mark)
{
	struct cfs_store *s = opaque;
	uint8_t digest[CFS_DIGEST_SIZE];
	size_t i;

	pthread_mutex_lock(&s->place_lock);
	pthread_mutex_lock(&s->lock);
	i = s->placed;
	pthread_mutex_unlock(&s->lock);
	for (; !stop_placing(s, i, mark); i++) {
		char *tmp = take_pending(s, i, digest);

		if (!tmp)
			break;
		if (cfs_store_place(s, tmp, digest) < 0)
			s->early_error = xstrdup(cfs_strerror());
		free(tmp);
	}
	pthread_mutex_unlock(&s->place_lock);
}

struct cfs_writeback_hooks cfs_store_early_hooks(struct cfs_store *s)
{
	return (struct cfs_writeback_hooks){pass_begins, pass_done, s};
}

/*
 * Enabling fs-verity makes the kernel read and hash the object and write
 * its Merkle tree, and ext4 and btrfs wait for that writeback before the
 * ioctl returns. One object at a time leaves the CPUs idle while the disk
 * works and the disk idle while a CPU hashes, so a batch is placed by
 * several threads.
 */
#define COMMIT_THREADS 8
#define COMMIT_MIN_PER_THREAD 16

struct commit_job {
	struct cfs_store *s;
	atomic_size_t next;
	atomic_bool failed;
	pthread_mutex_t lock;
	char error[1024];
};

static void commit_fail(struct commit_job *j)
{
	pthread_mutex_lock(&j->lock);
	if (!atomic_exchange(&j->failed, true))
		snprintf(j->error, sizeof(j->error), "%s", cfs_strerror());
	pthread_mutex_unlock(&j->lock);
}

static void commit_worker(void *opaque)
{
	struct commit_job *j = opaque;
	struct cfs_store *s = j->s;
	size_t i;

	while ((i = atomic_fetch_add(&j->next, 1)) < s->n_pending) {
		struct pending *p = &s->pending[i];

		if (!p->tmp) /* placed early */
			continue;
		if (atomic_load(&j->failed) || atomic_load(&s->interrupted))
			unlinkat(s->dirfd, p->tmp, 0);
		else if (cfs_store_place(s, p->tmp, p->digest) < 0)
			commit_fail(j);
	}
}

/* Places every pending object; they were made durable by the caller. */
static int place_pending(struct cfs_store *s)
{
	struct commit_job j = {.s = s};
	size_t n = s->n_pending / COMMIT_MIN_PER_THREAD;

	pthread_mutex_init(&j.lock, NULL);
	cfs_pool_run(n < 1		  ? 1
		     : n > COMMIT_THREADS ? COMMIT_THREADS
					  : n,
		     commit_worker, &j);
	pthread_mutex_destroy(&j.lock);
	if (atomic_load(&j.failed)) {
		cfs_error("%s", j.error);
		return -1;
	}
	if (atomic_load(&s->interrupted)) {
		cfs_error("%s: interrupted", s->dir);
		return -1;
	}
	return 0;
}

/* Stops early placement until the commit is done. */
static void commit_begin(struct cfs_store *s)
{
	atomic_store(&s->commit_waiting, true);
	pthread_mutex_lock(&s->place_lock);
	atomic_store(&s->commit_waiting, false);
	pthread_mutex_lock(&s->lock);
}

static int commit_end(struct cfs_store *s, int r)
{
	if (r == 0 && s->early_error) {
		cfs_error("%s", s->early_error);
		r = -1;
	}
	free(s->early_error);
	s->early_error = NULL;
	s->n_pending = 0;
	s->placed = 0;
	s->commits++;
	cfs_htab_clear(&s->pending_index);
	pthread_mutex_unlock(&s->lock);
	pthread_mutex_unlock(&s->place_lock);
	return r;
}

int cfs_store_commit(struct cfs_store *s)
{
	int r = 0;

	commit_begin(s);
	if (s->n_pending && syncfs(s->dirfd) < 0) {
		cfs_error("%s: syncfs: %s", s->dir, strerror(errno));
		r = -1;
	}
	if (r == 0) {
		r = place_pending(s);
	} else {
		for (size_t i = 0; i < s->n_pending; i++)
			if (s->pending[i].tmp)
				unlinkat(s->dirfd, s->pending[i].tmp, 0);
	}
	for (size_t i = 0; i < s->n_pending; i++)
		free(s->pending[i].tmp);
	if (r == 0 && s->n_pending && syncfs(s->dirfd) < 0) {
		cfs_error("%s: syncfs: %s", s->dir, strerror(errno));
		r = -1;
	}
	return commit_end(s, r);
}
