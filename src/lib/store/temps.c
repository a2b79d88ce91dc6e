// SPDX-License-Identifier: MIT
/*
 * Names of objects being written, and finding those of a gone writer.
 * An object whose digest is known before it is written (a small one) is
 * written as xx/.obj.PID.H.N, in the directory it is renamed in: creating
 * it in a small directory and renaming it within that one took 40% less
 * CPU than a create in the large .tmp/ and a rename across directories,
 * which also serialises on the filesystem's rename lock. So that a gone
 * writer's leftovers there are found without listing every fanout
 * directory on each open, a writer first makes its marker .tmp/fanout.PID.H
 * and removes it last; its temps (there and .tmp/obj.PID.H.N) carry the
 * marker's PID.H.
 *
 * A writer holds its marker locked (flock) as long as it may have temps,
 * and the lock, unlike the PID, tells a live writer from a gone one
 * wherever the reader runs: a converter in another PID namespace sharing
 * the store (its PID runs nowhere here) keeps its temps, and those of one
 * killed before a reboot go even when its PID now belongs to another
 * process. A temp is removed only while its marker is held locked by the
 * sweep, so no writer can take the marker's name, and the temps' names,
 * meanwhile. PIDs decide only where no marker speaks: temps named by a
 * PID alone (a writer that could not make a marker, or an earlier
 * version), a temp whose marker is gone, and NAME.tmp.PID.* files.
 */
#include "internal.h"

#include <dirent.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfs/store-layout.h"
#include "cfs/util.h"

bool cfs_pid_dead(int pid)
{
	return pid > 0 && kill(pid, 0) < 0 && errno == ESRCH;
}

/*
 * A temp's writer: PID and H of its marker (.obj.PID.H.N), or H -1 for
 * a temp named by its PID alone (.obj.PID.N). In .tmp/ (obj., no dot) the
 * PID alone is enough, whatever follows it.
 */
struct temp_key {
	int pid;
	long long h;
};

static bool parse_temp(const char *name, bool in_tmp, struct temp_key *k)
{
	const char *rest = in_tmp ? name : name + 1;
	unsigned long long n;
	unsigned int h;
	int end = 0;

	if (!in_tmp && name[0] != '.')
		return false;
	if (sscanf(rest, "obj.%d.%u.%llu%n", &k->pid, &h, &n, &end) == 3 &&
	    rest[end] == '\0' && k->pid > 0) {
		k->h = h;
		return true;
	}
	k->h = -1;
	end = 0;
	if (in_tmp)
		return sscanf(rest, "obj.%d.", &k->pid) == 1 && k->pid > 0;
	return sscanf(rest, "obj.%d.%llu%n", &k->pid, &n, &end) == 2 &&
	       rest[end] == '\0' && k->pid > 0;
}

int cfs_fanout_temp_pid(const char *name)
{
	struct temp_key k;

	return parse_temp(name, false, &k) ? k.pid : 0;
}

/* Whether name (in .tmp/) is a writer's marker, fanout.PID.H. */
static bool parse_mark(const char *name, struct temp_key *k)
{
	unsigned int h;
	int end = 0;

	if (sscanf(name, "fanout.%d.%u%n", &k->pid, &h, &end) != 2 ||
	    name[end] != '\0' || k->pid <= 0)
		return false;
	k->h = h;
	return true;
}

#define LIVE (-2) /* a marker its writer holds locked */

/* A temp (obj.PID...) or a marker (fanout.PID.H) found in .tmp/. */
struct tmp_entry {
	struct temp_key key;
	int fd; /* a marker: held locked by us (its writer is gone), or LIVE */
	char rel[64];
};

struct tmp_list {
	struct tmp_entry *e;
	size_t n, cap;
};

static struct tmp_entry *add_entry(struct tmp_list *l, const char *name,
				   const struct temp_key *k)
{
	struct tmp_entry *t;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->e = xrealloc(l->e, l->cap * sizeof(*l->e));
	}
	t = &l->e[l->n++];
	t->key = *k;
	t->fd = -1;
	snprintf(t->rel, sizeof(t->rel), ".tmp/%s", name);
	return t;
}

