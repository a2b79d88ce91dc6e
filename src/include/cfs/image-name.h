/* SPDX-License-Identifier: MIT */
/*
 * Image names and ids as podman 4.3 resolves them (containers/common's
 * libimage LookupImage on containers/image's reference grammar): the one
 * resolution cfs-store, mount.composefs and cfs-podman share.
 */
#ifndef CFS_IMAGE_NAME_H
#define CFS_IMAGE_NAME_H

#include <stdbool.h>
#include <stddef.h>

#define CFS_IMAGE_ID_LEN 64 /* hex sha256 of the config */

/* An image id: 64 lowercase hex digits, nothing else. */
bool cfs_image_id_ok(const char *id);

/*
 * Length of the registry that name starts with, 0 if none: the first
 * component is a registry if it has a '.' or ':' or is localhost.
 */
size_t cfs_name_domain_len(const char *name);

/* [DOMAIN/]PATH[:TAG] split; domain and tag NULL when not given. */
struct cfs_name_ref {
	char *domain, *path, *tag;
};

/*
 * Parses a name of the distribution reference grammar (lowercase path
 * components, a registry first if it has '.' or ':' or is localhost, no
 * digest); -1 after cfs_error() naming it.
 */
int cfs_name_parse(const char *name, struct cfs_name_ref *ref);
void cfs_name_ref_free(struct cfs_name_ref *ref);
/* "DOMAIN/PATH:TAG", with def_domain and "latest" for what is missing. */
char *cfs_name_format(const struct cfs_name_ref *ref, const char *def_domain);

/* Names and ids to resolve against: an entry per name, or per id alone. */
struct cfs_name_entry {
	char *name; /* NULL: an image without this name */
	char *id;   /* 64 hex digits */
};

struct cfs_name_set {
	struct cfs_name_entry *entries;
	size_t n;
};

void cfs_name_set_add(struct cfs_name_set *set, const char *name,
		      const char *id);
void cfs_name_set_free(struct cfs_name_set *set);

/* What a name resolved to: pointers into the set. */
struct cfs_name_match {
	const char *id;
	const char *name; /* the name that matched, NULL if the id did */
};

/*
 * Resolves what a user typed, in podman's order: a full id (or
 * sha256:ID); the name as it is; the name completed as podman completes
 * it (localhost/NAME:latest, then docker.io/[library/]NAME:latest); a
 * unique id prefix of at least 3 hex digits; for a name without a
 * registry, a name whose repository ends in /NAME with the same tag.
 * Three outcomes: 1 found, 0 not found (no message), -1 after cfs_error()
 * when a prefix or short name fits several images (naming them).
 */
int cfs_name_resolve(const struct cfs_name_set *set, const char *query,
		     struct cfs_name_match *m);

/*
 * The store's refs (refs/NAME) and manifests (images/ID.cfs) as a set;
 * broken refs are left out.
 */
void cfs_layout_names(const char *store, struct cfs_name_set *set);
/*
 * cfs_name_resolve() on the store: *path gets the manifest's canonical
 * path and, if a ref matched, *ref its name (else NULL). 1, 0 or -1 as
 * cfs_name_resolve().
 */
int cfs_layout_lookup(const char *store, const char *query, char **path,
		      char **ref);

#endif
