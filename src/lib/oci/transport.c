// SPDX-License-Identifier: MIT
/*
 * Image names with a transport, as skopeo and podman spell them. oci:,
 * oci-archive: and docker-archive: map onto the local readers (oci.c): they
 * read blobs in parallel straight from the file, without a skopeo process
 * and a pipe copy per byte, and they are the readers hardened against
 * hostile archives (skopeo 1.9's proxy also fails on docker-archive
 * layers: "Unknown blob"). docker://, containers-storage: and dir: go
 * through skopeo's image proxy (remote.c).
 */
#include <ctype.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "cfs/image-name.h"
#include "cfs/store-layout.h"
#include "cfs/util.h"

enum transport { T_NONE, T_LOCAL, T_REMOTE, T_UNKNOWN };

#define KNOWN_TRANSPORTS                                                       \
	"docker://, containers-storage:, dir:, oci:, oci-archive:, "           \
	"docker-archive:"

struct parsed {
	enum transport kind;
	char *path;	/* T_LOCAL: the file or directory */
	char *ref;	/* T_LOCAL: the reference after the path, or NULL */
	char *record;	/* the name to record (normalised), or NULL */
	const char *tp; /* the transport, as policy.json names it */
};

/*
 * A docker reference as podman records it: a registry (docker.io when the
 * first part has no '.', ':' and is not localhost), library/ for a
 * single-part docker.io name, and :latest when there is neither tag nor
 * digest.
 */
char *cfs_oci_normalize_name(const char *name)
{
	size_t domain = cfs_name_domain_len(name);
	const char *last, *domain_end = domain ? name + domain : NULL;
	char *out;
	bool tagged;

	last = strrchr(name, '/');
	last = last ? last + 1 : name;
	tagged = strchr(last, ':') || strchr(name, '@');
	if (domain_end && (!strncmp(name, "docker.io/", 10) ||
			   !strncmp(name, "index.docker.io/", 16))) {
		name = domain_end + 1;
		domain_end = NULL;
	}
	if (domain_end)
		out = xasprintf("%s%s", name, tagged ? "" : ":latest");
	else
		out = xasprintf("docker.io/%s%s%s",
				strchr(name, '/') ? "" : "library/", name,
				tagged ? "" : ":latest");
	return out;
}

static void split_ref(struct parsed *p, const char *rest)
{
	/* skopeo splits PATH:REF at the first colon */
	const char *colon = strchr(rest, ':');

	p->path = colon ? xstrndup(rest, colon - rest) : xstrdup(rest);
	p->ref = colon && colon[1] ? xstrdup(colon + 1) : NULL;
}

/* containers-storage:[driver@root+run]NAME -> NAME normalised */
static char *storage_record(const char *rest)
{
	if (rest[0] == '[') {
		const char *end = strchr(rest, ']');

		rest = end ? end + 1 : rest + strlen(rest);
	}
	if (!*rest || cfs_image_id_ok(rest) || rest[0] == '@')
		return NULL;
	return cfs_oci_normalize_name(rest);
}

/*
 * "WORD:..." with no '/' before the colon, as skopeo spells a transport
 * ("localhost:5000/x" too: skopeo also reads it as a transport).
 */
static bool has_transport_prefix(const char *name)
{
	size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyz"
				"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-");

	return n > 0 && name[n] == ':';
}

static void parse(struct parsed *p, const char *name)
{
	struct stat st;

	memset(p, 0, sizeof(*p));
	if (stat(name, &st) == 0) /* an existing file is a path */
		return;
	if (!strncmp(name, "docker://", 9)) {
		p->kind = T_REMOTE;
		p->tp = "docker";
		p->record = cfs_oci_normalize_name(name + 9);
	} else if (!strncmp(name, "containers-storage:", 19)) {
		p->kind = T_REMOTE;
		p->tp = "containers-storage";
		p->record = storage_record(name + 19);
	} else if (!strncmp(name, "dir:", 4)) {
		p->kind = T_REMOTE;
		p->tp = "dir";
	} else if (!strncmp(name, "oci:", 4)) {
		p->kind = T_LOCAL;
		p->tp = "oci";
		split_ref(p, name + 4);
	} else if (!strncmp(name, "oci-archive:", 12)) {
		p->kind = T_LOCAL;
		p->tp = "oci-archive";
		split_ref(p, name + 12);
	} else if (!strncmp(name, "docker-archive:", 15)) {
		p->kind = T_LOCAL;
		p->tp = "docker-archive";
		split_ref(p, name + 15);
	} else if (has_transport_prefix(name)) {
		p->kind = T_UNKNOWN;
	}
}

