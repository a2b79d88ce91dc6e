// SPDX-License-Identifier: MIT
/* Object store: naming, dedup, atomic placement, batch commit, threads. */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cfs/store-layout.h"
#include "cfs/store.h"
#include "cfs/util.h"

#include "tap.h"
#include "store/internal.h"

struct src {
	const uint8_t *p;
	size_t left;
};

static int src_read(void *opaque, void *buf, size_t n)
{
	struct src *s = opaque;

	if (n > s->left)
		return -5;
	memcpy(buf, s->p, n);
	s->p += n;
	s->left -= n;
	return 0;
}

static int add(struct cfs_store *s, const void *data, size_t len,
	       uint8_t digest[CFS_DIGEST_SIZE])
{
	struct src src = {data, len};

	return cfs_store_add_stream(s, src_read, &src, len, digest);
}

static int count_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Objects being written: .tmp/obj.* and xx/.obj.* (see store/temps.c). */
static int count_temps(const char *store)
{
	int n = 0;

	for (int i = -1; i < 256; i++) {
		char *sub = i < 0 ? xasprintf("%s/.tmp", store)
				  : xasprintf("%s/%02x", store, i);
		DIR *d = opendir(sub);
		struct dirent *e;

		while (d && (e = readdir(d)))
			n += !strncmp(e->d_name, i < 0 ? "obj." : ".obj.",
				      i < 0 ? 4 : 5);
		if (d)
			closedir(d);
		free(sub);
	}
	return n;
}

static bool object_content_is(const char *store, const uint8_t *digest,
			      const void *data, size_t len)
{
	char rel[CFS_OBJECT_PATH_LEN + 1], *path;
	uint8_t *got;
	size_t got_len;
	bool r;

	cfs_object_path(rel, digest);
	path = xasprintf("%s/%s", store, rel);
	r = cfs_read_file(path, &got, &got_len) == 0 && got_len == len &&
	    memcmp(got, data, len) == 0;
	if (r)
		free(got);
	free(path);
	return r;
}

struct thread_arg {
	struct cfs_store *s;
	const uint8_t *data;
	size_t len;
	uint8_t digest[CFS_DIGEST_SIZE];
	int r;
};

static void *thread_add(void *opaque)
{
	struct thread_arg *a = opaque;

	a->r = add(a->s, a->data, a->len, a->digest);
	return NULL;
}

/* Waits up to 10 s for the object to get its final name. */
static bool placed_soon(const char *dir, const uint8_t *digest,
			const uint8_t *data, size_t len)
{
	for (int i = 0; i < 1000; i++) {
		if (object_content_is(dir, digest, data, len))
			return true;
		usleep(10000);
	}
	return false;
}

/*
 * More than a writeback step in one batch: the writeback thread runs
 * syncfs meanwhile, and the objects a pass made durable take their final
 * names before the commit; the commit places the rest. Then the same
 * without a commit: what was placed early stays, whole; the rest goes.
 */
#define SMALL_EARLY 20

static void batch_past_writeback(const char *dir)
{
	struct cfs_store_opts opts = {.sync = CFS_SYNC_BATCH};
	size_t len = 8u << 20, n = CFS_WRITEBACK_STEP / len + 2;
	uint8_t *data = xmalloc(len), (*d)[CFS_DIGEST_SIZE] = xmalloc(n * 32);
	struct cfs_store *s;
	struct cfs_store_stats st;
	bool added = true, all = true;
	char small[SMALL_EARLY][32];
	uint8_t ds[SMALL_EARLY][CFS_DIGEST_SIZE];
	int early;

	for (int round = 0; round < 2; round++) {
		cfs_store_open(&s, dir, &opts);
		/* small ones first: written beside their names, then placed */
		for (int i = 0; i < SMALL_EARLY; i++) {
			snprintf(small[i], sizeof(small[i]), "early %d.%d",
				 round, i);
			added &= add(s, small[i], strlen(small[i]), ds[i]) == 0;
		}
		for (size_t i = 0; i < n; i++) {
			memset(data, (int)i + 1 + round * 16, len);
			added &= add(s, data, len, d[i]) == 0;
		}
		memset(data, 1 + round * 16, len);
		ok(added && placed_soon(dir, d[0], data, len),
		   "%zu MiB in one batch: the first object is placed before "
		   "the commit (round %d)",
		   n * len >> 20, round + 1);
		for (int i = 0; i < SMALL_EARLY; i++)
			all &= object_content_is(dir, ds[i], small[i],
						 strlen(small[i]));
		ok(all, "and so are the small objects written before it");
		if (round == 1)
			break;
		ok(cfs_store_commit(s) == 0, "commit past a writeback step");
		for (size_t i = 0; i < n; i++) {
			memset(data, (int)i + 1, len);
			all &= object_content_is(dir, d[i], data, len);
		}
		cfs_store_get_stats(s, &st);
		ok(all && count_temps(dir) == 0 &&
			   st.new_objects == n + SMALL_EARLY,
		   "every object placed, counted once, no temp left");
		cfs_store_close(s);
	}
	cfs_store_close(s);
	early = 0;
	for (size_t i = 0; i < n; i++) {
		memset(data, (int)i + 17, len);
		early += object_content_is(dir, d[i], data, len);
	}
	ok(early >= 1 && count_temps(dir) == 0,
	   "closed without a commit: %d early objects stay whole, no temp "
	   "is left",
	   early);
	free(data);
	free(d);
}

