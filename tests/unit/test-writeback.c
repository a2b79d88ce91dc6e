// SPDX-License-Identifier: MIT
/*
 * Writeback ahead of a batch commit (lib/writeback.c): a pass starts once
 * a step's worth of bytes was written and not before, bytes noted while a
 * pass count toward the next one, stopping joins the thread with a pass
 * due, and the hooks see each pass's mark after that pass.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "cfs/util.h"
#include "tap.h"
#include "store/internal.h"

struct marks {
	size_t next, before[4], after[4];
	unsigned int n_before, n_after;
};

static size_t before(void *opaque)
{
	struct marks *m = opaque;

	m->before[m->n_before++ % 4] = ++m->next;
	return m->next;
}

static void after(void *opaque, size_t mark)
{
	struct marks *m = opaque;

	m->after[m->n_after++ % 4] = mark;
}

static void hooks(int dirfd)
{
	struct marks m = {0};
	struct cfs_writeback_hooks h = {before, after, &m};
	struct cfs_writeback *w = cfs_writeback_start(dirfd, &h);

	cfs_writeback_note(w, CFS_WRITEBACK_STEP);
	cfs_writeback_wait(w, 1, 10000);
	cfs_writeback_note(w, CFS_WRITEBACK_STEP);
	cfs_writeback_wait(w, 2, 10000);
	cfs_writeback_stop(w);
	ok(m.n_before == 2 && m.n_after == 2 && m.after[0] == m.before[0] &&
		   m.after[1] == m.before[1] && m.before[1] == 2,
	   "each pass calls before, then after with before's mark");
}

int main(void)
{
	char tmpl[] = "/tmp/cfs-writeback-XXXXXX";
	char *dir = mkdtemp(tmpl);
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	struct cfs_writeback *w = cfs_writeback_start(dirfd, NULL);

	ok(w != NULL, "a writeback thread starts");
	cfs_writeback_note(w, CFS_WRITEBACK_STEP - 1);
	ok(cfs_writeback_wait(w, 1, 300) == 0,
	   "no pass before a step's worth is written");
	cfs_writeback_note(w, 1);
	ok(cfs_writeback_wait(w, 1, 10000) == 1,
	   "a pass once the step is reached");
	cfs_writeback_note(w, CFS_WRITEBACK_STEP / 2);
	ok(cfs_writeback_wait(w, 2, 300) == 1,
	   "the count starts again after a pass");
	cfs_writeback_note(w, CFS_WRITEBACK_STEP / 2);
	ok(cfs_writeback_wait(w, 2, 10000) == 2,
	   "a second step, a second pass");
	/* stop joins with a pass due; NULL (no thread) takes every call */
	cfs_writeback_note(w, CFS_WRITEBACK_STEP);
	cfs_writeback_stop(w);
	cfs_writeback_note(NULL, CFS_WRITEBACK_STEP);
	cfs_writeback_stop(NULL);
	hooks(dirfd);
	close(dirfd);
	rmdir(dir);
	return tap_done();
}
