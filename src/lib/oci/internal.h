/* SPDX-License-Identifier: MIT */
/*
 * Private parts of the OCI image reader, shared by the files of
 * src/lib/oci/ (and the unit tests), included by nothing else. oci/ may
 * include the base (cfs/util.h, cfs/json.h, cfs/escape.h), the public
 * headers below it (cfs/image-name.h, cfs/sha256.h, cfs/store-layout.h
 * for the one image-id rule), the library's private path.h and
 * containers/conf.h (storage.conf), never podman/.
 */
#ifndef CFS_OCI_INTERNAL_H
#define CFS_OCI_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <json-c/json.h>
#include <openssl/evp.h>

#include "cfs/escape.h"
#include "cfs/oci.h"

/* Cap on any JSON document read (index, manifest, config, manifest.json). */
#define OCI_JSON_MAX ((size_t)64 << 20)

#define OCI_MT_INDEX "application/vnd.oci.image.index.v1+json"
#define OCI_MT_MANIFEST "application/vnd.oci.image.manifest.v1+json"
#define OCI_MT_CONFIG "application/vnd.oci.image.config.v1+json"
#define DOCKER_MT_LIST                                                         \
	"application/vnd.docker.distribution.manifest.list.v2+json"
#define DOCKER_MT_MANIFEST                                                     \
	"application/vnd.docker.distribution.manifest.v2+json"
#define DOCKER_MT_CONFIG "application/vnd.docker.container.image.v1+json"
#define DOCKER_MT_LAYER_TAR "application/vnd.docker.image.rootfs.diff.tar"

/* ---- digest strings and hashing (digest.c) ---- */

/* A validated digest: "alg:hex", alg sha256 or sha512, lowercase hex. */
struct oci_digest {
	char str[CFS_OCI_DIGEST_MAX + 1];
	const EVP_MD *md;
	size_t hex_off; /* offset of the hex part in str */
	uint8_t bytes[64];
	size_t len; /* bytes in the digest: 32 or 64 */
};

/* Validates s; on error names it (made printable) in the message. */
int oci_digest_parse(struct oci_digest *d, const char *s);
/* Returns 0 when data hashes to d, else -1 with a message naming got/want. */
int oci_digest_check_mem(const struct oci_digest *d, const void *data,
			 size_t len);
/* Finishes ctx (and frees it); 0 when it matches d, -1 with a message. */
int oci_digest_check_ctx(EVP_MD_CTX *ctx, const struct oci_digest *d);
/* "sha256:<hex>" of data into out. */
void oci_sha256_string(char out[CFS_OCI_DIGEST_MAX + 1], const void *data,
		       size_t len);

/* ---- where the bytes live: a directory or a tar (source.c) ---- */

struct oci_member {
	char *name; /* normalised: no "./", no "//", no trailing "/" */
	char *link; /* symlink/hardlink target (normalised), or NULL */
	bool hardlink;
	bool regular;
	uint64_t size;
	size_t ordinal; /* header number in the tar */
};

struct oci_source {
	const char *path; /* the image path (owned by the image) */
	bool is_tar;
	int dirfd;		    /* directory source, else -1 */
	struct oci_member *members; /* tar source */
	size_t n_members, cap_members;
};

struct oci_stream;

int oci_source_open(struct oci_source *s, const char *path);
void oci_source_close(struct oci_source *s);
bool oci_source_has(const struct oci_source *s, const char *name);
/* Size of a member or file; -1 with "NAME: missing" when absent. */
int oci_source_size(const struct oci_source *s, const char *name,
		    uint64_t *size);
int oci_stream_open(const struct oci_source *s, const char *name,
		    struct oci_stream **out);
/* Bytes read, 0 at the end, -1 on error (message names the member). */
ssize_t oci_stream_read(struct oci_stream *st, void *buf, size_t n);
void oci_stream_close(struct oci_stream *st);
/*
 * Reads at most limit + 1 bytes of name into a malloc'ed buffer, so that a
 * caller sees *len > limit when the file is larger than allowed.
 */
int oci_source_read_all(const struct oci_source *s, const char *name,
			size_t limit, uint8_t **data, size_t *len);

/* ---- JSON helpers (json.c) ---- */

struct oci_desc {
	const char *media_type; /* borrowed from the JSON object */
	struct oci_digest digest;
	uint64_t size;
	const char *os, *arch, *variant; /* platform, or NULL */
	const char *ref; /* org.opencontainers.image.ref.name, or NULL */
};

