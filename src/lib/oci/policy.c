// SPDX-License-Identifier: MIT
/*
 * The signature policy (containers-policy.json(5)) for an image named with
 * a transport. skopeo's image proxy does not apply it (OpenImage only
 * opens the source; containers/image checks the policy in copy.Image), and
 * no skopeo command checks a policy without copying the whole image, so
 * it is applied here, as containers/image v5.22.1 does: the policy file
 * (--signature-policy, else $HOME/.config/containers/policy.json if it
 * exists, else /etc/containers/policy.json), the transport's most specific
 * scope, else the transport's "" scope, else "default"; every requirement
 * of it must accept (IsRunningImageAllowed). Before anything is fetched
 * (oci_policy_load) the requirements are checked, "reject" refuses and a
 * list of insecureAcceptAnything accepts; signedBy and sigstoreSigned are
 * checked right after the manifest is fetched, before the config or any
 * blob is used (oci_policy_verify, sig-*.c), on the signatures of the
 * manifest digest skopeo reported.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfs/json.h"
#include "cfs/escape.h"
#include "internal.h"
#include "sig.h"
#include "cfs/util.h"

#define SYSTEM_POLICY "/etc/containers/policy.json"
#define USER_POLICY ".config/containers/policy.json"

static char *policy_path(const char *given)
{
	const char *home = getenv("HOME");
	char *user;

	if (given)
		return xstrdup(given);
	if (home && *home) {
		user = xasprintf("%s/%s", home, USER_POLICY);
		if (access(user, F_OK) == 0)
			return user;
		free(user);
	}
	return xstrdup(SYSTEM_POLICY);
}

static struct json_object *scope_get(struct json_object *scopes,
				     const char *key)
{
	struct json_object *v;

	if (scopes && json_object_object_get_ex(scopes, key, &v))
		return v;
	return NULL;
}

/* The repository of a docker identity: no :tag, no @digest. */
static char *repo_of(const char *identity)
{
	char *name = xstrdup(identity), *at = strchr(name, '@');
	char *slash, *colon;

	if (at)
		*at = '\0';
	slash = strrchr(name, '/');
	colon = strrchr(slash ? slash : name, ':');
	if (colon)
		*colon = '\0';
	return name;
}

/* Identity, repository, its parents, the registry, then "*.domain"s. */
static struct json_object *docker_scope(struct json_object *scopes,
					const char *identity)
{
	struct json_object *r = scope_get(scopes, identity);
	char *name = repo_of(identity), *slash, *wild;
	const char *dot;

	while (!r) {
		r = scope_get(scopes, name);
		slash = strrchr(name, '/');
		if (!slash)
			break;
		*slash = '\0';
	}
	for (dot = strchr(name, '.'); !r && dot; dot = strchr(dot + 1, '.')) {
		wild = xasprintf("*%s", dot);
		r = scope_get(scopes, wild);
		free(wild);
	}
	free(name);
	return r;
}

static struct json_object *requirements(struct json_object *pol,
					const char *transport,
					const char *identity)
{
	struct json_object *ts, *scopes = NULL, *r = NULL;

	if (json_object_object_get_ex(pol, "transports", &ts) &&
	    json_object_is_type(ts, json_type_object))
		json_object_object_get_ex(ts, transport, &scopes);
	if (scopes && !json_object_is_type(scopes, json_type_object))
		scopes = NULL;
	if (identity && !strcmp(transport, "docker"))
		r = docker_scope(scopes, identity);
	if (!r)
		r = scope_get(scopes, "");
	if (!r)
		json_object_object_get_ex(pol, "default", &r);
	return r;
}

struct oci_policy {
	struct json_object *pol;
	struct json_object *reqs; /* borrowed from pol */
	char *path;
	char *identity; /* the image's docker reference, or NULL */
	char *sig_dir;	/* a dir: image's directory, or NULL */
};

void oci_policy_free(struct oci_policy *p)
{
	if (!p)
		return;
	json_object_put(p->pol);
	free(p->path);
	free(p->identity);
	free(p->sig_dir);
	free(p);
}

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

/* "insecureAcceptAnything", "reject", "signedBy", "sigstoreSigned". */
static const char *req_type(struct json_object *q)
{
	return json_object_is_type(q, json_type_object)
		       ? cfs_json_str(q, "type")
		       : NULL;
}

