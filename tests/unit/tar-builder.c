// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tar-builder.h"

static la_ssize_t tb_write_cb(struct archive *a, void *opaque, const void *buf,
			      size_t n)
{
	cfs_buf_append(opaque, buf, n);
	return n;
}

void tb_begin(struct tb *t, enum tb_filter f)
{
	memset(t, 0, sizeof(*t));
	t->a = archive_write_new();
	archive_write_set_format_pax(t->a);
	if (f == TB_GZIP)
		archive_write_add_filter_gzip(t->a);
	else if (f == TB_ZSTD)
		archive_write_add_filter_zstd(t->a);
	archive_write_set_bytes_in_last_block(t->a, 1);
	archive_write_open(t->a, &t->out, NULL, tb_write_cb, NULL);
}

struct archive_entry *tb_entry(const char *path, unsigned mode)
{
	struct archive_entry *e = archive_entry_new();

	archive_entry_set_pathname(e, path);
	archive_entry_set_mode(e, mode);
	archive_entry_set_mtime(e, 1000, 500000000);
	return e;
}

void tb_add(struct tb *t, struct archive_entry *e, const void *data, size_t len)
{
	if (archive_write_header(t->a, e) != ARCHIVE_OK)
		fprintf(stderr, "# write header: %s\n",
			archive_error_string(t->a));
	if (len)
		archive_write_data(t->a, data, len);
	archive_entry_free(e);
}

void tb_file(struct tb *t, const char *path, unsigned mode, const void *data,
	     size_t len)
{
	struct archive_entry *e = tb_entry(path, S_IFREG | mode);

	archive_entry_set_size(e, len);
	tb_add(t, e, data, len);
}

void tb_dir(struct tb *t, const char *path, unsigned mode)
{
	tb_add(t, tb_entry(path, S_IFDIR | mode), NULL, 0);
}

void tb_symlink(struct tb *t, const char *path, const char *target)
{
	struct archive_entry *e = tb_entry(path, S_IFLNK | 0777);

	archive_entry_set_symlink(e, target);
	tb_add(t, e, NULL, 0);
}

void tb_hardlink(struct tb *t, const char *path, const char *target)
{
	struct archive_entry *e = tb_entry(path, S_IFREG | 0644);

	archive_entry_set_hardlink(e, target);
	tb_add(t, e, NULL, 0);
}

void tb_dev(struct tb *t, const char *path, unsigned mode, unsigned major,
	    unsigned minor)
{
	struct archive_entry *e = tb_entry(path, mode);

	archive_entry_set_rdevmajor(e, major);
	archive_entry_set_rdevminor(e, minor);
	tb_add(t, e, NULL, 0);
}

void tb_end(struct tb *t)
{
	archive_write_close(t->a);
	archive_write_free(t->a);
}

void tb_end_to_file(struct tb *t, const char *path)
{
	FILE *f;

	tb_end(t);
	f = fopen(path, "wb");
	if (!f || fwrite(t->out.data, 1, t->out.len, f) != t->out.len ||
	    fclose(f)) {
		perror(path);
		exit(2);
	}
	cfs_buf_free(&t->out);
}
