// SPDX-License-Identifier: MIT
/*
 * The layer pipeline. Worker threads read layers (decompress, hash, store
 * contents) in parallel, in layer order; the main thread applies each
 * layer's record to the tree as soon as it and all layers below it are
 * ready, so layer k+1 is read while layer k is applied. Layers already in
 * the layer cache are not read at all.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "convert.h"
#include "cfs/pool.h"
#include "cfs/util.h"

enum layer_state {
	LAYER_TODO,
	LAYER_RUNNING,
	LAYER_READ,
	LAYER_CACHED,
	LAYER_FAILED
};

struct pipeline {
	const struct convert_opts *o;
	struct cfs_oci_image *img;
	struct cfs_store *store;
	struct cfs_layer **records;
	enum layer_state *state;
	char **errors;
	bool abort;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

struct counted_blob {
	struct cfs_blob *blob;
	size_t layer;
};

/*
 * A layer's error already names the image and the layer, so a blob error
 * is kept without its own "SOURCE: blob DIGEST" in front.
 */
static ssize_t blob_read(void *opaque, void *buf, size_t n)
{
	struct counted_blob *cb = opaque;
	ssize_t r = cfs_blob_read(cb->blob, buf, n);

	if (r > 0)
		progress_blob_bytes(cb->layer, (uint64_t)r);
	if (r < 0)
		cfs_error("%s", cfs_strerror_after(cfs_blob_label(cb->blob)));
	return r;
}

static void on_progress(void *opaque, uint64_t bytes)
{
	uint64_t *last = opaque;

	progress_add_bytes(bytes - *last);
	*last = bytes;
}

static const char *layer_name(const struct cfs_oci_image *img, size_t i,
			      char *buf, size_t len)
{
	if (img->layers[i].digest[0])
		return img->layers[i].digest;
	snprintf(buf, len, "layer %zu", i + 1);
	return buf;
}

static int read_layer(struct pipeline *p, size_t i, struct cfs_layer **out)
{
	struct counted_blob cb = {NULL, i};
	char name_buf[32];
	const char *name = layer_name(p->img, i, name_buf, sizeof(name_buf));
	uint64_t last = 0;
	int r;

	if (cfs_oci_open_layer(p->img, i, &cb.blob) < 0)
		return -1;
	r = cfs_layer_read(out, blob_read, &cb, p->img->layers[i].diff_id,
			   p->store, name, on_progress, &last);
	cfs_blob_close(cb.blob);
	return r;
}

/* Claims the lowest layer nobody reads yet; -1 when none is left. */
static ssize_t claim(struct pipeline *p)
{
	for (size_t i = 0; i < p->img->n_layers; i++) {
		if (p->state[i] == LAYER_TODO) {
			p->state[i] = LAYER_RUNNING;
			return (ssize_t)i;
		}
	}
	return -1;
}

static void worker(void *opaque)
{
	struct pipeline *p = opaque;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		ssize_t i = p->abort ? -1 : claim(p);
		struct cfs_layer *rec = NULL;
		int r;

		if (i < 0)
			break;
		pthread_mutex_unlock(&p->lock);
		r = read_layer(p, (size_t)i, &rec);
		pthread_mutex_lock(&p->lock);
		if (r < 0) {
			p->errors[i] = xstrdup(cfs_strerror());
			p->state[i] = LAYER_FAILED;
			p->abort = true;
		} else {
			p->records[i] = rec;
			p->state[i] = LAYER_READ;
			progress_layer_done((size_t)i, false);
		}
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
}

static void wait_for_layer(struct pipeline *p, size_t i)
{
	pthread_mutex_lock(&p->lock);
	while (p->state[i] == LAYER_TODO || p->state[i] == LAYER_RUNNING) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 200000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&p->cond, &p->lock, &ts);
		progress_refresh();
	}
	pthread_mutex_unlock(&p->lock);
}

static void load_cached(struct pipeline *p, struct convert_stats *st)
{
	size_t n = p->img->n_layers;
	uint8_t(*ids)[CFS_SHA256_SIZE] = xmalloc((n + 1) * sizeof(*ids));

	for (size_t i = 0; i < n; i++)
		memcpy(ids[i], p->img->layers[i].diff_id, CFS_SHA256_SIZE);
	if (!p->o->no_cache)
		cfs_layer_cache_load_all(p->store, n, ids, p->records);
	for (size_t i = 0; i < n; i++) {
		if (p->records[i]) {
			p->state[i] = LAYER_CACHED;
			st->cached_layers++;
			progress_layer_done(i, true);
		}
	}
	free(ids);
}

/* Applies layers in order; returns the index of a failed layer or -1. */
static ssize_t apply_all(struct pipeline *p, struct cfs_tree *t)
{
	for (size_t i = 0; i < p->img->n_layers; i++) {
		char name_buf[32];

		wait_for_layer(p, i);
		if (p->state[i] == LAYER_FAILED)
			return (ssize_t)i;
		if (p->o->verbose > 0)
			fprintf(stderr, "oci2cfs: %s: %zu entries%s\n",
				layer_name(p->img, i, name_buf,
					   sizeof(name_buf)),
				p->records[i]->n_entries,
				p->state[i] == LAYER_CACHED ? " (cached)" : "");
		if (cfs_layer_apply(t, p->records[i]) < 0) {
			cfs_error_prefix("%s", layer_name(p->img, i, name_buf,
							  sizeof(name_buf)));
			p->errors[i] = xstrdup(cfs_strerror());
			pthread_mutex_lock(&p->lock);
			p->abort = true;
			pthread_mutex_unlock(&p->lock);
			return (ssize_t)i;
		}
	}
	return -1;
}

