// SPDX-License-Identifier: MIT
/*
 * cfs_store_has_all: the answer cfs_store_has gives for each digest, and-ed,
 * whether a fanout directory is listed (few names, many wanted) or its
 * objects are looked up one by one (many names, few wanted); duplicates,
 * pending objects, and names that are not objects (a directory, a symlink,
 * uppercase hex).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfs/store-layout.h"
#include "cfs/store.h"
#include "cfs/util.h"

#include "tap.h"

#define SMALL 40   /* objects in fanout 0xab: one directory block */
#define LARGE 3000 /* objects in fanout 0xcd: many blocks */
#define MAX_WANT (LARGE + 8)

typedef uint8_t digest_t[CFS_DIGEST_SIZE];

static const char *dir;

/* A made-up digest in fanout first, numbered i. */
static void fake(digest_t d, uint8_t first, uint32_t i)
{
	uint64_t x = (uint64_t)i * 0x9e3779b97f4a7c15ull + first;

	for (int k = 0; k < CFS_DIGEST_SIZE; k++) {
		x ^= x >> 29;
		x *= 0xbf58476d1ce4e5b9ull;
		d[k] = (uint8_t)(x >> 32);
	}
	d[0] = first;
}

static char *object_path(const digest_t d)
{
	char rel[CFS_OBJECT_PATH_LEN + 1];

	cfs_object_path(rel, d);
	return xasprintf("%s/%s", dir, rel);
}

/* Puts a file where the object's name is (contents do not matter here). */
static void plant(const digest_t d)
{
	char *path = object_path(d);
	int fd;

	path[strlen(dir) + 3] = '\0';
	mkdir(path, 0755);
	path[strlen(dir) + 3] = '/';
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, "x", 1) != 1) {
		fprintf(stderr, "# cannot plant %s\n", path);
		exit(2);
	}
	close(fd);
	free(path);
}

static bool each_has(struct cfs_store *s, const digest_t *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!cfs_store_has(s, d[i]))
			return false;
	return true;
}

static void test_listed_fanout(struct cfs_store *s, digest_t *want)
{
	for (uint32_t i = 0; i < SMALL; i++)
		fake(want[i], 0xab, i);
	ok(cfs_store_has_all(s, want, 0), "no digests: all present");
	ok(cfs_store_has_all(s, want, SMALL),
	   "all %d objects of a small fanout present", SMALL);
	memcpy(want[SMALL], want[3], sizeof(digest_t));
	memcpy(want[SMALL + 1], want[3], sizeof(digest_t));
	ok(cfs_store_has_all(s, want, SMALL + 2),
	   "a digest listed three times (files sharing an object)");
	fake(want[SMALL + 2], 0xab, SMALL + 100);
	ok(!cfs_store_has_all(s, want, SMALL + 3),
	   "one missing object among %d of its fanout", SMALL);
	fake(want[SMALL + 2], 0x01, 7);
	ok(!cfs_store_has_all(s, want, SMALL + 3),
	   "one object of a fanout directory that does not exist");
}

static void test_looked_up_fanout(struct cfs_store *s, digest_t *want)
{
	for (uint32_t i = 0; i < 3; i++)
		fake(want[i], 0xcd, i * 997);
	ok(cfs_store_has_all(s, want, 3),
	   "3 objects of a %d-name fanout present", LARGE);
	fake(want[3], 0xcd, LARGE + 5);
	ok(!cfs_store_has_all(s, want, 4), "and with a missing fourth: no");
	for (uint32_t i = 0; i < LARGE; i++)
		fake(want[i], 0xcd, i);
	ok(cfs_store_has_all(s, want, LARGE), "all %d of it present", LARGE);
	fake(want[LARGE], 0xcd, LARGE + 5);
	ok(!cfs_store_has_all(s, want, LARGE + 1), "all %d and one missing: no",
	   LARGE);
}

