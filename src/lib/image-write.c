// SPDX-License-Identifier: MIT
/*
 * Image writer: tree -> composefs v1 bytes. Inodes are numbered breadth
 * first with each directory's children in name order, so a directory's
 * entries sit next to each other in the inode table. Identical payloads,
 * digests and xattr chunks are stored once.
 */
#include "cfs/image.h"

#include <endian.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>

#include "path.h"
#include "rules.h"
#include "cfs/hashtab.h"
#include "cfs/util.h"

#define NO_INO UINT32_MAX

/* A blob stored in vdata, for sharing with an identical one. */
struct blob {
	uint64_t off;
	uint32_t len, align;
};

struct writer {
	struct cfs_inode **inodes;     /* by inode number */
	const struct cfs_node **names; /* a name of each, for messages */
	uint32_t n_inodes, cap_inodes;
	/*
	 * The image as it is built: superblock and inode table (written in
	 * place once each inode's vdata is out), then vdata from base on.
	 */
	struct cfs_buf img;
	uint64_t base;
	struct blob *blobs;
	size_t n_blobs, cap_blobs;
	struct cfs_htab blob_index; /* content hash -> blobs index + 1 */
	/*
	 * Random per build, so that blobs from an image (symlink targets,
	 * xattrs) cannot be chosen to collide; the output does not depend
	 * on it, as a blob is shared only with an identical one.
	 */
	uint64_t seed;
};

static bool blob_equal(const struct writer *w, const struct blob *b,
		       const void *p, uint32_t len, size_t align)
{
	return b->len == len && b->align == align &&
	       memcmp(w->img.data + w->base + b->off, p, len) == 0;
}

/* Offsets in vdata are from its start, which is aligned (see build). */
static uint64_t vdata_len(const struct writer *w)
{
	return w->img.len - w->base;
}

static const struct blob *blob_add(struct writer *w, const void *p,
				   uint32_t len, size_t align, uint64_t hash)
{
	struct blob *b;

	if (w->n_blobs == w->cap_blobs) {
		w->cap_blobs = w->cap_blobs ? 2 * w->cap_blobs : 1024;
		w->blobs = xrealloc(w->blobs, w->cap_blobs * sizeof(*w->blobs));
	}
	cfs_buf_align(&w->img, align);
	b = &w->blobs[w->n_blobs++];
	*b = (struct blob){vdata_len(w), len, (uint32_t)align};
	cfs_buf_append(&w->img, p, len);
	cfs_htab_insert(&w->blob_index, hash, w->n_blobs);
	return b;
}

/* Appends bytes to vdata (aligned), or finds an identical earlier copy. */
static void put_blob(struct writer *w, const void *p, uint32_t len,
		     size_t align, struct cfs_disk_vdata *ref)
{
	uint64_t h = cfs_hash_bytes(p, len, w->seed ^ align);
	const struct blob *b = NULL;
	struct cfs_htab_probe probe;

	for (size_t v = cfs_htab_first(&w->blob_index, h, &probe); v;
	     v = cfs_htab_next(&w->blob_index, &probe)) {
		if (blob_equal(w, &w->blobs[v - 1], p, len, align)) {
			b = &w->blobs[v - 1];
			break;
		}
	}
	if (!b)
		b = blob_add(w, p, len, align, h);
	ref->off = htole64(b->off);
	ref->len = htole32(len);
}

static void add_inode(struct writer *w, const struct cfs_node *n)
{
	struct cfs_inode *ino = n->inode;

	if (w->n_inodes == w->cap_inodes) {
		w->cap_inodes = w->cap_inodes ? 2 * w->cap_inodes : 1024;
		w->inodes =
			xrealloc(w->inodes, w->cap_inodes * sizeof(*w->inodes));
		w->names =
			xrealloc(w->names, w->cap_inodes * sizeof(*w->names));
	}
	w->names[w->n_inodes] = n;
	ino->ino = w->n_inodes;
	w->inodes[w->n_inodes++] = ino;
}

static int reset_ino(struct cfs_node *n, void *opaque)
{
	n->inode->ino = NO_INO;
	return 0;
}

static int tree_error(const struct cfs_node *n, const char *what)
{
	char *path = cfs_node_path(n);

	cfs_error("%s: %s", path, what);
	free(path);
	return -1;
}

