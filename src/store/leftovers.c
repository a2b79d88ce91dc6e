// SPDX-License-Identifier: MIT
/*
 * Leftovers of gone processes: objects being written (.tmp/obj.PID.H.N
 * and xx/.obj.PID.H.N, with their writer's marker .tmp/fanout.PID.H,
 * which a live writer holds locked: store/temps.c),
 * files being replaced atomically (images/ and layers/: NAME.tmp.PID.*),
 * and an image's config or OCI manifest without its manifest (a converter
 * writes them first, so they outlive one killed in between).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store-tool.h"
#include "cfs/store-layout.h"
#include "cfs/util.h"

/* "NAME.tmp.PID.XXXXXX", of a PID that runs nowhere here. */
static bool dead_temp(const char *name)
{
	int pid = cfs_replacing_pid(name);

	return pid && cfs_pid_dead(pid);
}

/* images/ID.json or ID.manifest.json whose ID.cfs is gone. */
static bool orphan_side_file(const char *store, const char *name)
{
	char id[CFS_IMAGE_ID_LEN + 1];
	int f = cfs_layout_image_name(name, id);
	char *cfs;
	bool orphan;

	if (f < 0 || f == CFS_IMAGE_MANIFEST)
		return false;
	cfs = cfs_layout_image_file(store, id, CFS_IMAGE_MANIFEST);
	orphan = access(cfs, F_OK) < 0 && errno == ENOENT;
	free(cfs);
	return orphan;
}

struct temp_ctx {
	leftover_fn fn;
	void *opaque;
};

static void report_temp(int storefd, const char *rel, void *opaque)
{
	struct temp_ctx *c = opaque;

	c->fn(rel, c->opaque);
}

static void scan(const char *store, const char *sub, leftover_fn fn,
		 void *opaque)
{
	char *dir = xasprintf("%s/%s", store, sub);
	DIR *d = opendir(dir);
	struct dirent *e;
	bool images = !strcmp(sub, CFS_STORE_IMAGES);

	while (d && (e = readdir(d))) {
		if (dead_temp(e->d_name) ||
		    (images && orphan_side_file(store, e->d_name))) {
			char *path = xasprintf("%s/%s", sub, e->d_name);

			fn(path, opaque);
			free(path);
		}
	}
	if (d)
		closedir(d);
	free(dir);
}

void store_dead_leftovers(const char *store, leftover_fn fn, void *opaque)
{
	struct temp_ctx c = {fn, opaque};
	int fd = open(store, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		cfs_gone_temps(fd, report_temp, &c);
		close(fd);
	}
	scan(store, CFS_STORE_IMAGES, fn, opaque);
	scan(store, CFS_STORE_LAYERS, fn, opaque);
}