/* Lists .tmp/'s temps (markers: false) or its markers (true). */
static void list_tmp(int storefd, struct tmp_list *l, bool marks)
{
	DIR *d = cfs_opendir_at(storefd, ".tmp");
	struct dirent *e;
	struct temp_key k;

	while (d && (e = readdir(d))) {
		struct tmp_entry *t;

		if (strlen(e->d_name) >= sizeof(l->e->rel) - 5)
			continue;
		if (!marks && parse_temp(e->d_name, true, &k))
			add_entry(l, e->d_name, &k);
		if (!marks || !parse_mark(e->d_name, &k))
			continue;
		t = add_entry(l, e->d_name, &k);
		t->fd = openat(dirfd(d), e->d_name,
			       O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (t->fd < 0) {
			l->n--; /* removed since: it says nothing */
		} else if (flock(t->fd, LOCK_EX | LOCK_NB) < 0) {
			close(t->fd);
			t->fd = LIVE;
		}
	}
	if (d)
		closedir(d);
}

/*
 * Whether temps named by pid alone are a gone writer's: none of pid's
 * markers is locked, and one is unlocked or, without any, pid runs
 * nowhere here.
 */
static bool pid_gone(const struct tmp_list *marks, int pid)
{
	bool gone = false;

	for (size_t i = 0; i < marks->n; i++) {
		if (marks->e[i].key.pid != pid)
			continue;
		if (marks->e[i].fd == LIVE)
			return false;
		gone = true;
	}
	return gone || cfs_pid_dead(pid);
}

/*
 * Whether a temp in .tmp/ is a gone writer's: its marker held by us, or
 * named by a PID alone, that PID's writer gone. A temp whose marker is
 * gone was consumed since it was listed, or lost by its writer: that one
 * goes once the PID runs nowhere here.
 */
static bool temp_gone(const struct tmp_list *marks, const struct temp_key *k)
{
	if (k->h < 0)
		return pid_gone(marks, k->pid);
	for (size_t i = 0; i < marks->n; i++)
		if (marks->e[i].key.pid == k->pid && marks->e[i].key.h == k->h)
			return marks->e[i].fd != LIVE;
	return cfs_pid_dead(k->pid);
}

/*
 * Whether a temp in a fanout dir is a gone writer's: its marker held by
 * us, or named by a PID alone, a marker of that PID held by us and the
 * PID's writer gone. Without a marker it is not looked at: fanout dirs are
 * listed only to sweep gone markers' temps.
 */
static bool fanout_temp_gone(const struct tmp_list *marks,
			     const struct temp_key *k)
{
	bool held = false;

	for (size_t i = 0; i < marks->n; i++) {
		const struct tmp_entry *m = &marks->e[i];

		if (m->key.pid != k->pid || m->fd == LIVE)
			continue;
		if (k->h < 0 || m->key.h == k->h)
			held = true;
	}
	return held && (k->h >= 0 || pid_gone(marks, k->pid));
}

/* One pass over the fanout dirs for the temps of every gone marker. */
static void fanout_gone_temps(int storefd, const struct tmp_list *marks,
			      cfs_temp_fn fn, void *opaque)
{
	for (unsigned int i = 0; i < 256; i++) {
		char bucket[3];
		DIR *d;
		struct dirent *e;
		struct temp_key k;

		snprintf(bucket, sizeof(bucket), "%02x", i);
		d = cfs_opendir_at(storefd, bucket);
		while (d && (e = readdir(d))) {
			char rel[300];

			if (!parse_temp(e->d_name, false, &k) ||
			    !fanout_temp_gone(marks, &k))
				continue;
			snprintf(rel, sizeof(rel), "%s/%s", bucket, e->d_name);
			fn(storefd, rel, opaque);
		}
		if (d)
			closedir(d);
	}
}

/*
 * Temps are listed before markers are: a writer makes its marker before
 * its first temp and removes it after its last, so a listed temp whose
 * writer lives has that writer's marker found locked. The markers found
 * unlocked stay locked by us until the end (store.c's make_mark makes
 * another if it took one of those), so the names of their temps are
 * nobody else's while they are removed.
 */
void cfs_gone_temps(int storefd, cfs_temp_fn fn, void *opaque)
{
	struct tmp_list temps = {0}, marks = {0};
	bool gone = false;

	list_tmp(storefd, &temps, false);
	list_tmp(storefd, &marks, true);
	for (size_t i = 0; i < temps.n; i++)
		if (temp_gone(&marks, &temps.e[i].key))
			fn(storefd, temps.e[i].rel, opaque);
	for (size_t i = 0; i < marks.n; i++)
		gone |= marks.e[i].fd != LIVE;
	if (gone)
		fanout_gone_temps(storefd, &marks, fn, opaque);
	for (size_t i = 0; i < marks.n; i++) {
		if (marks.e[i].fd == LIVE)
			continue;
		fn(storefd, marks.e[i].rel, opaque);
		close(marks.e[i].fd);
	}
	free(temps.e);
	free(marks.e);
}

/*
 * Objects are 0644 whatever the umask or a default ACL on .tmp: the first
 * temp file's mode tells whether files come out that way as created (the
 * umask and .tmp's ACL do not change under a converter), and only if not
 * is each one chmod'ed.
 */
static void fix_mode(struct cfs_store *s, int fd)
{
	struct stat st;

	if (atomic_load(&s->create_mode_ok))
		return;
	if (fstat(fd, &st) == 0 && (st.st_mode & 07777) == 0644)
		atomic_store(&s->create_mode_ok, true);
	else
		fchmod(fd, 0644);
}

/*
 * A new marker, locked. One swept as a gone writer's between its creation
 * and the lock (above) is found unlinked, and another is made.
 */
static int make_mark(struct cfs_store *s)
{
	static atomic_uint handles;

	for (int tries = 0; tries < 1000; tries++) {
		unsigned int h = atomic_fetch_add(&handles, 1);
		struct stat st;
		int fd;

		snprintf(s->mark, sizeof(s->mark), ".tmp/fanout.%d.%u", s->pid,
			 h);
		snprintf(s->writer, sizeof(s->writer), "%d.%u", s->pid, h);
		fd = openat(s->dirfd, s->mark,
			    O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0 && errno == EEXIST)
			continue; /* a gone writer's of the same PID */
		if (fd < 0)
			return -1;
		if (flock(fd, LOCK_EX) < 0) { /* ENOLCK: unmarked, by PID */
			unlinkat(s->dirfd, s->mark, 0);
			close(fd);
			return -1;
		}
		if (fstat(fd, &st) == 0 && st.st_nlink > 0)
			return fd;
		close(fd);
	}
	return -1;
}

/* Unmarked, temps are named by the PID alone. */
static void unmarked(struct cfs_store *s)
{
	snprintf(s->writer, sizeof(s->writer), "%d", s->pid);
}

/*
 * Makes this handle's marker once, before its first temp, and names the
 * temps after it (PID.H); false if it cannot (then they are named, and
 * told live or dead, by the PID alone).
 */
static bool mark_writer(struct cfs_store *s)
{
	int m = atomic_load(&s->fanout_mark);

	if (m)
		return m > 0;
	pthread_mutex_lock(&s->lock);
	if (!atomic_load(&s->fanout_mark)) {
		s->mark_fd = make_mark(s);
		if (s->mark_fd < 0)
			unmarked(s);
		atomic_store(&s->fanout_mark, s->mark_fd >= 0 ? 1 : -1);
	}
	m = atomic_load(&s->fanout_mark);
	pthread_mutex_unlock(&s->lock);
	return m > 0;
}

/*
 * A new temp file .tmp/obj.PID.H.N (PID.H: the handle's marker, see
 * mark_writer); returns fd and its store-relative name. N counts up per
 * handle, so only a gone writer's leftover can be in the way.
 */
int cfs_store_tmp_create(struct cfs_store *s, char **name)
{
	char path[64];
	int fd;

	(void)mark_writer(s);
	do {
		snprintf(path, sizeof(path), ".tmp/obj.%s.%" PRIuFAST64,
			 s->writer, atomic_fetch_add(&s->tmp_seq, 1));
		fd = openat(s->dirfd, path,
			    O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	} while (fd < 0 && errno == EEXIST);
	if (fd < 0) {
		cfs_error("%s: cannot create object: %s", s->dir,
			  strerror(errno));
		return -1;
	}
	fix_mode(s, fd);
	*name = xstrdup(path);
	return fd;
}

/*
 * A temp file for an object whose digest is known: xx/.obj.PID.H.N, beside
 * its final name (above); in .tmp/ if that cannot be.
 */
int cfs_store_tmp_create_beside(struct cfs_store *s, const uint8_t *digest,
				char **name)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "%02x/", digest[0]);
	if (!mark_writer(s) || cfs_store_make_fanout(s, path, digest[0]) < 0)
		return cfs_store_tmp_create(s, name);
	do {
		snprintf(path, sizeof(path), "%02x/.obj.%s.%" PRIuFAST64,
			 digest[0], s->writer,
			 atomic_fetch_add(&s->tmp_seq, 1));
		fd = openat(s->dirfd, path,
			    O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	} while (fd < 0 && errno == EEXIST);
	if (fd < 0)
		return cfs_store_tmp_create(s, name);
	fix_mode(s, fd);
	*name = xstrdup(path);
	return fd;
}

void cfs_store_unmark(struct cfs_store *s)
{
	/* removed while still locked: no one finds it unlocked */
	if (atomic_load(&s->fanout_mark) > 0) {
		unlinkat(s->dirfd, s->mark, 0);
		close(s->mark_fd);
	}
}
