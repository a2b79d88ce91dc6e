/* SPDX-License-Identifier: MIT */
/*
 * Image signatures as containers/image v5.22.1 checks them for
 * containers-policy.json(5)'s signedBy and sigstoreSigned: finding them
 * (registries.d lookaside, sigstore attachments), the signed payloads,
 * docker references and signedIdentity, GPG and sigstore verification.
 * Private to src/lib/oci/ (and the unit tests). Every function returning
 * int returns 0, or -1 after cfs_error() saying why.
 */
#ifndef CFS_OCI_SIG_H
#define CFS_OCI_SIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "cfs/registry.h"

struct oci_proxy;

/* Cap on one signature (c/image's iolimits.MaxSignatureBodySize). */
#define OCI_SIG_MAX ((size_t)4 << 20)
/* Cap on signatures read for one image (c/image: maxLookasideSignatures). */
#define OCI_SIGS_MAX 128

#define OCI_SIG_SIMPLE_TYPE "atomic container signature"
#define OCI_SIG_COSIGN_TYPE "cosign container image signature"
#define OCI_SIG_COSIGN_MIME "application/vnd.dev.cosign.simplesigning.v1+json"
#define OCI_SIG_COSIGN_ANNOTATION "dev.cosignproject.cosign/signature"

/* ---- the signed payloads (sig-payload.c) ---- */

struct oci_sig_payload {
	char *digest;	 /* critical.image.docker-manifest-digest */
	char *reference; /* critical.identity.docker-reference */
};

/*
 * Parses a payload as c/image does, strictly: exactly the fields
 * critical{type, image{docker-manifest-digest}, identity{docker-reference}}
 * and optional (an object; null too when null_optional), no duplicate key
 * anywhere, critical.type equal to type, optional.creator a string and
 * optional.timestamp an integer when present.
 */
int oci_sig_payload_parse(struct oci_sig_payload *p, const uint8_t *data,
			  size_t len, const char *type, bool null_optional);
void oci_sig_payload_free(struct oci_sig_payload *p);
/* -1 after cfs_error() when some object of the JSON repeats a key. */
int oci_json_unique_keys(const uint8_t *data, size_t len);

/* ---- docker references and signedIdentity (sig-identity.c) ---- */

/* A normalised docker reference: NAME[:TAG][@DIGEST]. */
struct oci_dref {
	char *name;   /* DOMAIN/PATH, docker.io/library/ filled in */
	char *tag;    /* or NULL */
	char *digest; /* or NULL */
};

/* As reference.ParseNormalizedNamed; -1 after cfs_error() when invalid. */
int oci_dref_parse(struct oci_dref *r, const char *s);
void oci_dref_free(struct oci_dref *r);
/* NAME[:TAG][@DIGEST] (malloc'ed), as reference's String(). */
char *oci_dref_string(const struct oci_dref *r);

/*
 * Whether a signature naming sig_ref is accepted for an image whose
 * docker reference is image_ref (NULL: the transport has none) under the
 * signedIdentity object ident (NULL: matchRepoDigestOrExact). 1 yes, 0 no
 * (cfs_error() says why), -1 for a malformed ident.
 */
int oci_identity_match(struct json_object *ident, const char *image_ref,
		       const char *sig_ref);
/* Validates a signedIdentity object (type and fields) before any fetch. */
int oci_identity_check(struct json_object *ident);

/* ---- where signatures are (registries-d.c, sig-fetch.c) ---- */

enum oci_sig_kind { OCI_SIG_SIMPLE, OCI_SIG_SIGSTORE };

struct oci_sig {
	enum oci_sig_kind kind;
	uint8_t *data; /* SIMPLE: the GPG message; SIGSTORE: the payload */
	size_t len;
	char *mime;   /* SIGSTORE: the media type */
	char *b64sig; /* SIGSTORE: the annotation's base64 signature, or NULL */
	char *where;  /* for messages: the file or attachment layer */
};

struct oci_sigs {
	struct oci_sig *v;
	size_t n;
	char *note; /* why some place gave none (attachments not found), or NULL */
};

void oci_sigs_free(struct oci_sigs *s);

struct oci_sig_config {
	char *lookaside;   /* the lookaside URL for the image */
	bool attachments;  /* use-sigstore-attachments */
	char *config_path; /* the registries.d directory read */
};

/*
 * The registries.d configuration (dir, else $HOME's, else the system's)
 * for the docker reference image_ref (normalised, with tag or digest).
 */
int oci_registries_d(struct oci_sig_config *c, const char *dir,
		     const char *image_ref);
void oci_sig_config_free(struct oci_sig_config *c);

/*
 * The signatures of a docker image (image_ref normalised) whose manifest
 * digest is digest: lookaside ones and, when configured, its sigstore
 * attachments, opened through skopeo's proxy with reg.
 */
int oci_sigs_docker(struct oci_sigs *out, const char *image_ref,
		    const char *digest, const struct cfs_registry_opts *reg);
/*
 * GET url (sig-http.c): 0 with the body (at most limit bytes, malloc'ed),
 * 1 when the server says 404, -1 with a message otherwise.
 */
int oci_http_get(const char *url, size_t limit, uint8_t **data, size_t *len);
/* The signatures of a dir: image: DIR/signature-N. */
int oci_sigs_dir(struct oci_sigs *out, const char *dir);
/* A lookaside or dir: signature blob (c/image's signature.FromBlob). */
int oci_sig_from_blob(struct oci_sigs *out, const uint8_t *blob, size_t len,
		      const char *where);

/* ---- the requirements (sig-verify.c) ---- */

/* What oci_policy_load kept for an image that needs signatures. */
struct oci_policy {
	struct json_object *pol;
	struct json_object *reqs; /* borrowed from pol */
	char *path;
	char *identity; /* the image's docker reference, or NULL */
	char *sig_dir;	/* a dir: image's directory, or NULL */
};

/*
 * A signedBy or sigstoreSigned requirement (type) has only the fields
 * c/image knows, and none that cfs does not implement; checked before
 * anything is fetched.
 */
int oci_sig_requirement_check(struct json_object *q, const char *type);

/* ---- verification (sig-gpg.c, sig-sigstore.c) ---- */

/*
 * Verifies a GPG signed message against keys (blobs of public keys, armored
 * or not): *plain gets the signed content (malloc'ed) when the signature is
 * valid and made by one of the keys imported.
 */
int oci_gpg_verify(const uint8_t *const *keys, const size_t *key_lens,
		   size_t n_keys, const uint8_t *sig, size_t sig_len,
		   uint8_t **plain, size_t *plain_len);
/*
 * Verifies a base64 signature of payload with a PEM public key (ECDSA or
 * RSA PKCS#1 v1.5, SHA-256), as sigstore's LoadVerifier does.
 */
int oci_sigstore_verify(const uint8_t *pem, size_t pem_len,
			const uint8_t *payload, size_t payload_len,
			const char *b64sig);
/* Standard base64 (with padding) into a malloc'ed buffer. */
int oci_base64_decode(const char *s, uint8_t **out, size_t *len);

#endif
