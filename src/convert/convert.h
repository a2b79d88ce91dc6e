/* SPDX-License-Identifier: MIT */
/* oci2cfs internals: options, the layer pipeline, outputs. */
#ifndef CFS_CONVERT_H
#define CFS_CONVERT_H

#include <stdbool.h>
#include <stdint.h>

#include "cfs/layer.h"
#include "cfs/oci.h"
#include "cfs/registry.h"
#include "cfs/store.h"
#include "cfs/tree.h"

struct convert_opts {
	const char *image;
	const char *store;
	const char *ref;
	const char *platform;
	const char *policy; /* --signature-policy */
	struct cfs_registry_opts registry;
	const char *output;
	bool json;
	int verbose; /* -1 quiet, 0 normal, 1 verbose */
	bool no_cache;
	bool podman; /* register with podman (cfs-podman add) */
	bool require_seal;
	int threads;
	struct cfs_store_opts store_opts;
};

struct convert_stats {
	unsigned int layers, cached_layers;
	uint64_t files, regular_files, bytes;
};

struct convert_commit;
/*
 * Reads (or loads from the cache) every layer and applies it to t, then
 * starts the store's commit and the layer cache's records: *commit must
 * be finished before anything refers to the new objects.
 */
int convert_layers(const struct convert_opts *o, struct cfs_oci_image *img,
		   struct cfs_store *store, struct cfs_tree *t,
		   struct convert_stats *st, struct convert_commit **commit);
/* Waits for the commit; -1 with its error if it failed. Frees commit. */
int convert_commit_finish(struct convert_commit *commit);

/* The image's seal (cfs/seal.h), if its manifest carries one. */
struct convert_seal {
	bool sealed;
	uint8_t digest[CFS_DIGEST_SIZE];
};

/*
 * Reads img's seal before anything is fetched; -1 if it is malformed, or
 * if there is none and --require-seal was given.
 */
int convert_seal_read(const struct convert_opts *o,
		      const struct cfs_oci_image *img, struct convert_seal *s);
/* -1 naming both digests unless digest (the manifest's) is the seal's. */
int convert_seal_check(const struct convert_seal *s,
		       const uint8_t digest[CFS_DIGEST_SIZE]);

struct convert_result {
	uint8_t digest[CFS_DIGEST_SIZE]; /* the manifest's, set before */
	char *manifest_path;
	char digest_hex[2 * CFS_DIGEST_SIZE + 1];
	char *ref_name;
	bool sealed;
};

/*
 * Writes the manifest (and config, seal and ref, unless --output)
 * atomically; res->digest must be the manifest's already.
 */
int convert_write_outputs(const struct convert_opts *o,
			  struct cfs_oci_image *img, struct cfs_store *store,
			  const uint8_t *manifest, size_t len,
			  const struct convert_seal *seal,
			  struct convert_result *res);

/*
 * A line on stderr when the manifest has no fs-verity (unless --no-verity):
 * the digest printed is what fs-verity would measure, but the kernel
 * refuses mount -o digest= for a file without it.
 */
void convert_warn_no_verity(const struct convert_opts *o,
			    const struct convert_result *res);

void convert_print_json(const struct convert_opts *o,
			const struct cfs_oci_image *img,
			const struct convert_result *res,
			const struct convert_stats *st,
			const struct cfs_store_stats *sst);

/* Progress on a terminal: layers fetched or cached, bytes. */
void progress_start(bool enabled, const struct cfs_oci_image *img);
void progress_add_bytes(uint64_t n);		    /* unpacked bytes */
void progress_blob_bytes(size_t layer, uint64_t n); /* blob bytes */
void progress_layer_done(size_t layer, bool cached);
void progress_refresh(void);
void progress_end(void);

#endif
