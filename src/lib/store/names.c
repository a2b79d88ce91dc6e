// SPDX-License-Identifier: MIT
/* The store's refs and manifests as names and ids to resolve (image-name.h). */
#include "cfs/image-name.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cfs/store-layout.h"
#include "cfs/util.h"

#define MAX_REF_DEPTH 64

/* A ref counts if it leads to this store's images/ID.cfs. */
static void add_ref(const char *store, const char *name,
		    struct cfs_name_set *set)
{
	char id[CFS_IMAGE_ID_LEN + 1];
	char *target, *own = NULL, *real = NULL;

	if (cfs_layout_resolve_ref(store, name, &target) != CFS_REF_OK)
		return;
	if (cfs_layout_manifest_id(target, id)) {
		own = cfs_layout_image_file(store, id, ".cfs");
		real = realpath(own, NULL);
	}
	if (real && !strcmp(real, target))
		cfs_name_set_add(set, name, id);
	free(real);
	free(own);
	free(target);
}

/* refs/REL/...: rel NULL for refs/ itself. */
static void add_refs(const char *store, const char *rel,
		     struct cfs_name_set *set, int depth)
{
	char *refs = cfs_layout_refs_dir(store);
	char *dir = rel ? xasprintf("%s/%s", refs, rel) : xstrdup(refs);
	DIR *d = depth < MAX_REF_DEPTH ? opendir(dir) : NULL;
	struct dirent *e;

	while (d && (e = readdir(d))) {
		struct stat st;
		char *name;

		/* dot files, and refs being replaced (NAME.tmp.PID) */
		if (e->d_name[0] == '.' || strstr(e->d_name, ".tmp."))
			continue;
		name = rel ? xasprintf("%s/%s", rel, e->d_name)
			   : xstrdup(e->d_name);
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) ==
			    0 &&
		    S_ISDIR(st.st_mode))
			add_refs(store, name, set, depth + 1);
		else
			add_ref(store, name, set);
		free(name);
	}
	if (d)
		closedir(d);
	free(dir);
	free(refs);
}

static void add_images(const char *store, struct cfs_name_set *set)
{
	char *dir = cfs_layout_images_dir(store);
	DIR *d = opendir(dir);
	char id[CFS_IMAGE_ID_LEN + 1];
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (cfs_layout_manifest_id(e->d_name, id))
			cfs_name_set_add(set, NULL, id);
	if (d)
		closedir(d);
	free(dir);
}

void cfs_layout_names(const char *store, struct cfs_name_set *set)
{
	memset(set, 0, sizeof(*set));
	add_refs(store, NULL, set, 0);
	add_images(store, set);
}

/* *path (and *ref) for what m names; 1, or -1 after cfs_error(). */
static int answer(const char *store, const struct cfs_name_match *m,
		  char **path, char **ref)
{
	char *file = cfs_layout_image_file(store, m->id, ".cfs");

	*path = realpath(file, NULL);
	if (!*path)
		cfs_error("%s: %s", file, strerror(errno));
	*ref = *path && m->name ? xstrdup(m->name) : NULL;
	free(file);
	return *path ? 1 : -1;
}

/*
 * Podman tries the name as typed right after a full id, so a ref of that
 * name answers without reading every ref of the store (a mount by name).
 * Names the walk passes over (dot files, NAME.tmp.PID) are left to it.
 */
static int lookup_exact(const char *store, const char *query, char **path,
			char **ref)
{
	struct cfs_name_set one = {0};
	struct cfs_name_match m;
	int r = 0;

	if (cfs_image_id_ok(query) || !strncmp(query, "sha256:", 7) ||
	    query[0] == '.' || strstr(query, "/.") || strstr(query, ".tmp."))
		return 0;
	add_ref(store, query, &one);
	if (one.n == 1) {
		m.id = one.entries[0].id;
		m.name = one.entries[0].name;
		r = answer(store, &m, path, ref);
	}
	cfs_name_set_free(&one);
	return r;
}

int cfs_layout_lookup(const char *store, const char *query, char **path,
		      char **ref)
{
	struct cfs_name_set set;
	struct cfs_name_match m;
	int r;

	*path = *ref = NULL;
	r = lookup_exact(store, query, path, ref);
	if (r)
		return r;
	cfs_layout_names(store, &set);
	r = cfs_name_resolve(&set, query, &m);
	if (r == 1)
		r = answer(store, &m, path, ref);
	cfs_name_set_free(&set);
	return r;
}

static bool is_regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

char *cfs_layout_resolve(const char *store, const char *image, char **ref)
{
	size_t len = strlen(image);
	bool pathlike = strchr(image, '/') ||
			(len > 4 && !strcmp(image + len - 4, ".cfs"));
	char *path = NULL;
	int found;

	*ref = NULL;
	if (pathlike && is_regular(image)) {
		path = realpath(image, NULL);
		if (!path)
			cfs_error("%s: %s", image, strerror(errno));
		return path;
	}
	found = cfs_layout_lookup(store, image, &path, ref);
	if (found == 0)
		cfs_error("%s: neither an image name or id in %s nor a "
			  "manifest file",
			  image, store);
	return path;
}
