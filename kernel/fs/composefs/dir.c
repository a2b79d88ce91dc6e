// SPDX-License-Identifier: GPL-2.0
/*
 * composefs readdir.  The position is the dirent index plus two (for "."
 * and ".."), so telldir/seekdir offsets stay valid for the life of the
 * image.
 */

#include <linux/slab.h>
#include "internal.h"

static int cfs_readdir(struct file *file, struct dir_context *ctx)
{
	struct inode *dir = file_inode(file);
	struct cfs_inode_info *info = CFS_I(dir);
	struct cfs_name *e;
	int err = 0;

	err = cfs_dir_load(dir);
	if (err)
		return err;
	if (!dir_emit_dots(file, ctx))
		return 0;
	if (ctx->pos - 2 >= info->n_dirents)
		return 0;

	e = kmalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	while (ctx->pos - 2 < info->n_dirents) {
		err = cfs_dir_entry(CFS_SB(dir->i_sb), &info->data,
				    info->n_dirents, ctx->pos - 2, e);
		if (err)
			break;
		if (!dir_emit(ctx, e->name, e->len, e->inode_num + CFS_INO_BASE,
			      e->d_type))
			break;
		ctx->pos++;
	}
	kfree(e);
	return err;
}

const struct file_operations cfs_dir_fops = {
	.llseek = generic_file_llseek,
	.read = generic_read_dir,
	.iterate_shared = cfs_readdir,
};
