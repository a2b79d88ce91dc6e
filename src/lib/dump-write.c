// SPDX-License-Identifier: MIT
/*
 * Printing a validated image in the composefs-dump(5) format, one line
 * per name in cfs_image_walk's order.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cfs/dump.h"
#include "cfs/util.h"

struct dump_state {
	FILE *out;
	char **first_path; /* per inode: first path of a hard-linked file */
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

/* Prints one name (a cfs_image_walk_fn). */
static void print_node(const char *path, size_t path_len, uint32_t ino_num,
		       const struct cfs_image_inode *ino, void *opaque)
{
	struct dump_state *st = opaque;
	const char *link_to = NULL;

	if (!S_ISDIR(ino->mode) && ino->nlink > 1) {
		if (st->first_path[ino_num])
			link_to = st->first_path[ino_num];
		else
			st->first_path[ino_num] = xstrdup(path);
	}
	print_line(st->out, path, path_len, ino, link_to);
}

int cfs_dump_image(const struct cfs_image *img, FILE *out)
{
	struct dump_state st = {.out = out};

	st.first_path = xcalloc(img->n_inodes, sizeof(char *));
	cfs_image_walk(img, print_node, &st);
	for (uint32_t i = 0; i < img->n_inodes; i++)
		free(st.first_path[i]);
	free(st.first_path);
	if (fflush(out) != 0 || ferror(out)) {
		cfs_error("write error while dumping the image");
		return -1;
	}
	return 0;
}
