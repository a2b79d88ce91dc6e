// SPDX-License-Identifier: GPL-2.0
/*
 * composefs image reader: every access goes through the image file's page
 * cache and is checked against the image bounds before use.  A violation
 * of the format rules is logged by cfs_corrupt(), naming the image and the
 * rule, and reported as -EFSCORRUPTED.
 */

#include <linux/pagemap.h>
#include <linux/highmem.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "internal.h"

static void cfs_log(const struct cfs_sb_info *sbi, const char *what,
		    struct va_format *vaf)
{
	pr_err_ratelimited("%s: %s%pV\n", sbi->image_name, what, vaf);
}

/* An error about a mounted image, naming it (as erofs_err() names its sb). */
void cfs_err(const struct cfs_sb_info *sbi, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	cfs_log(sbi, "", &vaf);
	va_end(args);
}

/* A broken rule of the image format: logs which, returns -EFSCORRUPTED. */
int cfs_corrupt(const struct cfs_sb_info *sbi, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	cfs_log(sbi, "corrupt image: ", &vaf);
	va_end(args);
	return -EFSCORRUPTED;
}

/* Images on filesystems without read_folio (tmpfs) are read with read_iter. */
static int cfs_read_file(struct cfs_sb_info *sbi, u64 pos, void *buf,
			 size_t len)
{
	loff_t off = pos;
	ssize_t n = kernel_read(sbi->image, buf, len, &off);

	if (n < 0)
		return n;
	if (n != len)
		return cfs_corrupt(sbi, "short read at offset %llu", pos);
	return 0;
}

/*
 * Metadata is read in small pieces scattered over the image (an inode, a
 * dirent, a name), which read_mapping_folio() alone would fetch one page per
 * synchronous I/O on a cold cache.  On a miss, read a window around the page
 * first: a cold walk then costs a few large reads of the compact image.
 * Mounting reads only the superblock and the root inode, and windows
 * there would only make the mount slower: they start after it.
 */
#define CFS_READAHEAD_PAGES 32

static struct folio *cfs_get_folio(struct cfs_sb_info *sbi, pgoff_t index)
{
	struct address_space *mapping = sbi->image->f_mapping;
	struct folio *folio = filemap_get_folio(mapping, index);

	if (folio && folio_test_uptodate(folio))
		return folio;
	if (folio)
		folio_put(folio);
	else if (sbi->readahead)
		page_cache_sync_readahead(mapping, &sbi->image->f_ra,
					  sbi->image, index,
					  CFS_READAHEAD_PAGES);
	return read_mapping_folio(mapping, index, sbi->image);
}

/* Copy @len bytes at absolute offset @pos of the image into @buf. */
int cfs_read(struct cfs_sb_info *sbi, u64 pos, void *buf, size_t len)
{
	char *dst = buf;

	if (pos > sbi->image_size || len > sbi->image_size - pos)
		return cfs_corrupt(sbi, "%zu bytes at offset %llu: past the end",
				   len, pos);
	if (!sbi->image->f_mapping->a_ops->read_folio)
		return cfs_read_file(sbi, pos, buf, len);

	while (len) {
		pgoff_t index = pos >> PAGE_SHIFT;
		size_t off = offset_in_page(pos);
		size_t n = min_t(size_t, len, PAGE_SIZE - off);
		struct folio *folio = cfs_get_folio(sbi, index);

		if (IS_ERR(folio))
			return PTR_ERR(folio);
		memcpy_from_page(dst, folio_file_page(folio, index), off, n);
		folio_put(folio);
		dst += n;
		pos += n;
		len -= n;
	}
	return 0;
}

int cfs_check_superblock(struct cfs_sb_info *sbi)
{
	struct cfs_disk_superblock sb;
	u64 vdata;
	int err, i;

	if (sbi->image_size < CFS_SUPERBLOCK_SIZE + CFS_INODE_SIZE)
		return cfs_corrupt(sbi, "smaller than a superblock and one inode");
	err = cfs_read(sbi, 0, &sb, sizeof(sb));
	if (err)
		return err;
	if (le32_to_cpu(sb.magic) != CFS_MAGIC ||
	    le32_to_cpu(sb.version) != CFS_VERSION)
		return cfs_corrupt(sbi, "bad magic or version");
	for (i = 0; i < ARRAY_SIZE(sb.unused); i++)
		if (sb.unused[i])
			return cfs_corrupt(sbi, "reserved superblock bytes set");

	vdata = le64_to_cpu(sb.vdata_offset);
	if (vdata < CFS_SUPERBLOCK_SIZE + CFS_INODE_SIZE ||
	    vdata > sbi->image_size || vdata % CFS_VDATA_ALIGN ||
	    (vdata - CFS_SUPERBLOCK_SIZE) % CFS_INODE_SIZE)
		return cfs_corrupt(sbi, "vdata_offset %llu: outside or misaligned",
				   vdata);
	sbi->vdata_offset = vdata;
	sbi->num_inodes = (vdata - CFS_SUPERBLOCK_SIZE) / CFS_INODE_SIZE;
	return 0;
}

