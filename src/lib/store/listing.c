// SPDX-License-Identifier: MIT
/*
 * What a store holds beside its objects: the manifests in images/ and the
 * refs under refs/, listed once for every tool (cfs-store's inventory, the
 * names podman's rules resolve), so that gc, fsck and rm cannot come to
 * disagree on what is an image or a live ref.
 */
#include "cfs/store-layout.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cfs/util.h"

/* Deeper than any valid ref name (255 bytes) can go. */
#define MAX_REF_DEPTH 128

int cfs_layout_each_image(const char *store, cfs_image_fn fn, void *opaque)
{
	char *dir = cfs_layout_images_dir(store);
	DIR *d = opendir(dir);
	char id[CFS_IMAGE_ID_LEN + 1];
	struct dirent *e;

	if (!d && errno != ENOENT) {
		cfs_error("%s: %s", dir, strerror(errno));
		free(dir);
		return -1;
	}
	free(dir);
	while (d && (e = readdir(d)))
		if (cfs_layout_image_name(e->d_name, id) == CFS_IMAGE_MANIFEST)
			fn(id, opaque);
	if (d)
		closedir(d);
	return 0;
}

bool cfs_layout_ref_image(const char *store, const char *name, char *id,
			  const char **why)
{
	char *target, *own = NULL, *real = NULL;
	enum cfs_ref_status rs = cfs_layout_resolve_ref(store, name, &target);
	bool live;

	if (rs != CFS_REF_OK) {
		*why = rs == CFS_REF_BROKEN ? strerror(errno)
					    : "not a valid ref name";
		return false;
	}
	if (cfs_layout_manifest_id(target, id)) {
		own = cfs_layout_image_file(store, id, CFS_IMAGE_MANIFEST);
		real = realpath(own, NULL);
	}
	live = real && !strcmp(real, target);
	*why = live ? NULL : "not a manifest of this store";
	free(real);
	free(own);
	free(target);
	return live;
}

struct ref_walk {
	const char *store;
	cfs_ref_fn fn;
	void *opaque;
	int r;
};

static void visit_refs(struct ref_walk *w, const char *rel, int depth);

static void visit_entry(struct ref_walk *w, DIR *d, const char *rel,
			const char *base, int depth)
{
	char id[CFS_IMAGE_ID_LEN + 1];
	char *name = rel ? xasprintf("%s/%s", rel, base) : xstrdup(base);
	const char *why;
	struct stat st;
	bool is_dir = fstatat(dirfd(d), base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		      S_ISDIR(st.st_mode);

	if (is_dir && depth + 1 < MAX_REF_DEPTH)
		visit_refs(w, name, depth + 1);
	else if (is_dir)
		w->fn(name, NULL, "nested too deeply", w->opaque);
	else if (cfs_layout_ref_image(w->store, name, id, &why))
		w->fn(name, id, NULL, w->opaque);
	else
		w->fn(name, NULL, why, w->opaque);
	free(name);
}

/* refs/REL/...: rel NULL for refs/ itself. */
static void visit_refs(struct ref_walk *w, const char *rel, int depth)
{
	char *refs = cfs_layout_refs_dir(w->store);
	char *dir = rel ? xasprintf("%s/%s", refs, rel) : xstrdup(refs);
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d && (rel || errno != ENOENT)) {
		cfs_error("%s: %s", dir, strerror(errno));
		w->r = -1;
	}
	while (d && (e = readdir(d)))
		/* not refs being replaced (cfs_replacing_pid) */
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    !cfs_replacing_pid(e->d_name))
			visit_entry(w, d, rel, e->d_name, depth);
	if (d)
		closedir(d);
	free(dir);
	free(refs);
}

int cfs_layout_each_ref(const char *store, cfs_ref_fn fn, void *opaque)
{
	struct ref_walk w = {store, fn, opaque, 0};

	visit_refs(&w, NULL, 0);
	return w.r;
}
