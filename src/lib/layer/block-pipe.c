// SPDX-License-Identifier: MIT
#include "block-pipe.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "cfs/util.h"

struct slot {
	void *buf;
	size_t len;
};

struct cfs_block_pipe {
	cfs_block_fill_fn fill;
	void *opaque;
	size_t block_size;
	unsigned int n_slots;
	struct slot *slots;
	/* Under lock: */
	unsigned int head, filled; /* next to consume; filled slots */
	bool held;		   /* the consumer holds slots[head] */
	bool done, stop;
	int status; /* fill's final result: 0 end, -1 error */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
};

static void *producer(void *opaque)
{
	struct cfs_block_pipe *bp = opaque;
	unsigned int tail = 0;
	int r = 1;

	while (r == 1) {
		struct slot *s = &bp->slots[tail];

		bool stop;

		pthread_mutex_lock(&bp->lock);
		while (bp->filled == bp->n_slots && !bp->stop)
			pthread_cond_wait(&bp->cond, &bp->lock);
		stop = bp->stop;
		pthread_mutex_unlock(&bp->lock);
		if (stop)
			break;
		r = bp->fill(bp->opaque, s->buf, bp->block_size, &s->len);
		pthread_mutex_lock(&bp->lock);
		if (r == 1) {
			bp->filled++;
		} else {
			bp->done = true;
			bp->status = r < 0 ? -1 : 0;
		}
		pthread_cond_broadcast(&bp->cond);
		pthread_mutex_unlock(&bp->lock);
		tail = (tail + 1) % bp->n_slots;
	}
	return NULL;
}

static void free_pipe(struct cfs_block_pipe *bp)
{
	for (unsigned int i = 0; i < bp->n_slots; i++)
		free(bp->slots[i].buf);
	free(bp->slots);
	pthread_mutex_destroy(&bp->lock);
	pthread_cond_destroy(&bp->cond);
	free(bp);
}

struct cfs_block_pipe *cfs_block_pipe_start(cfs_block_fill_fn fill,
					    void *opaque, size_t block_size,
					    unsigned int n_blocks)
{
	struct cfs_block_pipe *bp = xcalloc(1, sizeof(*bp));

	bp->fill = fill;
	bp->opaque = opaque;
	bp->block_size = block_size;
	bp->n_slots = n_blocks;
	bp->slots = xcalloc(n_blocks, sizeof(*bp->slots));
	for (unsigned int i = 0; i < n_blocks; i++)
		bp->slots[i].buf = xmalloc(block_size);
	pthread_mutex_init(&bp->lock, NULL);
	pthread_cond_init(&bp->cond, NULL);
	if (pthread_create(&bp->thread, NULL, producer, bp) != 0) {
		cfs_error("cannot start a thread");
		free_pipe(bp);
		return NULL;
	}
	return bp;
}

int cfs_block_pipe_next(struct cfs_block_pipe *bp, const void **p, size_t *n)
{
	int r = 1;

	pthread_mutex_lock(&bp->lock);
	if (bp->held) {
		bp->held = false;
		bp->head = (bp->head + 1) % bp->n_slots;
		bp->filled--;
		pthread_cond_broadcast(&bp->cond);
	}
	while (bp->filled == 0 && !bp->done)
		pthread_cond_wait(&bp->cond, &bp->lock);
	if (bp->filled) {
		bp->held = true;
		*p = bp->slots[bp->head].buf;
		*n = bp->slots[bp->head].len;
	} else {
		r = bp->status;
	}
	pthread_mutex_unlock(&bp->lock);
	return r;
}

void cfs_block_pipe_stop(struct cfs_block_pipe *bp)
{
	if (!bp)
		return;
	pthread_mutex_lock(&bp->lock);
	bp->stop = true;
	pthread_cond_broadcast(&bp->cond);
	pthread_mutex_unlock(&bp->lock);
	pthread_join(bp->thread, NULL);
	free_pipe(bp);
}
