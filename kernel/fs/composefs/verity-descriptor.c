// SPDX-License-Identifier: GPL-2.0
/*
 * A file's fs-verity digest on kernels that do not export
 * fsverity_get_digest() (out-of-tree builds, e.g. for Debian's kernel):
 * the SHA-256 of the file's fs-verity descriptor, read through the
 * filesystem's public fsverity_operations, computed exactly as
 * fs/verity/open.c computes the file digest (the 256-byte struct
 * fsverity_descriptor with sig_size zeroed).  The descriptor is stable
 * on-disk format.
 *
 * The file must have fs-verity enabled and loaded (the backing file is
 * open), so fs-verity verifies every read against the root hash of the
 * descriptor it loaded at open.  A second read of the descriptor may not
 * return that one (storage that answers a re-read differently), so the
 * digest is also required to equal the file digest fs-verity computed at
 * that first read, kept in the inode's private struct fsverity_info: read
 * through a copy of Linux 6.1's layout, checked where it can be (its
 * inode back-pointer, digest size and block size must be the file's), so
 * that a layout that differs can only refuse a file, never accept one.
 * See composefs(5).
 *
 * Called once per composefs inode and backing inode: file.c remembers the
 * backing inode that matched (holding a reference) and skips the digest
 * when an open finds that inode again.  What the first, cold, verified
 * open costs here against verity-export.c is measured by
 * bench/vm-suite.sh, section vopen.
 */

#include <crypto/hash.h>
#include <linux/fsverity.h>
#include <linux/module.h>
#include <linux/slab.h>
#include "internal.h"

MODULE_INFO(verity_digest, "descriptor");

static struct crypto_shash *cfs_sha256;

/*
 * struct fsverity_info of fs/verity/fsverity_private.h in Linux 6.1 (to
 * 6.2): the parameters of the Merkle tree, then the root hash, then the
 * file digest fs-verity enforces, then the inode it belongs to.
 */
struct cfs_fsverity_info_6_1 {
	struct {
		const void *hash_alg;
		const u8 *hashstate;
		unsigned int digest_size;
		unsigned int block_size;
		unsigned int hashes_per_block;
		unsigned int log_blocksize;
		unsigned int log_arity;
		unsigned int num_levels;
		u64 tree_size;
		unsigned long level0_blocks;
		u64 level_start[8];
	} tree_params;
	u8 root_hash[FS_VERITY_MAX_DIGEST_SIZE];
	u8 file_digest[FS_VERITY_MAX_DIGEST_SIZE];
	const struct inode *inode;
};

/*
 * The file digest fs-verity enforces for @inode must equal @digest, the
 * hash of the descriptor read again.  -EOPNOTSUPP if the private layout is
 * not 6.1's, -EIO if the digests differ.
 */
static int cfs_check_enforced(struct inode *inode,
			      const struct fsverity_descriptor *desc,
			      const u8 digest[CFS_DIGEST_SIZE])
{
	const struct cfs_fsverity_info_6_1 *vi = (const void *)fsverity_get_info(inode);

	if (vi->inode != inode ||
	    vi->tree_params.digest_size != CFS_DIGEST_SIZE ||
	    vi->tree_params.log_blocksize != desc->log_blocksize ||
	    vi->tree_params.block_size != 1U << desc->log_blocksize) {
		pr_err_once("struct fsverity_info is not laid out as in Linux 6.1: verified opens refused\n");
		return -EOPNOTSUPP;
	}
	if (memcmp(vi->file_digest, digest, CFS_DIGEST_SIZE))
		return -EIO;
	return 0;
}

int cfs_verity_init(void)
{
	struct crypto_shash *tfm;

	if (!IS_ENABLED(CONFIG_FS_VERITY))
		return 0;
	tfm = crypto_alloc_shash("sha256", 0, 0);
	if (IS_ERR(tfm)) {
		pr_err("no sha256 for fs-verity digests (%ld)\n", PTR_ERR(tfm));
		return PTR_ERR(tfm);
	}
	cfs_sha256 = tfm;
	return 0;
}

void cfs_verity_exit(void)
{
	crypto_free_shash(cfs_sha256);
}

static const struct fsverity_operations *cfs_vops(struct inode *inode)
{
#ifdef CONFIG_FS_VERITY
	return inode->i_sb->s_vop;
#else
	return NULL;
#endif
}

/* The checks of fs/verity/open.c validate_fsverity_descriptor(), SHA-256 only. */
static bool cfs_descriptor_valid(struct inode *inode,
				 const struct fsverity_descriptor *desc,
				 size_t size)
{
	return size >= sizeof(*desc) && desc->version == 1 &&
	       desc->hash_algorithm == FS_VERITY_HASH_ALG_SHA256 &&
	       desc->log_blocksize >= 10 && desc->log_blocksize <= PAGE_SHIFT &&
	       desc->salt_size <= sizeof(desc->salt) &&
	       le64_to_cpu(desc->data_size) == i_size_read(inode) &&
	       le32_to_cpu(desc->sig_size) <= size - sizeof(*desc) &&
	       !memchr_inv(desc->__reserved, 0, sizeof(desc->__reserved));
}

static int cfs_hash_descriptor(struct inode *inode,
			       struct fsverity_descriptor *desc, int size,
			       u8 digest[CFS_DIGEST_SIZE])
{
	int err;

	if (size < 0)
		return size;
	if (!cfs_descriptor_valid(inode, desc, size))
		return -EINVAL;
	desc->sig_size = 0;	/* the file digest excludes the signature */
	err = crypto_shash_tfm_digest(cfs_sha256, (const u8 *)desc,
				      sizeof(*desc), digest);
	if (err)
		return err;
	return cfs_check_enforced(inode, desc, digest);
}

int cfs_fsverity_digest(struct inode *inode, u8 digest[CFS_DIGEST_SIZE])
{
	const struct fsverity_operations *vops = cfs_vops(inode);
	struct fsverity_descriptor on_stack, *desc = &on_stack;
	int size, err;

	if (!vops || !cfs_sha256)
		return -EOPNOTSUPP;
	/* fs-verity enabled on the file and its descriptor loaded by open */
	if (!IS_VERITY(inode) || !fsverity_get_info(inode))
		return -ENODATA;
	/* A descriptor without a signature fits on the stack: one call. */
	size = vops->get_verity_descriptor(inode, desc, sizeof(*desc));
	if (size == -ERANGE) {
		size = vops->get_verity_descriptor(inode, NULL, 0);
		if (size < 0)
			return size;
		if (size > FS_VERITY_MAX_DESCRIPTOR_SIZE)
			return -EMSGSIZE;
		desc = kmalloc(size, GFP_KERNEL);
		if (!desc)
			return -ENOMEM;
		size = vops->get_verity_descriptor(inode, desc, size);
	}
	err = cfs_hash_descriptor(inode, desc, size, digest);
	if (desc != &on_stack)
		kfree(desc);
	return err;
}
