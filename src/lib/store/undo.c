// SPDX-License-Identifier: MIT
/* Putting a store back after a failed step (cfs/store-undo.h). */
#include "cfs/store-undo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfs/image-name.h"
#include "cfs/store-layout.h"
#include "cfs/util.h"

static char *read_link(const char *path)
{
	char buf[4096];
	ssize_t n = readlink(path, buf, sizeof(buf) - 1);

	return n > 0 ? xstrndup(buf, (size_t)n) : NULL;
}

void cfs_layout_undo_save(struct cfs_layout_undo *u, const char *store,
			  const char *id, const char *ref)
{
	char *manifest;

	memset(u, 0, sizeof(*u));
	if (!strncmp(id, "sha256:", 7))
		id += 7;
	u->store = xstrdup(store);
	u->id = xstrdup(id);
	manifest = cfs_layout_image_file(store, id, CFS_IMAGE_MANIFEST);
	u->had_image = access(manifest, F_OK) == 0;
	free(manifest);
	if (ref && cfs_ref_name_ok(ref)) {
		char *path = cfs_layout_ref_path(store, ref);

		u->ref = xstrdup(ref);
		u->old_target = read_link(path);
		free(path);
	}
}

/* refs/NAME -> old_target again. */
static int relink(const struct cfs_layout_undo *u)
{
	char *path = cfs_layout_ref_path(u->store, u->ref);
	int r = cfs_symlink_replace(u->old_target, path);

	free(path);
	return r;
}

static int restore_ref(const struct cfs_layout_undo *u)
{
	char *path, *now;
	bool ours;

	if (!u->ref)
		return 0;
	if (u->old_target)
		return relink(u);
	path = cfs_layout_ref_path(u->store, u->ref);
	now = read_link(path);
	ours = now && strstr(now, u->id);
	free(now);
	free(path);
	return ours ? cfs_layout_remove_ref(u->store, u->ref) : 0;
}

/* Whether a ref leads to image id (another conversion made one). */
static bool has_ref(const char *store, const char *id)
{
	struct cfs_name_set set;
	bool found = false;

	cfs_layout_names(store, &set);
	for (size_t i = 0; i < set.n && !found; i++)
		found = set.entries[i].name && !strcmp(set.entries[i].id, id);
	cfs_name_set_free(&set);
	return found;
}

int cfs_layout_remove_image(const char *store, const char *id)
{
	int r = 0;

	/* the manifest first: side files without one are garbage for gc */
	for (int f = 0; f < CFS_IMAGE_N_FILES; f++) {
		char *path = cfs_layout_image_file(store, id, f);

		if (unlink(path) < 0 && errno != ENOENT) {
			cfs_error("%s: %s", path, strerror(errno));
			r = -1;
		}
		free(path);
	}
	return r;
}

int cfs_layout_undo_apply(const struct cfs_layout_undo *u)
{
	int r = restore_ref(u);

	if (!u->had_image && !has_ref(u->store, u->id) &&
	    cfs_layout_remove_image(u->store, u->id) < 0)
		r = -1;
	return r;
}

void cfs_layout_undo_free(struct cfs_layout_undo *u)
{
	free(u->store);
	free(u->id);
	free(u->ref);
	free(u->old_target);
	memset(u, 0, sizeof(*u));
}
