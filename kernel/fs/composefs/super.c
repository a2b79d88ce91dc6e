// SPDX-License-Identifier: GPL-2.0
/*
 * composefs superblock: mount options, image checks and module setup.
 *
 *   mount -t composefs IMAGE DIR \
 *         -o basedir=DIR[:DIR...],digest=HEX,verity_check=0|1|2,
 *            backing_paths=objects|any
 */

#include <linux/cred.h>
#include <linux/module.h>
#include <linux/fs_context.h>
#include <linux/fs_parser.h>
#include <linux/file.h>
#include <linux/namei.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/statfs.h>
#include "internal.h"

#define CFS_MAX_BASEDIRS 64

static struct kmem_cache *cfs_inode_cachep;
static const struct super_operations cfs_super_ops;

struct cfs_fs_context {
	char *basedir;
	u8 digest[CFS_DIGEST_SIZE];
	bool has_digest;
	int verity_check;		/* -1: not given */
	int backing_paths;		/* -1: not given */
};

enum {
	CFS_OPT_BASEDIR, CFS_OPT_DIGEST, CFS_OPT_VERITY_CHECK,
	CFS_OPT_BACKING_PATHS,
};

enum { CFS_BACKING_OBJECTS, CFS_BACKING_ANY };

static const struct constant_table cfs_backing_paths[] = {
	{ "objects", CFS_BACKING_OBJECTS },
	{ "any", CFS_BACKING_ANY },
	{}
};

static const struct fs_parameter_spec cfs_fs_parameters[] = {
	fsparam_string("basedir", CFS_OPT_BASEDIR),
	fsparam_string("digest", CFS_OPT_DIGEST),
	fsparam_u32("verity_check", CFS_OPT_VERITY_CHECK),
	fsparam_enum("backing_paths", CFS_OPT_BACKING_PATHS, cfs_backing_paths),
	{}
};

/* Decoded into a local buffer: a bad value leaves an earlier one intact. */
static int cfs_parse_digest(struct fs_context *fc, const char *hex)
{
	struct cfs_fs_context *ctx = fc->fs_private;
	u8 digest[CFS_DIGEST_SIZE];

	if (strlen(hex) != 2 * CFS_DIGEST_SIZE ||
	    hex2bin(digest, hex, CFS_DIGEST_SIZE))
		return invalfc(fc, "digest must be %d hex digits",
			       2 * CFS_DIGEST_SIZE);
	memcpy(ctx->digest, digest, CFS_DIGEST_SIZE);
	ctx->has_digest = true;
	return 0;
}

static int cfs_parse_param(struct fs_context *fc, struct fs_parameter *param)
{
	struct cfs_fs_context *ctx = fc->fs_private;
	struct fs_parse_result result;
	int opt;

	opt = fs_parse(fc, cfs_fs_parameters, param, &result);
	if (opt < 0)
		return opt;

	switch (opt) {
	case CFS_OPT_BASEDIR:
		kfree(ctx->basedir);
		ctx->basedir = param->string;
		param->string = NULL;
		break;
	case CFS_OPT_DIGEST:
		return cfs_parse_digest(fc, param->string);
	case CFS_OPT_VERITY_CHECK:
		if (result.uint_32 > CFS_VERITY_REQUIRED)
			return invalfc(fc, "verity_check must be 0, 1 or 2");
		ctx->verity_check = result.uint_32;
		break;
	case CFS_OPT_BACKING_PATHS:
		ctx->backing_paths = result.uint_32;
		break;
	}
	return 0;
}

/* The type is checked before the open: a FIFO would block the mount. */
static int cfs_open_image(struct fs_context *fc, struct cfs_sb_info *sbi)
{
	struct file *image;
	struct path path;
	int err;

	if (!fc->source)
		return invalfc(fc, "no image file given");
	sbi->image_name = kstrdup(fc->source, GFP_KERNEL);
	if (!sbi->image_name)
		return -ENOMEM;
	err = kern_path(fc->source, LOOKUP_FOLLOW, &path);
	if (err)
		return err;
	if (!d_is_reg(path.dentry)) {
		path_put(&path);
		return invalfc(fc, "%s: not a regular file", fc->source);
	}
	image = cfs_open_regular(&path);
	path_put(&path);
	if (IS_ERR(image))
		return PTR_ERR(image);
	sbi->image = image;
	sbi->image_size = i_size_read(file_inode(image));
	return 0;
}

