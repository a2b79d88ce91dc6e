/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the layer tests: streaming layer tars (see tar-builder.h)
 * back from memory, and scratch object stores.
 */
#ifndef CFS_LAYER_TESTUTIL_H
#define CFS_LAYER_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <openssl/evp.h>

#include "cfs/layer.h"
#include "cfs/store.h"
#include "cfs/util.h"
#include "cfs/store-layout.h"
#include "cfs/verity.h"
#include "tar-builder.h"

/* A cfs_stream_fn over memory, in chunks of at most chunk bytes. */
struct memsrc {
	const uint8_t *p;
	size_t len, off, chunk;
	bool fail; /* return an error at the end instead of 0 */
};

static inline ssize_t memsrc_read(void *opaque, void *buf, size_t n)
{
	struct memsrc *m = opaque;

	if (m->off == m->len && m->fail) {
		cfs_error("blob: digest mismatch");
		return -1;
	}
	if (n > m->len - m->off)
		n = m->len - m->off;
	if (m->chunk && n > m->chunk)
		n = m->chunk;
	memcpy(buf, m->p + m->off, n);
	m->off += n;
	return n;
}

static inline int read_mem(struct cfs_layer **out, const void *p, size_t len,
			   const uint8_t *diff_id, struct cfs_store *s)
{
	struct memsrc m = {p, len, 0, 7777, false};

	return cfs_layer_read(out, memsrc_read, &m, diff_id, s, "test", NULL,
			      NULL);
}

static inline void sha256_mem(const void *p, size_t n, uint8_t out[32])
{
	EVP_Digest(p, n, out, NULL, EVP_sha256(), NULL);
}

static char store_dir[64];

static inline struct cfs_store *scratch_store(void)
{
	struct cfs_store_opts o = {.sync = CFS_SYNC_NONE, .no_verity = true};
	struct cfs_store *s;

	strcpy(store_dir, "/tmp/cfs-test-XXXXXX");
	if (!mkdtemp(store_dir) || cfs_store_open(&s, store_dir, &o) < 0) {
		fprintf(stderr, "# scratch store: %s\n", cfs_strerror());
		exit(2);
	}
	return s;
}

static inline void scratch_store_close(struct cfs_store *s)
{
	char cmd[128];

	cfs_store_close(s);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", store_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "# cannot remove %s\n", store_dir);
}

static inline const struct cfs_layer_entry *
find_entry(const struct cfs_layer *l, const char *path, int kind)
{
	for (size_t i = 0; i < l->n_entries; i++)
		if (l->entries[i].kind == kind &&
		    strcmp(l->entries[i].path, path) == 0)
			return &l->entries[i];
	return NULL;
}

/* True if the store holds an object for digest with exactly this content. */
static inline bool object_has(struct cfs_store *s, const uint8_t *digest,
			      const void *data, size_t len)
{
	char obj[CFS_OBJECT_PATH_LEN + 1];
	char *path;
	uint8_t *got;
	size_t got_len;
	bool same;

	cfs_object_path(obj, digest);
	path = xasprintf("%s/%s", cfs_store_dir(s), obj);
	if (cfs_read_file(path, &got, &got_len) < 0) {
		free(path);
		return false;
	}
	same = got_len == len && memcmp(got, data, len) == 0;
	free(got);
	free(path);
	return same;
}

#endif