static mode_t object_mode(const char *store, const uint8_t *digest)
{
	char rel[CFS_OBJECT_PATH_LEN + 1], *path;
	struct stat st;

	cfs_object_path(rel, digest);
	path = xasprintf("%s/%s", store, rel);
	if (stat(path, &st) < 0)
		st.st_mode = 0;
	free(path);
	return st.st_mode & 07777;
}

/*
 * Objects are 0644 whatever the umask; temp names skip a leftover. The
 * handle's marker number H is not known ahead: a leftover is put in the
 * way of the first temp of each of the next BLOCKERS.
 */
#define BLOCKERS 1024
static void modes_and_temp_names(const char *dir, const char *tmpdir,
				 const uint8_t *big, size_t big_len)
{
	struct cfs_store_opts opts = {.sync = CFS_SYNC_BATCH};
	struct cfs_store *s;
	uint8_t d1[32], d2[32];
	char *blocker[BLOCKERS];
	mode_t old = umask(077);
	int intact = 0;

	for (int h = 0; h < BLOCKERS; h++) {
		FILE *f;

		blocker[h] =
			xasprintf("%s/obj.%d.%d.0", tmpdir, (int)getpid(), h);
		f = fopen(blocker[h], "w");
		fputs("not ours", f);
		fclose(f);
	}
	ok(cfs_store_open(&s, dir, &opts) == 0 &&
		   add(s, big, big_len, d2) == 0 &&
		   add(s, "umask 077", 9, d1) == 0 && cfs_store_commit(s) == 0,
	   "small and large object added under umask 077");
	cfs_store_close(s);
	umask(old);
	ok(object_mode(dir, d1) == 0644 && object_mode(dir, d2) == 0644,
	   "both are mode 0644 (got %o, %o)", object_mode(dir, d1),
	   object_mode(dir, d2));
	for (int h = 0; h < BLOCKERS; h++) {
		char got[16] = "";
		FILE *f = fopen(blocker[h], "r");

		if (f) {
			intact += fgets(got, sizeof(got), f) &&
				  !strcmp(got, "not ours");
			fclose(f);
		}
	}
	ok(intact == BLOCKERS && count_files(tmpdir) == BLOCKERS,
	   "a live process's temp file with the first name is left alone");
	for (int h = 0; h < BLOCKERS; h++) {
		unlink(blocker[h]);
		free(blocker[h]);
	}
}

static bool exists(const char *store, const char *rel)
{
	char *path = xasprintf("%s/%s", store, rel);
	bool r = access(path, F_OK) == 0;

	free(path);
	return r;
}

static void remove_rel(const char *store, const char *rel)
{
	char *path = xasprintf("%s/%s", store, rel);

	unlink(path);
	free(path);
}

/* Whether .tmp/ holds a name starting as rel's last part does. */
static bool exists_prefix(const char *store, const char *rel)
{
	const char *base = strrchr(rel, '/') + 1;
	char *tmp = xasprintf("%s/%.*s", store, (int)(base - rel - 1), rel);
	DIR *d = opendir(tmp);
	struct dirent *e;
	bool r = false;

	while (d && (e = readdir(d)))
		r |= !strncmp(e->d_name, base, strlen(base));
	if (d)
		closedir(d);
	free(tmp);
	return r;
}

static void touch(const char *store, const char *rel)
{
	char *path = xasprintf("%s/%s", store, rel);

	fclose(fopen(path, "w"));
	free(path);
}