static int cfs_check_image_digest(struct fs_context *fc,
				  struct cfs_sb_info *sbi)
{
	u8 digest[CFS_DIGEST_SIZE];
	int err;

	if (!sbi->has_image_digest)
		return 0;
	err = cfs_fsverity_digest(file_inode(sbi->image), digest);
	if (err)
		return invalfc(fc, "%s: no fs-verity digest (%d)", fc->source,
			       err);
	if (memcmp(digest, sbi->image_digest, CFS_DIGEST_SIZE))
		return invalfc(fc, "%s: fs-verity digest does not match digest=",
			       fc->source);
	return 0;
}

static int cfs_open_basedirs(struct fs_context *fc, struct cfs_sb_info *sbi,
			     int *depth)
{
	char *dirs, *cur, *dir;
	unsigned int n = 1;
	int err = 0;

	if (!sbi->basedir_opt)
		return invalfc(fc, "no basedir= given");
	for (cur = sbi->basedir_opt; *cur; cur++)
		n += *cur == ':';
	if (n > CFS_MAX_BASEDIRS)
		return invalfc(fc, "too many base directories");
	sbi->basedirs = kcalloc(n, sizeof(*sbi->basedirs), GFP_KERNEL);
	dirs = kstrdup(sbi->basedir_opt, GFP_KERNEL);
	if (!sbi->basedirs || !dirs) {
		kfree(dirs);
		return -ENOMEM;
	}
	cur = dirs;
	while ((dir = strsep(&cur, ":")) != NULL) {
		struct path *p = &sbi->basedirs[sbi->num_basedirs];

		if (!*dir) {
			err = invalfc(fc, "empty base directory");
			break;
		}
		err = kern_path(dir, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, p);
		if (err) {
			errorfc(fc, "basedir %s: error %d", dir, err);
			break;
		}
		sbi->num_basedirs++;
		*depth = max(*depth, p->mnt->mnt_sb->s_stack_depth);
	}
	kfree(dirs);
	return err;
}

static int cfs_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct cfs_fs_context *ctx = fc->fs_private;
	struct cfs_sb_info *sbi;
	struct inode *root;
	int depth, err;

	sbi = kzalloc(sizeof(*sbi), GFP_KERNEL);
	if (!sbi)
		return -ENOMEM;
	sb->s_fs_info = sbi;
	sbi->basedir_opt = ctx->basedir;
	ctx->basedir = NULL;
	sbi->has_image_digest = ctx->has_digest;
	memcpy(sbi->image_digest, ctx->digest, CFS_DIGEST_SIZE);
	if (ctx->verity_check >= 0)
		sbi->verity_check = ctx->verity_check;
	else
		sbi->verity_check = ctx->has_digest ? CFS_VERITY_REQUIRED :
						      CFS_VERITY_NONE;
	if (!IS_ENABLED(CONFIG_FS_VERITY) &&
	    (sbi->verity_check || sbi->has_image_digest))
		return invalfc(fc, "digest= and verity_check=1|2 need a kernel with fs-verity");
	sbi->any_backing_path = ctx->backing_paths == CFS_BACKING_ANY;
	sbi->creator_cred = prepare_creds();
	if (!sbi->creator_cred)
		return -ENOMEM;

	err = cfs_open_image(fc, sbi);
	if (!err)
		err = cfs_check_image_digest(fc, sbi);
	if (err)
		return err;
	err = cfs_check_superblock(sbi);
	if (err) {
		errorfc(fc, "%s: corrupt image superblock", fc->source);
		return err;
	}
	depth = file_inode(sbi->image)->i_sb->s_stack_depth;
	err = cfs_open_basedirs(fc, sbi, &depth);
	if (err)
		return err;
	sb->s_stack_depth = depth + 1;
	if (sb->s_stack_depth > FILESYSTEM_MAX_STACK_DEPTH)
		return invalfc(fc, "maximum fs stacking depth exceeded");

	sb->s_flags |= SB_RDONLY | SB_NOATIME | SB_NODIRATIME;
	sb->s_magic = CFS_MAGIC;
	sb->s_blocksize = PAGE_SIZE;
	sb->s_blocksize_bits = PAGE_SHIFT;
	sb->s_maxbytes = MAX_LFS_FILESIZE;
	sb->s_time_gran = 1;
	sb->s_op = &cfs_super_ops;
	sb->s_xattr = cfs_xattr_handlers;

	root = cfs_iget(sb, CFS_ROOT_INO);
	if (IS_ERR(root)) {
		errorfc(fc, "%s: cannot load the root directory (%ld)",
			fc->source, PTR_ERR(root));
		return PTR_ERR(root);
	}
	if (!S_ISDIR(root->i_mode)) {
		iput(root);
		errorfc(fc, "%s: root is not a directory", fc->source);
		return -EFSCORRUPTED;
	}
	sb->s_root = d_make_root(root);
	if (!sb->s_root)
		return -ENOMEM;
	sbi->readahead = true;
	return 0;
}

