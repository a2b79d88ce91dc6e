// SPDX-License-Identifier: MIT
/* What a store holds and who uses it: see cfs/inventory.h. */
#include "cfs/inventory.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <libmount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfs/json.h"
#include "cfs/podman.h"
#include "cfs/util.h"
#include "cfs/verity-ioctl.h"

static struct cfs_inv_image *add_image(struct cfs_inventory *inv,
				       const char *id)
{
	struct cfs_inv_image *img;

	inv->images = xrealloc(inv->images,
			       (inv->n_images + 1) * sizeof(*inv->images));
	img = &inv->images[inv->n_images++];
	memset(img, 0, sizeof(*img));
	memcpy(img->id, id, CFS_IMAGE_ID_LEN + 1);
	return img;
}

struct cfs_inv_image *cfs_inventory_find(struct cfs_inventory *inv,
					 const char *id)
{
	for (size_t i = 0; i < inv->n_images; i++)
		if (!strcmp(inv->images[i].id, id))
			return &inv->images[i];
	return NULL;
}

static char *config_created(const char *store, const char *id)
{
	char *path = cfs_layout_image_file(store, id, CFS_IMAGE_CONFIG);
	struct json_object *cfg = json_object_from_file(path);
	const char *created = cfs_json_str(cfg, "created");
	char *s = created ? xstrdup(created) : NULL;

	json_object_put(cfg);
	free(path);
	return s;
}

static void read_seal(const char *store, struct cfs_inv_image *img)
{
	char *path = cfs_layout_image_file(store, img->id, CFS_IMAGE_MANIFEST);
	uint8_t d[CFS_DIGEST_SIZE];
	int r = cfs_layout_read_seal(path, d);

	if (r == 1)
		cfs_hex(img->seal, d, CFS_DIGEST_SIZE);
	img->bad_seal = r < 0;
	free(path);
}

static void add_listed_image(const char *id, void *opaque)
{
	struct cfs_inventory *inv = opaque;
	struct cfs_inv_image *img = add_image(inv, id);

	img->created = config_created(inv->store, id);
	read_seal(inv->store, img);
}

static void add_dangling(struct cfs_inventory *inv, const char *name,
			 const char *why)
{
	inv->dangling = xrealloc(inv->dangling, (inv->n_dangling + 1) *
							sizeof(*inv->dangling));
	inv->dangling[inv->n_dangling].name = xstrdup(name);
	inv->dangling[inv->n_dangling].why = xstrdup(why);
	inv->n_dangling++;
}

static void add_listed_ref(const char *name, const char *id, const char *why,
			   void *opaque)
{
	struct cfs_inventory *inv = opaque;
	struct cfs_inv_image *img = id ? cfs_inventory_find(inv, id) : NULL;

	if (img) {
		img->refs = xrealloc(img->refs,
				     (img->n_refs + 1) * sizeof(*img->refs));
		img->refs[img->n_refs++] = xstrdup(name);
	} else {
		add_dangling(inv, name,
			     why ? why : "not a manifest of this store");
	}
}

static void add_str(char ***arr, size_t n, const char *s)
{
	*arr = xrealloc(*arr, (n + 1) * sizeof(**arr));
	(*arr)[n] = xstrdup(s);
}

static int add_podman(const struct cfs_podman_image *img, void *opaque)
{
	struct cfs_inventory *inv = opaque;

	if (!img->manifest)
		return 0; /* not registered by cfs-podman */
	add_str(&inv->podman_ids, inv->n_podman, img->id);
	add_str(&inv->podman_manifests, inv->n_podman, img->manifest);
	inv->n_podman++;
	return 0;
}

/*
 * Images registered through cfs-podman in the default AIS, STORE/podman.
 * Records that cannot be read fail the load (gc and rm need every root)
 * unless lenient: fsck goes on, and cfs_podman_check reports them.
 */
static int load_podman(struct cfs_inventory *inv, bool lenient)
{
	struct cfs_podman_opts po = {.store = inv->store};

	if (cfs_podman_images(&po, false, add_podman, inv) == 0)
		return 0;
	if (lenient) {
		inv->podman_unreadable = true;
		return 0;
	}
	cfs_error_prefix("podman records");
	return -1;
}

/* The manifest a composefs mount source names: a path or a ref name. */
static char *mount_manifest(const struct cfs_inventory *inv, const char *src)
{
	char *path = NULL;

	if (src[0] == '/')
		return realpath(src, NULL);
	if (cfs_layout_resolve_ref(inv->store, src, &path) == CFS_REF_OK)
		return path;
	return NULL;
}