/* Opens store/rel and locks it as its writer would; returns the fd. */
static int hold_lock(const char *store, const char *rel)
{
	char *path = xasprintf("%s/%s", store, rel);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || flock(fd, LOCK_EX) < 0)
		ok(0, "lock %s", path);
	free(path);
	return fd;
}

/* A process that has exited and been reaped. */
static int dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return (int)pid;
}

/*
 * A small object is written beside its final name, under a marker in
 * .tmp/; a dead writer's such temps go at the next open, a live one's stay.
 */
static void fanout_temps(const char *dir)
{
	struct cfs_store_opts opts = {.sync = CFS_SYNC_BATCH};
	struct cfs_store *s;
	uint8_t d[32];
	char temp[64], mark[64], dead_temp[64], dead_mark[64], live_temp[64],
		live_mark[64];
	int dead = dead_pid(), live = (int)getppid(), lock_fd;

	cfs_store_open(&s, dir, &opts);
	add(s, "beside", 6, d);
	snprintf(temp, sizeof(temp), "%02x/.obj.%d.", d[0], (int)getpid());
	snprintf(mark, sizeof(mark), ".tmp/fanout.%d.", (int)getpid());
	ok(exists_prefix(dir, temp) && count_temps(dir) == 1,
	   "a small object's temp is %s* until the commit", temp);
	cfs_store_commit(s);
	ok(!exists_prefix(dir, temp) && object_content_is(dir, d, "beside", 6),
	   "and is renamed in its directory");
	cfs_store_close(s);
	ok(count_temps(dir) == 0 && !exists_prefix(dir, mark),
	   "no temp or marker (%s*) is left after close", mark);
	snprintf(dead_temp, sizeof(dead_temp), "%02x/.obj.%d.7", d[0], dead);
	snprintf(dead_mark, sizeof(dead_mark), ".tmp/fanout.%d.0", dead);
	snprintf(live_temp, sizeof(live_temp), "%02x/.obj.%d.7", d[0], live);
	snprintf(live_mark, sizeof(live_mark), ".tmp/fanout.%d.3", live);
	touch(dir, dead_temp);
	touch(dir, dead_mark);
	touch(dir, live_temp);
	touch(dir, live_mark);
	lock_fd = hold_lock(dir, live_mark);
	cfs_store_open(&s, dir, &opts);
	cfs_store_close(s);
	ok(!exists(dir, dead_temp) && !exists(dir, dead_mark),
	   "a dead writer's temp in a fanout dir and its marker are removed");
	ok(exists(dir, live_temp) && exists(dir, live_mark),
	   "a live writer's (its marker locked) are left alone");
	close(lock_fd);
	remove_rel(dir, live_temp);
	remove_rel(dir, live_mark);
}

/* How many of the n store-relative paths exist. */
static int count_existing(const char *store, char *const *rels, int n)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		k += exists(store, rels[i]);
	return k;
}

/*
 * Whether a writer is gone is its marker's lock, not its PID: a writer
 * whose PID runs nowhere here (another PID namespace) keeps its temps
 * while it holds its marker; one whose PID now belongs to another process
 * (reused after a reboot) loses them, large ones in .tmp/ too; and so
 * does a gone writer whose PID number a live one in another namespace
 * has too, as temps carry their marker's PID.H.
 */
static void writers_by_lock(const char *dir)
{
	struct cfs_store_opts opts = {.sync = CFS_SYNC_BATCH};
	struct cfs_store *s;
	int elsewhere = dead_pid(), fd;
	/* [elsewhere, reused, elsewhere's twin]: marker PID.H */
	int pids[3] = {elsewhere, (int)getppid(), elsewhere}, h[3] = {0, 0, 1};
	char *temps[3][3]; /* [writer][small, large, marker] */
	char *ab = xasprintf("%s/ab", dir);

	mkdir(ab, 0755);
	for (int w = 0; w < 3; w++) {
		temps[w][0] = xasprintf("ab/.obj.%d.%d.1", pids[w], h[w]);
		temps[w][1] = xasprintf(".tmp/obj.%d.%d.2", pids[w], h[w]);
		temps[w][2] = xasprintf(".tmp/fanout.%d.%d", pids[w], h[w]);
		for (int i = 0; i < 3; i++)
			touch(dir, temps[w][i]);
	}
	fd = hold_lock(dir, temps[0][2]);
	cfs_store_open(&s, dir, &opts);
	cfs_store_close(s);
	ok(count_existing(dir, temps[0], 3) == 3,
	   "a writer whose PID runs nowhere here keeps its temps while its "
	   "marker is locked");
	ok(count_existing(dir, temps[1], 3) == 0,
	   "a writer whose marker is unlocked is gone, though its PID runs");
	ok(count_existing(dir, temps[2], 3) == 0,
	   "so is one whose PID number a live writer has too");
	close(fd);
	cfs_store_open(&s, dir, &opts);
	cfs_store_close(s);
	ok(count_existing(dir, temps[0], 3) == 0,
	   "once its marker is unlocked, the first writer's temps go too");
	for (int w = 0; w < 3; w++)
		for (int i = 0; i < 3; i++)
			free(temps[w][i]);
	free(ab);
}

