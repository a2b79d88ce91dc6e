/* SPDX-License-Identifier: MIT */
#ifndef CFS_WRITEBACK_H
#define CFS_WRITEBACK_H

#include <stddef.h>
#include <stdint.h>

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

#endif
