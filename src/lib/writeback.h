/* SPDX-License-Identifier: MIT */
#ifndef CFS_WRITEBACK_H
#define CFS_WRITEBACK_H

#include <stdint.h>

/* A thread that starts writeback (syncfs) as new data accumulates. */
struct cfs_writeback;

/* A pass starts each time this many more bytes were written. */
#define CFS_WRITEBACK_STEP (32ull << 20)

/* NULL when no thread could be started: then nothing is written ahead. */
struct cfs_writeback *cfs_writeback_start(int dirfd);
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
