// SPDX-License-Identifier: MIT
/*
 * cfs-store rm NAME|ID: a NAME (resolved as podman resolves names, see
 * cfs/image-name.h) drops that ref, and the image with it when no other
 * ref names it; an ID or a unique prefix of it drops the image and every
 * ref to it. An image mounted now or registered with podman is refused.
 * Objects are left to gc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfs/image-name.h"
#include "cfs/store-undo.h"
#include "store-tool.h"
#include "cfs/util.h"

/* What arg names as podman would resolve it; *ref: the ref that matched. */
static int find_image(struct cfs_inventory *inv, const char *arg,
		      struct cfs_inv_image **img, char **ref)
{
	struct cfs_name_set set = {0};
	struct cfs_name_match m;
	int r;

	for (size_t i = 0; i < inv->n_images; i++) {
		if (!inv->images[i].id[0])
			continue; /* removed by an earlier argument */
		cfs_name_set_add(&set, NULL, inv->images[i].id);
		for (size_t k = 0; k < inv->images[i].n_refs; k++)
			cfs_name_set_add(&set, inv->images[i].refs[k],
					 inv->images[i].id);
	}
	r = cfs_name_resolve(&set, arg, &m);
	*img = r == 1 ? cfs_inventory_find(inv, m.id) : NULL;
	*ref = r == 1 && m.name ? xstrdup(m.name) : NULL;
	cfs_name_set_free(&set);
	if (r == 0)
		cfs_error("%s: no image of that name or id in %s", arg,
			  inv->store);
	return *img ? 0 : -1;
}

static int untag(struct cfs_inventory *inv, struct cfs_inv_image *img,
		 const char *ref)
{
	for (size_t k = 0; k < img->n_refs; k++) {
		if (ref && strcmp(img->refs[k], ref))
			continue;
		if (cfs_layout_remove_ref(inv->store, img->refs[k]) < 0)
			return -1;
		free(img->refs[k]);
		img->refs[k--] = img->refs[--img->n_refs];
	}
	return 0;
}

static int rm_one(struct cfs_inventory *inv, const char *arg)
{
	struct cfs_inv_image *img;
	char *ref;
	int r = -1;

	if (find_image(inv, arg, &img, &ref) < 0)
		return -1;
	if (img->mounted)
		cfs_error("%s: image %.12s is mounted", arg, img->id);
	else if (img->podman)
		cfs_error("%s: image %.12s is registered with podman "
			  "(cfs-podman remove --purge)",
			  arg, img->id);
	else
		r = untag(inv, img, ref);
	if (r == 0 && img->n_refs) {
		printf("untagged %s\n", ref);
	} else if (r == 0) {
		r = cfs_layout_remove_image(inv->store, img->id);
		if (r == 0) {
			printf("removed %s\n", img->id);
			img->id[0] = '\0'; /* gone */
		}
	}
	free(ref);
	return r;
}

int cmd_rm(const struct cmd_opts *o, char **names, int n)
{
	struct cfs_inventory inv;
	int lock = cfs_store_lock(o->store, true), fails = 0;

	if (lock < 0 || cfs_inventory_load(&inv, o->store) < 0) {
		fprintf(stderr, TOOL ": %s\n", cfs_strerror());
		if (lock >= 0)
			cfs_inventory_free(&inv);
		cfs_store_unlock(lock);
		return 1;
	}
	for (int i = 0; i < n; i++)
		if (rm_one(&inv, names[i]) < 0) {
			fprintf(stderr, TOOL ": %s\n", cfs_strerror());
			fails++;
		}
	cfs_inventory_free(&inv);
	cfs_store_unlock(lock);
	return fails ? 1 : 0;
}
