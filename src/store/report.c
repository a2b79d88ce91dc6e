// SPDX-License-Identifier: MIT
/*
 * cfs-store ls and df: images with their exclusive and shared bytes (an
 * object used by one image only is exclusive to it), the store's totals,
 * what gc would free and the dedup ratio.
 */
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-tool.h"
#include "cfs/util.h"

struct usage {
	struct cfs_inventory inv;
	struct dset set, cached;
	uint64_t objects, bytes;	       /* on disk */
	uint64_t used_objects, used_bytes;     /* referenced by some image */
	uint64_t cached_objects, cached_bytes; /* else kept as layer cache */
	uint64_t logical;		       /* sum of image bytes */
};

static int count_object(const struct store_object *ob, void *opaque)
{
	struct usage *u = opaque;

	u->objects++;
	u->bytes += ob->size;
	if (dset_find(&u->set, ob->digest)) {
		u->used_objects++;
		u->used_bytes += ob->size;
	} else if (dset_find(&u->cached, ob->digest)) {
		u->cached_objects++;
		u->cached_bytes += ob->size;
	}
	return 0;
}

static int load_usage(struct usage *u, const char *store)
{
	memset(u, 0, sizeof(*u));
	if (cfs_inventory_load(&u->inv, store) < 0 ||
	    mark_images(&u->inv, &u->set, false) < 0)
		return -1;
	mark_layer_records(&u->inv, &u->cached, NULL);
	if (store_walk_objects(store, count_object, NULL, u, true) < 0)
		return -1;
	for (size_t i = 0; i < u->set.n; i++) {
		struct dset_entry *e = &u->set.entries[i];

		if (e->users == 1)
			u->inv.images[e->last - 1].exclusive_bytes += e->size;
	}
	for (size_t i = 0; i < u->inv.n_images; i++)
		u->logical += u->inv.images[i].bytes;
	return 0;
}

static void free_usage(struct usage *u)
{
	cfs_inventory_free(&u->inv);
	dset_free(&u->set);
	dset_free(&u->cached);
}

static struct json_object *image_json(const struct cfs_inv_image *img)
{
	struct json_object *j = json_object_new_object();
	struct json_object *refs = json_object_new_array();

	for (size_t k = 0; k < img->n_refs; k++)
		json_object_array_add(refs,
				      json_object_new_string(img->refs[k]));
	json_object_object_add(j, "id", json_object_new_string(img->id));
	json_object_object_add(j, "names", refs);
	json_object_object_add(
		j, "created",
		img->created ? json_object_new_string(img->created) : NULL);
	json_object_object_add(j, "objects",
			       json_object_new_int64((int64_t)img->objects));
	json_object_object_add(j, "bytes",
			       json_object_new_int64((int64_t)img->bytes));
	json_object_object_add(
		j, "exclusive_bytes",
		json_object_new_int64((int64_t)img->exclusive_bytes));
	json_object_object_add(
		j, "shared_bytes",
		json_object_new_int64(
			(int64_t)(img->bytes - img->exclusive_bytes)));
	json_object_object_add(j, "mounted",
			       json_object_new_boolean(img->mounted));
	json_object_object_add(j, "podman",
			       json_object_new_boolean(img->podman));
	json_object_object_add(j, "valid", json_object_new_boolean(!img->bad));
	json_object_object_add(j, "sealed",
			       json_object_new_boolean(img->seal[0] != '\0'));
	json_object_object_add(j, "seal",
			       img->seal[0] ? json_object_new_string(img->seal)
					    : NULL);
	return j;
}

static void print_image(const struct cfs_inv_image *img)
{
	char ex[32], sh[32];

	printf("%-12.12s  %-20.20s  %10s  %10s  %-7s  %-6s  %-6s  ", img->id,
	       img->created ? img->created : "-",
	       human_bytes(ex, img->exclusive_bytes),
	       human_bytes(sh, img->bytes - img->exclusive_bytes),
	       img->mounted ? "yes" : "no", img->podman ? "yes" : "no",
	       img->seal[0] ? "yes" : "no");
	for (size_t k = 0; k < img->n_refs; k++)
		printf("%s%s", k ? "," : "", img->refs[k]);
	if (!img->n_refs)
		fputs("<none>", stdout);
	if (img->bad)
		fputs("  (corrupt manifest)", stdout);
	putchar('\n');
}

