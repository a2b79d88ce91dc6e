/* SPDX-License-Identifier: MIT */
/*
 * Reading OCI images: an OCI image layout directory, an oci-archive tar
 * (a tar of such a layout) or a docker-archive tar (docker/podman save).
 * Resolves the index (nested indexes, --ref, platform), reads manifest and
 * config, and streams layer blobs, verifying digest and size.
 */
#ifndef CFS_OCI_H
#define CFS_OCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cfs/registry.h"
#include "cfs/sha256.h"
#include "cfs/verity.h"

#define CFS_OCI_DIGEST_MAX 135 /* "sha512:" + 128 hex */

struct cfs_oci_layer {
	char digest[CFS_OCI_DIGEST_MAX + 1]; /* blob digest "sha256:..." */
	uint64_t size;			     /* blob size */
	char *media_type;
	uint8_t diff_id
		[CFS_SHA256_SIZE]; /* from config rootfs.diff_ids, sha256 */
};

struct cfs_oci_image {
	char *source;	   /* the path given */
	uint8_t *manifest; /* raw manifest JSON (synthesised for docker) */
	size_t manifest_len;
	uint8_t *config; /* raw config JSON, verified against its digest */
	size_t config_len;
	char config_digest[CFS_OCI_DIGEST_MAX + 1]; /* "sha256:..." */
	char *ref_name; /* tag/name of the image, or NULL */
	size_t n_layers;
	struct cfs_oci_layer *layers;
	void *priv;
};

/*
 * path "-": an archive on standard input (copied to a temp file first).
 * ref: NULL, or the name to pick (org.opencontainers.image.ref.name in an
 * OCI index; "repo:tag" in docker-archive RepoTags).
 * platform: NULL for the host's, or "os/arch[/variant]".
 */
int cfs_oci_open(struct cfs_oci_image **out, const char *path, const char *ref,
		 const char *platform);
void cfs_oci_close(struct cfs_oci_image *img);

/*
 * Like cfs_oci_open, but name may also carry a transport as skopeo spells
 * it: docker://, containers-storage:, dir:, oci:DIR[:REF],
 * oci-archive:FILE[:REF], docker-archive:FILE[:REF]; an existing file or
 * directory of that name is always read as a path. For docker:// and
 * containers-storage:, img->ref_name is the name normalised as podman
 * records it (docker.io/library/NAME:latest). A transport name is refused
 * when the signature policy rejects it (policy: a policy.json, or NULL for
 * the default one, as podman finds it). reg: registry options for the
 * names read through skopeo, or NULL; it must outlive the image.
 */
int cfs_oci_open_name(struct cfs_oci_image **out, const char *name,
		      const char *ref, const char *platform, const char *policy,
		      const struct cfs_registry_opts *reg);
/*
 * The signature policy's verdict on name as cfs_oci_open_name applies it
 * before reading anything, for a reader of its own (cfs-seal reads oci:
 * layouts in place): 0 when it accepts the image unsigned (a plain path
 * always), else -1 with a message: refused, or signatures required.
 */
int cfs_oci_check_policy(const char *name, const char *policy);
/*
 * Whether the image's blobs come through skopeo (a registry, podman's
 * storage): reading one also waits on the network or on skopeo.
 */
bool cfs_oci_proxied(const struct cfs_oci_image *img);
/* A docker reference normalised as podman records it (malloc'ed). */
char *cfs_oci_normalize_name(const char *name);

/*
 * A stream of one layer blob's bytes (still compressed). cfs_blob_read
 * returns bytes read, 0 at the end, -1 on error; at the end it has checked
 * the blob's size and digest and fails on a mismatch, naming the blob.
 * Several blobs of one image may be open at once (one per thread).
 */
struct cfs_blob;
int cfs_oci_open_layer(struct cfs_oci_image *img, size_t i,
		       struct cfs_blob **out);
ssize_t cfs_blob_read(struct cfs_blob *b, void *buf, size_t n);
/* What its errors start with: "SOURCE: blob DIGEST" (or ": layer PATH"). */
const char *cfs_blob_label(const struct cfs_blob *b);
void cfs_blob_close(struct cfs_blob *b);

#endif
