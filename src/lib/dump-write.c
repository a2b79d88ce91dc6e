// SPDX-License-Identifier: MIT
/* Printing a validated image in the composefs-dump(5) format. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cfs/dump.h"
#include "cfs/util.h"

/* One directory being listed during the depth-first walk. */
struct dump_frame {
	struct cfs_image_inode dir;
	uint32_t next;	 /* index of the next dirent to print */
	size_t path_len; /* length of the directory's path in the buffer */
};

struct dump_state {
	const struct cfs_image *img;
	FILE *out;
	struct cfs_buf path; /* current path, NUL-terminated */
	char **first_path;   /* per inode: first path of a hard-linked file */
	struct dump_frame *stack;
	size_t depth, cap;
};

static void print_payload(FILE *out, const struct cfs_image_inode *ino)
{
	bool has = S_ISREG(ino->mode) || S_ISLNK(ino->mode);

	if (has && ino->vdata_len > 0)
		cfs_dump_escape(out, ino->vdata, ino->vdata_len,
				CFS_ESC_LONE_DASH);
	else
		putc('-', out);
}

static void print_digest(FILE *out, const struct cfs_image_inode *ino)
{
	char hex[2 * CFS_DIGEST_SIZE + 1];

	if (!ino->digest) {
		putc('-', out);
		return;
	}
	cfs_hex(hex, ino->digest, CFS_DIGEST_SIZE);
	fputs(hex, out);
}

static void print_xattrs(FILE *out, const struct cfs_image_inode *ino)
{
	uint32_t n = cfs_image_xattr_count(ino);

	for (uint32_t i = 0; i < n; i++) {
		struct cfs_image_xattr x;

		cfs_image_xattr_get(ino, i, &x);
		putc(' ', out);
		cfs_dump_escape(out, x.key, x.key_len, CFS_ESC_EQUAL);
		putc('=', out);
		cfs_dump_escape(out, x.value, x.value_len, CFS_ESC_EQUAL);
	}
}

/*
 * Prints one line. link_to is NULL, or the path of an earlier name of the
 * same inode: then MODE gets '@' and PAYLOAD is that path.
 */
static void print_line(FILE *out, const char *path, size_t path_len,
		       const struct cfs_image_inode *ino, const char *link_to)
{
	cfs_dump_escape(out, path, path_len, 0);
	fprintf(out,
		" %" PRIu64 " %s%o %" PRIu32 " %" PRIu32 " %" PRIu32 " %" PRIu32
		" %" PRId64 ".%" PRIu32 " ",
		ino->size, link_to ? "@" : "", ino->mode, ino->nlink, ino->uid,
		ino->gid, ino->rdev, ino->mtime_sec, ino->mtime_nsec);
	if (link_to)
		cfs_dump_escape(out, link_to, strlen(link_to), 0);
	else
		print_payload(out, ino);
	fputs(" - ", out);
	print_digest(out, ino);
	print_xattrs(out, ino);
	putc('\n', out);
}

/* Prints the node at the current path; returns its decoded inode. */
static void print_node(struct dump_state *st, uint32_t ino_num,
		       struct cfs_image_inode *ino)
{
	const char *path = (const char *)st->path.data;
	const char *link_to = NULL;

	cfs_image_get_inode(st->img, ino_num, ino);
	if (!S_ISDIR(ino->mode) && ino->nlink > 1) {
		if (st->first_path[ino_num])
			link_to = st->first_path[ino_num];
		else
			st->first_path[ino_num] = xstrdup(path);
	}
	print_line(st->out, path, st->path.len, ino, link_to);
}

static void set_path_len(struct cfs_buf *b, size_t len)
{
	b->len = len;
	b->data[len] = '\0';
}

static void push_dir(struct dump_state *st, const struct cfs_image_inode *dir)
{
	if (st->depth == st->cap) {
		st->cap = st->cap ? 2 * st->cap : 16;
		st->stack = xrealloc(st->stack, st->cap * sizeof(*st->stack));
	}
	st->stack[st->depth++] = (struct dump_frame){
		.dir = *dir,
		.next = 0,
		.path_len = st->path.len,
	};
}

/* Prints the next entry of the innermost directory, or pops it. */
static void step(struct dump_state *st)
{
	struct dump_frame *f = &st->stack[st->depth - 1];
	struct cfs_image_dirent d;
	struct cfs_image_inode child;

	if (f->next >= cfs_image_dir_count(&f->dir)) {
		st->depth--;
		return;
	}
	cfs_image_dir_entry(&f->dir, f->next++, &d);
	set_path_len(&st->path, f->path_len);
	if (f->path_len > 1)
		cfs_buf_append(&st->path, "/", 1);
	cfs_buf_append(&st->path, d.name, d.name_len);
	cfs_buf_append(&st->path, "", 1);
	st->path.len--;
	print_node(st, d.ino, &child);
	if (S_ISDIR(child.mode))
		push_dir(st, &child);
}

int cfs_dump_image(const struct cfs_image *img, FILE *out)
{
	struct dump_state st = {.img = img, .out = out};
	struct cfs_image_inode root;

	st.first_path = xcalloc(img->n_inodes, sizeof(char *));
	cfs_buf_append(&st.path, "/", 2);
	st.path.len = 1;
	print_node(&st, CFS_ROOT_INO, &root);
	push_dir(&st, &root);
	while (st.depth > 0)
		step(&st);

	for (uint32_t i = 0; i < img->n_inodes; i++)
		free(st.first_path[i]);
	free(st.first_path);
	free(st.stack);
	cfs_buf_free(&st.path);
	if (fflush(out) != 0 || ferror(out)) {
		cfs_error("write error while dumping the image");
		return -1;
	}
	return 0;
}
