// SPDX-License-Identifier: GPL-2.0
/*
 * composefs inodes: loaded from the image's inode table and validated
 * before they are handed to the VFS.
 */

#include <linux/slab.h>
#include <linux/time64.h>
#include "internal.h"

const struct inode_operations cfs_dir_iops = {
	.lookup = cfs_lookup,
	.listxattr = cfs_listxattr,
};

const struct inode_operations cfs_file_iops = {
	.listxattr = cfs_listxattr,
};

const struct inode_operations cfs_symlink_iops = {
	.get_link = simple_get_link,
	.listxattr = cfs_listxattr,
};

const struct inode_operations cfs_special_iops = {
	.listxattr = cfs_listxattr,
};

static int cfs_time(struct inode *inode, struct timespec64 *ts, __le64 sec,
		    __le32 nsec)
{
	ts->tv_sec = le64_to_cpu(sec);
	ts->tv_nsec = le32_to_cpu(nsec);
	if (ts->tv_nsec >= NSEC_PER_SEC)
		return cfs_corrupt(CFS_SB(inode->i_sb),
				   "inode %llu: %ld nanoseconds",
				   cfs_index(inode), ts->tv_nsec);
	return 0;
}

static int cfs_init_reg(struct inode *inode, const struct cfs_disk_inode *ci)
{
	struct cfs_sb_info *sbi = CFS_SB(inode->i_sb);
	struct cfs_inode_info *info = CFS_I(inode);
	struct cfs_ref digest;
	int err;

	if (!!inode->i_size != !!info->data.len)
		return cfs_corrupt(sbi, "inode %llu: a backing path iff content",
				   cfs_index(inode));
	err = cfs_ref_get(sbi, &ci->digest, &digest);
	if (err)
		return err;
	if (digest.len) {
		if (digest.len != CFS_DIGEST_SIZE)
			return cfs_corrupt(sbi, "inode %llu: digest of %u bytes",
					   cfs_index(inode), digest.len);
		err = cfs_read(sbi, digest.pos, info->digest, CFS_DIGEST_SIZE);
		if (err)
			return err;
		info->has_digest = true;
	}
	inode->i_op = &cfs_file_iops;
	inode->i_fop = &cfs_file_fops;
	return 0;
}

/* The dirents are read and checked on first use: see cfs_dir_load(). */
static int cfs_init_dir(struct inode *inode)
{
	struct cfs_inode_info *info = CFS_I(inode);

	if (inode->i_size != info->data.len)
		return cfs_corrupt(CFS_SB(inode->i_sb),
				   "directory %llu: size differs from its chunk's",
				   cfs_index(inode));
	inode->i_op = &cfs_dir_iops;
	inode->i_fop = &cfs_dir_fops;
	return 0;
}

/*
 * Read and check a directory's chunk as a whole, once, before its first
 * lookup or readdir rather than when its inode is loaded: a mount then
 * reads only the superblock and the root inode, and a stat of a directory
 * reads none of its dirents.  Two first users may both check it; they
 * find the same count, and only a checked count is ever used.
 */
int cfs_dir_load(struct inode *dir)
{
	struct cfs_sb_info *sbi = CFS_SB(dir->i_sb);
	struct cfs_inode_info *info = CFS_I(dir);
	u32 n;
	int err;

	/* pairs with the release below: n_dirents is read after this */
	if (smp_load_acquire(&info->dir_loaded))
		return 0;
	err = READ_ONCE(info->dir_err);
	if (err)
		return err;
	err = cfs_dir_count(sbi, &info->data, &n);
	if (!err)
		err = cfs_dir_validate(sbi, &info->data, n);
	if (err) {
		/* remembered: a broken chunk is not walked again */
		if (err == -EFSCORRUPTED) {
			cfs_err(sbi, "directory %llu refused", cfs_index(dir));
			WRITE_ONCE(info->dir_err, err);
		}
		return err;
	}
	WRITE_ONCE(info->n_dirents, n);
	/* publish n_dirents before the flag that lets it be used */
	smp_store_release(&info->dir_loaded, true);
	return 0;
}

static int cfs_init_symlink(struct inode *inode)
{
	struct cfs_inode_info *info = CFS_I(inode);
	char *target;

	if (inode->i_size != info->data.len)
		return cfs_corrupt(CFS_SB(inode->i_sb),
				   "symlink %llu: size differs from its target's",
				   cfs_index(inode));
	target = cfs_read_path(CFS_SB(inode->i_sb), &info->data, false);
	if (IS_ERR(target))
		return PTR_ERR(target);
	inode->i_link = target;
	inode->i_op = &cfs_symlink_iops;
	return 0;
}

