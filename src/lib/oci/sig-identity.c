// SPDX-License-Identifier: MIT
/*
 * Docker references as c/image's reference.ParseNormalizedNamed reads
 * them, and the signedIdentity rules of policy_reference_match.go: which
 * docker-reference a signature may name for the image being pulled.
 * remapIdentity is refused (not implemented), never accepted.
 */
#include <string.h>

#include "cfs/image-name.h"
#include "cfs/json.h"
#include "internal.h"
#include "sig.h"
#include "cfs/util.h"

/* reference.NameTotalLengthMax, checked here on name and tag together */
#define NAME_MAX_LEN 255

void oci_dref_free(struct oci_dref *r)
{
	free(r->name);
	free(r->tag);
	free(r->digest);
	memset(r, 0, sizeof(*r));
}

static bool all_lower_hex64(const char *s)
{
	return strlen(s) == 64 && cfs_lower_hex(s, 64);
}

/* DOMAIN/PATH with docker.io and library/ as reference normalises them. */
static char *normal_name(const struct cfs_name_ref *n)
{
	const char *domain = n->domain ? n->domain : "docker.io";

	if (!strcmp(domain, "index.docker.io"))
		domain = "docker.io";
	if (!strcmp(domain, "docker.io") && !strchr(n->path, '/'))
		return xasprintf("%s/library/%s", domain, n->path);
	return xasprintf("%s/%s", domain, n->path);
}

int oci_dref_parse(struct oci_dref *r, const char *s)
{
	const char *at = strchr(s, '@');
	char *named = at ? xstrndup(s, (size_t)(at - s)) : xstrdup(s);
	struct cfs_name_ref n;
	struct oci_digest d;
	char shown[CFS_SHOWN_MAX];

	memset(r, 0, sizeof(*r));
	if (strlen(named) > NAME_MAX_LEN) {
		cfs_error("'%s': a docker reference longer than %d bytes",
			  cfs_printable(shown, sizeof(shown), s), NAME_MAX_LEN);
		free(named);
		return -1;
	}
	if (all_lower_hex64(named)) {
		cfs_error("'%s': a 64-hex id is not a docker reference",
			  cfs_printable(shown, sizeof(shown), s));
		free(named);
		return -1;
	}
	if (cfs_name_parse(named, &n) < 0) {
		free(named);
		return -1;
	}
	free(named);
	if (at && oci_digest_parse(&d, at + 1) < 0) {
		cfs_name_ref_free(&n);
		return -1;
	}
	r->name = normal_name(&n);
	r->tag = n.tag ? xstrdup(n.tag) : NULL;
	r->digest = at ? xstrdup(at + 1) : NULL;
	cfs_name_ref_free(&n);
	return 0;
}

char *oci_dref_string(const struct oci_dref *r)
{
	return xasprintf("%s%s%s%s%s", r->name, r->tag ? ":" : "",
			 r->tag ? r->tag : "", r->digest ? "@" : "",
			 r->digest ? r->digest : "");
}

static bool name_only(const struct oci_dref *r)
{
	return !r->tag && !r->digest;
}

static bool same_string(const struct oci_dref *a, const struct oci_dref *b)
{
	char *x = oci_dref_string(a), *y = oci_dref_string(b);
	bool same = !strcmp(x, y);

	free(x);
	free(y);
	return same;
}

/* matchRepoDigestOrExact: a tag must match exactly, a digest by repo. */
static bool repo_digest_or_exact(const struct oci_dref *img,
				 const struct oci_dref *sig)
{
	if (name_only(sig))
		return false;
	if (img->tag)
		return same_string(sig, img);
	if (img->digest)
		return !strcmp(sig->name, img->name);
	return false;
}

static const char *ident_type(struct json_object *ident)
{
	if (!ident)
		return "matchRepoDigestOrExact";
	return cfs_json_str(ident, "type");
}

/* The one string field besides "type" that an identity of type t has. */
static const char *ident_field(const char *t)
{
	if (!strcmp(t, "exactReference"))
		return "dockerReference";
	if (!strcmp(t, "exactRepository"))
		return "dockerRepository";
	return NULL;
}

int oci_identity_check(struct json_object *ident)
{
	const char *t = ident_type(ident), *field;
	struct oci_dref r;
	char shown[64];
	int fields;

	if (!ident)
		return 0;
	if (!json_object_is_type(ident, json_type_object) || !t) {
		cfs_error("signedIdentity: not an object with a type");
		return -1;
	}
	if (!strcmp(t, "remapIdentity")) {
		cfs_error(
			"signedIdentity remapIdentity is not supported by cfs "
			"yet");
		return -1;
	}
	field = ident_field(t);
	if (!field && strcmp(t, "matchExact") &&
	    strcmp(t, "matchRepoDigestOrExact") &&
	    strcmp(t, "matchRepository")) {
		cfs_error("signedIdentity: unknown type '%s'",
			  cfs_printable(shown, sizeof(shown), t));
		return -1;
	}
	fields = json_object_object_length(ident);
	if (fields != (field ? 2 : 1) ||
	    (field && !cfs_json_str(ident, field))) {
		cfs_error("signedIdentity %s: wrong fields (want type%s%s)", t,
			  field ? " and " : "", field ? field : "");
		return -1;
	}
	if (!field)
		return 0;
	if (oci_dref_parse(&r, cfs_json_str(ident, field)) < 0) {
		cfs_error_prefix("signedIdentity %s", t);
		return -1;
	}
	fields = !strcmp(t, "exactReference") && name_only(&r);
	oci_dref_free(&r);
	if (fields) {
		cfs_error("signedIdentity exactReference: neither tag nor "
			  "digest");
		return -1;
	}
	return 0;
}

static bool match(const char *t, struct json_object *ident,
		  const struct oci_dref *img, const struct oci_dref *sig)
{
	struct oci_dref want;
	bool ok;

	if (!strcmp(t, "matchRepoDigestOrExact"))
		return repo_digest_or_exact(img, sig);
	if (!strcmp(t, "matchExact"))
		return !name_only(img) && !name_only(sig) &&
		       same_string(img, sig);
	if (!strcmp(t, "matchRepository"))
		return !strcmp(img->name, sig->name);
	if (oci_dref_parse(&want, cfs_json_str(ident, ident_field(t))) < 0)
		return false;
	if (!strcmp(t, "exactReference"))
		ok = !name_only(sig) && !name_only(&want) &&
		     same_string(sig, &want);
	else
		ok = !strcmp(sig->name, want.name);
	oci_dref_free(&want);
	return ok;
}

int oci_identity_match(struct json_object *ident, const char *image_ref,
		       const char *sig_ref)
{
	const char *t = ident_type(ident);
	struct oci_dref img = {0}, sig;
	char shown[CFS_SHOWN_MAX];
	bool exact, ok;

	if (oci_identity_check(ident) < 0)
		return -1;
	exact = !strcmp(t, "exactReference") || !strcmp(t, "exactRepository");
	if (!exact && !image_ref) {
		cfs_error("signedIdentity %s needs a docker reference, and the "
			  "image has none",
			  t);
		return 0;
	}
	if (!exact && oci_dref_parse(&img, image_ref) < 0)
		return 0;
	if (oci_dref_parse(&sig, sig_ref) < 0) {
		cfs_error_prefix("signature's docker-reference");
		oci_dref_free(&img);
		return 0;
	}
	ok = match(t, ident, &img, &sig);
	if (!ok)
		cfs_error("signature for identity %s is not accepted (%s)",
			  cfs_printable(shown, sizeof(shown), sig_ref), t);
	oci_dref_free(&img);
	oci_dref_free(&sig);
	return ok;
}