int cfs_read_inode(struct cfs_sb_info *sbi, u64 index, struct cfs_disk_inode *ci)
{
	if (index >= sbi->num_inodes)
		return cfs_corrupt(sbi, "inode %llu: beyond the inode table",
				   index);
	return cfs_read(sbi, CFS_SUPERBLOCK_SIZE + index * CFS_INODE_SIZE, ci,
			sizeof(*ci));
}

/* Turn a vdata reference into an absolute, in-bounds range. */
int cfs_ref_get(struct cfs_sb_info *sbi, const struct cfs_disk_vdata *vd,
		struct cfs_ref *ref)
{
	u64 size = sbi->image_size - sbi->vdata_offset;
	u64 off = le64_to_cpu(vd->off);
	u32 len = le32_to_cpu(vd->len);

	if (off > size || len > size - off)
		return cfs_corrupt(sbi, "reference of %u bytes at %llu: outside the variable data",
				   len, off);
	ref->pos = sbi->vdata_offset + off;
	ref->len = len;
	return 0;
}

int cfs_name_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int r = memcmp(a, b, min(alen, blen));

	if (r)
		return r;
	if (alen == blen)
		return 0;
	return alen < blen ? -1 : 1;
}

int cfs_dir_count(struct cfs_sb_info *sbi, const struct cfs_ref *dir,
		  u32 *n_dirents)
{
	__le32 n;
	int err;

	*n_dirents = 0;
	if (!dir->len)
		return 0;
	if (dir->len < sizeof(n) || dir->pos % CFS_VDATA_ALIGN)
		return cfs_corrupt(sbi, "directory chunk at %llu: too short or not aligned",
				   dir->pos);
	err = cfs_read(sbi, dir->pos, &n, sizeof(n));
	if (err)
		return err;
	if ((u64)le32_to_cpu(n) * CFS_DIRENT_SIZE > dir->len - sizeof(n))
		return cfs_corrupt(sbi, "directory chunk at %llu: %u dirents do not fit",
				   dir->pos, le32_to_cpu(n));
	*n_dirents = le32_to_cpu(n);
	return 0;
}

static int cfs_check_name(struct cfs_sb_info *sbi, const struct cfs_name *e)
{
	if (memchr(e->name, '/', e->len) || memchr(e->name, '\0', e->len))
		return cfs_corrupt(sbi, "dirent \"%*pE\": '/' or NUL in a name",
				   e->len, e->name);
	if ((e->len == 1 && e->name[0] == '.') ||
	    (e->len == 2 && e->name[0] == '.' && e->name[1] == '.'))
		return cfs_corrupt(sbi, "dirent named . or ..");
	return 0;
}

/*
 * Read dirent @i of a directory chunk, with its name, checking its bounds
 * and the name on every read: an image mounted without digest= is a file
 * that can be written while mounted.
 */
int cfs_dir_entry(struct cfs_sb_info *sbi, const struct cfs_ref *dir,
		  u32 n_dirents, u32 i, struct cfs_name *out)
{
	u64 names = dir->pos + sizeof(__le32) + (u64)n_dirents * CFS_DIRENT_SIZE;
	u64 names_len = dir->pos + dir->len - names;
	struct cfs_disk_dirent de;
	u32 name_off;
	int err;

	if (i >= n_dirents)
		return cfs_corrupt(sbi, "dirent %u of %u", i, n_dirents);
	err = cfs_read(sbi, dir->pos + sizeof(__le32) + (u64)i * CFS_DIRENT_SIZE,
		       &de, sizeof(de));
	if (err)
		return err;
	name_off = le32_to_cpu(de.name_offset);
	if (!de.name_len || name_off > names_len ||
	    de.name_len > names_len - name_off)
		return cfs_corrupt(sbi, "dirent %u: empty name or name outside its chunk",
				   i);
	out->inode_num = le32_to_cpu(de.inode_num);
	out->d_type = de.d_type;
	out->len = de.name_len;
	if (out->inode_num >= sbi->num_inodes || de._padding)
		return cfs_corrupt(sbi, "dirent %u: inode %u beyond the table, or padding set",
				   i, out->inode_num);
	err = cfs_read(sbi, names + name_off, out->name, out->len);
	if (err)
		return err;
	return cfs_check_name(sbi, out);
}

