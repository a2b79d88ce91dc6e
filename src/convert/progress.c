// SPDX-License-Identifier: MIT
/* A one-line progress display on stderr, only when it is a terminal. */
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "convert.h"

static bool enabled;
static unsigned int total_layers;
static atomic_uint layers_done;
static atomic_uint_fast64_t bytes;
static struct timespec last;

void progress_start(bool on, unsigned int layers)
{
	enabled = on;
	total_layers = layers;
}

void progress_add_bytes(uint64_t n)
{
	atomic_fetch_add(&bytes, n);
}

void progress_layer_done(void)
{
	atomic_fetch_add(&layers_done, 1);
}

void progress_refresh(void)
{
	struct timespec now;

	if (!enabled)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec - last.tv_sec < 1 &&
	    (now.tv_sec - last.tv_sec) * 1000000000L + now.tv_nsec -
			    last.tv_nsec <
		    200000000L)
		return;
	last = now;
	fprintf(stderr, "\r\033[Klayers %u/%u, %.1f MiB read",
		atomic_load(&layers_done), total_layers,
		(double)atomic_load(&bytes) / (1024.0 * 1024.0));
	fflush(stderr);
}

void progress_end(void)
{
	if (enabled)
		fputs("\r\033[K", stderr);
}
