/* SPDX-License-Identifier: MIT */
/* Helpers shared by the libFuzzer harnesses. */
#ifndef CFS_FUZZ_COMMON_H
#define CFS_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfs/dump.h"
#include "cfs/image.h"
#include "cfs/layer.h"
#include "cfs/store.h"
#include "cfs/util.h"

/* A broken invariant: report it and crash so libFuzzer keeps the input. */
#define fuzz_assert(cond)                                                      \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "assertion failed: %s (%s)\n", #cond,  \
				cfs_strerror());                               \
			abort();                                               \
		}                                                              \
	} while (0)

/* Dumps a validated image into a malloc'ed buffer. */
static inline char *fuzz_dump(const struct cfs_image *img, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	fuzz_assert(f != NULL);
	fuzz_assert(cfs_dump_image(img, f) == 0);
	fclose(f);
	return text;
}

/* Builds an image from a tree (freed); must succeed. */
static inline uint8_t *fuzz_build(struct cfs_tree *t, size_t *len)
{
	uint8_t *out = NULL;
	int r;

	fuzz_assert(t != NULL);
	r = cfs_image_build(t, &out, len);
	cfs_tree_free(t);
	fuzz_assert(r == 0);
	return out;
}

/* Parses a dump (must succeed), builds it, checks the bytes equal want. */
static inline void fuzz_check_rebuild(const char *text, size_t text_len,
				      const uint8_t *want, size_t want_len)
{
	size_t len = 0;
	uint8_t *got = fuzz_build(cfs_dump_parse(text, text_len, "dump"), &len);

	fuzz_assert(len == want_len && memcmp(got, want, len) == 0);
	free(got);
}

/* The current error is one line of printable text (no forged lines). */
static inline void fuzz_check_message(void)
{
	for (const char *p = cfs_strerror(); *p; p++)
		fuzz_assert(*p >= 0x20 && *p <= 0x7e);
}

/* rm -rf of a scratch directory this harness made. */
static inline void fuzz_remove_tree(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);

	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	free(cmd);
}

/* Applies l to an empty tree: an error message or a valid image. */
static inline void fuzz_check_applies(const struct cfs_layer *l)
{
	struct cfs_tree *t = cfs_tree_new();
	uint8_t *img;
	size_t len;

	if (cfs_layer_apply(t, l) < 0) {
		fuzz_check_message();
	} else if (cfs_image_build(t, &img, &len) == 0) {
		struct cfs_image im;

		fuzz_assert(cfs_image_open_mem(&im, img, len) == 0);
		cfs_image_close(&im);
		free(img);
	} else {
		fuzz_check_message();
	}
	cfs_tree_free(t);
}

/*
 * A scratch store (no sync, no verity) in a new directory named after
 * template ("/tmp/NAME-XXXXXX", filled in), removed at exit.
 */
static struct cfs_store *fuzz_store;
static char *fuzz_store_dir;

static inline void fuzz_remove_store(void)
{
	cfs_store_close(fuzz_store);
	fuzz_remove_tree(fuzz_store_dir);
}

static inline struct cfs_store *fuzz_open_store(char *template)
{
	struct cfs_store_opts o = {.sync = CFS_SYNC_NONE, .no_verity = true};

	fuzz_assert(mkdtemp(template) != NULL);
	fuzz_assert(cfs_store_open(&fuzz_store, template, &o) == 0);
	fuzz_store_dir = template;
	atexit(fuzz_remove_store);
	return fuzz_store;
}

#endif