int cmd_ls(const struct cmd_opts *o)
{
	struct usage u;
	int r = load_usage(&u, o->store);

	if (r < 0) {
		fprintf(stderr, TOOL ": %s\n", cfs_strerror());
	} else if (o->json) {
		struct json_object *arr = json_object_new_array();

		for (size_t i = 0; i < u.inv.n_images; i++)
			json_object_array_add(arr,
					      image_json(&u.inv.images[i]));
		print_json(arr);
		json_object_put(arr);
	} else {
		printf("%-12s  %-20s  %10s  %10s  %-7s  %-6s  %-6s  %s\n",
		       "IMAGE ID", "CREATED", "EXCLUSIVE", "SHARED", "MOUNTED",
		       "PODMAN", "SEALED", "NAMES");
		for (size_t i = 0; i < u.inv.n_images; i++)
			print_image(&u.inv.images[i]);
	}
	free_usage(&u);
	return r < 0 ? 1 : 0;
}

static void add_int(struct json_object *j, const char *k, uint64_t v)
{
	json_object_object_add(j, k, json_object_new_int64((int64_t)v));
}

static void df_json(const struct usage *u)
{
	struct json_object *j = json_object_new_object();
	struct json_object *imgs = json_object_new_object();
	uint64_t shared = u->used_bytes;

	for (size_t i = 0; i < u->inv.n_images; i++) {
		add_int(imgs, u->inv.images[i].id,
			u->inv.images[i].exclusive_bytes);
		shared -= u->inv.images[i].exclusive_bytes;
	}
	add_int(j, "objects", u->objects);
	add_int(j, "bytes", u->bytes);
	add_int(j, "used_objects", u->used_objects);
	add_int(j, "used_bytes", u->used_bytes);
	add_int(j, "cached_objects", u->cached_objects);
	add_int(j, "cached_bytes", u->cached_bytes);
	add_int(j, "unused_objects",
		u->objects - u->used_objects - u->cached_objects);
	add_int(j, "unused_bytes", u->bytes - u->used_bytes - u->cached_bytes);
	add_int(j, "shared_bytes", shared);
	add_int(j, "images", u->inv.n_images);
	json_object_object_add(j, "exclusive_bytes", imgs);
	json_object_object_add(
		j, "dedup_ratio",
		json_object_new_double(u->used_bytes
					       ? (double)u->logical /
							 (double)u->used_bytes
					       : 1.0));
	print_json(j);
	json_object_put(j);
}

static void df_text(const struct usage *u)
{
	char a[32], b[32];
	uint64_t shared = u->used_bytes;

	for (size_t i = 0; i < u->inv.n_images; i++)
		shared -= u->inv.images[i].exclusive_bytes;
	printf("objects  %" PRIu64 " (%s)\n", u->objects,
	       human_bytes(a, u->bytes));
	printf("used     %" PRIu64 " (%s), shared by several images %s\n",
	       u->used_objects, human_bytes(a, u->used_bytes),
	       human_bytes(b, shared));
	printf("cached   %" PRIu64 " (%s): only in the layer cache of kept "
	       "images\n",
	       u->cached_objects, human_bytes(a, u->cached_bytes));
	printf("unused   %" PRIu64 " (%s): cfs-store gc removes them unless "
	       "a conversion in flight needs them\n",
	       u->objects - u->used_objects - u->cached_objects,
	       human_bytes(a, u->bytes - u->used_bytes - u->cached_bytes));
	printf("images   %zu, dedup ratio %.2f\n", u->inv.n_images,
	       u->used_bytes ? (double)u->logical / (double)u->used_bytes
			     : 1.0);
	for (size_t i = 0; i < u->inv.n_images; i++)
		printf("  %-12.12s  exclusive %s\n", u->inv.images[i].id,
		       human_bytes(a, u->inv.images[i].exclusive_bytes));
}

int cmd_df(const struct cmd_opts *o)
{
	struct usage u;
	int r = load_usage(&u, o->store);

	if (r < 0)
		fprintf(stderr, TOOL ": %s\n", cfs_strerror());
	else if (o->json)
		df_json(&u);
	else
		df_text(&u);
	free_usage(&u);
	return r < 0 ? 1 : 0;
}
