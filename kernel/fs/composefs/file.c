// SPDX-License-Identifier: GPL-2.0
/*
 * composefs regular files.  Opening one opens its backing file, looked up
 * beneath the base directories with the mounter's credentials; reads,
 * splice and mmap then go to the backing file, so every image that holds
 * the same object shares its page cache.
 */

#include <linux/cred.h>
#include <linux/file.h>
#include <linux/mount.h>
#include <linux/mm.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/splice.h>
#include <linux/uio.h>
#include "internal.h"

/*
 * Verified backing inodes.  Once a backing file's fs-verity digest has
 * matched the image's, its inode is remembered (with a reference, as
 * overlayfs holds its lower inodes) and a later open that finds the very
 * same inode skips the digest: it would compute the same value.  A verity
 * file cannot be written, fs-verity cannot be disabled, its descriptor
 * never changes, and the image's digest for this composefs inode is fixed;
 * the reference keeps the inode from being freed, so its address cannot be
 * reused by another file.  Only an inode whose digest MATCHED is recorded:
 * an object renamed over or replaced in the store is a different inode and
 * is checked in full; an object cfs-store fsck --repair moves aside is one
 * whose digest differs from its name, the digest the image records, so it
 * never matched.  The reference keeps an unlinked object allocated until
 * the composefs inode is evicted (at the latest at umount), as an open
 * file would; cfs-store gc never deletes a mounted image's objects.  Only
 * objects on the superblock of a base directory are remembered (the
 * lookup crosses no mount, so that is every object): that base
 * directory's mount, held until after every composefs inode is evicted,
 * keeps their filesystem mounted.  See composefs(5).
 */
static bool cfs_backing_pinnable(struct cfs_sb_info *sbi, struct inode *bi)
{
	unsigned int i;

	for (i = 0; i < sbi->num_basedirs; i++)
		if (sbi->basedirs[i].mnt->mnt_sb == bi->i_sb)
			return true;
	return false;
}

static bool cfs_verified_before(struct cfs_inode_info *info, struct inode *bi)
{
	return READ_ONCE(info->verified) == bi;
}

static void cfs_remember_verified(struct cfs_sb_info *sbi,
				  struct cfs_inode_info *info,
				  struct inode *bi)
{
	if (READ_ONCE(info->verified) || !cfs_backing_pinnable(sbi, bi))
		return;
	ihold(bi);
	if (cmpxchg(&info->verified, NULL, bi))
		iput(bi);
}

/* At eviction: drops the reference cfs_remember_verified() took. */
void cfs_forget_verified(struct inode *inode)
{
	struct cfs_inode_info *info = CFS_I(inode);

	if (info->verified) {
		iput(info->verified);
		info->verified = NULL;
	}
}

static int cfs_verify_backing(struct inode *inode, struct file *backing)
{
	struct cfs_sb_info *sbi = CFS_SB(inode->i_sb);
	unsigned int level = sbi->verity_check;
	struct cfs_inode_info *info = CFS_I(inode);
	u8 digest[CFS_DIGEST_SIZE];
	int err;

	if (level == CFS_VERITY_NONE ||
	    (level == CFS_VERITY_IF_DIGEST && !info->has_digest))
		return 0;
	if (!info->has_digest) {
		cfs_err(sbi, "inode %llu: no digest, verity_check=2",
			cfs_index(inode));
		return -EIO;
	}
	if (cfs_verified_before(info, file_inode(backing)))
		return 0;
	err = cfs_fsverity_digest(file_inode(backing), digest);
	if (err) {
		cfs_err(sbi, "inode %llu: backing file without a usable fs-verity digest (%d)",
			cfs_index(inode), err);
		return -EIO;
	}
	if (memcmp(digest, info->digest, CFS_DIGEST_SIZE)) {
		cfs_err(sbi, "inode %llu: backing file's fs-verity digest differs from the image's",
			cfs_index(inode));
		return -EIO;
	}
	cfs_remember_verified(sbi, info, file_inode(backing));
	return 0;
}

/* An object of the store: "xx/" and 62 more lower-case hex digits. */
static bool cfs_object_name(const char *path)
{
	static const char hex[] = "0123456789abcdef";

	return strspn(path, hex) == 2 && path[2] == '/' &&
	       strspn(path + 3, hex) == 2 * CFS_DIGEST_SIZE - 2 &&
	       !path[2 * CFS_DIGEST_SIZE + 1];
}

/*
 * Open a regular file found at @path for reading, with the credentials
 * current has (the caller overrides them): FIFOs and devices are never
 * opened, and the read permission is checked as open(2) would.
 */
struct file *cfs_open_regular(const struct path *path)
{
	struct inode *inode = d_inode(path->dentry);
	int err;

	if (!d_is_reg(path->dentry))
		return ERR_PTR(-EINVAL);
	err = inode_permission(mnt_user_ns(path->mnt), inode,
			       MAY_READ | MAY_OPEN);
	if (err)
		return ERR_PTR(err);
	return dentry_open(path, O_RDONLY | O_LARGEFILE, current_cred());
}

/*
 * Look @name up beneath base directory @i: no symlink, no mount crossed,
 * no way out, however the store changes under the lookup.
 */
