// SPDX-License-Identifier: MIT
/*
 * The worker pool: every item of a shared queue taken exactly once, the
 * threads asked for running at the same time, and the work still done
 * (by the caller) when no thread can be created.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "cfs/pool.h"
#include "tap.h"

#define ITEMS 20000

struct job {
	atomic_size_t next;
	atomic_uint hits[ITEMS];
	unsigned int want_together; /* threads to wait for at the start */
	atomic_uint arrived;
	atomic_bool all_met;
};

/* Waits (up to 10 s) until want_together threads are inside fn at once. */
static void meet(struct job *j)
{
	struct timespec start, now;

	atomic_fetch_add(&j->arrived, 1);
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		if (atomic_load(&j->arrived) >= j->want_together) {
			atomic_store(&j->all_met, true);
			return;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - start.tv_sec < 10);
}

static void drain(void *arg)
{
	struct job *j = arg;
	size_t i;

	if (j->want_together)
		meet(j);
	while ((i = atomic_fetch_add(&j->next, 1)) < ITEMS)
		atomic_fetch_add(&j->hits[i], 1);
}

static bool each_once(struct job *j)
{
	for (size_t i = 0; i < ITEMS; i++)
		if (atomic_load(&j->hits[i]) != 1)
			return false;
	return true;
}

static struct job *new_job(unsigned int together)
{
	struct job *j = calloc(1, sizeof(*j));

	j->want_together = together;
	return j;
}

static void test_run(void)
{
	struct job *j = new_job(4);

	cfs_pool_run(4, drain, j);
	ok(atomic_load(&j->all_met), "run: 4 threads inside fn at once");
	ok(each_once(j), "run: every item taken exactly once");
	free(j);
	j = new_job(0);
	cfs_pool_run(1, drain, j);
	ok(each_once(j), "run with 1 thread: the caller does it all");
	free(j);
}

static void test_start_join(void)
{
	struct job *j = new_job(3);
	struct cfs_pool *p = cfs_pool_start(3, drain, j);

	ok(cfs_pool_threads(p) == 3, "start: 3 threads");
	cfs_pool_join(p);
	ok(atomic_load(&j->all_met), "start: the 3 ran at once");
	ok(each_once(j), "start/join: every item taken exactly once");
	free(j);
}

/* A default stack no mmap can give makes every pthread_create fail. */
static void test_no_threads(void)
{
	pthread_attr_t attr, old;
	struct job *j = new_job(0);
	struct cfs_pool *p;

	pthread_getattr_default_np(&old);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, (size_t)1 << 46);
	pthread_setattr_default_np(&attr);
	p = cfs_pool_start(4, drain, j);
	ok(cfs_pool_threads(p) == 0, "no thread can start: pool of 0");
	ok(each_once(j), "no thread: the caller did the work in start");
	cfs_pool_join(p);
	free(j);
	j = new_job(0);
	cfs_pool_run(4, drain, j);
	ok(each_once(j), "no thread: run still does the work, once");
	free(j);
	pthread_setattr_default_np(&old);
	pthread_attr_destroy(&attr);
	pthread_attr_destroy(&old);
}

static void test_size(void)
{
	ok(cfs_pool_size(3, 10, 0) == 3, "size: as requested");
	ok(cfs_pool_size(8, 2, 0) == 2, "size: no more than the work");
	ok(cfs_pool_size(8, 0, 5) == 5, "size: no more than max");
	ok(cfs_pool_size(0, 1000, 0) >= 1, "size: default at least 1");
	ok(cfs_pool_size(-4, 0, 0) >= 1, "size: negative means default");
}

int main(void)
{
	test_run();
	test_start_join();
	test_no_threads();
	test_size();
	return tap_done();
}