/*
 * A mount's digest= names its manifest even when the ref it was mounted by
 * is gone or the manifest was opened by a path that no longer leads to it.
 */
static void add_mount_digest(struct cfs_inventory *inv, const char *opts)
{
	char *value = NULL;
	size_t len = 0;

	if (opts && mnt_optstr_get_option(opts, "digest", &value, &len) == 0 &&
	    len == 2 * CFS_DIGEST_SIZE) {
		char *hex = xstrndup(value, len);

		add_str(&inv->mounted_digests, inv->n_mounted_digests++, hex);
		free(hex);
	}
}

static int load_mounts(struct cfs_inventory *inv)
{
	struct libmnt_table *tb =
		mnt_new_table_from_file("/proc/self/mountinfo");
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;

	if (!tb || !it) {
		mnt_free_iter(it);
		mnt_unref_table(tb);
		cfs_error("/proc/self/mountinfo: cannot read");
		return -1;
	}
	while (mnt_table_next_fs(tb, it, &fs) == 0) {
		const char *type = mnt_fs_get_fstype(fs);
		const char *src = mnt_fs_get_source(fs);
		char *m;

		if (!type || strcmp(type, "composefs") || !src)
			continue;
		m = mount_manifest(inv, src);
		if (m) {
			add_str(&inv->mounted, inv->n_mounted++, m);
			free(m);
		}
		add_mount_digest(inv, mnt_fs_get_fs_options(fs));
	}
	mnt_free_iter(it);
	mnt_unref_table(tb);
	return 0;
}

static bool has_str(char **arr, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(arr[i], s))
			return true;
	return false;
}

static bool mounted_by_digest(const struct cfs_inventory *inv, const char *path)
{
	uint8_t d[CFS_DIGEST_SIZE];
	char hex[2 * CFS_DIGEST_SIZE + 1];
	int fd, r;

	if (!inv->n_mounted_digests)
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	r = fd < 0 ? -1 : cfs_verity_measure(fd, d);
	if (fd >= 0)
		close(fd);
	if (r < 0)
		return false;
	cfs_hex(hex, d, CFS_DIGEST_SIZE);
	return has_str(inv->mounted_digests, inv->n_mounted_digests, hex);
}

static void mark_users(struct cfs_inventory *inv)
{
	for (size_t i = 0; i < inv->n_images; i++) {
		struct cfs_inv_image *img = &inv->images[i];
		char *path = cfs_layout_image_file(inv->store, img->id,
						   CFS_IMAGE_MANIFEST);
		char *real = realpath(path, NULL);

		img->podman = has_str(inv->podman_ids, inv->n_podman, img->id);
		img->mounted = mounted_by_digest(inv, path);
		if (real) {
			img->podman |= has_str(inv->podman_manifests,
					       inv->n_podman, real);
			img->mounted |=
				has_str(inv->mounted, inv->n_mounted, real);
		}
		free(real);
		free(path);
	}
}

int cfs_inventory_load_all(struct cfs_inventory *inv, const char *store,
			   bool lenient)
{
	memset(inv, 0, sizeof(*inv));
	inv->store = store;
	if (cfs_layout_each_image(store, add_listed_image, inv) < 0 ||
	    cfs_layout_each_ref(store, add_listed_ref, inv) < 0 ||
	    load_podman(inv, lenient) < 0 || load_mounts(inv) < 0)
		return -1;
	mark_users(inv);
	return 0;
}

int cfs_inventory_load(struct cfs_inventory *inv, const char *store)
{
	return cfs_inventory_load_all(inv, store, false);
}

bool cfs_inventory_is_root(const struct cfs_inv_image *img)
{
	return img->n_refs || img->podman || img->mounted;
}

static void free_strs(char **arr, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(arr[i]);
	free(arr);
}

void cfs_inventory_free(struct cfs_inventory *inv)
{
	for (size_t i = 0; i < inv->n_images; i++) {
		free_strs(inv->images[i].refs, inv->images[i].n_refs);
		free(inv->images[i].created);
	}
	free(inv->images);
	for (size_t i = 0; i < inv->n_dangling; i++) {
		free(inv->dangling[i].name);
		free(inv->dangling[i].why);
	}
	free(inv->dangling);
	free_strs(inv->podman_ids, inv->n_podman);
	free_strs(inv->podman_manifests, inv->n_podman);
	free_strs(inv->mounted, inv->n_mounted);
	free_strs(inv->mounted_digests, inv->n_mounted_digests);
	memset(inv, 0, sizeof(*inv));
}
