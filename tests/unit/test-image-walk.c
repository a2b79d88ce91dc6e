// SPDX-License-Identifier: MIT
/*
 * The image walker (cfs_image_walk, src/lib/image-walk.c): every name once,
 * root first, depth first in name order, inode numbers that tell hard links
 * apart, and a tree 1000 directories deep.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tap.h"
#include "cfs/dump.h"
#include "cfs/util.h"

#define DIGEST                                                                 \
	"00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

struct seen {
	struct cfs_buf names; /* "path\n" for each visit */
	uint32_t n, max_depth, file_ino[2], bad_paths;
	int n_file;
};

static void record(const char *path, size_t path_len, uint32_t ino_num,
		   const struct cfs_image_inode *ino, void *opaque)
{
	struct seen *s = opaque;
	uint32_t depth = 0;

	cfs_buf_append(&s->names, path, path_len);
	cfs_buf_append(&s->names, "\n", 1);
	if (strlen(path) != path_len)
		s->bad_paths++;
	for (size_t i = 0; i < path_len; i++)
		depth += path[i] == '/';
	if (depth > s->max_depth)
		s->max_depth = depth;
	if (S_ISREG(ino->mode) && ino->nlink == 2 && s->n_file < 2)
		s->file_ino[s->n_file++] = ino_num;
	s->n++;
}

static int open_dump(struct cfs_image *img, uint8_t **data, const char *text)
{
	struct cfs_tree *t = cfs_dump_parse(text, strlen(text), "t");
	size_t len;
	int r = -1;

	*data = NULL;
	if (t && cfs_image_build(t, data, &len) == 0)
		r = cfs_image_open_mem(img, *data, len);
	cfs_tree_free(t);
	if (r < 0)
		printf("# %s\n", cfs_strerror());
	return r;
}

static void test_order(void)
{
	static const char text[] =
		"/ 0 40755 4 0 0 0 0.0 - - -\n"
		"/b 0 40755 3 0 0 0 0.0 - - -\n"
		"/b/z 0 40755 2 0 0 0 0.0 - - -\n"
		"/b/a 4096 100644 2 0 0 0 0.0 - - " DIGEST "\n"
		"/a 0 100644 1 0 0 0 0.0 - - -\n"
		"/c 4096 @100644 2 0 0 0 0.0 /b/a - " DIGEST "\n"
		"/b/z/x 0 120777 1 0 0 0 0.0 target - -\n";
	struct seen s = {0};
	struct cfs_image img;
	uint8_t *data;

	if (!ok(open_dump(&img, &data, text) == 0, "a small image opens"))
		return;
	cfs_image_walk(&img, record, &s);
	cfs_buf_append(&s.names, "", 1);
	ok(!strcmp((char *)s.names.data, "/\n/a\n/b\n/b/a\n/b/z\n/b/z/x\n/c\n"),
	   "root first, then depth first in name order");
	ok(!s.bad_paths, "every path NUL-terminated at path_len");
	ok(s.n_file == 2 && s.file_ino[0] == s.file_ino[1],
	   "both names of a hard link carry one inode number");
	cfs_buf_free(&s.names);
	cfs_image_close(&img);
	free(data);
}

static void test_deep(void)
{
	struct cfs_buf text = {0}, path = {0};
	struct seen s = {0};
	struct cfs_image img;
	uint8_t *data;

	cfs_buf_append(&text, "/ 0 40755 3 0 0 0 0.0 - - -\n", 28);
	for (int i = 0; i < 1000; i++) {
		char line[64];
		int n;

		cfs_buf_append(&path, "/d", 2);
		cfs_buf_append(&text, path.data, path.len);
		n = snprintf(line, sizeof(line),
			     " 0 40755 %d 0 0 0 0.0 - - -\n", i < 999 ? 3 : 2);
		cfs_buf_append(&text, line, (size_t)n);
	}
	cfs_buf_append(&text, "", 1);
	if (!ok(open_dump(&img, &data, (char *)text.data) == 0,
		"an image 1000 directories deep opens"))
		return;
	cfs_image_walk(&img, record, &s);
	ok(s.n == 1001 && s.max_depth == 1000,
	   "walked 1000 levels down: %u names, depth %u", s.n, s.max_depth);
	cfs_buf_free(&s.names);
	cfs_buf_free(&text);
	cfs_buf_free(&path);
	cfs_image_close(&img);
	free(data);
}

int main(void)
{
	test_order();
	test_deep();
	return tap_done();
}
