// SPDX-License-Identifier: MIT
/*
 * The one walk over a validated image's tree (cfs_image_walk): depth
 * first, each directory's entries in name order, without recursion, so a
 * deep image cannot exhaust the stack. cfs-info's ls and objects and the
 * dump writer use it.
 */
#include "cfs/image.h"

#include <stdlib.h>
#include <sys/stat.h>

#include "cfs/util.h"

/* A directory being listed: its inode and the next entry to visit. */
struct walk_frame {
	struct cfs_image_inode dir;
	uint32_t next;
	size_t path_len; /* length of the directory's path in the buffer */
};

struct walk {
	const struct cfs_image *img;
	cfs_image_walk_fn fn;
	void *opaque;
	struct cfs_buf path; /* current path, NUL-terminated */
	struct walk_frame *stack;
	size_t depth, cap;
};

static void visit(struct walk *w, uint32_t ino_num, struct cfs_image_inode *ino)
{
	cfs_image_get_inode(w->img, ino_num, ino);
	w->fn((const char *)w->path.data, w->path.len, ino_num, ino, w->opaque);
}

static void push_dir(struct walk *w, const struct cfs_image_inode *dir)
{
	if (w->depth == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 16;
		w->stack = xrealloc(w->stack, w->cap * sizeof(*w->stack));
	}
	w->stack[w->depth++] =
		(struct walk_frame){.dir = *dir, .path_len = w->path.len};
}

/* Sets the path to the frame's directory + "/" + name. */
static void set_path(struct walk *w, const struct walk_frame *f,
		     const struct cfs_image_dirent *d)
{
	w->path.len = f->path_len;
	if (f->path_len > 1)
		cfs_buf_append(&w->path, "/", 1);
	cfs_buf_append(&w->path, d->name, d->name_len);
	cfs_buf_append(&w->path, "", 1);
	w->path.len--;
}

/* Visits the next entry of the innermost directory, or pops it. */
static void step(struct walk *w)
{
	struct walk_frame *f = &w->stack[w->depth - 1];
	struct cfs_image_dirent d;
	struct cfs_image_inode child;

	if (f->next >= cfs_image_dir_count(&f->dir)) {
		w->depth--;
		return;
	}
	cfs_image_dir_entry(&f->dir, f->next++, &d);
	set_path(w, f, &d);
	visit(w, d.ino, &child);
	if (S_ISDIR(child.mode))
		push_dir(w, &child);
}

void cfs_image_walk(const struct cfs_image *img, cfs_image_walk_fn fn,
		    void *opaque)
{
	struct walk w = {.img = img, .fn = fn, .opaque = opaque};
	struct cfs_image_inode root;

	cfs_buf_append(&w.path, "/", 2);
	w.path.len = 1;
	visit(&w, CFS_ROOT_INO, &root);
	push_dir(&w, &root);
	while (w.depth > 0)
		step(&w);
	free(w.stack);
	cfs_buf_free(&w.path);
}
