// SPDX-License-Identifier: MIT
/* The store's refs and manifests as names and ids to resolve (image-name.h). */
#include "cfs/image-name.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cfs/store-layout.h"
#include "cfs/util.h"

static void add_ref(const char *name, const char *id, const char *why,
		    void *set)
{
	if (id)
		cfs_name_set_add(set, name, id);
}

static void add_image(const char *id, void *set)
{
	cfs_name_set_add(set, NULL, id);
}

/* Names as the store lists them; a directory it cannot read names nothing. */
void cfs_layout_names(const char *store, struct cfs_name_set *set)
{
	memset(set, 0, sizeof(*set));
	(void)cfs_layout_each_ref(store, add_ref, set);
	(void)cfs_layout_each_image(store, add_image, set);
}

/* *path (and *ref) for what m names; 1, or -1 after cfs_error(). */
static int answer(const char *store, const struct cfs_name_match *m,
		  char **path, char **ref)
{
	char *file = cfs_layout_image_file(store, m->id, CFS_IMAGE_MANIFEST);

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
 * Names the walk passes over (NAME.tmp.PID) are left to it.
 */
static int lookup_exact(const char *store, const char *query, char **path,
			char **ref)
{
	char id[CFS_IMAGE_ID_LEN + 1];
	struct cfs_name_match m = {.name = query, .id = id};
	const char *why;

	if (cfs_image_id_ok(query) || !strncmp(query, "sha256:", 7) ||
	    cfs_replacing_pid(query) ||
	    !cfs_layout_ref_image(store, query, id, &why))
		return 0;
	return answer(store, &m, path, ref);
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
	bool pathlike = strchr(image, '/') || cfs_layout_manifest_name(image);
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
