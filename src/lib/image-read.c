// SPDX-License-Identifier: MIT
/*
 * Validating image reader. cfs_image_open_mem checks every rule of the
 * format once, up front, so the accessors can trust the bytes. Every
 * offset is checked before use and every count is bounded by the input
 * size, so any byte string is rejected cleanly.
 */
#include "cfs/image.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "path.h"
#include "rules.h"
#include "cfs/util.h"

static int corrupt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int corrupt(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cfs_error("corrupt image: %s", msg);
	return -1;
}

static const struct cfs_disk_inode *disk_inode(const struct cfs_image *img,
					       uint32_t ino)
{
	return (const struct cfs_disk_inode *)(img->data + CFS_SUPERBLOCK_SIZE +
					       (size_t)ino * CFS_INODE_SIZE);
}

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return le16toh(v);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

/* Resolves a vdata reference; NULL pointer with len 0 when absent. */
static int get_ref(const struct cfs_image *img, const struct cfs_disk_vdata *r,
		   const uint8_t **p, uint32_t *len, uint32_t ino,
		   const char *what)
{
	uint64_t off = le64toh(r->off);

	*len = le32toh(r->len);
	*p = NULL;
	if (*len == 0)
		return 0;
	if (off > img->vdata_size || *len > img->vdata_size - off)
		return corrupt("inode %u: %s out of bounds", ino, what);
	*p = img->vdata + off;
	return 0;
}

static void decode_inode(const struct cfs_image *img, uint32_t ino,
			 struct cfs_image_inode *out)
{
	const struct cfs_disk_inode *d = disk_inode(img, ino);
	uint32_t len;

	memset(out, 0, sizeof(*out));
	out->ino = ino;
	out->mode = le32toh(d->st_mode);
	out->nlink = le32toh(d->st_nlink);
	out->uid = le32toh(d->st_uid);
	out->gid = le32toh(d->st_gid);
	out->rdev = le32toh(d->st_rdev);
	out->size = le64toh(d->st_size);
	out->mtime_sec = (int64_t)le64toh(d->st_mtim_sec);
	out->mtime_nsec = le32toh(d->st_mtim_nsec);
	out->ctime_sec = (int64_t)le64toh(d->st_ctim_sec);
	out->ctime_nsec = le32toh(d->st_ctim_nsec);
	/* Bounds were validated at open; these cannot fail afterwards. */
	get_ref(img, &d->variable_data, &out->vdata, &out->vdata_len, ino, "");
	get_ref(img, &d->xattrs, &out->xattrs, &out->xattrs_len, ino, "");
	get_ref(img, &d->digest, &out->digest, &len, ino, "");
}

static int check_refs(const struct cfs_image *img, uint32_t ino)
{
	const struct cfs_disk_inode *d = disk_inode(img, ino);
	const uint8_t *p;
	uint32_t len;

	if (get_ref(img, &d->variable_data, &p, &len, ino, "variable data") ||
	    get_ref(img, &d->xattrs, &p, &len, ino, "xattrs"))
		return -1;
	if (len && (le64toh(d->xattrs.off) % CFS_VDATA_ALIGN))
		return corrupt("inode %u: misaligned xattrs", ino);
	if (get_ref(img, &d->digest, &p, &len, ino, "digest"))
		return -1;
	if (len != 0 && len != CFS_DIGEST_SIZE)
		return corrupt("inode %u: digest length %u", ino, len);
	if (d->unused[0] || d->unused[1])
		return corrupt("inode %u: unused fields not zero", ino);
	return 0;
}

static int check_nondir(const struct cfs_image_inode *in)
{
	uint32_t type = in->mode & S_IFMT;

	if (in->digest && type != S_IFREG)
		return corrupt("inode %u: digest on a non-regular file",
			       in->ino);
	if (type != S_IFCHR && type != S_IFBLK && in->rdev)
		return corrupt("inode %u: rdev on a non-device", in->ino);
	if (type == S_IFREG) {
		if (in->size == 0 && (in->vdata_len || in->digest))
			return corrupt("inode %u: empty file with backing data",
				       in->ino);
		if (in->size > 0 &&
		    !cfs_backing_path_ok(in->vdata, in->vdata_len))
			return corrupt("inode %u: bad backing path", in->ino);
		return 0;
	}
	if (type == S_IFLNK) {
		if (in->vdata_len < 1 || in->vdata_len > CFS_MAX_PATH ||
		    memchr(in->vdata, 0, in->vdata_len))
			return corrupt("inode %u: bad symlink target", in->ino);
		if (in->size != in->vdata_len)
			return corrupt("inode %u: symlink size mismatch",
				       in->ino);
		return 0;
	}
	if (in->vdata_len || in->size)
		return corrupt("inode %u: special file with data", in->ino);
	return 0;
}

