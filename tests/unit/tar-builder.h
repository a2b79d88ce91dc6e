/* SPDX-License-Identifier: MIT */
/*
 * The one tar builder of the unit tests: layer and image tars written in
 * memory with libarchive's pax writer, optionally gzip'ed or zstd'ed.
 */
#ifndef CFS_TAR_BUILDER_H
#define CFS_TAR_BUILDER_H

#include <archive.h>
#include <archive_entry.h>

#include "cfs/util.h"

enum tb_filter { TB_NONE, TB_GZIP, TB_ZSTD };

struct tb {
	struct archive *a;
	struct cfs_buf out;
};

void tb_begin(struct tb *t, enum tb_filter f);
/* A new entry with mtime 1000.5; the caller adds to it, then tb_add(). */
struct archive_entry *tb_entry(const char *path, unsigned mode);
/* Writes e (and frees it) with len bytes of data. */
void tb_add(struct tb *t, struct archive_entry *e, const void *data,
	    size_t len);
void tb_file(struct tb *t, const char *path, unsigned mode, const void *data,
	     size_t len);
void tb_dir(struct tb *t, const char *path, unsigned mode);
void tb_symlink(struct tb *t, const char *path, const char *target);
/* A hardlink to target, as GNU tar stores a file given twice. */
void tb_hardlink(struct tb *t, const char *path, const char *target);
void tb_dev(struct tb *t, const char *path, unsigned mode, unsigned major,
	    unsigned minor);
/* Finishes the archive; the bytes are in t->out (caller frees). */
void tb_end(struct tb *t);
/* Finishes the archive and writes it to path (exits on error). */
void tb_end_to_file(struct tb *t, const char *path);

#endif