int main(void)
{
	char tmpl[] = "/tmp/cfs-store-XXXXXX";
	char *dir = mkdtemp(tmpl), *tmpdir;
	struct cfs_store_opts opts = {.sync = CFS_SYNC_NONE};
	struct cfs_store *s;
	struct cfs_store_stats st;
	uint8_t d1[32], d2[32], expect[32];
	size_t big_len = 3 * 1024 * 1024 + 17;
	uint8_t *big = xmalloc(big_len);
	pthread_t th[4];
	struct thread_arg args[4];

	for (size_t i = 0; i < big_len; i++)
		big[i] = (uint8_t)(i * 7 + i / 4096);
	tmpdir = xasprintf("%s/.tmp", dir);
	ok(cfs_store_open(&s, dir, &opts) == 0, "open store");
	ok(add(s, "hello\n", 6, d1) == 0, "add small object");
	cfs_verity_digest_mem("hello\n", 6, expect);
	ok(memcmp(d1, expect, 32) == 0, "digest is the fs-verity digest");
	ok(object_content_is(dir, d1, "hello\n", 6), "stored at xx/yyyy");
	ok(cfs_store_has(s, d1), "store has it");
	ok(add(s, "hello\n", 6, d2) == 0 && !memcmp(d1, d2, 32),
	   "adding again gives the same digest");
	cfs_store_get_stats(s, &st);
	ok(st.new_objects == 1 && st.existing_objects == 1,
	   "second add reuses the object");
	ok(add(s, big, big_len, d2) == 0, "add large object (streamed)");
	cfs_verity_digest_mem(big, big_len, expect);
	ok(!memcmp(d2, expect, 32) && object_content_is(dir, d2, big, big_len),
	   "large object digest and content");
	ok(count_temps(dir) == 0, "no temp files left");
	cfs_store_close(s);

	opts.sync = CFS_SYNC_BATCH;
	ok(cfs_store_open(&s, dir, &opts) == 0, "reopen in batch mode");
	ok(add(s, "batch", 5, d1) == 0, "add in batch mode");
	ok(cfs_store_has(s, d1), "pending object counts as present");
	ok(!object_content_is(dir, d1, "batch", 5),
	   "no final name before commit");
	ok(cfs_store_commit(s) == 0, "commit");
	ok(object_content_is(dir, d1, "batch", 5), "final name after commit");
	ok(add(s, "dropped", 7, d2) == 0, "add, then close without commit");
	cfs_store_close(s);
	ok(!object_content_is(dir, d2, "dropped", 7) && count_temps(dir) == 0 &&
		   count_files(tmpdir) == 0,
	   "uncommitted object, its temp file and marker removed on close");
	batch_past_writeback(dir);
	fanout_temps(dir);
	writers_by_lock(dir);
	big[1] = 'm';
	modes_and_temp_names(dir, tmpdir, big, big_len);

	opts.sync = CFS_SYNC_EACH;
	cfs_store_open(&s, dir, &opts);
	big[0] = 'x';
	for (int i = 0; i < 4; i++) {
		args[i] = (struct thread_arg){s, big, big_len, {0}, 0};
		pthread_create(&th[i], NULL, thread_add, &args[i]);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	ok(args[0].r == 0 && args[1].r == 0 && args[2].r == 0 && args[3].r == 0,
	   "four threads add the same object");
	ok(!memcmp(args[0].digest, args[3].digest, 32) &&
		   object_content_is(dir, args[0].digest, big, big_len),
	   "one object, right content");
	ok(count_temps(dir) == 0, "losers of the race left no temp file");
	cfs_store_close(s);

	ok(cfs_store_open(&s, "/proc/version/x", &opts) < 0,
	   "unusable store directory refused: %s", cfs_strerror());
	free(big);
	free(tmpdir);
	{
		char *cmd = xasprintf("rm -rf %s", dir);

		ok(system(cmd) == 0, "cleanup");
		free(cmd);
	}
	return tap_done();
}
