// SPDX-License-Identifier: MIT
/* cfs-info: a depth-first walk over an image without recursion. */
#include <stdlib.h>
#include <sys/stat.h>

#include "info.h"
#include "cfs/util.h"

struct walk_frame {
	struct cfs_image_inode dir;
	uint32_t next;
	size_t path_len;
};

static void visit(const struct cfs_image *img, struct cfs_buf *path,
		  uint32_t ino_num, struct cfs_image_inode *ino,
		  info_walk_fn fn, void *opaque)
{
	cfs_image_get_inode(img, ino_num, ino);
	fn((const char *)path->data, path->len, ino, opaque);
}

void info_walk(const struct cfs_image *img, info_walk_fn fn, void *opaque)
{
	struct cfs_buf path = {0};
	struct walk_frame *stack = NULL;
	size_t depth = 0, cap = 0;
	struct cfs_image_inode ino;

	cfs_buf_append(&path, "/", 2);
	path.len = 1;
	visit(img, &path, CFS_ROOT_INO, &ino, fn, opaque);
	stack = xmalloc(sizeof(*stack));
	stack[depth++] = (struct walk_frame){ino, 0, 1};
	cap = 1;
	while (depth > 0) {
		struct walk_frame *f = &stack[depth - 1];
		struct cfs_image_dirent d;

		if (f->next >= cfs_image_dir_count(&f->dir)) {
			depth--;
			continue;
		}
		cfs_image_dir_entry(&f->dir, f->next++, &d);
		path.len = f->path_len;
		if (path.len > 1)
			cfs_buf_append(&path, "/", 1);
		cfs_buf_append(&path, d.name, d.name_len);
		cfs_buf_append(&path, "", 1);
		path.len--;
		visit(img, &path, d.ino, &ino, fn, opaque);
		if (!S_ISDIR(ino.mode))
			continue;
		if (depth == cap) {
			cap *= 2;
			stack = xrealloc(stack, cap * sizeof(*stack));
		}
		stack[depth++] = (struct walk_frame){ino, 0, path.len};
	}
	free(stack);
	cfs_buf_free(&path);
}