static int cfs_get_tree(struct fs_context *fc)
{
	return get_tree_nodev(fc, cfs_fill_super);
}

/* Whether a remount asks for other options than the mount was made with. */
static bool cfs_options_changed(const struct cfs_fs_context *ctx,
				const struct cfs_sb_info *sbi)
{
	bool any = ctx->backing_paths == CFS_BACKING_ANY;

	if (ctx->basedir && strcmp(ctx->basedir, sbi->basedir_opt))
		return true;
	if (ctx->has_digest &&
	    (!sbi->has_image_digest ||
	     memcmp(ctx->digest, sbi->image_digest, CFS_DIGEST_SIZE)))
		return true;
	if (ctx->verity_check >= 0 && ctx->verity_check != sbi->verity_check)
		return true;
	return ctx->backing_paths >= 0 && any != sbi->any_backing_path;
}

/* Options are fixed at mount: a remount may repeat them, not change them. */
static int cfs_reconfigure(struct fs_context *fc)
{
	if (cfs_options_changed(fc->fs_private, CFS_SB(fc->root->d_sb)))
		return invalfc(fc, "options cannot change on remount");
	fc->sb_flags |= SB_RDONLY;
	return 0;
}

static void cfs_fc_free(struct fs_context *fc)
{
	struct cfs_fs_context *ctx = fc->fs_private;

	if (ctx)
		kfree(ctx->basedir);
	kfree(ctx);
}

static const struct fs_context_operations cfs_context_ops = {
	.parse_param = cfs_parse_param,
	.get_tree = cfs_get_tree,
	.reconfigure = cfs_reconfigure,
	.free = cfs_fc_free,
};

static int cfs_init_fs_context(struct fs_context *fc)
{
	struct cfs_fs_context *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->verity_check = -1;
	ctx->backing_paths = -1;
	fc->fs_private = ctx;
	fc->ops = &cfs_context_ops;
	return 0;
}

static struct inode *cfs_alloc_inode(struct super_block *sb)
{
	struct cfs_inode_info *info;

	info = alloc_inode_sb(sb, cfs_inode_cachep, GFP_KERNEL);
	if (!info)
		return NULL;
	memset(&info->data, 0, sizeof(info->data));
	memset(&info->xattrs, 0, sizeof(info->xattrs));
	info->n_dirents = 0;
	info->dir_loaded = false;
	info->dir_err = 0;
	info->parent = 0;
	info->has_digest = false;
	info->verified = NULL;
	return &info->vfs_inode;
}

