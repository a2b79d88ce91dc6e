// SPDX-License-Identifier: MIT
/*
 * signedBy and sigstoreSigned, as c/image v5.22.1's policy_config.go
 * reads them and policy_eval_signedby.go and policy_eval_sigstore.go
 * apply them: a requirement accepts when one of the image's signatures of
 * its kind (simple signing; sigstore of the cosign media type) verifies
 * with one of its keys and its payload names the manifest cfs uses and an
 * identity signedIdentity accepts. Every requirement must accept. Fields
 * c/image 5.22 does not know, and those cfs does not implement yet, are
 * refused before anything is fetched.
 */
#include <string.h>

#include "cfs/json.h"
#include "internal.h"
#include "sig.h"
#include "cfs/util.h"

/* Only these keys in q (besides "type"). */
static int known_keys(struct json_object *q, const char *type,
		      const char *const *keys)
{
	char shown[64];

	json_object_object_foreach(q, k, v)
	{
		size_t i;

		(void)v;
		for (i = 0; keys[i] && strcmp(k, keys[i]); i++)
			;
		if (!keys[i] && strcmp(k, "type")) {
			cfs_error("%s: '%s' is not supported by cfs", type,
				  cfs_printable(shown, sizeof(shown), k));
			return -1;
		}
	}
	return 0;
}

static bool has(struct json_object *q, const char *key)
{
	return json_object_object_get_ex(q, key, NULL);
}

static int check_signed_by(struct json_object *q)
{
	static const char *const keys[] = {"keyType",	     "keyPath",
					   "keyPaths",	     "keyData",
					   "signedIdentity", NULL};
	const char *kt = cfs_json_str(q, "keyType");
	char shown[64];

	if (known_keys(q, "signedBy", keys) < 0)
		return -1;
	if (!kt || strcmp(kt, "GPGKeys")) {
		cfs_error("signedBy: keyType '%s' is not supported (only "
			  "GPGKeys)",
			  kt ? cfs_printable(shown, sizeof(shown), kt) : "");
		return -1;
	}
	if (has(q, "keyPath") + has(q, "keyPaths") + has(q, "keyData") != 1) {
		cfs_error("signedBy: not exactly one of keyPath, keyPaths and "
			  "keyData");
		return -1;
	}
	return oci_identity_check(json_object_object_get(q, "signedIdentity"));
}

static int check_sigstore(struct json_object *q)
{
	static const char *const keys[] = {"keyPath", "keyData",
					   "signedIdentity", NULL};

	if (has(q, "fulcio") || has(q, "rekorPublicKeyPath") ||
	    has(q, "rekorPublicKeyData")) {
		cfs_error("sigstoreSigned: Fulcio and Rekor are not supported "
			  "by cfs yet");
		return -1;
	}
	if (known_keys(q, "sigstoreSigned", keys) < 0)
		return -1;
	if (has(q, "keyPath") + has(q, "keyData") != 1) {
		cfs_error("sigstoreSigned: not exactly one of keyPath and "
			  "keyData");
		return -1;
	}
	return oci_identity_check(json_object_object_get(q, "signedIdentity"));
}

int oci_sig_requirement_check(struct json_object *q, const char *type)
{
	return strcmp(type, "signedBy") ? check_sigstore(q)
					: check_signed_by(q);
}

/* The key blobs of a requirement: keyPath, keyPaths or keyData. */
struct keys {
	uint8_t *data[16];
	size_t len[16];
	size_t n;
};

static void keys_free(struct keys *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->data[i]);
	k->n = 0;
}

static int key_file(struct keys *k, struct json_object *v)
{
	const char *f = json_object_is_type(v, json_type_string)
				? json_object_get_string(v)
				: NULL;

	if (!f || !*f) {
		cfs_error("a key path is not a string");
		return -1;
	}
	if (k->n == sizeof(k->data) / sizeof(k->data[0])) {
		cfs_error("more than %zu key files",
			  sizeof(k->data) / sizeof(k->data[0]));
		return -1;
	}
	if (cfs_read_file(f, &k->data[k->n], &k->len[k->n]) < 0)
		return -1;
	k->n++;
	return 0;
}

static int load_keys(struct keys *k, struct json_object *q)
{
	struct json_object *v;
	int r = 0;

	k->n = 0;
	if (json_object_object_get_ex(q, "keyPath", &v))
		return key_file(k, v);
	if (json_object_object_get_ex(q, "keyPaths", &v)) {
		if (!json_object_is_type(v, json_type_array)) {
			cfs_error("keyPaths is not an array");
			return -1;
		}
		for (size_t i = 0; r == 0 && i < json_object_array_length(v);
		     i++)
			r = key_file(k, json_object_array_get_idx(v, i));
		if (r < 0)
			keys_free(k);
		return r;
	}
	v = json_object_object_get(q, "keyData");
	if (!json_object_is_type(v, json_type_string) ||
	    oci_base64_decode(json_object_get_string(v), &k->data[0],
			      &k->len[0]) < 0) {
		cfs_error_prefix("keyData");
		return -1;
	}
	k->n = 1;
	return 0;
}

/* What the signature is checked against: the manifest cfs uses. */
struct target {
	const char *digest;   /* the digest skopeo reported */
	const uint8_t *bytes; /* the manifest, when it hashes to digest */
	size_t len;
};

