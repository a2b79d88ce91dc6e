// SPDX-License-Identifier: MIT
#include "cfs/pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "cfs/util.h"

struct cfs_pool {
	cfs_pool_fn fn;
	void *arg;
	unsigned int n;
	pthread_t threads[];
};

static void *pool_thread(void *opaque)
{
	struct cfs_pool *p = opaque;

	p->fn(p->arg);
	return NULL;
}

struct cfs_pool *cfs_pool_start(unsigned int n, cfs_pool_fn fn, void *arg)
{
	struct cfs_pool *p =
		xcalloc(1, sizeof(*p) + (size_t)n * sizeof(p->threads[0]));

	p->fn = fn;
	p->arg = arg;
	while (p->n < n &&
	       pthread_create(&p->threads[p->n], NULL, pool_thread, p) == 0)
		p->n++;
	if (p->n == 0)
		fn(arg);
	return p;
}

unsigned int cfs_pool_threads(const struct cfs_pool *p)
{
	return p->n;
}

void cfs_pool_join(struct cfs_pool *p)
{
	if (!p)
		return;
	for (unsigned int i = 0; i < p->n; i++)
		pthread_join(p->threads[i], NULL);
	free(p);
}

void cfs_pool_run(unsigned int n, cfs_pool_fn fn, void *arg)
{
	struct cfs_pool *p;

	if (n <= 1) {
		fn(arg);
		return;
	}
	p = cfs_pool_start(n - 1, fn, arg);
	/* With no helper thread, cfs_pool_start already ran fn here. */
	if (cfs_pool_threads(p))
		fn(arg);
	cfs_pool_join(p);
}

unsigned int cfs_pool_size(long requested, unsigned long todo, unsigned int max)
{
	long n = requested > 0 ? requested : sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		n = 1;
	if (todo && (unsigned long)n > todo)
		n = (long)todo;
	if (max && n > (long)max)
		n = max;
	return (unsigned int)n;
}
