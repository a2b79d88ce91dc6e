// SPDX-License-Identifier: MIT
/*
 * Names of objects being written, and finding those of a dead writer.
 * An object whose digest is known before it is written (a small one) is
 * written as xx/.obj.PID.N, in the directory it is renamed in: creating
 * it in a small directory and renaming it within that one took 40% less
 * CPU than a create in the large .tmp/ and a rename across directories,
 * which also serialises on the filesystem's rename lock. So that a
 * dead writer's leftovers there are found without listing every fanout
 * directory on each open, a writer first makes .tmp/fanout.PID.H and
 * removes it last.
 *
 * A writer holds its marker locked (flock) as long as it may have temps,
 * and the lock, unlike the PID, tells a live writer from a gone one
 * wherever the reader runs: a converter in another PID namespace sharing
 * the store (its PID runs nowhere here) keeps its temps, and those of one
 * killed before a reboot go even when its PID now belongs to another
 * process. PIDs decide only where no marker speaks: a writer that could
 * not make one, or files of other writers (NAME.tmp.PID.*).
 */
#include "cfs/store-layout.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "cfs/util.h"

bool cfs_pid_dead(int pid)
{
	return pid > 0 && kill(pid, 0) < 0 && errno == ESRCH;
}

int cfs_fanout_temp_pid(const char *name)
{
	int pid, end = 0;
	unsigned long long n;

	if (sscanf(name, ".obj.%d.%llu%n", &pid, &n, &end) != 2 ||
	    name[end] != '\0' || pid <= 0)
		return 0;
	return pid;
}

/* The writer's PID if name (in .tmp/) is a writer's marker, else 0. */
static int mark_pid(const char *name)
{
	int pid, end = 0;
	unsigned int h;

	if (sscanf(name, "fanout.%d.%u%n", &pid, &h, &end) != 2 ||
	    name[end] != '\0' || pid <= 0)
		return 0;
	return pid;
}

static void temps_in(int storefd, const char *bucket, int pid, cfs_temp_fn fn,
		     void *opaque)
{
	DIR *d = cfs_opendir_at(storefd, bucket);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char rel[300];

		if (cfs_fanout_temp_pid(e->d_name) != pid)
			continue;
		snprintf(rel, sizeof(rel), "%s/%s", bucket, e->d_name);
		fn(storefd, rel, opaque);
	}
	closedir(d);
}

static void fanout_temps_of(int storefd, int pid, cfs_temp_fn fn, void *opaque)
{
	for (unsigned int i = 0; i < 256; i++) {
		char bucket[3];

		snprintf(bucket, sizeof(bucket), "%02x", i);
		temps_in(storefd, bucket, pid, fn, opaque);
	}
}

#define LIVE (-2) /* a marker its writer holds locked */

/* A temp (obj.PID.N) or a marker (fanout.PID.H) found in .tmp/. */
struct tmp_entry {
	int pid;
	int fd; /* a marker: held locked by us (its writer is gone), or LIVE */
	char rel[64];
};

struct tmp_list {
	struct tmp_entry *e;
	size_t n, cap;
};

static struct tmp_entry *add_entry(struct tmp_list *l, const char *name,
				   int pid)
{
	struct tmp_entry *t;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->e = xrealloc(l->e, l->cap * sizeof(*l->e));
	}
	t = &l->e[l->n++];
	t->pid = pid;
	t->fd = -1;
	snprintf(t->rel, sizeof(t->rel), ".tmp/%s", name);
	return t;
}

/* Lists .tmp/'s temps (markers: false) or its markers (true). */
static void list_tmp(int storefd, struct tmp_list *l, bool marks)
{
	DIR *d = cfs_opendir_at(storefd, ".tmp");
	struct dirent *e;
	int pid;

	while (d && (e = readdir(d))) {
		if (strlen(e->d_name) >= sizeof(l->e->rel) - 5)
			continue;
		if (!marks && sscanf(e->d_name, "obj.%d.", &pid) == 1 &&
		    pid > 0) {
			add_entry(l, e->d_name, pid);
		} else if (marks && (pid = mark_pid(e->d_name))) {
			struct tmp_entry *t = add_entry(l, e->d_name, pid);

			t->fd = openat(dirfd(d), e->d_name,
				       O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
			if (t->fd < 0) {
				l->n--; /* removed since: it says nothing */
			} else if (flock(t->fd, LOCK_EX | LOCK_NB) < 0) {
				close(t->fd);
				t->fd = LIVE;
			}
		}
	}
	if (d)
		closedir(d);
}

/*
 * Whether the writer of temps named with pid is gone: none of pid's
 * markers is locked, and one is unlocked or, without any, pid runs
 * nowhere here.
 */
static bool writer_gone(const struct tmp_list *marks, int pid)
{
	bool gone = false;

	for (size_t i = 0; i < marks->n; i++) {
		if (marks->e[i].pid != pid)
			continue;
		if (marks->e[i].fd == LIVE)
			return false;
		gone = true;
	}
	return gone || cfs_pid_dead(pid);
}

/* Whether marks->e[i] is the first marker of its PID. */
static bool first_mark_of(const struct tmp_list *marks, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (marks->e[j].pid == marks->e[i].pid)
			return false;
	return true;
}

/*
 * Temps are listed before markers are: a writer makes its marker before
 * its first temp and removes it after its last, so a listed temp whose
 * writer lives has that writer's marker found locked. The markers found
 * unlocked stay locked by us until the end, so that their removal cannot
 * race a writer making one of the same name (store.c retries such).
 */
void cfs_gone_temps(int storefd, cfs_temp_fn fn, void *opaque)
{
	struct tmp_list temps = {0}, marks = {0};

	list_tmp(storefd, &temps, false);
	list_tmp(storefd, &marks, true);
	for (size_t i = 0; i < temps.n; i++)
		if (writer_gone(&marks, temps.e[i].pid))
			fn(storefd, temps.e[i].rel, opaque);
	for (size_t i = 0; i < marks.n; i++) {
		int pid = marks.e[i].pid;

		if (!writer_gone(&marks, pid))
			continue;
		if (first_mark_of(&marks, i))
			fanout_temps_of(storefd, pid, fn, opaque);
		fn(storefd, marks.e[i].rel, opaque);
	}
	for (size_t i = 0; i < marks.n; i++)
		if (marks.e[i].fd >= 0)
			close(marks.e[i].fd);
	free(temps.e);
	free(marks.e);
}