/* Breadth-first numbering; also checks names and directory hard links. */
static int number_inodes(struct writer *w, struct cfs_tree *t)
{
	cfs_tree_walk(t, reset_ino, NULL);
	add_inode(w, t->root);
	for (uint32_t q = 0; q < w->n_inodes; q++) {
		struct cfs_inode *d = w->inodes[q];

		if (!S_ISDIR(d->mode))
			continue;
		for (uint32_t i = 0; i < d->n_children; i++) {
			struct cfs_node *c = d->children[i];

			if (!cfs_name_ok(c->name, c->name_len) ||
			    strlen(c->name) != c->name_len)
				return tree_error(c, "invalid file name");
			if (c->inode->ino != NO_INO) {
				if (S_ISDIR(c->inode->mode))
					return tree_error(
						c, "directory hard link");
				continue;
			}
			if (w->n_inodes == UINT32_MAX - 1)
				return tree_error(c, "too many inodes");
			add_inode(w, c);
		}
	}
	return 0;
}

/* A directory chunk is never shared: it goes straight into vdata. */
static void put_dir(struct writer *w, struct cfs_inode *d,
		    struct cfs_disk_inode *di)
{
	uint32_t name_off = 0;
	__le32 n = htole32(d->n_children);
	uint64_t start;

	if (d->n_children == 0)
		return;
	cfs_buf_align(&w->img, CFS_VDATA_ALIGN);
	start = vdata_len(w);
	cfs_buf_append(&w->img, &n, sizeof(n));
	for (uint32_t i = 0; i < d->n_children; i++) {
		const struct cfs_node *c = d->children[i];
		struct cfs_disk_dirent de = {
			.inode_num = htole32(c->inode->ino),
			.name_offset = htole32(name_off),
			.name_len = (uint8_t)c->name_len,
			.d_type = (uint8_t)((c->inode->mode & S_IFMT) >> 12),
		};

		cfs_buf_append(&w->img, &de, sizeof(de));
		name_off += c->name_len;
	}
	for (uint32_t i = 0; i < d->n_children; i++)
		cfs_buf_append(&w->img, d->children[i]->name,
			       d->children[i]->name_len);
	di->variable_data.off = htole64(start);
	di->variable_data.len = htole32((uint32_t)(vdata_len(w) - start));
	di->st_size = htole64(vdata_len(w) - start);
}

static const char *put_xattrs(struct writer *w, const struct cfs_inode *ino,
			      struct cfs_disk_inode *di)
{
	struct cfs_buf chunk = {0};
	__le16 n = htole16((uint16_t)ino->n_xattrs);

	if (ino->n_xattrs == 0)
		return NULL;
	if (ino->n_xattrs > CFS_MAX_XATTRS)
		return "too many xattrs";
	cfs_buf_append(&chunk, &n, sizeof(n));
	for (uint32_t i = 0; i < ino->n_xattrs; i++) {
		const struct cfs_xattr *x = &ino->xattrs[i];
		size_t klen = strlen(x->key);
		struct cfs_disk_xattr_element e = {
			.key_length = htole16((uint16_t)klen),
			.value_length = htole16((uint16_t)x->value_len),
		};

		if (klen < 1 || klen > CFS_MAX_XATTR_KEY ||
		    x->value_len > CFS_MAX_XATTR_VALUE ||
		    (i && strcmp(ino->xattrs[i - 1].key, x->key) >= 0)) {
			cfs_buf_free(&chunk);
			return "invalid, unsorted or oversized xattr";
		}
		cfs_buf_append(&chunk, &e, sizeof(e));
	}
	for (uint32_t i = 0; i < ino->n_xattrs; i++) {
		const struct cfs_xattr *x = &ino->xattrs[i];

		cfs_buf_append(&chunk, x->key, strlen(x->key));
		cfs_buf_append(&chunk, x->value, x->value_len);
	}
	put_blob(w, chunk.data, (uint32_t)chunk.len, CFS_VDATA_ALIGN,
		 &di->xattrs);
	cfs_buf_free(&chunk);
	return NULL;
}

static const char *put_payload(struct writer *w, const struct cfs_inode *ino,
			       struct cfs_disk_inode *di)
{
	size_t len = ino->payload ? strlen(ino->payload) : 0;

	if (S_ISLNK(ino->mode) && (len < 1 || len > CFS_MAX_PATH))
		return "symlink target empty or longer than 4095 bytes";
	if (S_ISREG(ino->mode)) {
		if (ino->size > 0 && !cfs_backing_path_ok(ino->payload, len))
			return "missing or invalid backing path";
		if (ino->size == 0)
			len = 0;
	} else if (!S_ISLNK(ino->mode)) {
		len = 0;
	}
	if (len)
		put_blob(w, ino->payload, (uint32_t)len, 1, &di->variable_data);
	if (S_ISREG(ino->mode) && ino->size > 0 && ino->has_digest)
		put_blob(w, ino->digest, CFS_DIGEST_SIZE, 1, &di->digest);
	return NULL;
}