/*
 * The payload's digest names the manifest: computed over the very bytes
 * with the payload's algorithm when they are the manifest skopeo read,
 * else (a docker schema2 manifest skopeo converted to OCI) compared with
 * the digest skopeo reported for the original.
 */
static int digest_matches(const struct target *t, const char *digest)
{
	struct oci_digest d;
	char shown[CFS_SHOWN_MAX];

	if (oci_digest_parse(&d, digest) < 0)
		return -1;
	if (t->bytes ? oci_digest_check_mem(&d, t->bytes, t->len) == 0
		     : !strcmp(digest, t->digest))
		return 0;
	cfs_error("signature for digest %s does not match",
		  cfs_printable(shown, sizeof(shown), digest));
	return -1;
}

static int payload_ok(const struct oci_policy *p, struct json_object *q,
		      const struct target *t, const uint8_t *data, size_t len,
		      const char *type, bool null_optional)
{
	struct oci_sig_payload pl;
	int r;

	if (oci_sig_payload_parse(&pl, data, len, type, null_optional) < 0)
		return -1;
	r = digest_matches(t, pl.digest);
	if (r == 0 &&
	    oci_identity_match(json_object_object_get(q, "signedIdentity"),
			       p->identity, pl.reference) != 1)
		r = -1;
	oci_sig_payload_free(&pl);
	return r;
}

static int accept_simple(const struct oci_policy *p, struct json_object *q,
			 const struct target *t, const struct keys *k,
			 const struct oci_sig *g)
{
	uint8_t *plain;
	size_t len;
	int r;

	if (oci_gpg_verify((const uint8_t *const *)k->data, k->len, k->n,
			   g->data, g->len, &plain, &len) < 0)
		return -1;
	r = payload_ok(p, q, t, plain, len, OCI_SIG_SIMPLE_TYPE, false);
	free(plain);
	return r;
}

static int accept_sigstore(const struct oci_policy *p, struct json_object *q,
			   const struct target *t, const struct keys *k,
			   const struct oci_sig *g)
{
	if (!g->b64sig) {
		cfs_error("no %s annotation", OCI_SIG_COSIGN_ANNOTATION);
		return -1;
	}
	if (oci_sigstore_verify(k->data[0], k->len[0], g->data, g->len,
				g->b64sig) < 0)
		return -1;
	return payload_ok(p, q, t, g->data, g->len, OCI_SIG_COSIGN_TYPE, true);
}

/* Appends the current message to the reasons, "; "-separated. */
static void add_reason(struct cfs_buf *why, const char *where)
{
	char *s = xasprintf("%s%s: %s", why->len ? "; " : "", where,
			    cfs_strerror());

	cfs_buf_append(why, s, strlen(s));
	free(s);
}

/* One signedBy or sigstoreSigned requirement: some signature accepted. */
static int eval(const struct oci_policy *p, struct json_object *q,
		const struct target *t, const struct oci_sigs *sigs)
{
	const char *type = cfs_json_str(q, "type");
	bool sigstore = !strcmp(type, "sigstoreSigned");
	enum oci_sig_kind kind = sigstore ? OCI_SIG_SIGSTORE : OCI_SIG_SIMPLE;
	struct cfs_buf why = {0};
	struct keys k;
	size_t tried = 0;
	int r = -1;

	if (load_keys(&k, q) < 0) {
		cfs_error_prefix("%s", type);
		return -1;
	}
	for (size_t i = 0; r < 0 && i < sigs->n; i++) {
		const struct oci_sig *g = &sigs->v[i];

		if (g->kind != kind ||
		    (sigstore && strcmp(g->mime, OCI_SIG_COSIGN_MIME)))
			continue;
		tried++;
		r = sigstore ? accept_sigstore(p, q, t, &k, g)
			     : accept_simple(p, q, t, &k, g);
		if (r < 0)
			add_reason(&why, g->where);
	}
	keys_free(&k);
	if (r < 0 && tried == 0)
		cfs_error("%s: a signature was required, but no signature "
			  "exists%s%s%s",
			  type, sigs->note ? " (" : "",
			  sigs->note ? sigs->note : "", sigs->note ? ")" : "");
	else if (r < 0)
		cfs_error("%s: no signature accepted: %.*s", type, (int)why.len,
			  (const char *)why.data);
	cfs_buf_free(&why);
	return r;
}

int oci_policy_verify(const struct oci_policy *p, const char *digest,
		      const uint8_t *manifest, size_t len,
		      const struct cfs_registry_opts *reg)
{
	/* without the bytes read, the digest reported is all there is */
	struct target t = {digest, manifest, len};
	struct oci_digest d;
	struct oci_sigs sigs;
	size_t n = json_object_array_length(p->reqs);
	int r = 0;

	if (oci_digest_parse(&d, digest) < 0) {
		cfs_error_prefix("manifest digest from skopeo");
		return -1;
	}
	if ((p->sig_dir ? oci_sigs_dir(&sigs, p->sig_dir)
			: oci_sigs_docker(&sigs, p->identity, digest, reg)) < 0)
		return -1;
	for (size_t i = 0; r == 0 && i < n; i++) {
		struct json_object *q = json_object_array_get_idx(p->reqs, i);

		if (strcmp(cfs_json_str(q, "type"), "insecureAcceptAnything"))
			r = eval(p, q, &t, &sigs);
	}
	oci_sigs_free(&sigs);
	if (r < 0)
		cfs_error_prefix("signature policy %s", p->path);
	return r;
}
