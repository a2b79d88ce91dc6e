// SPDX-License-Identifier: MIT
/*
 * Docker references as c/image's reference.ParseNormalizedNamed reads
 * them, and the signedIdentity rules of policy_reference_match.go: which
 * docker-reference a signature may name for the image being pulled.
 */
#include <ctype.h>
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

/* Each signedIdentity type and the string fields it has besides "type". */
static const struct ident_rule {
	const char *type, *field[2];
} ident_rules[] = {
	{"matchExact", {NULL, NULL}},
	{"matchRepoDigestOrExact", {NULL, NULL}},
	{"matchRepository", {NULL, NULL}},
	{"exactReference", {"dockerReference", NULL}},
	{"exactRepository", {"dockerRepository", NULL}},
	{"remapIdentity", {"prefix", "signedPrefix"}},
};

static const struct ident_rule *ident_rule(const char *t)
{
	for (size_t i = 0; i < sizeof(ident_rules) / sizeof(ident_rules[0]);
	     i++)
		if (!strcmp(t, ident_rules[i].type))
			return &ident_rules[i];
	return NULL;
}

/* reference.DomainRegexp: host components, then an optional :port. */
static bool domain_ok(const char *s, size_t n)
{
	const char *colon = memchr(s, ':', n), *end = colon ? colon : s + n;
	size_t comp = 0;

	for (const char *p = s; p < end; p++) {
		if (*p == '.') {
			if (!comp || p[-1] == '-')
				return false;
			comp = 0;
		} else if (isalnum((unsigned char)*p) || (*p == '-' && comp)) {
			comp++;
		} else {
			return false;
		}
	}
	if (!comp || end[-1] == '-')
		return false;
	if (colon &&
	    (colon + 1 == s + n ||
	     strspn(colon + 1, "0123456789") != (size_t)(s + n - colon - 1)))
		return false;
	return true;
}

/*
 * c/image's validateIdentityRemappingPrefix: a domain alone, or a name
 * without tag or digest that starts with a domain.
 */
static bool remap_prefix_ok(const char *s)
{
	const char *slash = strchr(s, '/');
	struct cfs_name_ref n;
	bool ok;

	if (!slash)
		return domain_ok(s, strlen(s));
	if (!domain_ok(s, (size_t)(slash - s)) || strchr(s, '@') ||
	    cfs_name_parse(s, &n) < 0)
		return false;
	ok = !n.tag;
	cfs_name_ref_free(&n);
	return ok;
}

static int check_fields(struct json_object *ident, const struct ident_rule *r)
{
	int want = 1 + (r->field[0] != NULL) + (r->field[1] != NULL);

	if (json_object_object_length(ident) != want ||
	    (r->field[0] && !cfs_json_str(ident, r->field[0])) ||
	    (r->field[1] && !cfs_json_str(ident, r->field[1]))) {
		cfs_error("signedIdentity %s: wrong fields (want type%s%s%s%s)",
			  r->type, r->field[0] ? ", " : "",
			  r->field[0] ? r->field[0] : "",
			  r->field[1] ? ", " : "",
			  r->field[1] ? r->field[1] : "");
		return -1;
	}
	return 0;
}

static int check_values(struct json_object *ident, const struct ident_rule *r)
{
	const char *v = r->field[0] ? cfs_json_str(ident, r->field[0]) : NULL;
	char shown[CFS_SHOWN_MAX];
	struct oci_dref d;
	bool name_only_ref;

	if (!strcmp(r->type, "remapIdentity")) {
		for (int i = 0; i < 2; i++) {
			v = cfs_json_str(ident, r->field[i]);
			if (!remap_prefix_ok(v)) {
				cfs_error(
					"signedIdentity remapIdentity: %s "
					"'%s' is not valid",
					r->field[i],
					cfs_printable(shown, sizeof(shown), v));
				return -1;
			}
		}
		return 0;
	}
	if (!v)
		return 0;
	if (oci_dref_parse(&d, v) < 0) {
		cfs_error_prefix("signedIdentity %s", r->type);
		return -1;
	}
	name_only_ref = name_only(&d);
	oci_dref_free(&d);
	if (!strcmp(r->type, "exactReference") && name_only_ref) {
		cfs_error("signedIdentity exactReference: neither tag nor "
			  "digest");
		return -1;
	}
	return 0;
}

int oci_identity_check(struct json_object *ident)
{
	const char *t = ident_type(ident);
	const struct ident_rule *r;
	char shown[64];

	if (!ident)
		return 0;
	if (!json_object_is_type(ident, json_type_object) || !t) {
		cfs_error("signedIdentity: not an object with a type");
		return -1;
	}
	r = ident_rule(t);
	if (!r) {
		cfs_error("signedIdentity: unknown type '%s'",
			  cfs_printable(shown, sizeof(shown), t));
		return -1;
	}
	return check_fields(ident, r) < 0 ? -1 : check_values(ident, r);
}

/*
 * remapIdentity: an image whose repository is prefix or below it is
 * matched as if it were named signedPrefix... instead (the rewritten name
 * must be canonical, as reference.ParseNamed wants), then as
 * matchRepoDigestOrExact.
 */
static bool remap_match(struct json_object *ident, const struct oci_dref *img,
			const struct oci_dref *sig)
{
	const char *prefix = cfs_json_str(ident, "prefix");
	const char *to = cfs_json_str(ident, "signedPrefix");
	size_t n = strlen(prefix);
	struct oci_dref re;
	char *old, *new, *again;
	bool ok = false;

	if (strncmp(img->name, prefix, n) ||
	    (img->name[n] && img->name[n] != '/'))
		return repo_digest_or_exact(img, sig);
	old = oci_dref_string(img);
	new = xasprintf("%s%s", to, old + n);
	if (oci_dref_parse(&re, new) == 0) {
		again = oci_dref_string(&re);
		ok = !strcmp(again, new) && repo_digest_or_exact(&re, sig);
		free(again);
		oci_dref_free(&re);
	}
	free(old);
	free(new);
	return ok;
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
	if (!strcmp(t, "remapIdentity"))
		return remap_match(ident, img, sig);
	if (oci_dref_parse(&want,
			   cfs_json_str(ident, ident_rule(t)->field[0])) < 0)
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
