// SPDX-License-Identifier: MIT
/*
 * libFuzzer: arbitrary bytes as a layer blob (tar, gzip or zstd, or
 * anything else). Reading must fail cleanly or give a layer that applies
 * to a tree; any error is one line of printable text; a tree that applies
 * must build into an image that validates.
 */
#include <stdint.h>
#include <unistd.h>

#include "fuzz-common.h"
#include "cfs/layer.h"
#include "cfs/store.h"
#include "cfs/tree.h"

static struct cfs_store *store;

struct memsrc {
	const uint8_t *p;
	size_t len, off;
};

static ssize_t mem_read(void *opaque, void *buf, size_t n)
{
	struct memsrc *m = opaque;

	if (n > m->len - m->off)
		n = m->len - m->off;
	/* Small reads: the decoders see their input split everywhere. */
	if (n > 4093)
		n = 4093;
	memcpy(buf, m->p + m->off, n);
	m->off += n;
	return n;
}

static char store_dir[] = "/tmp/cfs-fuzz-layer-XXXXXX";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct memsrc m = {data, size, 0};
	struct cfs_layer *l;

	if (!store)
		store = fuzz_open_store(store_dir);
	if (cfs_layer_read(&l, mem_read, &m, NULL, store, "fuzz", NULL, NULL) <
	    0) {
		fuzz_check_message();
		return 0;
	}
	fuzz_check_applies(l);
	cfs_layer_free(l);
	return 0;
}
