// SPDX-License-Identifier: MIT
/* Objects: those a manifest references and those the store holds. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfs/image.h"
#include "store-tool.h"
#include "cfs/store-layout.h"
#include "cfs/util.h"

int manifest_objects(const char *path, manifest_object_fn fn, void *opaque)
{
	struct cfs_image img;
	struct cfs_image_inode ino;
	uint8_t digest[CFS_DIGEST_SIZE];

	if (cfs_image_open_file(&img, path) < 0)
		return -1;
	for (uint32_t i = 0; i < img.n_inodes; i++) {
		cfs_image_get_inode(&img, i, &ino);
		if (!S_ISREG(ino.mode) || !ino.vdata_len)
			continue;
		if (cfs_layout_object_digest((const char *)ino.vdata,
					     ino.vdata_len, digest))
			fn(digest, ino.size, opaque);
	}
	cfs_image_close(&img);
	return 0;
}

struct walk {
	object_fn fn;
	stray_fn stray;
	void *opaque;
	bool want_size;
};

/* A regular file (and its size with want_size)? */
static bool regular(int fd, const struct dirent *e, const struct walk *w,
		    uint64_t *size)
{
	struct stat st;

	*size = 0;
	if (e->d_type == DT_REG && !w->want_size)
		return true;
	if (e->d_type != DT_REG && e->d_type != DT_UNKNOWN)
		return false;
	if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISREG(st.st_mode))
		return false;
	*size = (uint64_t)st.st_size;
	return true;
}

static int walk_bucket(int storefd, const char *bucket, const struct walk *w)
{
	DIR *d = cfs_opendir_at(storefd, bucket);
	struct dirent *e;
	char path[CFS_OBJECT_PATH_LEN + 1];
	int r = 0;

	if (!d)
		return errno == ENOENT ? 0 : -1;
	while (r == 0 && (e = readdir(d))) {
		struct store_object o = {.path = path};
		size_t len = strlen(e->d_name);

		/* A temp, live or dead: see store_dead_leftovers. */
		if ((e->d_name[0] == '.' &&
		     (len == 1 || (len == 2 && e->d_name[1] == '.'))) ||
		    cfs_fanout_temp_pid(e->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%.*s", bucket,
			 (int)(sizeof(path) - 4), e->d_name);
		if (len != CFS_OBJECT_PATH_LEN - 3 ||
		    !cfs_layout_object_digest(path, strlen(path), o.digest) ||
		    !regular(dirfd(d), e, w, &o.size)) {
			if (w->stray) {
				char *full =
					xasprintf("%s/%s", bucket, e->d_name);

				w->stray(full, w->opaque);
				free(full);
			}
			continue;
		}
		r = w->fn(&o, w->opaque);
	}
	closedir(d);
	return r;
}

int store_walk_objects(const char *store, object_fn fn, stray_fn stray,
		       void *opaque, bool want_size)
{
	struct walk w = {fn, stray, opaque, want_size};
	int storefd = open(store, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char bucket[3];
	int r = 0;

	if (storefd < 0) {
		cfs_error("%s: %s", store, strerror(errno));
		return -1;
	}
	for (int i = 0; i < 256 && r == 0; i++) {
		snprintf(bucket, sizeof(bucket), "%02x", i);
		r = walk_bucket(storefd, bucket, &w);
		if (r < 0 && errno)
			cfs_error("%s/%s: %s", store, bucket, strerror(errno));
	}
	close(storefd);
	return r;
}

struct mark_ctx {
	struct dset *set;
	struct cfs_inv_image *img;
	uint32_t index;
};

static void mark_one(const uint8_t *digest, uint64_t size, void *opaque)
{
	struct mark_ctx *c = opaque;
	bool added;
	struct dset_entry *e = dset_add(c->set, digest, &added);

	e->size = size;
	if (e->last != c->index + 1) {
		e->last = c->index + 1;
		e->users++;
		c->img->objects++;
		c->img->bytes += size;
	}
}

int mark_images(struct cfs_inventory *inv, struct dset *set, bool roots_only)
{
	for (size_t i = 0; i < inv->n_images; i++) {
		struct cfs_inv_image *img = &inv->images[i];
		struct mark_ctx c = {set, img, (uint32_t)i};
		char *path;

		if (roots_only && !cfs_inventory_is_root(img))
			continue;
		path = cfs_layout_image_file(inv->store, img->id,
					     CFS_IMAGE_MANIFEST);
		img->bad = manifest_objects(path, mark_one, &c) < 0;
		free(path);
		if (img->bad && roots_only) {
			cfs_error_prefix("image %s", img->id);
			return -1;
		}
	}
	return 0;
}
