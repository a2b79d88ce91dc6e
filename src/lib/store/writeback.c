// SPDX-License-Identifier: MIT
/*
 * Writeback ahead of a batch commit. Under --sync=batch, new objects are
 * written without any sync and made durable by one syncfs(2) at commit;
 * with a large page cache nothing reaches the disk before then, so the
 * commit waits for the whole image's data while the CPUs idle. A thread of
 * its own calls syncfs every CFS_WRITEBACK_STEP bytes written, so the disk
 * works while the converter goes on and the commit's syncfs finds little
 * left. One syncfs writes many files in one plugged pass; starting each
 * file's writeback on its own (sync_file_range per object) costs a device
 * kick per object and measured slower. After each pass the store's hooks
 * place the objects the pass made durable (place.c), so the commit finds
 * few left to rename.
 */
#include "internal.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cfs/util.h"

struct cfs_writeback {
	int fd; /* its own open file: see writeback_thread */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t unsynced; /* bytes written since the last pass started */
	unsigned int passes;
	bool due, stop;
	bool failed; /* a pass reported an error: after() no more */
	struct cfs_writeback_hooks hooks;
};

/* One pass; the hooks learn what it made durable. */
static void pass(struct cfs_writeback *w)
{
	size_t mark = w->hooks.before ? w->hooks.before(w->hooks.opaque) : 0;

	/*
	 * syncfs reports a writeback error once per open file (errseq), so
	 * this pass uses a file of its own: the commit's syncfs on the
	 * store's fd still sees it. An error is reported only once, so
	 * after one no later pass vouches for anything.
	 */
	if (syncfs(w->fd) < 0)
		w->failed = true;
	else if (!w->failed && w->hooks.after)
		w->hooks.after(w->hooks.opaque, mark);
}

static void *writeback_thread(void *opaque)
{
	struct cfs_writeback *w = opaque;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->due && !w->stop)
			pthread_cond_wait(&w->cond, &w->lock);
		if (w->stop)
			break;
		w->due = false;
		pthread_mutex_unlock(&w->lock);
		pass(w);
		pthread_mutex_lock(&w->lock);
		w->passes++;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct cfs_writeback *
cfs_writeback_start(int dirfd, const struct cfs_writeback_hooks *hooks)
{
	struct cfs_writeback *w = xcalloc(1, sizeof(*w));

	if (hooks)
		w->hooks = *hooks;
	w->fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w->fd < 0) {
		free(w);
		return NULL;
	}
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	if (pthread_create(&w->thread, NULL, writeback_thread, w) != 0) {
		pthread_mutex_destroy(&w->lock);
		pthread_cond_destroy(&w->cond);
		close(w->fd);
		free(w);
		return NULL;
	}
	return w;
}

void cfs_writeback_note(struct cfs_writeback *w, uint64_t bytes)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->unsynced += bytes;
	if (w->unsynced >= CFS_WRITEBACK_STEP) {
		w->unsynced = 0;
		w->due = true;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
}

unsigned int cfs_writeback_wait(struct cfs_writeback *w, unsigned int passes,
				int timeout_ms)
{
	struct timespec until;
	unsigned int r;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&w->lock);
	while (w->passes < passes &&
	       pthread_cond_timedwait(&w->cond, &w->lock, &until) == 0)
		;
	r = w->passes;
	pthread_mutex_unlock(&w->lock);
	return r;
}

void cfs_writeback_stop(struct cfs_writeback *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->cond);
	close(w->fd);
	free(w);
}
