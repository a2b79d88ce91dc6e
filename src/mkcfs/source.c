// SPDX-License-Identifier: MIT
/* mkcfs: reading the source, a directory or a composefs-dump(5) file. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cfs/dump.h"
#include "mkcfs.h"
#include "cfs/scan.h"
#include "cfs/util.h"

/* Applies --use-epoch and --skip-xattrs to every inode of a dump tree. */
static int strip_inode(struct cfs_node *n, void *opaque)
{
	const struct mkcfs_opts *o = opaque;

	if (o->use_epoch) {
		n->inode->mtime_sec = 0;
		n->inode->mtime_nsec = 0;
	}
	if (o->skip_xattrs)
		cfs_inode_clear_xattrs(n->inode);
	return 0;
}

static struct cfs_tree *load_dump(const struct mkcfs_opts *o,
				  struct cfs_store *store)
{
	const char *name = strcmp(o->source, "-") ? o->source : "<stdin>";
	struct cfs_tree *t;
	uint8_t *data;
	size_t len;

	if (cfs_read_file(o->source, &data, &len) < 0)
		return NULL;
	t = cfs_dump_parse_store((const char *)data, len, name, store);
	free(data);
	if (t && (o->use_epoch || o->skip_xattrs))
		cfs_tree_walk(t, strip_inode, (void *)o);
	return t;
}

/* True if the source is to be read as a dump file. */
static int source_is_dump(const struct mkcfs_opts *o, bool *is_dump)
{
	struct stat st;

	if (strcmp(o->source, "-") == 0) {
		*is_dump = true;
		return 0;
	}
	if (stat(o->source, &st) < 0) {
		cfs_error("%s: %s", o->source, strerror(errno));
		return -1;
	}
	if (o->from_file && S_ISDIR(st.st_mode)) {
		cfs_error("%s: --from-file given but this is a directory",
			  o->source);
		return -1;
	}
	*is_dump = !S_ISDIR(st.st_mode);
	return 0;
}

struct cfs_tree *mkcfs_load(const struct mkcfs_opts *o, struct cfs_store *store)
{
	unsigned int flags = 0;
	bool is_dump;

	if (source_is_dump(o, &is_dump) < 0)
		return NULL;
	if (is_dump)
		return load_dump(o, store);
	if (o->use_epoch)
		flags |= CFS_SCAN_USE_EPOCH;
	if (o->skip_xattrs)
		flags |= CFS_SCAN_SKIP_XATTRS;
	return cfs_scan_dir(o->source, store, flags);
}