static struct file *cfs_open_in_basedir(struct cfs_sb_info *sbi,
					unsigned int i, const char *name)
{
	struct path *base = &sbi->basedirs[i];
	struct file *backing;
	struct path path;
	int err;

	err = vfs_path_lookup(base->dentry, base->mnt, name,
			      LOOKUP_BENEATH | LOOKUP_NO_SYMLINKS |
			      LOOKUP_NO_MAGICLINKS | LOOKUP_NO_XDEV, &path);
	if (err)
		return ERR_PTR(err);
	backing = cfs_open_regular(&path);
	path_put(&path);
	return backing;
}

/* Backing files are opened as whoever mounted, as overlayfs does. */
static struct file *cfs_open_backing(struct inode *inode, const char *name)
{
	struct cfs_sb_info *sbi = CFS_SB(inode->i_sb);
	struct file *backing = ERR_PTR(-ENOENT);
	const struct cred *old;
	unsigned int i;

	if (!sbi->any_backing_path && !cfs_object_name(name)) {
		cfs_err(sbi, "inode %llu: backing path \"%*pE\" is not an object name (backing_paths=any allows it)",
			cfs_index(inode), (int)strlen(name), name);
		return ERR_PTR(-EIO);
	}
	old = override_creds(sbi->creator_cred);
	for (i = 0; i < sbi->num_basedirs; i++) {
		backing = cfs_open_in_basedir(sbi, i, name);
		if (!IS_ERR(backing) || PTR_ERR(backing) != -ENOENT)
			break;
	}
	revert_creds(old);
	if (IS_ERR(backing)) {
		switch (PTR_ERR(backing)) {
		case -ELOOP:
		case -EXDEV:
		case -EINVAL:
			cfs_err(sbi, "inode %llu: backing path \"%*pE\": a symlink, another mount or not a regular file",
				cfs_index(inode), (int)strlen(name), name);
			return ERR_PTR(-EIO);
		}
		return backing;
	}
	if (i_size_read(file_inode(backing)) != inode->i_size) {
		cfs_err(sbi, "inode %llu: backing file of %lld bytes, the image says %lld",
			cfs_index(inode), i_size_read(file_inode(backing)),
			inode->i_size);
		fput(backing);
		return ERR_PTR(-EIO);
	}
	return backing;
}

static int cfs_open(struct inode *inode, struct file *file)
{
	struct cfs_sb_info *sbi = CFS_SB(inode->i_sb);
	struct file *backing;
	char *path;
	int err;

	if (file->f_flags & (O_WRONLY | O_RDWR | O_CREAT | O_EXCL | O_TRUNC))
		return -EROFS;
	if (!inode->i_size)
		return 0;

	path = cfs_read_path(sbi, &CFS_I(inode)->data, true);
	if (IS_ERR(path))
		return PTR_ERR(path);
	backing = cfs_open_backing(inode, path);
	kfree(path);
	if (IS_ERR(backing))
		return PTR_ERR(backing);

	err = cfs_verify_backing(inode, backing);
	if (err) {
		fput(backing);
		return err;
	}
	file->private_data = backing;
	return 0;
}

static int cfs_release(struct inode *inode, struct file *file)
{
	if (file->private_data)
		fput(file->private_data);
	return 0;
}

static rwf_t cfs_iocb_to_rwf(int ki_flags)
{
	rwf_t flags = 0;

	if (ki_flags & IOCB_NOWAIT)
		flags |= RWF_NOWAIT;
	if (ki_flags & IOCB_HIPRI)
		flags |= RWF_HIPRI;
	return flags;
}

static ssize_t cfs_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct file *backing = iocb->ki_filp->private_data;

	if (!backing || !iov_iter_count(to))
		return 0;
	if (iocb->ki_flags & IOCB_DIRECT &&
	    !(backing->f_mode & FMODE_CAN_ODIRECT))
		return -EINVAL;
	return vfs_iter_read(backing, to, &iocb->ki_pos,
			     cfs_iocb_to_rwf(iocb->ki_flags));
}

static ssize_t cfs_splice_read(struct file *file, loff_t *ppos,
			       struct pipe_inode_info *pipe, size_t len,
			       unsigned int flags)
{
	struct file *backing = file->private_data;

	if (!backing)
		return 0;
	return generic_file_splice_read(backing, ppos, pipe, len, flags);
}

/* An empty file maps like any empty file: touching a page is SIGBUS. */
static vm_fault_t cfs_empty_fault(struct vm_fault *vmf)
{
	return VM_FAULT_SIGBUS;
}

static const struct vm_operations_struct cfs_empty_vm_ops = {
	.fault = cfs_empty_fault,
};

static int cfs_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct file *backing = file->private_data;

	if (!backing) {
		vma->vm_ops = &cfs_empty_vm_ops;
		return 0;
	}
	if (!backing->f_op->mmap)
		return -ENODEV;
	if (WARN_ON(file != vma->vm_file))
		return -EIO;
	vma_set_file(vma, backing);
	return call_mmap(backing, vma);
}

const struct file_operations cfs_file_fops = {
	.open = cfs_open,
	.release = cfs_release,
	.llseek = generic_file_llseek,
	.read_iter = cfs_read_iter,
	.splice_read = cfs_splice_read,
	.mmap = cfs_mmap,
};
