// SPDX-License-Identifier: MIT
/*
 * The signature policy (containers-policy.json(5)) for an image named with
 * a transport, checked before anything is fetched. skopeo's image proxy
 * does not apply it (OpenImage only opens the source; containers/image
 * checks the policy in copy.Image), and no skopeo command checks a policy
 * without copying the whole image, so the lookup is done here, as
 * containers/image does it: the policy file (--signature-policy, else
 * $HOME/.config/containers/policy.json if it exists, else
 * /etc/containers/policy.json), the transport's most specific scope, else
 * the transport's "" scope, else "default". Requirements that need no
 * signature (insecureAcceptAnything, reject) are applied; an image whose
 * requirements need a signature (signedBy, sigstoreSigned) is refused,
 * since cfs cannot verify signatures yet: never accepted where podman pull
 * might refuse.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfs/json.h"
#include "cfs/escape.h"
#include "internal.h"
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

static int apply(struct json_object *reqs, const char *path)
{
	size_t n;

	if (!reqs || !json_object_is_type(reqs, json_type_array) ||
	    !(n = json_object_array_length(reqs))) {
		cfs_error("signature policy %s: no requirements for this "
			  "image",
			  path);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		struct json_object *q = json_object_array_get_idx(reqs, i);
		const char *type = json_object_is_type(q, json_type_object)
					   ? cfs_json_str(q, "type")
					   : NULL;
		char pbuf[64];

		if (type && !strcmp(type, "insecureAcceptAnything"))
			continue;
		if (type && !strcmp(type, "reject")) {
			cfs_error("rejected by signature policy %s", path);
			return -1;
		}
		cfs_error("signature policy %s requires '%s', which cfs cannot "
			  "verify (pull with podman or skopeo instead)",
			  path,
			  type ? cfs_printable(pbuf, sizeof(pbuf), type) : "?");
		return -1;
	}
	return 0;
}

int oci_policy_check(const char *policy, const char *transport,
		     const char *identity)
{
	char *path = policy_path(policy);
	struct json_object *pol;
	uint8_t *data;
	size_t len;
	int r = -1;

	if (cfs_read_file(path, &data, &len) < 0) {
		cfs_error_prefix("signature policy");
		free(path);
		return -1;
	}
	if (oci_json_parse(&pol, data, len, path) == 0) {
		if (json_object_is_type(pol, json_type_object))
			r = apply(requirements(pol, transport, identity), path);
		else
			cfs_error("%s: not a JSON object", path);
		json_object_put(pol);
	}
	free(data);
	free(path);
	return r;
}
