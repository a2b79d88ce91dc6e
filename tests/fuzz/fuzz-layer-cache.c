// SPDX-License-Identifier: MIT
/*
 * libFuzzer: arbitrary bytes as a layer cache record, its trailing sha256
 * appended here (the fuzzer explores the decoder, not the checksum; seeds
 * from cache-seeds.py). The loader must refuse it or give a layer that
 * saves back into a record loading as the same bytes; a record bypasses
 * the tar reader, so what it gives must apply to a tree as cleanly as a
 * read layer, and a tree that applies must build into a valid image.
 */
#include <openssl/evp.h>
#include <stdint.h>
#include <unistd.h>

#include "fuzz-common.h"
#include "cfs/layer.h"
#include "cfs/store.h"
#include "cfs/tree.h"

static struct cfs_store *store;
static char store_dir[] = "/tmp/cfs-fuzz-cache-XXXXXX";
static char *input_path;

static void open_store(void)
{
	store = fuzz_open_store(store_dir);
	input_path = xasprintf("%s/input", store_dir);
}

/* Saves l into the store's cache; returns the record's bytes. */
static uint8_t *save(const struct cfs_layer *l, size_t *len)
{
	char hex[65], *path;
	uint8_t *data;

	fuzz_assert(cfs_layer_cache_save(store, l) == 0);
	cfs_hex(hex, l->diff_id, 32);
	path = xasprintf("%s/layers/%s", store_dir, hex);
	fuzz_assert(cfs_read_file(path, &data, len) == 0);
	free(path);
	return data;
}

/* Saving l and loading it back gives a layer that saves as the same bytes. */
static void check_round_trip(const struct cfs_layer *l)
{
	struct cfs_layer *again;
	uint8_t *a, *b;
	size_t alen, blen;
	char hex[65], *path;

	a = save(l, &alen);
	cfs_hex(hex, l->diff_id, 32);
	path = xasprintf("%s/layers/%s", store_dir, hex);
	fuzz_assert(cfs_layer_cache_read(path, l->diff_id, &again) == 1);
	free(path);
	b = save(again, &blen);
	fuzz_assert(alen == blen && memcmp(a, b, alen) == 0);
	cfs_layer_free(again);
	free(a);
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t diff_id[32], *rec;
	struct cfs_layer *l;
	int r;

	if (!store)
		open_store();
	memset(diff_id, 0, sizeof(diff_id));
	if (size >= 8 + 4 + 32)
		memcpy(diff_id, data + 12, 32);
	rec = xmalloc(size + 32);
	memcpy(rec, data, size);
	EVP_Digest(data, size, rec + size, NULL, EVP_sha256(), NULL);
	fuzz_assert(cfs_write_file_atomic(input_path, rec, size + 32, 0600,
					  CFS_ATOMIC_NOSYNC) == 0);
	free(rec);
	r = cfs_layer_cache_read(input_path, diff_id, &l);
	fuzz_assert(r == 0 || r == 1);
	if (r == 1) {
		check_round_trip(l);
		fuzz_check_applies(l);
		cfs_layer_free(l);
	}
	return 0;
}