/* Parses a whole JSON document; what names it in messages. */
int oci_json_parse(struct json_object **out, const uint8_t *data, size_t len,
		   const char *what);
/* The array member key of obj, or NULL if absent or not an array. */
struct json_object *oci_json_array(struct json_object *obj, const char *key);
int oci_desc_parse(struct oci_desc *d, struct json_object *o, const char *what);
/* Fills img->layers (digest, size, media type) from a manifest's layers. */
int oci_manifest_parse(struct cfs_oci_image *img, struct json_object *m,
		       struct oci_desc *config);
/* Checks rootfs and fills layers[].diff_id from the config JSON. */
int oci_config_parse(struct cfs_oci_image *img, const uint8_t *data,
		     size_t len);
bool oci_layer_media_type_ok(const char *mt);
/*
 * With a platform given, checks the config's os/architecture/variant
 * against it (for images whose index entry or archive names no platform).
 */
int oci_config_check_platform(const struct cfs_oci_image *img,
			      const char *platform);

/* ---- choosing an image (select.c) ---- */

struct oci_platform {
	char os[32], arch[32], variant[32]; /* variant "" = any */
};

/* Parses "os/arch[/variant]", or the host's platform when s is NULL. */
int oci_platform_parse(struct oci_platform *p, const char *s);
/*
 * How well a wanted ref matches an image name: 3 identical, 2 same tag and
 * one repository is a trailing path of the other, 1 one side a bare tag
 * equal to the other's tag, 0 no match.
 */
int oci_ref_match(const char *want, const char *have);
bool oci_platform_match(const struct oci_platform *want, const char *os,
			const char *arch, const char *variant);

/* ---- the two kinds of image ---- */

struct oci_priv {
	struct oci_source src;
	char **layer_paths;	 /* member/file name of each layer blob */
	struct oci_proxy *proxy; /* an image read through skopeo, or NULL */
	int spool_fd;		 /* IMAGE "-": standard input's copy, or -1 */
	char *spool_path;	 /* /proc/self/fd/N of spool_fd */
};

int oci_open_layout(struct cfs_oci_image *img, const char *ref,
		    const char *platform);
int oci_open_docker(struct cfs_oci_image *img, const char *ref,
		    const char *platform);
/* containers-storage: layers become (DiffID, tar size) (storage.c) */
int oci_storage_layers(struct cfs_oci_image *img, const char *name);
/*
 * The signature policy (file policy, or the default one) for an image of
 * transport ("docker", "oci", ...) and identity: for docker the
 * normalised name (e.g. "docker.io/library/x:latest"), for oci,
 * oci-archive and dir the image's path, else NULL; applied before
 * anything is fetched (policy.c): -1 with a message when refused, else 0
 * with *out NULL when accepted, or the requirements the image's
 * signatures must then meet (only for docker, and for dir with sig_dir,
 * the directory that holds its signature-N files).
 */
struct oci_policy;
int oci_policy_load(struct oci_policy **out, const char *policy,
		    const char *transport, const char *identity,
		    const char *sig_dir);
/*
 * The signatures of the manifest whose digest skopeo reported meet every
 * requirement: 0, else -1 with a message. manifest: the bytes skopeo
 * sent when they are the manifest it read (they hash to digest), else
 * NULL: skopeo sends a docker schema2 manifest converted to OCI.
 */
int oci_policy_verify(const struct oci_policy *p, const char *digest,
		      const uint8_t *manifest, size_t len,
		      const struct cfs_registry_opts *reg);
void oci_policy_free(struct oci_policy *p);
/*
 * name: a skopeo transport name, e.g. "docker://..." (remote.c); reg:
 * registry options or NULL; pol: requirements the signatures must meet
 * (checked once the manifest is read, before the config), or NULL.
 */
int oci_open_remote(struct cfs_oci_image *img, const char *name,
		    const char *platform, const struct cfs_registry_opts *reg,
		    const struct oci_policy *pol);

/* An image with nothing read yet, for cfs_oci_close. */
struct cfs_oci_image *oci_image_new(const char *source);
/*
 * Copies standard input to an unnamed temp file (stdin.c): its fd, and a
 * path that opens it again.
 */
int oci_spool_stdin(int *fd, char **path);

static inline struct oci_priv *oci_priv(const struct cfs_oci_image *img)
{
	return img->priv;
}

#endif
