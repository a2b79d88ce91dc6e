// SPDX-License-Identifier: MIT
/*
 * Image names: containers/image's reference grammar, and what a name or
 * id prefix resolves to, in the order podman 4.3 tries (cfs/image-name.h).
 */
#include "cfs/image-name.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cfs/escape.h"
#include "cfs/util.h"

#define MIN_ID_PREFIX 3

bool cfs_image_id_ok(const char *id)
{
	return strnlen(id, CFS_IMAGE_ID_LEN + 1) == CFS_IMAGE_ID_LEN &&
	       cfs_lower_hex(id, CFS_IMAGE_ID_LEN);
}

static bool is_alnum_lower(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/*
 * One path component of the distribution reference grammar podman uses:
 * [a-z0-9]+ joined by '.', '_', '__' or any run of '-'.
 */
static bool valid_component(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t run = 0;

		while (i < len && is_alnum_lower(s[i]))
			i++, run++;
		if (!run)
			return false;
		if (i == len)
			return true;
		if (s[i] == '.' || (s[i] == '_' && s[i + 1] != '_'))
			i++;
		else if (s[i] == '_')
			i += 2;
		else
			while (i < len && s[i] == '-')
				i++;
		if (i == len || !is_alnum_lower(s[i]))
			return false;
	}
	return len > 0;
}

static bool valid_path(const char *s)
{
	size_t len = strlen(s);

	if (!len)
		return false;
	while (len) {
		const char *slash = memchr(s, '/', len);
		size_t n = slash ? (size_t)(slash - s) : len;

		if (!valid_component(s, n) || (slash && n + 1 == len))
			return false;
		len -= slash ? n + 1 : n;
		s += slash ? n + 1 : n;
	}
	return true;
}

/* host[.host...][:port], each label alphanumeric with inner '-'. */
static bool valid_domain(const char *s)
{
	size_t len = strlen(s);
	const char *colon = strchr(s, ':');
	size_t host = colon ? (size_t)(colon - s) : len;
	size_t label = 0;

	if (colon && (colon + 1 == s + len ||
		      strspn(colon + 1, "0123456789") != len - host - 1))
		return false;
	for (size_t i = 0; i <= host; i++) {
		char c = i < host ? s[i] : '.';

		if (c == '.') {
			if (!label || s[i - 1] == '-')
				return false;
			label = 0;
		} else if (isalnum((unsigned char)c) || (c == '-' && label)) {
			label++;
		} else {
			return false;
		}
	}
	return true;
}

static bool valid_tag(const char *s)
{
	size_t len = strlen(s);

	return len > 0 && len <= 128 && s[0] != '.' && s[0] != '-' &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789_.-") == len;
}

size_t cfs_name_domain_len(const char *name)
{
	const char *slash = strchr(name, '/');
	size_t n = slash ? (size_t)(slash - name) : 0;

	if (slash && (memchr(name, '.', n) || memchr(name, ':', n) ||
		      (n == 9 && !strncmp(name, "localhost", 9))))
		return n;
	return 0;
}

static bool split(const char *name, struct cfs_name_ref *ref)
{
	size_t dlen = cfs_name_domain_len(name);
	const char *path = dlen ? name + dlen + 1 : name;
	const char *colon = strrchr(path, ':');

	if (colon && strchr(colon, '/'))
		colon = NULL;
	ref->domain = dlen ? xstrndup(name, dlen) : NULL;
	ref->path =
		xstrndup(path, colon ? (size_t)(colon - path) : strlen(path));
	ref->tag = colon ? xstrdup(colon + 1) : NULL;
	if ((!ref->domain || valid_domain(ref->domain)) &&
	    valid_path(ref->path) && (!ref->tag || valid_tag(ref->tag)) &&
	    !strchr(name, '@'))
		return true;
	cfs_name_ref_free(ref);
	return false;
}

int cfs_name_parse(const char *name, struct cfs_name_ref *ref)
{
	char shown[CFS_SHOWN_MAX];

	if (split(name, ref))
		return 0;
	cfs_error("'%s': not a valid image name (want [REGISTRY/]REPO[:TAG], "
		  "lowercase)",
		  cfs_printable(shown, sizeof(shown), name));
	return -1;
}

void cfs_name_ref_free(struct cfs_name_ref *ref)
{
	free(ref->domain);
	free(ref->path);
	free(ref->tag);
	memset(ref, 0, sizeof(*ref));
}

char *cfs_name_format(const struct cfs_name_ref *ref, const char *def_domain)
{
	return xasprintf("%s/%s:%s", ref->domain ? ref->domain : def_domain,
			 ref->path, ref->tag ? ref->tag : "latest");
}

/* reference.ParseDockerRef: docker.io, library/ for a single component. */
static char *docker_name(const struct cfs_name_ref *ref)
{
	const char *domain = ref->domain ? ref->domain : "docker.io";

	if (!strcmp(domain, "index.docker.io"))
		domain = "docker.io";
	return xasprintf("%s/%s%s:%s", domain,
			 !strcmp(domain, "docker.io") && !strchr(ref->path, '/')
				 ? "library/"
				 : "",
			 ref->path, ref->tag ? ref->tag : "latest");
}

void cfs_name_set_add(struct cfs_name_set *set, const char *name,
		      const char *id)
{
	struct cfs_name_entry *e;

	set->entries =
		xrealloc(set->entries, (set->n + 1) * sizeof(*set->entries));
	e = &set->entries[set->n++];
	e->name = name ? xstrdup(name) : NULL;
	e->id = xstrdup(id);
}