static int cfs_init_by_type(struct inode *inode, const struct cfs_disk_inode *ci)
{
	struct cfs_sb_info *sbi = CFS_SB(inode->i_sb);
	dev_t rdev = new_decode_dev(le32_to_cpu(ci->st_rdev));
	bool is_dev = S_ISCHR(inode->i_mode) || S_ISBLK(inode->i_mode);
	u64 index = cfs_index(inode);

	if (ci->digest.len && !S_ISREG(inode->i_mode))
		return cfs_corrupt(sbi, "inode %llu: digest on a non-regular file",
				   index);
	if (rdev && !is_dev)
		return cfs_corrupt(sbi, "inode %llu: rdev on a non-device",
				   index);

	switch (inode->i_mode & S_IFMT) {
	case S_IFREG:
		return cfs_init_reg(inode, ci);
	case S_IFDIR:
		return cfs_init_dir(inode);
	case S_IFLNK:
		return cfs_init_symlink(inode);
	case S_IFCHR:
	case S_IFBLK:
	case S_IFIFO:
	case S_IFSOCK:
		if (CFS_I(inode)->data.len || inode->i_size)
			return cfs_corrupt(sbi, "inode %llu: special file with data or a size",
					   index);
		inode->i_op = &cfs_special_iops;
		init_special_inode(inode, inode->i_mode, rdev);
		return 0;
	}
	return cfs_corrupt(sbi, "inode %llu: unknown file type %o", index,
			   inode->i_mode & S_IFMT);
}

static int cfs_fill_inode(struct inode *inode)
{
	struct cfs_sb_info *sbi = CFS_SB(inode->i_sb);
	struct cfs_inode_info *info = CFS_I(inode);
	struct cfs_disk_inode ci;
	u32 nlink;
	int err;

	err = cfs_read_inode(sbi, cfs_index(inode), &ci);
	if (err)
		return err;
	nlink = le32_to_cpu(ci.st_nlink);
	if (le32_to_cpu(ci.st_mode) & ~(u32)(S_IFMT | 07777))
		return cfs_corrupt(sbi, "inode %llu: st_mode %#x has unknown bits",
				   cfs_index(inode), le32_to_cpu(ci.st_mode));
	if (!nlink || ci.unused[0] || ci.unused[1] ||
	    le64_to_cpu(ci.st_size) > MAX_LFS_FILESIZE)
		return cfs_corrupt(sbi, "inode %llu: no links, reserved bytes set or too large",
				   cfs_index(inode));
	err = cfs_time(inode, &inode->i_mtime, ci.st_mtim_sec,
		       ci.st_mtim_nsec);
	if (!err)
		err = cfs_time(inode, &inode->i_ctime, ci.st_ctim_sec,
			       ci.st_ctim_nsec);
	if (!err)
		err = cfs_ref_get(sbi, &ci.variable_data, &info->data);
	if (!err)
		err = cfs_ref_get(sbi, &ci.xattrs, &info->xattrs);
	if (err)
		return err;
	if (info->xattrs.len && info->xattrs.pos % CFS_VDATA_ALIGN)
		return cfs_corrupt(sbi, "inode %llu: xattr chunk not aligned",
				   cfs_index(inode));

	inode->i_mode = le32_to_cpu(ci.st_mode);
	set_nlink(inode, nlink);
	i_uid_write(inode, le32_to_cpu(ci.st_uid));
	i_gid_write(inode, le32_to_cpu(ci.st_gid));
	inode->i_atime = inode->i_mtime;
	inode->i_size = le64_to_cpu(ci.st_size);
	inode->i_blocks = DIV_ROUND_UP_ULL(inode->i_size, 512);
	return cfs_init_by_type(inode, &ci);
}

/* Hard links name one table index, so they share one inode. */
struct inode *cfs_iget(struct super_block *sb, u64 index)
{
	struct inode *inode;
	int err;

	if (index >= CFS_SB(sb)->num_inodes)
		return ERR_PTR(cfs_corrupt(CFS_SB(sb), "inode %llu: beyond the table",
					   index));
	inode = iget_locked(sb, index + CFS_INO_BASE);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	if (!(inode->i_state & I_NEW))
		return inode;

	err = cfs_fill_inode(inode);
	if (err) {
		if (err == -EFSCORRUPTED)
			cfs_err(CFS_SB(sb), "inode %llu refused", index);
		iget_failed(inode);
		return ERR_PTR(err);
	}
	unlock_new_inode(inode);
	return inode;
}