/* Runs for every inode before cfs_kill_sb() puts the base directories. */
static void cfs_evict_inode(struct inode *inode)
{
	truncate_inode_pages_final(&inode->i_data);
	clear_inode(inode);
	cfs_forget_verified(inode);
}

static void cfs_free_inode(struct inode *inode)
{
	if (S_ISLNK(inode->i_mode))
		kfree(inode->i_link);
	kmem_cache_free(cfs_inode_cachep, CFS_I(inode));
}

static int cfs_statfs(struct dentry *dentry, struct kstatfs *buf)
{
	struct super_block *sb = dentry->d_sb;
	struct cfs_sb_info *sbi = CFS_SB(sb);

	buf->f_type = CFS_MAGIC;
	buf->f_bsize = PAGE_SIZE;
	buf->f_blocks = DIV_ROUND_UP_ULL(sbi->image_size, PAGE_SIZE);
	buf->f_files = sbi->num_inodes;
	buf->f_namelen = CFS_MAX_NAME;
	buf->f_fsid = u64_to_fsid(huge_encode_dev(sb->s_dev));
	return 0;
}

static int cfs_show_options(struct seq_file *m, struct dentry *root)
{
	struct cfs_sb_info *sbi = CFS_SB(root->d_sb);

	if (sbi->basedir_opt)
		seq_show_option(m, "basedir", sbi->basedir_opt);
	if (sbi->has_image_digest)
		seq_printf(m, ",digest=%*phN", CFS_DIGEST_SIZE,
			   sbi->image_digest);
	seq_printf(m, ",verity_check=%u", sbi->verity_check);
	if (sbi->any_backing_path)
		seq_puts(m, ",backing_paths=any");
	return 0;
}

static const struct super_operations cfs_super_ops = {
	.alloc_inode = cfs_alloc_inode,
	.free_inode = cfs_free_inode,
	.evict_inode = cfs_evict_inode,
	.statfs = cfs_statfs,
	.show_options = cfs_show_options,
};

static void cfs_kill_sb(struct super_block *sb)
{
	struct cfs_sb_info *sbi = CFS_SB(sb);
	unsigned int i;

	kill_anon_super(sb);
	if (!sbi)
		return;
	for (i = 0; i < sbi->num_basedirs; i++)
		path_put(&sbi->basedirs[i]);
	kfree(sbi->basedirs);
	if (sbi->image)
		fput(sbi->image);
	kfree(sbi->basedir_opt);
	kfree(sbi->image_name);
	if (sbi->creator_cred)
		put_cred(sbi->creator_cred);
	kfree(sbi);
}

static struct file_system_type cfs_fs_type = {
	.owner = THIS_MODULE,
	.name = "composefs",
	.init_fs_context = cfs_init_fs_context,
	.parameters = cfs_fs_parameters,
	.kill_sb = cfs_kill_sb,
};
MODULE_ALIAS_FS("composefs");

static void cfs_inode_init_once(void *ptr)
{
	struct cfs_inode_info *info = ptr;

	inode_init_once(&info->vfs_inode);
}

