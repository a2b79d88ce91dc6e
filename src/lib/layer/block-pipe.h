/* SPDX-License-Identifier: MIT */
/*
 * A producer thread filling a few fixed-size blocks ahead of a consumer,
 * so that two stages of a stream run on two cores (for a layer:
 * decompressing and hashing the tar stream, then parsing it and storing
 * file contents). Memory: n_blocks * block_size.
 */
#ifndef CFS_BLOCK_PIPE_H
#define CFS_BLOCK_PIPE_H

#include <stddef.h>

/*
 * Fills buf (cap bytes) with the next bytes of the stream: 1 with *n > 0,
 * 0 at the end, -1 on error. Runs on the producer thread.
 */
typedef int (*cfs_block_fill_fn)(void *opaque, void *buf, size_t cap,
				 size_t *n);

struct cfs_block_pipe;

/* Starts the producer; NULL with cfs_error set if it cannot. */
struct cfs_block_pipe *cfs_block_pipe_start(cfs_block_fill_fn fill,
					    void *opaque, size_t block_size,
					    unsigned int n_blocks);
/*
 * Next block, valid until the next call: 1 with p and n set, 0 at the end,
 * -1 when fill failed (its own error report stands).
 */
int cfs_block_pipe_next(struct cfs_block_pipe *bp, const void **p, size_t *n);
/* Stops the producer (if still running), waits for it and frees. */
void cfs_block_pipe_stop(struct cfs_block_pipe *bp);

#endif