static int check_xattrs(const struct cfs_image_inode *in)
{
	uint32_t n, pos, prev_len = 0;
	const uint8_t *prev = NULL;

	if (!in->xattrs)
		return 0;
	if (in->xattrs_len < 2)
		return corrupt("inode %u: short xattr chunk", in->ino);
	n = get16(in->xattrs);
	if (2 + (uint64_t)n * CFS_XATTR_ELEM_SIZE > in->xattrs_len)
		return corrupt("inode %u: xattr count too large", in->ino);
	pos = 2 + n * CFS_XATTR_ELEM_SIZE;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = in->xattrs + 2 + i * CFS_XATTR_ELEM_SIZE;
		uint32_t klen = get16(e), vlen = get16(e + 2);
		const uint8_t *key = in->xattrs + pos;

		if ((uint64_t)pos + klen + vlen > in->xattrs_len)
			return corrupt("inode %u: xattr out of bounds",
				       in->ino);
		if (klen < 1 || memchr(key, 0, klen))
			return corrupt("inode %u: bad xattr key", in->ino);
		if (prev && cfs_name_cmp((const char *)prev, prev_len,
					 (const char *)key, klen) >= 0)
			return corrupt("inode %u: xattrs unsorted or duplicate",
				       in->ino);
		prev = key;
		prev_len = klen;
		pos += klen + vlen;
	}
	return 0;
}

struct shape {
	uint32_t *refs;	   /* dirents naming each inode */
	uint32_t *subdirs; /* subdirectories of each directory */
};

static int check_dirent(const struct cfs_image *img,
			const struct cfs_image_inode *in, uint32_t i,
			const struct cfs_image_dirent *prev,
			struct cfs_image_dirent *de, struct shape *sh)
{
	uint32_t n = get32(in->vdata);
	const uint8_t *raw = in->vdata + 4 + i * CFS_DIRENT_SIZE;
	uint32_t names = 4 + n * CFS_DIRENT_SIZE;
	uint32_t name_off = get32(raw + 4), child_mode;

	de->ino = get32(raw);
	de->name_len = raw[8];
	de->d_type = raw[9];
	if (raw[10] || raw[11])
		return corrupt("inode %u: dirent padding not zero", in->ino);
	if ((uint64_t)names + name_off + de->name_len > in->vdata_len)
		return corrupt("inode %u: dirent name out of bounds", in->ino);
	de->name = (const char *)in->vdata + names + name_off;
	if (!cfs_name_ok(de->name, de->name_len))
		return corrupt("inode %u: bad file name", in->ino);
	if (prev && cfs_name_cmp(prev->name, prev->name_len, de->name,
				 de->name_len) >= 0)
		return corrupt("inode %u: dirents unsorted or duplicate",
			       in->ino);
	if (de->ino == CFS_ROOT_INO || de->ino >= img->n_inodes)
		return corrupt("inode %u: dirent inode %u out of range",
			       in->ino, de->ino);
	child_mode = le32toh(disk_inode(img, de->ino)->st_mode);
	if (de->d_type != ((child_mode & S_IFMT) >> 12))
		return corrupt("inode %u: dirent type does not match inode %u",
			       in->ino, de->ino);
	sh->refs[de->ino]++;
	if (S_ISDIR(child_mode))
		sh->subdirs[in->ino]++;
	return 0;
}

static int check_dir(const struct cfs_image *img,
		     const struct cfs_image_inode *in, struct shape *sh)
{
	struct cfs_image_dirent prev, de;
	uint32_t n;

	if (in->rdev || in->digest)
		return corrupt("inode %u: directory with rdev or digest",
			       in->ino);
	if (in->size != in->vdata_len)
		return corrupt("inode %u: directory size mismatch", in->ino);
	if (!in->vdata)
		return 0;
	if ((in->vdata - img->vdata) % CFS_VDATA_ALIGN || in->vdata_len < 4)
		return corrupt("inode %u: bad dirent chunk", in->ino);
	n = get32(in->vdata);
	if (4 + (uint64_t)n * CFS_DIRENT_SIZE > in->vdata_len)
		return corrupt("inode %u: dirent count too large", in->ino);
	for (uint32_t i = 0; i < n; i++) {
		if (check_dirent(img, in, i, i ? &prev : NULL, &de, sh))
			return -1;
		prev = de;
	}
	return 0;
}

