// SPDX-License-Identifier: MIT
/*
 * cfs-store rm NAME|ID: a NAME drops that ref, and the image with it when
 * no other ref names it; an ID (or a prefix of at least 12 digits) drops
 * the image and every ref to it. An image mounted now or registered with
 * podman is refused. Objects are left to gc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store-tool.h"
#include "cfs/util.h"

static struct store_image *by_id_prefix(struct inventory *inv, const char *s)
{
	size_t len = strlen(s);
	struct store_image *found = NULL;

	if (len < 12 || strspn(s, "0123456789abcdef") != len)
		return NULL;
	for (size_t i = 0; i < inv->n_images; i++)
		if (!strncmp(inv->images[i].id, s, len)) {
			if (found)
				return NULL;
			found = &inv->images[i];
		}
	return found;
}

static struct store_image *by_ref(struct inventory *inv, const char *name)
{
	for (size_t i = 0; i < inv->n_images; i++)
		for (size_t k = 0; k < inv->images[i].n_refs; k++)
			if (!strcmp(inv->images[i].refs[k], name))
				return &inv->images[i];
	return NULL;
}

static int remove_files(const char *store, const char *id)
{
	static const char *const suffixes[] = {".cfs", ".json",
					       ".manifest.json"};

	for (size_t i = 0; i < 3; i++) {
		char *path = cfs_layout_image_file(store, id, suffixes[i]);

		if (unlink(path) < 0 && i == 0) {
			cfs_error_prefix("%s", path);
			free(path);
			return -1;
		}
		free(path);
	}
	return 0;
}

static int rm_one(struct inventory *inv, const char *arg)
{
	struct store_image *img = by_ref(inv, arg);
	bool by_name = img != NULL;

	if (!img)
		img = by_id_prefix(inv, arg);
	if (!img) {
		cfs_error("%s: no image of that name or id in %s", arg,
			  inv->store);
		return -1;
	}
	if (img->mounted) {
		cfs_error("%s: image %.12s is mounted", arg, img->id);
		return -1;
	}
	if (img->podman) {
		cfs_error("%s: image %.12s is registered with podman "
			  "(cfs-podman remove --purge)",
			  arg, img->id);
		return -1;
	}
	for (size_t k = 0; k < img->n_refs; k++) {
		if (by_name && strcmp(img->refs[k], arg))
			continue;
		if (cfs_layout_remove_ref(inv->store, img->refs[k]) < 0)
			return -1;
		free(img->refs[k]);
		img->refs[k--] = img->refs[--img->n_refs];
	}
	if (img->n_refs) {
		printf("untagged %s\n", arg);
		return 0;
	}
	if (remove_files(inv->store, img->id) < 0)
		return -1;
	printf("removed %s\n", img->id);
	img->id[0] = '\0'; /* gone */
	return 0;
}

int cmd_rm(const struct cmd_opts *o, char **names, int n)
{
	struct inventory inv;
	int lock = cfs_store_lock(o->store, true), fails = 0;

	if (lock < 0 || inventory_load(&inv, o->store) < 0) {
		fprintf(stderr, TOOL ": %s\n", cfs_strerror());
		if (lock >= 0)
			inventory_free(&inv);
		cfs_store_unlock(lock);
		return 1;
	}
	for (int i = 0; i < n; i++)
		if (rm_one(&inv, names[i]) < 0) {
			fprintf(stderr, TOOL ": %s\n", cfs_strerror());
			fails++;
		}
	inventory_free(&inv);
	cfs_store_unlock(lock);
	return fails ? 1 : 0;
}