void cfs_name_set_free(struct cfs_name_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		free(set->entries[i].name);
		free(set->entries[i].id);
	}
	free(set->entries);
	memset(set, 0, sizeof(*set));
}

static const struct cfs_name_entry *find_name(const struct cfs_name_set *set,
					      const char *name)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->entries[i].name && !strcmp(set->entries[i].name, name))
			return &set->entries[i];
	return NULL;
}

static const struct cfs_name_entry *find_id(const struct cfs_name_set *set,
					    const char *id)
{
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->entries[i].id, id))
			return &set->entries[i];
	return NULL;
}

/* A name of the image id for a message, or "<none>". */
static const char *some_name(const struct cfs_name_set *set, const char *id)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->entries[i].name && !strcmp(set->entries[i].id, id))
			return set->entries[i].name;
	return "<none>";
}

/* Entries that fit, at most one per image. */
struct fits {
	const struct cfs_name_entry **e;
	size_t n;
};

static void fits_add(struct fits *f, const struct cfs_name_entry *e)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->e[i]->id, e->id))
			return;
	f->e = xrealloc(f->e, (f->n + 1) * sizeof(*f->e));
	f->e[f->n++] = e;
}

/* 1 and the match if one image fits, else 0 or -1 naming them all. */
static int fits_result(struct fits *f, const struct cfs_name_set *set,
		       const char *query, const char *what,
		       struct cfs_name_match *m, bool by_id)
{
	char shown[CFS_SHOWN_MAX];
	struct cfs_buf list = {0};
	int r = f->n == 1;

	if (f->n == 1) {
		m->id = f->e[0]->id;
		m->name = by_id ? NULL : f->e[0]->name;
	}
	for (size_t i = 0; f->n > 1 && i < f->n; i++) {
		char *one = xasprintf("%s%.12s (%s)", i ? ", " : "",
				      f->e[i]->id, some_name(set, f->e[i]->id));

		cfs_buf_append(&list, one, strlen(one));
		free(one);
	}
	if (f->n > 1) {
		cfs_buf_append(&list, "", 1);
		cfs_error("%s: ambiguous %s, it fits %zu images: %s",
			  cfs_printable(shown, sizeof(shown), query), what,
			  f->n, (char *)list.data);
		r = -1;
	}
	cfs_buf_free(&list);
	free(f->e);
	return r;
}

static int by_prefix(const struct cfs_name_set *set, const char *query,
		     struct cfs_name_match *m)
{
	size_t len = strlen(query);
	struct fits f = {0};

	if (len < MIN_ID_PREFIX || len > CFS_IMAGE_ID_LEN ||
	    !cfs_lower_hex(query, len))
		return 0;
	for (size_t i = 0; i < set->n; i++)
		if (!strncmp(set->entries[i].id, query, len))
			fits_add(&f, &set->entries[i]);
	return fits_result(&f, set, query, "id prefix", m, true);
}

/* libimage's inRepoTags: same tag, repository ending in "/" + path. */
static bool repo_ends_with(const char *name, const struct cfs_name_ref *q)
{
	struct cfs_name_ref ref;
	char *repo;
	size_t rlen, plen = strlen(q->path);
	bool fit;

	if (!split(name, &ref))
		return false;
	repo = ref.domain ? xasprintf("%s/%s", ref.domain, ref.path)
			  : xstrdup(ref.path);
	rlen = strlen(repo);
	fit = !strcmp(ref.tag ? ref.tag : "latest",
		      q->tag ? q->tag : "latest") &&
	      rlen >= plen && !strcmp(repo + rlen - plen, q->path) &&
	      (rlen == plen || repo[rlen - plen - 1] == '/');
	free(repo);
	cfs_name_ref_free(&ref);
	return fit;
}

static int by_repo_suffix(const struct cfs_name_set *set, const char *query,
			  const struct cfs_name_ref *q,
			  struct cfs_name_match *m)
{
	struct fits f = {0};

	for (size_t i = 0; !q->domain && i < set->n; i++)
		if (set->entries[i].name &&
		    repo_ends_with(set->entries[i].name, q))
			fits_add(&f, &set->entries[i]);
	return fits_result(&f, set, query, "short name", m, false);
}

static bool take(const struct cfs_name_entry *e, struct cfs_name_match *m,
		 bool by_id)
{
	if (!e)
		return false;
	m->id = e->id;
	m->name = by_id ? NULL : e->name;
	return true;
}

/* localhost/NAME:TAG, then docker.io/[library/]NAME:TAG. */
static bool by_completion(const struct cfs_name_set *set,
			  const struct cfs_name_ref *q,
			  struct cfs_name_match *m)
{
	char *local = cfs_name_format(q, "localhost");
	char *docker = docker_name(q);
	bool found = take(find_name(set, local), m, false) ||
		     take(find_name(set, docker), m, false);

	free(local);
	free(docker);
	return found;
}

int cfs_name_resolve(const struct cfs_name_set *set, const char *query,
		     struct cfs_name_match *m)
{
	const char *hex = strncmp(query, "sha256:", 7) ? query : query + 7;
	struct cfs_name_ref q;
	int r;

	memset(m, 0, sizeof(*m));
	if (hex != query || cfs_image_id_ok(hex))
		return take(find_id(set, hex), m, true);
	if (take(find_name(set, query), m, false))
		return 1;
	if (!split(query, &q))
		return by_prefix(set, query, m);
	r = by_completion(set, &q, m);
	if (!r)
		r = by_prefix(set, query, m);
	if (!r)
		r = by_repo_suffix(set, query, &q, m);
	cfs_name_ref_free(&q);
	return r;
}