static int check_inode(const struct cfs_image *img, uint32_t ino,
		       struct shape *sh)
{
	struct cfs_image_inode in;

	if (check_refs(img, ino) < 0)
		return -1;
	decode_inode(img, ino, &in);
	if (!cfs_mode_ok(in.mode))
		return corrupt("inode %u: invalid mode %o", ino, in.mode);
	if (in.mtime_nsec > CFS_MAX_NSEC || in.ctime_nsec > CFS_MAX_NSEC)
		return corrupt("inode %u: nanoseconds out of range", ino);
	if (check_xattrs(&in) < 0)
		return -1;
	return S_ISDIR(in.mode) ? check_dir(img, &in, sh) : check_nondir(&in);
}

static int check_nlinks(const struct cfs_image *img, const struct shape *sh)
{
	for (uint32_t ino = 0; ino < img->n_inodes; ino++) {
		const struct cfs_disk_inode *d = disk_inode(img, ino);
		uint32_t mode = le32toh(d->st_mode), nlink;

		if (!sh->refs[ino] && ino != CFS_ROOT_INO)
			continue; /* unnamed inodes are never reached */
		nlink = S_ISDIR(mode) ? 2 + sh->subdirs[ino] : sh->refs[ino];
		if (le32toh(d->st_nlink) != nlink)
			return corrupt("inode %u: link count %u, expected %u",
				       ino, le32toh(d->st_nlink), nlink);
	}
	return 0;
}

/*
 * Every directory but the root is named exactly once and reachable from
 * the root: no hard-linked directories and no cycles. A breadth-first walk
 * from the root counts the directories it reaches; a named directory it
 * misses can only sit in a cycle.
 */
static int check_shape(const struct cfs_image *img, struct shape *sh)
{
	uint32_t *queue, head = 0, tail = 0, named_dirs = 0;
	int r = 0;

	if (!S_ISDIR(le32toh(disk_inode(img, CFS_ROOT_INO)->st_mode)))
		return corrupt("root inode is not a directory");
	for (uint32_t ino = 1; ino < img->n_inodes; ino++) {
		if (!S_ISDIR(le32toh(disk_inode(img, ino)->st_mode)) ||
		    !sh->refs[ino])
			continue;
		if (sh->refs[ino] != 1)
			return corrupt("directory inode %u linked %u times",
				       ino, sh->refs[ino]);
		named_dirs++;
	}
	queue = xcalloc((size_t)named_dirs + 1, sizeof(*queue));
	queue[tail++] = CFS_ROOT_INO;
	while (head < tail) {
		struct cfs_image_inode in;
		struct cfs_image_dirent de;

		decode_inode(img, queue[head++], &in);
		for (uint32_t i = 0; i < cfs_image_dir_count(&in); i++) {
			cfs_image_dir_entry(&in, i, &de);
			if (de.d_type != (S_IFDIR >> 12))
				continue;
			if (tail > named_dirs)
				break; /* impossible: each is named once */
			queue[tail++] = de.ino;
		}
	}
	free(queue);
	if (tail - 1 != named_dirs)
		r = corrupt("directory cycle (%u of %u directories reachable)",
			    tail - 1, named_dirs);
	return r ? r : check_nlinks(img, sh);
}

static int check_superblock(struct cfs_image *img)
{
	const struct cfs_disk_superblock *sb = (const void *)img->data;
	uint64_t vdata_offset, n;

	if (img->size < CFS_SUPERBLOCK_SIZE + CFS_INODE_SIZE)
		return corrupt("file too short (%zu bytes)", img->size);
	if (le32toh(sb->magic) != CFS_MAGIC)
		return corrupt("bad magic (not a composefs image)");
	if (le32toh(sb->version) != CFS_VERSION)
		return corrupt("unsupported version %u", le32toh(sb->version));
	for (int i = 0; i < 28; i++)
		if (sb->unused[i])
			return corrupt("superblock reserved fields not zero");
	vdata_offset = le64toh(sb->vdata_offset);
	if (vdata_offset < CFS_SUPERBLOCK_SIZE + CFS_INODE_SIZE ||
	    vdata_offset > img->size ||
	    (vdata_offset - CFS_SUPERBLOCK_SIZE) % CFS_INODE_SIZE)
		return corrupt("bad vdata offset %llu",
			       (unsigned long long)vdata_offset);
	n = (vdata_offset - CFS_SUPERBLOCK_SIZE) / CFS_INODE_SIZE;
	if (n > UINT32_MAX - 1)
		return corrupt("too many inodes");
	img->n_inodes = (uint32_t)n;
	img->vdata = img->data + vdata_offset;
	img->vdata_size = img->size - vdata_offset;
	return 0;
}

