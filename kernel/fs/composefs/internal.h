/* SPDX-License-Identifier: GPL-2.0 */
/*
 * composefs: a read-only filesystem whose metadata lives in an image file
 * and whose file contents are backing files in content-addressed stores.
 */
#ifndef _FS_COMPOSEFS_INTERNAL_H
#define _FS_COMPOSEFS_INTERNAL_H

#include <linux/fs.h>
#include <linux/path.h>
#include <linux/composefs.h>

#undef pr_fmt
#define pr_fmt(fmt) "composefs: " fmt

/* An image that breaks a rule of its format (composefs(5)). */
#define EFSCORRUPTED EUCLEAN

/* Inode numbers are the inode table index plus this base. */
#define CFS_INO_BASE 1

enum cfs_verity_check {
	CFS_VERITY_NONE = 0,	/* never check backing files */
	CFS_VERITY_IF_DIGEST,	/* check files whose inode carries a digest */
	CFS_VERITY_REQUIRED,	/* every regular file must have a digest */
};

/* A parsed reference into the image, absolute file offset and length. */
struct cfs_ref {
	u64 pos;
	u32 len;
};

struct cfs_sb_info {
	struct file *image;
	char *image_name;		/* as given to mount, for messages */
	u64 image_size;
	u64 vdata_offset;
	u64 num_inodes;
	struct path *basedirs;
	unsigned int num_basedirs;
	char *basedir_opt;		/* as given, for show_options */
	u8 image_digest[CFS_DIGEST_SIZE];
	bool has_image_digest;
	unsigned int verity_check;
	bool any_backing_path;		/* backing=any: not only object names */
	const struct cred *creator_cred;	/* opens backing files */
	bool readahead;			/* set once mounted, see cfs_get_folio() */
};

struct cfs_inode_info {
	struct cfs_ref data;		/* dirents, backing path or target */
	struct cfs_ref xattrs;
	u32 n_dirents;			/* directories, once dir_loaded */
	bool dir_loaded;		/* see cfs_dir_load() */
	int dir_err;			/* the chunk failed its check */
	u64 parent;			/* directories: parent index + 1, or 0 */
	bool has_digest;		/* regular files */
	u8 digest[CFS_DIGEST_SIZE];
	struct inode *verified;		/* backing inode that matched, file.c */
	struct inode vfs_inode;
};

static inline struct cfs_sb_info *CFS_SB(struct super_block *sb)
{
	return sb->s_fs_info;
}

static inline struct cfs_inode_info *CFS_I(struct inode *inode)
{
	return container_of(inode, struct cfs_inode_info, vfs_inode);
}

static inline u64 cfs_index(const struct inode *inode)
{
	return inode->i_ino - CFS_INO_BASE;
}

/* A name read from a directory chunk. */
struct cfs_name {
	u32 inode_num;
	u8 d_type;
	u8 len;
	char name[CFS_MAX_NAME];
};

/* reader.c: bounds-checked access to the image */
__printf(2, 3)
void cfs_err(const struct cfs_sb_info *sbi, const char *fmt, ...);
__printf(2, 3)
int cfs_corrupt(const struct cfs_sb_info *sbi, const char *fmt, ...);
int cfs_read(struct cfs_sb_info *sbi, u64 pos, void *buf, size_t len);
int cfs_check_superblock(struct cfs_sb_info *sbi);
int cfs_read_inode(struct cfs_sb_info *sbi, u64 index, struct cfs_disk_inode *ci);
int cfs_ref_get(struct cfs_sb_info *sbi, const struct cfs_disk_vdata *vd,
		struct cfs_ref *ref);
int cfs_dir_count(struct cfs_sb_info *sbi, const struct cfs_ref *dir,
		  u32 *n_dirents);
int cfs_dir_entry(struct cfs_sb_info *sbi, const struct cfs_ref *dir,
		  u32 n_dirents, u32 i, struct cfs_name *out);
int cfs_dir_validate(struct cfs_sb_info *sbi, const struct cfs_ref *dir,
		     u32 n_dirents);
char *cfs_read_path(struct cfs_sb_info *sbi, const struct cfs_ref *ref,
		    bool backing);
int cfs_name_cmp(const char *a, size_t alen, const char *b, size_t blen);

/* inode.c */
struct inode *cfs_iget(struct super_block *sb, u64 index);
int cfs_dir_load(struct inode *dir);
extern const struct inode_operations cfs_dir_iops;
extern const struct inode_operations cfs_file_iops;
extern const struct inode_operations cfs_symlink_iops;
extern const struct inode_operations cfs_special_iops;

/* dir.c, namei.c */
extern const struct file_operations cfs_dir_fops;
struct dentry *cfs_lookup(struct inode *dir, struct dentry *dentry,
			  unsigned int flags);

/*
 * verity-export.c or verity-descriptor.c, chosen by the Makefile: the
 * SHA-256 fs-verity digest of an open file's inode; -ENODATA if the file
 * has no fs-verity.
 */
int cfs_verity_init(void);
void cfs_verity_exit(void);
int cfs_fsverity_digest(struct inode *inode, u8 digest[CFS_DIGEST_SIZE]);

/*
 * Exported by fs/namei.c but declared only in fs/internal.h, which a
 * filesystem outside fs/ cannot include.
 */
int vfs_path_lookup(struct dentry *dentry, struct vfsmount *mnt,
		    const char *name, unsigned int flags, struct path *path);

/* file.c */
extern const struct file_operations cfs_file_fops;
struct file *cfs_open_regular(const struct path *path);
void cfs_forget_verified(struct inode *inode);

/* xattr.c */
extern const struct xattr_handler *cfs_xattr_handlers[];
ssize_t cfs_listxattr(struct dentry *dentry, char *buf, size_t size);

#endif /* _FS_COMPOSEFS_INTERNAL_H */