/* Names in the fanout that are not objects: each counts as missing. */
static void test_not_objects(struct cfs_store *s, digest_t *want)
{
	char *path;
	char *target;

	for (uint32_t i = 0; i < SMALL; i++)
		fake(want[i], 0xab, i);
	fake(want[SMALL], 0xab, 1000);
	path = object_path(want[SMALL]);
	ok(mkdir(path, 0755) == 0 && !cfs_store_has_all(s, want, SMALL + 1),
	   "a directory under an object's name is not the object");
	rmdir(path);
	target = object_path(want[0]);
	ok(symlink(target, path) == 0 && !cfs_store_has_all(s, want, SMALL + 1),
	   "a symlink under an object's name is not the object");
	unlink(path);
	free(target);
	free(path);
	fake(want[SMALL], 0xab, 1001);
	path = object_path(want[SMALL]);
	for (char *p = path + strlen(dir) + 4; *p; p++)
		*p = (char)(*p >= 'a' && *p <= 'f' ? *p - 'a' + 'A' : *p);
	close(open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	ok(!cfs_store_has_all(s, want, SMALL + 1),
	   "a file named in uppercase hex is not the object");
	unlink(path);
	free(path);
}

/* Random mixes of present and missing: the same answer as cfs_store_has. */
static void test_agrees_with_has(struct cfs_store *s, digest_t *want)
{
	size_t disagree = 0;
	uint32_t x = 12345;

	for (int trial = 0; trial < 200; trial++) {
		size_t n = 1 + trial % 64;

		for (size_t i = 0; i < n; i++) {
			x = x * 1103515245u + 12345u;
			/* mostly planted ones, now and then one that is not */
			if ((x >> 16) % 97 == 0)
				fake(want[i], (uint8_t)(x >> 8), LARGE + 1 + i);
			else if ((x >> 16) % 2)
				fake(want[i], 0xab, (x >> 20) % SMALL);
			else
				fake(want[i], 0xcd, (x >> 20) % LARGE);
		}
		disagree +=
			cfs_store_has_all(s, want, n) != each_has(s, want, n);
	}
	ok(disagree == 0, "200 random lists: same answer as cfs_store_has");
}

static int read_mem(void *opaque, void *buf, size_t n)
{
	const char **p = opaque;

	memcpy(buf, *p, n);
	*p += n;
	return 0;
}

/* An object added in this handle but not committed counts as present. */
static void test_pending(digest_t *want)
{
	struct cfs_store_opts opts = {.sync = CFS_SYNC_BATCH};
	const char *content = "pending object";
	struct cfs_store *s;

	for (uint32_t i = 0; i < SMALL; i++)
		fake(want[i], 0xab, i);
	cfs_store_open(&s, dir, &opts);
	ok(cfs_store_add_stream(s, read_mem, &content, strlen(content),
				want[SMALL]) == 0,
	   "add an object in a batch, no commit");
	ok(cfs_store_has_all(s, want, SMALL + 1),
	   "the pending object counts as present");
	cfs_store_close(s);
	cfs_store_open(&s, dir, &opts);
	ok(!cfs_store_has_all(s, want, SMALL + 1),
	   "after a close without commit it is gone");
	cfs_store_close(s);
}

int main(void)
{
	char tmpl[] = "/tmp/cfs-presence-XXXXXX";
	struct cfs_store_opts opts = {.sync = CFS_SYNC_NONE};
	digest_t *want = xmalloc(MAX_WANT * sizeof(*want));
	struct cfs_store *s;
	digest_t d;

	dir = mkdtemp(tmpl);
	for (uint32_t i = 0; i < SMALL; i++) {
		fake(d, 0xab, i);
		plant(d);
	}
	for (uint32_t i = 0; i < LARGE; i++) {
		fake(d, 0xcd, i);
		plant(d);
	}
	for (int verity = 0; verity < 2; verity++) {
		opts.no_verity = !verity;
		cfs_store_open(&s, dir, &opts);
		printf("# store opened %s\n",
		       verity ? "with verity if the filesystem has it"
			      : "with --no-verity");
		test_listed_fanout(s, want);
		test_looked_up_fanout(s, want);
		test_not_objects(s, want);
		test_agrees_with_has(s, want);
		cfs_store_close(s);
	}
	test_pending(want);
	free(want);
	{
		char *cmd = xasprintf("rm -rf %s", dir);

		ok(system(cmd) == 0, "cleanup");
		free(cmd);
	}
	return tap_done();
}