int cfs_image_open_mem(struct cfs_image *img, const void *data, size_t size)
{
	struct shape sh;
	int r = 0;

	memset(img, 0, sizeof(*img));
	img->data = data;
	img->size = size;
	if (check_superblock(img) < 0)
		return -1;
	sh.refs = xcalloc(img->n_inodes, sizeof(*sh.refs));
	sh.subdirs = xcalloc(img->n_inodes, sizeof(*sh.subdirs));
	for (uint32_t ino = 0; ino < img->n_inodes && r == 0; ino++)
		r = check_inode(img, ino, &sh);
	if (r == 0)
		r = check_shape(img, &sh);
	free(sh.refs);
	free(sh.subdirs);
	return r;
}

int cfs_image_open_file(struct cfs_image *img, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *map;

	memset(img, 0, sizeof(*img));
	if (fd < 0 || fstat(fd, &st) < 0) {
		cfs_error("%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		cfs_error("%s: not a regular file", path);
		return -1;
	}
	if (st.st_size == 0) {
		close(fd);
		cfs_error("%s: corrupt image: file is empty", path);
		return -1;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		cfs_error("%s: %s", path, strerror(errno));
		return -1;
	}
	if (cfs_image_open_mem(img, map, (size_t)st.st_size) < 0) {
		munmap(map, (size_t)st.st_size);
		cfs_error_prefix("%s", path);
		return -1;
	}
	img->map = map;
	img->map_len = (size_t)st.st_size;
	return 0;
}

void cfs_image_close(struct cfs_image *img)
{
	if (img->map)
		munmap(img->map, img->map_len);
	memset(img, 0, sizeof(*img));
}

void cfs_image_get_inode(const struct cfs_image *img, uint32_t ino,
			 struct cfs_image_inode *out)
{
	decode_inode(img, ino, out);
}

uint32_t cfs_image_dir_count(const struct cfs_image_inode *dir)
{
	return dir->vdata && S_ISDIR(dir->mode) ? get32(dir->vdata) : 0;
}

void cfs_image_dir_entry(const struct cfs_image_inode *dir, uint32_t i,
			 struct cfs_image_dirent *out)
{
	uint32_t n = get32(dir->vdata);
	const uint8_t *raw = dir->vdata + 4 + i * CFS_DIRENT_SIZE;

	out->ino = get32(raw);
	out->name_len = raw[8];
	out->d_type = raw[9];
	out->name = (const char *)dir->vdata + 4 + n * CFS_DIRENT_SIZE +
		    get32(raw + 4);
}

bool cfs_image_dir_lookup(const struct cfs_image_inode *dir, const char *name,
			  size_t len, struct cfs_image_dirent *out)
{
	uint32_t lo = 0, hi = cfs_image_dir_count(dir);

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c;

		cfs_image_dir_entry(dir, mid, out);
		c = cfs_name_cmp(out->name, out->name_len, name, len);
		if (c == 0)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

uint32_t cfs_image_xattr_count(const struct cfs_image_inode *ino)
{
	return ino->xattrs ? get16(ino->xattrs) : 0;
}

void cfs_image_xattr_get(const struct cfs_image_inode *ino, uint32_t i,
			 struct cfs_image_xattr *out)
{
	uint32_t n = get16(ino->xattrs);
	uint32_t pos = 2 + n * CFS_XATTR_ELEM_SIZE;

	for (uint32_t j = 0;; j++) {
		const uint8_t *e = ino->xattrs + 2 + j * CFS_XATTR_ELEM_SIZE;
		uint32_t klen = get16(e), vlen = get16(e + 2);

		if (j == i) {
			out->key = (const char *)ino->xattrs + pos;
			out->key_len = klen;
			out->value = ino->xattrs + pos + klen;
			out->value_len = vlen;
			return;
		}
		pos += klen + vlen;
	}
}