/* Not a file, and the prefix is not a transport: say both. */
static int unknown_transport(const char *name)
{
	int n = (int)strcspn(name, ":");

	if (!strncmp(name + n, "://", 3))
		cfs_error("%s: unknown transport \"%.*s\" (known: %s)", name, n,
			  name, KNOWN_TRANSPORTS);
	else
		cfs_error("%s: no such file, and \"%.*s\" is not a transport "
			  "(known: %s)",
			  name, n, name, KNOWN_TRANSPORTS);
	return -1;
}

static void parsed_free(struct parsed *p)
{
	free(p->path);
	free(p->ref);
	free(p->record);
}

static int open_remote(struct cfs_oci_image **out, const char *name,
		       struct parsed *p, const char *platform,
		       const struct cfs_registry_opts *reg,
		       const struct oci_policy *pol)
{
	struct cfs_oci_image *img = oci_image_new(name);

	if (oci_open_remote(img, name, platform, reg, pol) < 0) {
		cfs_oci_close(img);
		return -1;
	}
	img->ref_name = p->record;
	p->record = NULL;
	*out = img;
	return 0;
}

/* What the policy's scopes match: a docker name, or a path. */
static const char *policy_identity(const struct parsed *p, const char *name)
{
	if (!strcmp(p->tp, "docker"))
		return p->record;
	if (!strcmp(p->tp, "dir"))
		return name + 4;
	if (!strcmp(p->tp, "oci") || !strcmp(p->tp, "oci-archive"))
		return p->path;
	return NULL;
}

/* The policy for name (none for a plain path: a file the user has). */
static int load_policy(const struct parsed *p, const char *name,
		       const char *policy, struct oci_policy **pol)
{
	*pol = NULL;
	if (p->kind == T_NONE || p->kind == T_UNKNOWN)
		return 0;
	if (oci_policy_load(pol, policy, p->tp, policy_identity(p, name),
			    !strcmp(p->tp, "dir") ? name + 4 : NULL) < 0) {
		cfs_error_prefix("%s", name);
		return -1;
	}
	return 0;
}

int cfs_oci_check_policy(const char *name, const char *policy)
{
	struct oci_policy *pol;
	struct parsed p;
	int r;

	parse(&p, name);
	r = load_policy(&p, name, policy, &pol);
	if (r == 0 && pol) {
		cfs_error("%s: the signature policy requires signatures, "
			  "checked only as the image is read",
			  name);
		r = -1;
	}
	oci_policy_free(pol);
	parsed_free(&p);
	return r;
}

int cfs_oci_open_name(struct cfs_oci_image **out, const char *name,
		      const char *ref, const char *platform, const char *policy,
		      const struct cfs_registry_opts *reg)
{
	struct oci_policy *pol;
	struct parsed p;
	int r;

	parse(&p, name);
	if (load_policy(&p, name, policy, &pol) < 0) {
		parsed_free(&p);
		return -1;
	}
	switch (p.kind) {
	case T_LOCAL:
		r = cfs_oci_open(out, p.path, ref ? ref : p.ref, platform);
		break;
	case T_REMOTE:
		r = open_remote(out, name, &p, platform, reg, pol);
		if (r < 0)
			cfs_error_prefix("%s", name);
		break;
	case T_UNKNOWN:
		r = unknown_transport(name);
		break;
	default:
		r = cfs_oci_open(out, name, ref, platform);
	}
	oci_policy_free(pol);
	parsed_free(&p);
	return r;
}
