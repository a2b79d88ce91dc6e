// SPDX-License-Identifier: MIT
/*
 * The signature policy (containers-policy.json(5)) for an image named with
 * a transport. skopeo's image proxy does not apply it (OpenImage only
 * opens the source; containers/image checks the policy in copy.Image), and
 * no skopeo command checks a policy without copying the whole image, so
 * it is applied here, as containers/image v5.22.1 does: the policy file
 * (--signature-policy, else $HOME/.config/containers/policy.json if it
 * exists, else /etc/containers/policy.json), the transport's most specific
 * scope (a docker name's, or a path's: oci:, oci-archive:, dir:), else the
 * transport's "" scope, else "default"; every requirement
 * of it must accept (IsRunningImageAllowed). Before anything is fetched
 * (oci_policy_load) the requirements are checked, "reject" refuses and a
 * list of insecureAcceptAnything accepts; signedBy and sigstoreSigned are
 * checked right after the manifest is fetched, before the config or any
 * blob is used (oci_policy_verify in sig-verify.c), on the signatures of
 * the manifest digest skopeo reported.
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

/*
 * oci:, oci-archive: and dir: scopes are absolute paths: the image's own
 * (symlinks resolved) then each directory above it, "/" excluded.
 */
static struct json_object *path_scope(struct json_object *scopes,
				      const char *path)
{
	char *name = realpath(path, NULL), *slash;
	struct json_object *r = NULL;

	if (!name) /* nothing there: opening it fails next */
		return NULL;
	while (!r && name[1]) {
		r = scope_get(scopes, name);
		slash = strrchr(name, '/');
		slash[slash == name] = '\0';
	}
	free(name);
	return r;
}

static bool path_transport(const char *transport)
{
	return !strcmp(transport, "oci") || !strcmp(transport, "oci-archive") ||
	       !strcmp(transport, "dir");
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
	else if (identity && path_transport(transport))
		r = path_scope(scopes, identity);
	if (!r)
		r = scope_get(scopes, "");
	if (!r)
		json_object_object_get_ex(pol, "default", &r);
	return r;
}

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
		if (!type || (strcmp(type, "signedBy") &&
			      strcmp(type, "sigstoreSigned"))) {
			cfs_error(
				"unknown requirement type '%s'",
				type ? cfs_printable(shown, sizeof(shown), type)
				     : "?");
			r = -1;
		} else {
			r = oci_sig_requirement_check(q, type);
		}
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
		p->identity = identity && !strcmp(transport, "docker")
				      ? xstrdup(identity)
				      : NULL;
		p->sig_dir = sig_dir ? xstrdup(sig_dir) : NULL;
		*out = p;
		return 0;
	}
	oci_policy_free(p);
	return r;
}