static bool cfs_dtype_valid(u8 d_type)
{
	switch (d_type) {
	case DT_REG:
	case DT_DIR:
	case DT_LNK:
	case DT_CHR:
	case DT_BLK:
	case DT_FIFO:
	case DT_SOCK:
		return true;
	}
	return false;
}

static int cfs_check_dirent(struct cfs_sb_info *sbi, const struct cfs_name *e)
{
	struct cfs_disk_inode target;
	int err;

	if (!cfs_dtype_valid(e->d_type) || e->inode_num == CFS_ROOT_INO)
		return cfs_corrupt(sbi, "dirent \"%*pE\": bad d_type %u or names the root",
				   e->len, e->name, e->d_type);
	err = cfs_read_inode(sbi, e->inode_num, &target);
	if (err)
		return err;
	if (S_DT(le32_to_cpu(target.st_mode)) != e->d_type)
		return cfs_corrupt(sbi, "dirent \"%*pE\": d_type %u, inode %u has another type",
				   e->len, e->name, e->d_type, e->inode_num);
	return 0;
}

/*
 * Check a whole directory chunk once, when its inode is loaded: names,
 * strict sort order (which also rules out duplicates), inode ranges and
 * d_type against the target inode.
 */
int cfs_dir_validate(struct cfs_sb_info *sbi, const struct cfs_ref *dir,
		     u32 n_dirents)
{
	struct cfs_name *buf, *cur, *prev;
	int err = 0;
	u32 i;

	if (!n_dirents)
		return 0;
	buf = kmalloc_array(2, sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	cur = buf;
	prev = buf + 1;
	for (i = 0; i < n_dirents; i++) {
		err = cfs_dir_entry(sbi, dir, n_dirents, i, cur);
		if (!err)
			err = cfs_check_dirent(sbi, cur);
		if (!err && i &&
		    cfs_name_cmp(prev->name, prev->len, cur->name, cur->len) >= 0)
			err = cfs_corrupt(sbi, "dirent \"%*pE\": names not sorted or repeated",
					  cur->len, cur->name);
		if (err)
			break;
		swap(cur, prev);
		if (fatal_signal_pending(current)) {
			err = -EINTR;
			break;
		}
		cond_resched();
	}
	kfree(buf);
	return err;
}

static bool cfs_backing_path_valid(const char *p, size_t len)
{
	const char *c = p, *end = p + len;

	if (p[0] == '/')
		return false;
	while (c < end) {
		const char *slash = memchr(c, '/', end - c);
		size_t n = (slash ? slash : end) - c;

		if (n == 2 && c[0] == '.' && c[1] == '.')
			return false;
		c += n + 1;
	}
	return true;
}

/*
 * Read a backing path or symlink target into a new NUL-terminated string.
 */
char *cfs_read_path(struct cfs_sb_info *sbi, const struct cfs_ref *ref,
		    bool backing)
{
	char *s;
	int err;

	if (!ref->len || ref->len > CFS_MAX_PATH)
		return ERR_PTR(cfs_corrupt(sbi, "path of %u bytes at %llu, not 1 to %d",
					   ref->len, ref->pos, CFS_MAX_PATH));
	s = kmalloc(ref->len + 1, GFP_KERNEL);
	if (!s)
		return ERR_PTR(-ENOMEM);
	err = cfs_read(sbi, ref->pos, s, ref->len);
	if (!err && memchr(s, '\0', ref->len))
		err = cfs_corrupt(sbi, "path at %llu: NUL inside", ref->pos);
	if (!err && backing && !cfs_backing_path_valid(s, ref->len))
		err = cfs_corrupt(sbi, "backing path \"%*pE\": absolute or with ..",
				  (int)ref->len, s);
	if (err) {
		kfree(s);
		return ERR_PTR(err);
	}
	s[ref->len] = '\0';
	return s;
}
