// SPDX-License-Identifier: MIT
/* cfs-info objects and missing-objects: the backing files images need. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cfs/dump.h"
#include "info.h"
#include "cfs/util.h"

struct object_list {
	char **paths;
	size_t n, cap;
};

static void collect_one(const char *path, size_t path_len, uint32_t ino_num,
			const struct cfs_image_inode *ino, void *opaque)
{
	struct object_list *l = opaque;

	if (!S_ISREG(ino->mode) || ino->vdata_len == 0)
		return;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->paths = xrealloc(l->paths, l->cap * sizeof(char *));
	}
	l->paths[l->n++] = xstrndup((const char *)ino->vdata, ino->vdata_len);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Collects the backing paths of all images, sorted and unique. */
static int collect(char **images, int n, struct object_list *l)
{
	size_t out = 0;

	for (int i = 0; i < n; i++) {
		struct info_image ii;

		if (info_open(&ii, images[i]) < 0)
			return -1;
		cfs_image_walk(&ii.img, collect_one, l);
		info_close(&ii);
	}
	if (l->n)
		qsort(l->paths, l->n, sizeof(char *), cmp_str);
	for (size_t i = 0; i < l->n; i++) {
		if (out > 0 && strcmp(l->paths[out - 1], l->paths[i]) == 0)
			free(l->paths[i]);
		else
			l->paths[out++] = l->paths[i];
	}
	l->n = out;
	return 0;
}

static void free_list(struct object_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->paths[i]);
	free(l->paths);
}

static void print_path(const char *p)
{
	cfs_dump_escape(stdout, p, strlen(p), 0);
	putchar('\n');
}

int cmd_objects(int argc, char **argv, const char *basedir)
{
	struct object_list l = {0};
	int ret = 0;

	if (need_operands(argc, 1, "objects") < 0)
		return 2;
	if (collect(argv + 1, argc - 1, &l) < 0)
		ret = 1;
	for (size_t i = 0; ret == 0 && i < l.n; i++)
		print_path(l.paths[i]);
	free_list(&l);
	return ret;
}

/*
 * Looks path up the way the kernel opens a backing file (file_open_root():
 * BASEDIR is the root for absolute symlinks and "..") so that an object a
 * symlink places outside the store counts as missing, as it is to a mount.
 * Kernels without openat2 (before 5.6) get a plain lookup.
 */
static int lookup_in_root(int dfd, const char *path)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	struct stat st;
	int fd = syscall(SYS_openat2, dfd, path, &how, sizeof(how));

	if (fd >= 0)
		return close(fd);
	if (errno != ENOSYS)
		return -1;
	return fstatat(dfd, path, &st, 0);
}

/* 1 if present, 0 if missing, -1 on another error (printed). */
static int object_present(int dfd, const char *base, const char *path)
{
	if (lookup_in_root(dfd, path) == 0)
		return 1;
	if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)
		return 0;
	fprintf(stderr, "%s: %s/", TOOL, base);
	cfs_dump_escape(stderr, path, strlen(path), 0);
	fprintf(stderr, ": %s\n", strerror(errno));
	return -1;
}

static int print_missing(const char *basedir, struct object_list *l)
{
	int dfd = open(basedir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int ret = 0;

	if (dfd < 0) {
		fprintf(stderr, "%s: %s: %s\n", TOOL, basedir, strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < l->n; i++) {
		int r = object_present(dfd, basedir, l->paths[i]);

		if (r < 0)
			ret = 1;
		else if (r == 0)
			print_path(l->paths[i]);
	}
	close(dfd);
	return ret;
}

int cmd_missing_objects(int argc, char **argv, const char *basedir)
{
	struct object_list l = {0};
	int ret;

	if (!basedir) {
		cfs_usage_error(TOOL, "missing-objects: needs --basedir DIR");
		return 2;
	}
	if (need_operands(argc, 1, "missing-objects") < 0)
		return 2;
	ret = collect(argv + 1, argc - 1, &l) < 0 ? 1
						  : print_missing(basedir, &l);
	free_list(&l);
	return ret;
}
