// SPDX-License-Identifier: MIT
/*
 * cfs-store gc. Under the exclusive store lock (no conversion, no podman
 * registration, no rm in flight): the roots are the images a ref, podman
 * or a mount uses; every other manifest is removed first, then the layer
 * cache records naming an object no kept manifest references (except the
 * records of the kept images' layers), then those objects, then leftovers
 * of dead converters. A kept manifest's objects
 * are never touched, so a gc killed at any point leaves every kept image
 * whole, and the next gc finishes the job.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfs/layer.h"
#include "store-tool.h"
#include "cfs/util.h"

struct gc {
	const struct cmd_opts *o;
	struct dset kept;
	struct json_object *kept_records; /* names, as keys */
	struct json_object *removed;	  /* paths, relative to the store */
	uint64_t objects, bytes, manifests, records, leftovers;
	int errors, storefd;
	struct store_progress progress; /* object directories swept */
};

static void gc_remove(struct gc *g, const char *rel)
{
	char *path = xasprintf("%s/%s", g->o->store, rel);

	if (!g->o->dry_run && unlink(path) < 0 && errno != ENOENT) {
		fprintf(stderr, TOOL ": %s: %s\n", path, strerror(errno));
		g->errors++;
	}
	free(path);
	if (g->o->json)
		json_object_array_add(g->removed, json_object_new_string(rel));
	else if (g->o->dry_run)
		printf("%s\n", rel);
}

static void remove_image(struct gc *g, const struct cfs_inv_image *img)
{
	/* the manifest first: side files without one are garbage too */
	for (int f = 0; f < CFS_IMAGE_N_FILES; f++) {
		char *rel = cfs_layout_image_rel(img->id, f);
		char *path = xasprintf("%s/%s", g->o->store, rel);

		if (access(path, F_OK) == 0)
			gc_remove(g, rel);
		free(path);
		free(rel);
	}
	g->manifests++;
}

static void visit_record(const char *name, const struct cfs_layer *l,
			 void *opaque)
{
	struct gc *g = opaque;

	if (json_object_object_get_ex(g->kept_records, name, NULL) ||
	    (l && record_objects_in(g->o->store, l, &g->kept)))
		return;
	gc_remove(g, name);
	g->records++;
}

static int visit_object(const struct store_object *ob, void *opaque)
{
	struct gc *g = opaque;
	struct stat st;

	/* objects come in directory order: xx/ is directory 0x<xx> */
	store_progress_set(&g->progress, (size_t)(cfs_hexval(ob->path[0]) * 16 +
						  cfs_hexval(ob->path[1])));
	if (dset_find(&g->kept, ob->digest))
		return 0;
	/* the size of what is removed only: most objects are not stat'ed */
	if (fstatat(g->storefd, ob->path, &st, AT_SYMLINK_NOFOLLOW) == 0)
		g->bytes += (uint64_t)st.st_size;
	gc_remove(g, ob->path);
	g->objects++;
	return 0;
}

static void visit_leftover(const char *rel, void *opaque)
{
	struct gc *g = opaque;

	gc_remove(g, rel);
	g->leftovers++;
}

static void report(struct gc *g)
{
	struct json_object *j;
	char h[32];

	if (!g->o->json) {
		printf("%s%" PRIu64 " images, %" PRIu64
		       " objects (%s), %" PRIu64 " layer records, %" PRIu64
		       " temp files\n",
		       g->o->dry_run ? "would remove " : "removed ",
		       g->manifests, g->objects, human_bytes(h, g->bytes),
		       g->records, g->leftovers);
		return;
	}
	j = json_object_new_object();
	json_object_object_add(j, "dry_run",
			       json_object_new_boolean(g->o->dry_run));
	json_object_object_add(j, "images",
			       json_object_new_int64((int64_t)g->manifests));
	json_object_object_add(j, "objects",
			       json_object_new_int64((int64_t)g->objects));
	json_object_object_add(j, "bytes",
			       json_object_new_int64((int64_t)g->bytes));
	json_object_object_add(j, "records",
			       json_object_new_int64((int64_t)g->records));
	json_object_object_add(j, "temp_files",
			       json_object_new_int64((int64_t)g->leftovers));
	json_object_object_add(j, "removed", json_object_get(g->removed));
	print_json(j);
	json_object_put(j);
}

static int sweep(struct gc *g, struct cfs_inventory *inv)
{
	for (size_t i = 0; i < inv->n_images; i++)
		if (!cfs_inventory_is_root(&inv->images[i]))
			remove_image(g, &inv->images[i]);
	mark_layer_records(inv, &g->kept, g->kept_records);
	store_walk_records(g->o->store, visit_record, g);
	g->storefd = open(g->o->store, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	store_progress_start(&g->progress, "gc: object directories", 256);
	if (g->storefd < 0 ||
	    store_walk_objects(g->o->store, visit_object, NULL, g, false) < 0) {
		store_progress_end(&g->progress);
		if (g->storefd >= 0)
			close(g->storefd);
		return -1;
	}
	store_progress_end(&g->progress);
	close(g->storefd);
	store_dead_leftovers(g->o->store, visit_leftover, g);
	return 0;
}

int cmd_gc(const struct cmd_opts *o)
{
	struct gc g = {.o = o,
		       .kept_records = json_object_new_object(),
		       .removed = json_object_new_array()};
	struct cfs_inventory inv;
	int lock = cfs_store_lock(o->store, true), r = -1;

	if (lock < 0)
		goto out;
	if (cfs_inventory_load(&inv, o->store) < 0) {
		cfs_inventory_free(&inv);
		goto out;
	}
	/* a root that cannot be read stops gc: its objects are unknown */
	if (mark_images(&inv, &g.kept, true) == 0 && sweep(&g, &inv) == 0)
		r = 0;
	cfs_inventory_free(&inv);
out:
	cfs_store_unlock(lock);
	if (r < 0)
		fprintf(stderr, TOOL ": gc: %s\n", cfs_strerror());
	else
		report(&g);
	json_object_put(g.removed);
	json_object_put(g.kept_records);
	dset_free(&g.kept);
	return r < 0 || g.errors ? 1 : 0;
}
