/* SPDX-License-Identifier: MIT */
/*
 * cfs-seal internals. The image goes SOURCE -> dir:TMP/src (skopeo, the
 * source's own bytes; for an oci: layout, local.c's links to them) -> an
 * OCI layout TMP/layout (ours: image manifests
 * as OCI, each converted by oci2cfs and sealed) -> DEST (skopeo, digests
 * preserved, signed).
 */
#ifndef CFS_SEAL_TOOL_H
#define CFS_SEAL_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "cfs/registry.h"

#define TOOL "cfs-seal"
#define SEAL_DIGEST_MAX 71		 /* "sha256:" + 64 hex */
#define SEAL_JSON_MAX ((size_t)64 << 20) /* a manifest, an index */
#define SEAL_REF_ANNOTATION "org.opencontainers.image.ref.name"

#define OCI_INDEX "application/vnd.oci.image.index.v1+json"
#define OCI_MANIFEST "application/vnd.oci.image.manifest.v1+json"
#define DOCKER_LIST "application/vnd.docker.distribution.manifest.list.v2+json"
#define DOCKER_MANIFEST "application/vnd.docker.distribution.manifest.v2+json"

struct seal_opts {
	const char *source, *dest;
	const char *store; /* NULL: a scratch store in the temp dir */
	const char *policy;
	const char *sign_by, *sign_key, *sign_passphrase, *sign_identity;
	struct cfs_registry_opts reg;
	bool json, reseal;
};

/* One image manifest of the source. */
struct seal_image {
	char *platform;		      /* "os/arch[/variant]" from the index */
	struct json_object *manifest; /* as OCI (converted from docker) */
	uint8_t *orig;		      /* its bytes as read, if already OCI */
	size_t orig_len;
	bool skip; /* not an image (an attestation): kept as it is */
	char config[SEAL_DIGEST_MAX + 1];
	char seal[65];			  /* D, lowercase hex */
	char digest[SEAL_DIGEST_MAX + 1]; /* of the blob written last */
	uint64_t size;
};

struct seal_job {
	const struct seal_opts *o;
	char *tmp;		   /* private temp dir, removed at the end */
	char *src;		   /* TMP/src: skopeo's dir: copy */
	char *layout;		   /* TMP/layout: the OCI layout we write */
	char *skopeo_tmp;	   /* TMP/skopeo: skopeo's --tmpdir */
	struct json_object *index; /* the top index as OCI, or NULL */
	uint8_t *index_orig;	   /* its bytes as read, if already OCI */
	size_t index_orig_len;
	struct seal_image *img;
	size_t n, cap;		       /* images read, images allocated */
	char top[SEAL_DIGEST_MAX + 1]; /* digest of the sealed top manifest */
	char pushed[SEAL_DIGEST_MAX + 1]; /* what skopeo says it wrote */
};

/* run.c: child processes; the interrupting signal, if any */
extern volatile int seal_interrupted;
/*
 * Runs argv[0] (PATH searched) with stdin /dev/null and stdout, stderr
 * into files out and err; 0 when it exited 0, else -1 after cfs_error()
 * with its last stderr line (or how it ended).
 */
int seal_run(const char *const *argv, const char *out, const char *err);

/* skopeo.c */
int seal_fetch(struct seal_job *j);
int seal_push(struct seal_job *j);

/* local.c: SOURCE read in place (an oci: layout), not by skopeo */
bool seal_source_local(const char *source);
int seal_fetch_local(struct seal_job *j);

/* layout.c */
int seal_layout_read(struct seal_job *j);
/* Writes the images unsealed, index.json naming image i cfs-seal-i. */
int seal_layout_unsealed(struct seal_job *j);
/* Seals every image (its seal set) and points index.json at the top. */
int seal_layout_sealed(struct seal_job *j);

/* docker.c */
/* A docker schema2 manifest as OCI; NULL after cfs_error(). */
struct json_object *seal_docker_to_oci(const struct seal_job *j,
				       struct json_object *m);
/* A descriptor's digest (sha256 only) and size, checked. */
int seal_desc_get(struct json_object *d, const char *what, const char **digest,
		  int64_t *size);
struct json_object *seal_desc_new(const char *mt, const char *digest,
				  int64_t size);

/* convert.c: D of every image, by oci2cfs on the unsealed layout */
int seal_convert(struct seal_job *j);

#endif