static uint32_t count_subdirs(const struct cfs_inode *d)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < d->n_children; i++)
		n += S_ISDIR(d->children[i]->inode->mode) ? 1 : 0;
	return n;
}

/* Returns NULL, or why the inode cannot be written. */
static const char *put_inode(struct writer *w, struct cfs_inode *ino,
			     struct cfs_disk_inode *di)
{
	bool dev = S_ISCHR(ino->mode) || S_ISBLK(ino->mode);
	const char *why;

	if (!cfs_mode_ok(ino->mode))
		return "invalid mode";
	if (ino->mtime_nsec > CFS_MAX_NSEC)
		return "nanoseconds out of range";
	memset(di, 0, sizeof(*di));
	di->st_mode = htole32(ino->mode);
	di->st_nlink = htole32(S_ISDIR(ino->mode) ? 2 + count_subdirs(ino)
						  : ino->refcount);
	di->st_uid = htole32(ino->uid);
	di->st_gid = htole32(ino->gid);
	di->st_rdev = htole32(dev ? ino->rdev : 0);
	di->st_mtim_sec = htole64((uint64_t)ino->mtime_sec);
	di->st_mtim_nsec = htole32(ino->mtime_nsec);
	di->st_ctim_sec = di->st_mtim_sec;
	di->st_ctim_nsec = di->st_mtim_nsec;
	if (S_ISDIR(ino->mode)) {
		put_dir(w, ino, di);
	} else {
		if (S_ISREG(ino->mode) || S_ISLNK(ino->mode))
			di->st_size = htole64(ino->size);
		why = put_payload(w, ino, di);
		if (why)
			return why;
	}
	return put_xattrs(w, ino, di);
}

static void writer_free(struct writer *w)
{
	free(w->inodes);
	free(w->names);
	free(w->blobs);
	cfs_htab_free(&w->blob_index);
	cfs_buf_free(&w->img);
}

/* At most how many blobs put_inodes adds: each is one probe, no growth. */
static size_t max_blobs(const struct writer *w)
{
	size_t n = 0;

	for (uint32_t i = 0; i < w->n_inodes; i++) {
		const struct cfs_inode *ino = w->inodes[i];

		n += S_ISREG(ino->mode) ? 2 : S_ISLNK(ino->mode) ? 1 : 0;
		n += ino->n_xattrs > 0;
	}
	return n;
}

/* Returns 0, or -1 after naming the inode that cannot be written. */
static int put_inodes(struct writer *w)
{
	for (uint32_t i = 0; i < w->n_inodes; i++) {
		struct cfs_disk_inode di;
		const char *why = put_inode(w, w->inodes[i], &di);

		if (why)
			return tree_error(w->names[i], why);
		/* after put_inode: its vdata may have moved the buffer */
		memcpy(w->img.data + CFS_SUPERBLOCK_SIZE +
			       (uint64_t)i * CFS_INODE_SIZE,
		       &di, sizeof(di));
	}
	return 0;
}

int cfs_image_build(struct cfs_tree *t, uint8_t **out, size_t *out_len)
{
	struct writer w = {0};
	struct cfs_disk_superblock sb = {0};

	_Static_assert(sizeof(struct cfs_disk_inode) == CFS_INODE_SIZE,
		       "inode table entry size");
	_Static_assert(CFS_SUPERBLOCK_SIZE % CFS_VDATA_ALIGN == 0 &&
			       CFS_INODE_SIZE % CFS_VDATA_ALIGN == 0,
		       "vdata starts aligned, so offsets in it align alike");
	if (getrandom(&w.seed, sizeof(w.seed), GRND_NONBLOCK) != sizeof(w.seed))
		w.seed = (uint64_t)(uintptr_t)&w ^ (uint64_t)time(NULL);
	if (number_inodes(&w, t) < 0) {
		writer_free(&w);
		return -1;
	}
	w.base = CFS_SUPERBLOCK_SIZE + (uint64_t)w.n_inodes * CFS_INODE_SIZE;
	cfs_buf_zero(&w.img, w.base);
	cfs_htab_reserve(&w.blob_index, max_blobs(&w));
	if (put_inodes(&w) < 0) {
		writer_free(&w);
		return -1;
	}
	sb.version = htole32(CFS_VERSION);
	sb.magic = htole32(CFS_MAGIC);
	sb.vdata_offset = htole64(w.base);
	memcpy(w.img.data, &sb, sizeof(sb));
	*out = w.img.data;
	*out_len = w.img.len;
	w.img = (struct cfs_buf){0};
	writer_free(&w);
	return 0;
}
