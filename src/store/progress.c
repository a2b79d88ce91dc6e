// SPDX-License-Identifier: MIT
/*
 * A status line on stderr while fsck or gc works through the store, only
 * when stderr is a terminal: "fsck: objects 1234/6040 (20%)", cut to the
 * terminal's width, redrawn at most ten times a second by whichever thread
 * takes the turn, and erased at the end so that the report follows cleanly.
 */
#include <stdio.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "store-tool.h"

#define REDRAW_MS 100

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int columns(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
		return ws.ws_col;
	return 80;
}

void store_progress_start(struct store_progress *p, const char *what,
			  size_t total)
{
	p->on = isatty(STDERR_FILENO);
	p->what = what;
	p->total = total;
	atomic_store(&p->done, 0);
	atomic_store(&p->last_ms, 0);
	p->drawn = false;
}

static void draw(struct store_progress *p, size_t done)
{
	char line[256];
	int w = columns() - 1;

	snprintf(line, sizeof(line), "%s %zu/%zu (%zu%%)", p->what, done,
		 p->total, p->total ? done * 100 / p->total : 100);
	fprintf(stderr, "\r%.*s\033[K", w < (int)sizeof(line) ? w : 255, line);
	fflush(stderr);
	p->drawn = true;
}

void store_progress_step(struct store_progress *p)
{
	store_progress_set(p, atomic_fetch_add(&p->done, 1) + 1);
}

void store_progress_set(struct store_progress *p, size_t done)
{
	long t, last;

	atomic_store(&p->done, done);
	if (!p->on)
		return;
	t = now_ms();
	last = atomic_load(&p->last_ms);
	/* one thread draws per interval: the one whose exchange succeeds */
	if (t - last >= REDRAW_MS &&
	    atomic_compare_exchange_strong(&p->last_ms, &last, t))
		draw(p, done);
}

void store_progress_end(struct store_progress *p)
{
	if (p->on && p->drawn) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
}