static void save_cache(struct pipeline *p)
{
	for (size_t i = 0; i < p->img->n_layers; i++) {
		if (p->state[i] != LAYER_READ || p->o->no_cache)
			continue;
		if (cfs_layer_cache_save(p->store, p->records[i]) < 0)
			fprintf(stderr, "oci2cfs: warning: layer cache: %s\n",
				cfs_strerror());
	}
}

/*
 * After a failed conversion, the layers read whole are kept (their objects
 * and cache records), so a retry (say, after a cut connection) fetches only
 * what is missing. Objects of the failed layer are complete objects too but
 * nothing names them: they are left for garbage collection.
 */
static void keep_read_layers(struct pipeline *p)
{
	char *err = xstrdup(cfs_strerror());

	for (size_t i = 0; i < p->img->n_layers; i++) {
		if (p->state[i] != LAYER_READ)
			continue;
		if (cfs_store_commit(p->store) == 0)
			save_cache(p);
		break;
	}
	cfs_error("%s", err);
	free(err);
}

static void pipeline_free(struct pipeline *p)
{
	for (size_t i = 0; i < p->img->n_layers; i++) {
		cfs_layer_free(p->records[i]);
		free(p->errors[i]);
	}
	free(p->records);
	free(p->state);
	free(p->errors);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	free(p);
}

static struct pipeline *pipeline_new(const struct convert_opts *o,
				     struct cfs_oci_image *img,
				     struct cfs_store *store)
{
	struct pipeline *p = xcalloc(1, sizeof(*p));
	size_t n = img->n_layers;

	p->o = o;
	p->img = img;
	p->store = store;
	p->records = xcalloc(n, sizeof(*p->records));
	p->state = xcalloc(n, sizeof(*p->state));
	p->errors = xcalloc(n, sizeof(*p->errors));
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	return p;
}

/*
 * The commit (objects durable and named) and the layer cache records, on
 * a thread of its own: the commit mostly waits for the disk, and the
 * manifest is built meanwhile.
 */
struct convert_commit {
	struct pipeline *p;
	pthread_t thread;
	bool started;
	int r;
	char *error;
};

static void *commit_thread(void *opaque)
{
	struct convert_commit *c = opaque;

	/* Objects get their names before anything refers to them. */
	c->r = cfs_store_commit(c->p->store);
	if (c->r == 0)
		save_cache(c->p);
	else
		c->error = xstrdup(cfs_strerror());
	/* not kept until the manifest is built beside them */
	for (size_t i = 0; i < c->p->img->n_layers; i++) {
		cfs_layer_free(c->p->records[i]);
		c->p->records[i] = NULL;
	}
	return NULL;
}

static struct convert_commit *commit_start(struct pipeline *p)
{
	struct convert_commit *c = xcalloc(1, sizeof(*c));

	c->p = p;
	c->started = pthread_create(&c->thread, NULL, commit_thread, c) == 0;
	return c;
}

int convert_commit_finish(struct convert_commit *c)
{
	int r;

	if (c->started)
		pthread_join(c->thread, NULL);
	else
		commit_thread(c);
	r = c->r;
	if (r < 0)
		cfs_error("%s", c->error);
	pipeline_free(c->p);
	free(c->error);
	free(c);
	return r;
}

/*
 * By default one layer per core, and one more for an image read through
 * skopeo: its streams also wait on the network and on skopeo, so a core
 * that frees up finds a layer ready (3.5% off a pull of the bench image
 * on 2 cores).
 */
static unsigned int reader_threads(const struct convert_opts *o,
				   const struct cfs_oci_image *img, size_t todo)
{
	long want = o->threads;

	if (want <= 0 && cfs_oci_proxied(img))
		want = (long)cfs_pool_size(0, 0, 0) + 1;
	return cfs_pool_size(want, todo, 0);
}

int convert_layers(const struct convert_opts *o, struct cfs_oci_image *img,
		   struct cfs_store *store, struct cfs_tree *t,
		   struct convert_stats *st, struct convert_commit **commit)
{
	struct pipeline *p = pipeline_new(o, img, store);
	size_t n = img->n_layers;
	struct cfs_pool *readers = NULL;
	ssize_t failed;

	st->layers = (unsigned int)n;
	load_cached(p, st);
	/* Without a thread, the pool reads every layer before any is applied. */
	if (st->cached_layers < n)
		readers = cfs_pool_start(
			reader_threads(o, img, n - st->cached_layers), worker,
			p);
	failed = apply_all(p, t);
	cfs_pool_join(readers);
	if (failed < 0) {
		*commit = commit_start(p);
		return 0;
	}
	cfs_error("%s", p->errors[failed]);
	keep_read_layers(p);
	pipeline_free(p);
	return -1;
}