/* 1: signatures needed, 0: accepted as is, -1: refused. */
static int precheck(struct json_object *reqs, const char *path)
{
	size_t n;
	int need = 0;
	char shown[64];

	if (!reqs || !json_object_is_type(reqs, json_type_array) ||
	    !(n = json_object_array_length(reqs))) {
		cfs_error("signature policy %s: no requirements for this "
			  "image",
			  path);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		struct json_object *q = json_object_array_get_idx(reqs, i);
		const char *type = req_type(q);
		int r = 0;

		if (type && !strcmp(type, "insecureAcceptAnything"))
			continue;
		if (type && !strcmp(type, "reject")) {
			cfs_error("rejected by signature policy %s", path);
			return -1;
		}
		if (type && !strcmp(type, "signedBy"))
			r = check_signed_by(q);
		else if (type && !strcmp(type, "sigstoreSigned"))
			r = check_sigstore(q);
		else
			r = -1,
			cfs_error(
				"unknown requirement type '%s'",
				type ? cfs_printable(shown, sizeof(shown), type)
				     : "?");
		if (r < 0) {
			cfs_error_prefix("signature policy %s", path);
			return -1;
		}
		need = 1;
	}
	return need;
}

int oci_policy_load(struct oci_policy **out, const char *policy,
		    const char *transport, const char *identity,
		    const char *sig_dir)
{
	struct oci_policy *p = xcalloc(1, sizeof(*p));
	uint8_t *data;
	size_t len;
	int r = -1;

	*out = NULL;
	p->path = policy_path(policy);
	if (cfs_read_file(p->path, &data, &len) < 0) {
		cfs_error_prefix("signature policy");
		oci_policy_free(p);
		return -1;
	}
	if (oci_json_parse(&p->pol, data, len, p->path) == 0) {
		if (json_object_is_type(p->pol, json_type_object)) {
			p->reqs = requirements(p->pol, transport, identity);
			r = precheck(p->reqs, p->path);
		} else {
			cfs_error("%s: not a JSON object", p->path);
		}
	}
	free(data);
	if (r == 1 && strcmp(transport, "docker") &&
	    !(sig_dir && !strcmp(transport, "dir"))) {
		cfs_error("signature policy %s requires a signature, and cfs "
			  "reads the signatures of docker:// and dir: images "
			  "only",
			  p->path);
		r = -1;
	}
	if (r == 1) {
		p->identity = identity ? xstrdup(identity) : NULL;
		p->sig_dir = sig_dir ? xstrdup(sig_dir) : NULL;
		*out = p;
		return 0;
	}
	oci_policy_free(p);
	return r;
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
	bool sigstore = !strcmp(req_type(q), "sigstoreSigned");
	enum oci_sig_kind kind = sigstore ? OCI_SIG_SIGSTORE : OCI_SIG_SIMPLE;
	struct cfs_buf why = {0};
	struct keys k;
	size_t tried = 0;
	int r = -1;

	if (load_keys(&k, q) < 0) {
		cfs_error_prefix("%s", req_type(q));
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
			  req_type(q), sigs->note ? " (" : "",
			  sigs->note ? sigs->note : "", sigs->note ? ")" : "");
	else if (r < 0)
		cfs_error("%s: no signature accepted: %.*s", req_type(q),
			  (int)why.len, (const char *)why.data);
	cfs_buf_free(&why);
	return r;
}

int oci_policy_verify(const struct oci_policy *p, const char *digest,
		      const uint8_t *manifest, size_t len,
		      const struct cfs_registry_opts *reg)
{
	struct target t = {digest, NULL, 0};
	struct oci_digest d;
	struct oci_sigs sigs;
	size_t n = json_object_array_length(p->reqs);
	int r = 0;

	if (oci_digest_parse(&d, digest) < 0) {
		cfs_error_prefix("manifest digest from skopeo");
		return -1;
	}
	/*
	 * skopeo reports the digest of the manifest it read and sends an OCI
	 * one as read, but a docker schema2 one converted to OCI: only then
	 * do the bytes differ from what the signature names, and the digest
	 * reported is all there is to compare with.
	 */
	if (oci_digest_check_mem(&d, manifest, len) == 0) {
		t.bytes = manifest;
		t.len = len;
	}
	if ((p->sig_dir ? oci_sigs_dir(&sigs, p->sig_dir)
			: oci_sigs_docker(&sigs, p->identity, digest, reg)) < 0)
		return -1;
	for (size_t i = 0; r == 0 && i < n; i++) {
		struct json_object *q = json_object_array_get_idx(p->reqs, i);

		if (strcmp(req_type(q), "insecureAcceptAnything"))
			r = eval(p, q, &t, &sigs);
	}
	oci_sigs_free(&sigs);
	if (r < 0)
		cfs_error_prefix("signature policy %s", p->path);
	return r;
}