/* The on-disk layout of linux/composefs.h, pinned (see composefs(5)). */
static void __init cfs_check_disk_layout(void)
{
	BUILD_BUG_ON(sizeof(struct cfs_disk_superblock) != CFS_SUPERBLOCK_SIZE);
	BUILD_BUG_ON(offsetof(struct cfs_disk_superblock, version) != 0);
	BUILD_BUG_ON(offsetof(struct cfs_disk_superblock, magic) != 4);
	BUILD_BUG_ON(offsetof(struct cfs_disk_superblock, vdata_offset) != 8);
	BUILD_BUG_ON(offsetof(struct cfs_disk_superblock, unused) != 16);

	BUILD_BUG_ON(sizeof(struct cfs_disk_vdata) != 12);
	BUILD_BUG_ON(offsetof(struct cfs_disk_vdata, off) != 0);
	BUILD_BUG_ON(offsetof(struct cfs_disk_vdata, len) != 8);

	BUILD_BUG_ON(sizeof(struct cfs_disk_inode) != CFS_INODE_SIZE);
	BUILD_BUG_ON(offsetof(struct cfs_disk_inode, st_mode) != 0);
	BUILD_BUG_ON(offsetof(struct cfs_disk_inode, st_nlink) != 4);
	BUILD_BUG_ON(offsetof(struct cfs_disk_inode, st_uid) != 8);
	BUILD_BUG_ON(offsetof(struct cfs_disk_inode, st_gid) != 12);
	BUILD_BUG_ON(offsetof(struct cfs_disk_inode, st_rdev) != 16);
	BUILD_BUG_ON(offsetof(struct cfs_disk_inode, st_size) != 20);
	BUILD_BUG_ON(offsetof(struct cfs_disk_inode, st_mtim_sec) != 28);
	BUILD_BUG_ON(offsetof(struct cfs_disk_inode, st_mtim_nsec) != 36);
	BUILD_BUG_ON(offsetof(struct cfs_disk_inode, st_ctim_sec) != 40);
	BUILD_BUG_ON(offsetof(struct cfs_disk_inode, st_ctim_nsec) != 48);
	BUILD_BUG_ON(offsetof(struct cfs_disk_inode, variable_data) != 52);
	BUILD_BUG_ON(offsetof(struct cfs_disk_inode, xattrs) != 64);
	BUILD_BUG_ON(offsetof(struct cfs_disk_inode, digest) != 76);
	BUILD_BUG_ON(offsetof(struct cfs_disk_inode, unused) != 88);

	BUILD_BUG_ON(sizeof(struct cfs_disk_dirent) != CFS_DIRENT_SIZE);
	BUILD_BUG_ON(offsetof(struct cfs_disk_dirent, inode_num) != 0);
	BUILD_BUG_ON(offsetof(struct cfs_disk_dirent, name_offset) != 4);
	BUILD_BUG_ON(offsetof(struct cfs_disk_dirent, name_len) != 8);
	BUILD_BUG_ON(offsetof(struct cfs_disk_dirent, d_type) != 9);
	BUILD_BUG_ON(offsetof(struct cfs_disk_dirent, _padding) != 10);
	BUILD_BUG_ON(sizeof(struct cfs_disk_dir_header) != 4);
	BUILD_BUG_ON(offsetof(struct cfs_disk_dir_header, dirents) != 4);

	BUILD_BUG_ON(sizeof(struct cfs_disk_xattr_element) !=
		     CFS_XATTR_ELEM_SIZE);
	BUILD_BUG_ON(offsetof(struct cfs_disk_xattr_element, key_length) != 0);
	BUILD_BUG_ON(offsetof(struct cfs_disk_xattr_element, value_length) != 2);
	BUILD_BUG_ON(sizeof(struct cfs_disk_xattr_header) != 2);
	BUILD_BUG_ON(offsetof(struct cfs_disk_xattr_header, attr) != 2);
}

static int __init cfs_init(void)
{
	int err;

	cfs_check_disk_layout();
	cfs_inode_cachep = kmem_cache_create("composefs_inode",
					     sizeof(struct cfs_inode_info), 0,
					     SLAB_RECLAIM_ACCOUNT | SLAB_ACCOUNT,
					     cfs_inode_init_once);
	if (!cfs_inode_cachep)
		return -ENOMEM;
	err = cfs_verity_init();
	if (err)
		goto out_cache;
	err = register_filesystem(&cfs_fs_type);
	if (err)
		goto out_verity;
	return 0;

out_verity:
	cfs_verity_exit();
out_cache:
	kmem_cache_destroy(cfs_inode_cachep);
	return err;
}

static void __exit cfs_exit(void)
{
	unregister_filesystem(&cfs_fs_type);
	rcu_barrier();	/* inodes are freed by RCU callbacks */
	kmem_cache_destroy(cfs_inode_cachep);
	cfs_verity_exit();
}

module_init(cfs_init);
module_exit(cfs_exit);

MODULE_DESCRIPTION("composefs: read-only image over content-addressed stores");
MODULE_LICENSE("GPL");
