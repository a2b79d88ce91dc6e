// SPDX-License-Identifier: GPL-2.0
/*
 * composefs lookup: a binary search over the directory's sorted dirents.
 */

#include <linux/slab.h>
#include "internal.h"

/* Find @name in @dir; 0 and the table index in @index, or -ENOENT. */
static int cfs_dir_find(struct inode *dir, const struct qstr *name,
			u64 *index)
{
	struct cfs_inode_info *info = CFS_I(dir);
	struct cfs_name *e;
	int err = cfs_dir_load(dir);
	u32 lo = 0, hi;

	if (err)
		return err;
	hi = info->n_dirents;
	err = -ENOENT;
	e = kmalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;
		int cmp;

		err = cfs_dir_entry(CFS_SB(dir->i_sb), &info->data,
				    info->n_dirents, mid, e);
		if (err)
			break;
		cmp = cfs_name_cmp(name->name, name->len, e->name, e->len);
		if (!cmp) {
			*index = e->inode_num;
			break;
		}
		err = -ENOENT;
		if (cmp < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	kfree(e);
	return err;
}

/*
 * A directory has exactly one parent in a valid image.  Remember the first
 * parent a directory is found in, so a second name for it (a directory
 * hard link in a hostile image) is refused while the inode is cached.
 */
static int cfs_check_parent(struct inode *dir, struct inode *inode)
{
	u64 parent = cfs_index(dir) + 1;
	u64 old = cmpxchg64(&CFS_I(inode)->parent, 0, parent);

	if (old && old != parent)
		return cfs_corrupt(CFS_SB(dir->i_sb),
				   "directory %llu: in two directories",
				   cfs_index(inode));
	return 0;
}

struct dentry *cfs_lookup(struct inode *dir, struct dentry *dentry,
			  unsigned int flags)
{
	struct inode *inode = NULL;
	u64 index;
	int err;

	if (dentry->d_name.len > CFS_MAX_NAME)
		return ERR_PTR(-ENAMETOOLONG);
	err = cfs_dir_find(dir, &dentry->d_name, &index);
	if (err == -ENOENT)
		return d_splice_alias(NULL, dentry);
	if (err)
		return ERR_PTR(err);
	inode = cfs_iget(dir->i_sb, index);
	if (!IS_ERR(inode) && S_ISDIR(inode->i_mode)) {
		err = cfs_check_parent(dir, inode);
		if (err) {
			iput(inode);
			return ERR_PTR(err);
		}
	}
	return d_splice_alias(inode, dentry);
}
