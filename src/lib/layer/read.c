// SPDX-License-Identifier: MIT
/*
 * Reading one layer tar into a layer record. Two readers are chained: the
 * first undoes any compression (detected by magic: gzip through ISA-L, see
 * gunzip.h; zstd through libarchive's "raw" format, with only its built-in
 * zstd filter enabled, as libarchive runs external programs such as lzop
 * for some other formats; anything else is passed as is), and its
 * output is both hashed (the DiffID covers every uncompressed byte, including any
 * after the tar end marker) and fed to a "tar" reader. Regular file data
 * goes straight from the tar reader into the object store. The first stage
 * runs on a thread of its own a few blocks ahead (block-pipe.h): inflating
 * and hashing the stream take about as long as storing its files.
 * What a tar reads as is cached (cache.c): a change to it bumps
 * CACHE_VERSION there.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <archive.h>
#include <archive_entry.h>
#include <openssl/evp.h>

#include "block-pipe.h"
#include "cfs/escape.h"
#include "gunzip.h"
#include "path.h"
#include "rules.h"
#include "cfs/layer.h"
#include "cfs/util.h"

#define IN_BLOCK (1 << 20)
#define PIPE_BLOCK (1 << 20)
#define PIPE_BLOCKS 4
#define PROGRESS_STEP (4ull << 20)

struct reader {
	cfs_stream_fn fn;
	void *opaque;
	const char *name;
	uint8_t *inbuf;
	struct archive *raw, *tar;
	struct cfs_gunzip *gz;	     /* gzip layers: instead of raw */
	bool plain;		     /* uncompressed: neither gz nor raw */
	struct cfs_block_pipe *pipe; /* raw or gz output, on its own thread */
	size_t peeked; /* first input block, read to sniff magic */
	EVP_MD_CTX *sha;
	uint64_t in_bytes, bytes, next_progress;
	cfs_progress_fn progress;
	void *popaque;
	/* First failure below the tar reader (source or decompression). */
	char *src_err;
	/* Set when a file's data ran short while streaming into the store. */
	char *data_err;
};

static const char *archive_msg(struct archive *a)
{
	const char *m = archive_error_string(a);

	return m ? m : "truncated or malformed archive";
}

static void set_once(char **slot, const char *msg)
{
	if (!*slot)
		*slot = xstrdup(msg ? msg : "unknown error");
}

static ssize_t source_next(struct reader *r, const uint8_t **buf)
{
	ssize_t n;

	*buf = r->inbuf;
	if (r->peeked) {
		n = (ssize_t)r->peeked;
		r->peeked = 0;
		return n;
	}
	n = r->fn(r->opaque, r->inbuf, IN_BLOCK);
	if (n < 0)
		set_once(&r->src_err, cfs_strerror());
	else
		r->in_bytes += (uint64_t)n;
	return n;
}

static ssize_t gunzip_src(void *opaque, const uint8_t **buf)
{
	return source_next(opaque, buf);
}

static la_ssize_t source_read(struct archive *a, void *opaque, const void **buf)
{
	struct reader *r = opaque;
	const uint8_t *p;
	ssize_t n = source_next(r, &p);

	if (n < 0) {
		set_once(&r->src_err, cfs_strerror());
		archive_set_error(a, EIO, "%s", r->src_err);
		return ARCHIVE_FATAL;
	}
	*buf = p;
	return n;
}

static void account(struct reader *r, const void *p, size_t n)
{
	EVP_DigestUpdate(r->sha, p, n);
	r->bytes += n;
	if (r->progress && r->bytes >= r->next_progress) {
		r->progress(r->popaque, r->bytes);
		r->next_progress = r->bytes + PROGRESS_STEP;
	}
}

/* An uncompressed layer: the source's bytes, the sniffed block first. */
static int produce_plain(struct reader *r, void *buf, size_t cap, size_t *n)
{
	ssize_t got;

	_Static_assert(IN_BLOCK <= PIPE_BLOCK, "the sniffed block fits");
	if (r->peeked) {
		memcpy(buf, r->inbuf, r->peeked);
		got = (ssize_t)r->peeked;
		r->peeked = 0;
	} else {
		got = r->fn(r->opaque, buf, cap);
		if (got < 0) {
			set_once(&r->src_err, cfs_strerror());
			return -1;
		}
		r->in_bytes += (uint64_t)got;
	}
	*n = (size_t)got;
	if (got)
		account(r, buf, *n);
	return got > 0;
}

/* The pipe's producer: the next uncompressed bytes, hashed. */
static int produce(void *opaque, void *buf, size_t cap, size_t *n)
{
	struct reader *r = opaque;
	la_ssize_t got;
	int rc;

	if (r->gz) {
		rc = cfs_gunzip_read(r->gz, buf, cap, n);
		if (rc < 0)
			set_once(&r->src_err, cfs_strerror());
		if (rc == 1)
			account(r, buf, *n);
		return rc;
	}
	if (r->plain)
		return produce_plain(r, buf, cap, n);
	got = archive_read_data(r->raw, buf, cap);
	if (got < 0) {
		set_once(&r->src_err, archive_msg(r->raw));
		return -1;
	}
	*n = (size_t)got;
	if (got)
		account(r, buf, *n);
	return got > 0;
}

/* Next block of uncompressed bytes: 1 got some, 0 at the end, -1 error. */
static int raw_next(struct reader *r, const void **p, size_t *n)
{
	return cfs_block_pipe_next(r->pipe, p, n);
}

static la_ssize_t tar_read(struct archive *a, void *opaque, const void **buf)
{
	struct reader *r = opaque;
	size_t n = 0;
	int rc;

	do
		rc = raw_next(r, buf, &n);
	while (rc == 1 && n == 0);
	if (rc < 0) {
		archive_set_error(a, EIO, "%s", r->src_err);
		return ARCHIVE_FATAL;
	}
	return rc ? (la_ssize_t)n : 0;
}

/* Hashes whatever follows the tar end marker, then ends the source. */
static int drain(struct reader *r)
{
	const void *p;
	size_t n;
	int rc;

	while ((rc = raw_next(r, &p, &n)) == 1)
		;
	cfs_block_pipe_stop(r->pipe);
	r->pipe = NULL;
	if (rc < 0) {
		cfs_error("%s", r->src_err);
		return -1;
	}
	/* The source checks its size and digest only when read to its end. */
	for (;;) {
		ssize_t got = r->fn(r->opaque, r->inbuf, IN_BLOCK);

		if (got == 0)
			return 0;
		if (got < 0)
			return -1;
	}
}

static bool has_magic(const struct reader *r, size_t off, const char *m,
		      size_t len)
{
	return r->peeked >= off + len && !memcmp(r->inbuf + off, m, len);
}

/* Whether the first block is a tar header: its checksum adds up. */
static bool tar_header_ok(const struct reader *r)
{
	unsigned long want = 0, sum = 0;
	const uint8_t *h = r->inbuf;
	int i = 148;

	if (r->peeked < 512)
		return false;
	while (i < 156 && h[i] == ' ')
		i++;
	for (; i < 156 && h[i] != 0 && h[i] != ' '; i++) {
		if (h[i] < '0' || h[i] > '7')
			return false;
		want = want * 8 + (h[i] - '0');
	}
	for (i = 0; i < 512; i++)
		sum += i >= 148 && i < 156 ? ' ' : h[i];
	return sum == want;
}

/*
 * The compressions OCI layers do not use, by magic: refused by name rather
 * than fed to the tar reader (or, as libarchive would, to an external
 * program such as lzop or grzip).
 */
static const char *foreign_compression(const struct reader *r)
{
	static const struct {
		const char *name, *magic;
		size_t len;
	} known[] = {
		{"bzip2", "BZh", 3},
		{"xz",
		 "\xfd"
		 "7zXZ\0",
		 6},
		{"lzip", "LZIP", 4},
		{"lzop", "\x89LZO\0\r\n\x1a\n", 9},
		{"lz4", "\x04\x22\x4d\x18", 4},
		{"lz4 (legacy)", "\x02\x21\x4c\x18", 4},
		{"grzip", "GRZipII\0\x02\x04:)", 12},
		{"lrzip", "LRZI", 4},
		{"compress (.Z)", "\x1f\x9d", 2},
		{"uuencode", "begin ", 6},
		{"rpm", "\xed\xab\xee\xdb", 4},
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (has_magic(r, 0, known[i].magic, known[i].len))
			return known[i].name;
	return NULL;
}

/* zstd through libarchive's built-in filter, never the zstd program. */
static int open_zstd(struct reader *r)
{
	struct archive_entry *e;
	int rc;

	r->raw = archive_read_new();
	if (!r->raw) {
		cfs_error("out of memory");
		return -1;
	}
	if (!archive_libzstd_version() ||
	    archive_read_support_filter_zstd(r->raw) != ARCHIVE_OK) {
		cfs_error("zstd layers need libarchive built with libzstd");
		return -1;
	}
	archive_read_support_format_raw(r->raw);
	archive_read_set_read_callback(r->raw, source_read);
	archive_read_set_callback_data(r->raw, r);
	rc = archive_read_open1(r->raw);
	if (rc == ARCHIVE_OK)
		rc = archive_read_next_header(r->raw, &e);
	if (rc < ARCHIVE_WARN) {
		set_once(&r->src_err, archive_msg(r->raw));
		cfs_error("%s", r->src_err);
		return -1;
	}
	return 0;
}

/*
 * Reads the first block and picks the decompressor by its magic: gzip,
 * zstd, or none (a tar); any other compression is refused.
 */
static int open_raw(struct reader *r)
{
	ssize_t n = r->fn(r->opaque, r->inbuf, IN_BLOCK);
	const char *foreign;

	if (n < 0) {
		set_once(&r->src_err, cfs_strerror());
		return -1;
	}
	if (n == 0) {
		cfs_error("empty layer stream");
		return -1;
	}
	r->peeked = (size_t)n;
	r->in_bytes = (uint64_t)n;
	if (cfs_is_gzip(r->inbuf, r->peeked)) {
		r->gz = cfs_gunzip_new(gunzip_src, r);
		if (!r->gz) {
			cfs_error("cannot set up gzip decompression");
			return -1;
		}
		return 0;
	}
	if (has_magic(r, 0, "\x28\xb5\x2f\xfd", 4))
		return open_zstd(r);
	foreign = tar_header_ok(r) ? NULL : foreign_compression(r);
	if (foreign) {
		cfs_error("unsupported compression %s (a layer is a tar, "
			  "plain or compressed with gzip or zstd)",
			  foreign);
		return -1;
	}
	r->plain = true;
	return 0;
}

static int start_pipe(struct reader *r)
{
	r->pipe = cfs_block_pipe_start(produce, r, PIPE_BLOCK, PIPE_BLOCKS);
	return r->pipe ? 0 : -1;
}

static int open_tar(struct reader *r)
{
	r->tar = archive_read_new();
	if (!r->tar) {
		cfs_error("out of memory");
		return -1;
	}
	archive_read_support_format_tar(r->tar);
	archive_read_set_read_callback(r->tar, tar_read);
	archive_read_set_callback_data(r->tar, r);
	if (archive_read_open1(r->tar) < ARCHIVE_WARN) {
		if (r->src_err)
			cfs_error("%s", r->src_err);
		else
			cfs_error("corrupt tar: %s", archive_msg(r->tar));
		return -1;
	}
	return 0;
}

/* The store's read callback: exactly count bytes of the current entry. */
static int entry_data_read(void *opaque, void *buf, size_t count)
{
	struct reader *r = opaque;
	size_t done = 0;

	while (done < count) {
		la_ssize_t n = archive_read_data(r->tar, (char *)buf + done,
						 count - done);

		if (n < 0) {
			set_once(&r->data_err, archive_msg(r->tar));
			return -EIO;
		}
		if (n == 0) {
			set_once(&r->data_err, "file data ends early");
			return -EIO;
		}
		done += n;
	}
	return 0;
}

static int xattr_cmp(const void *a, const void *b)
{
	const struct cfs_xattr *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	/* Equal keys: keep input order (stashed in value_len's place). */
	if (c)
		return c;
	return x->value_len < y->value_len ? -1 : x->value_len > y->value_len;
}

/* Sorts by key, keeping only the last of duplicate keys. */
static void sort_xattrs(struct cfs_layer_entry *le, uint32_t *order_len)
{
	uint32_t out = 0;

	qsort(le->xattrs, le->n_xattrs, sizeof(*le->xattrs), xattr_cmp);
	for (uint32_t i = 0; i < le->n_xattrs; i++) {
		struct cfs_xattr *x = &le->xattrs[i];

		x->value_len = order_len[x->value_len];
		if (i + 1 < le->n_xattrs &&
		    strcmp(x->key, le->xattrs[i + 1].key) == 0) {
			free(x->key);
			free(x->value);
			continue;
		}
		le->xattrs[out++] = *x;
	}
	le->n_xattrs = out;
}

static int read_xattrs(struct archive_entry *e, struct cfs_layer_entry *le)
{
	const char *key;
	const void *value;
	size_t size;
	uint32_t n = archive_entry_xattr_reset(e), i = 0, *lens;
	char pbuf[CFS_SHOWN_MAX];

	if (n == 0)
		return 0;
	le->xattrs = xcalloc(n, sizeof(*le->xattrs));
	lens = xcalloc(n, sizeof(*lens));
	while (i < n &&
	       archive_entry_xattr_next(e, &key, &value, &size) == ARCHIVE_OK) {
		/*
		 * A PAX record with an empty value deletes the keyword
		 * (POSIX pax rules); Go's archive/tar, and so umoci and the
		 * container engines, drop such xattrs. Do the same.
		 */
		if (size == 0)
			continue;
		if (key[0] == '\0' || strlen(key) > CFS_MAX_NAME ||
		    size > UINT16_MAX) {
			cfs_error("xattr %s: key or value too long",
				  cfs_printable(pbuf, sizeof(pbuf), key));
			le->n_xattrs = i;
			free(lens);
			return -1;
		}
		le->xattrs[i].key = xstrdup(key);
		le->xattrs[i].value =
			size ? xmemdup(value, size) : xcalloc(1, 1);
		le->xattrs[i].value_len = i; /* input order, for sorting */
		lens[i] = size;
		le->n_xattrs = ++i;
	}
	sort_xattrs(le, lens);
	free(lens);
	return 0;
}

/* Sets le->kind and le->path from the cleaned name; 1 = skip entry. */
static int classify(struct cfs_layer_entry *le, char *path)
{
	char *slash = strrchr(path, '/');
	char *base = slash ? slash + 1 : path;
	size_t dirlen = slash ? (size_t)(slash - path) : 0;

	le->path = path;
	if (strncmp(base, ".wh.", 4) != 0)
		return 0;
	if (strcmp(base, ".wh..wh..opq") == 0) {
		le->kind = CFS_ENTRY_OPAQUE;
		path[dirlen] = '\0';
		return 0;
	}
	if (strncmp(base, ".wh..wh.", 8) == 0)
		return 1;
	if (!strcmp(base + 4, "") || !strcmp(base + 4, ".") ||
	    !strcmp(base + 4, "..")) {
		cfs_error("invalid whiteout name");
		return -1;
	}
	le->kind = CFS_ENTRY_WHITEOUT;
	memmove(base, base + 4, strlen(base + 4) + 1);
	return 0;
}

static int read_link_target(struct cfs_layer_entry *le, const char *target)
{
	size_t n = target ? strlen(target) : 0;

	if (n == 0 || n > CFS_MAX_PATH) {
		cfs_error("symlink target must be 1 to %d bytes", CFS_MAX_PATH);
		return -1;
	}
	le->link = xstrdup(target);
	le->size = n;
	return 0;
}

static int read_device(struct archive_entry *e, struct cfs_layer_entry *le)
{
	dev_t dev =
		makedev(archive_entry_rdevmajor(e), archive_entry_rdevminor(e));

	if (dev > UINT32_MAX) {
		cfs_error("device number out of range");
		return -1;
	}
	le->rdev = dev;
	return 0;
}

static int read_node(struct reader *r, struct archive_entry *e,
		     struct cfs_layer_entry *le, struct cfs_store *store)
{
	la_int64_t uid = archive_entry_uid(e), gid = archive_entry_gid(e);

	le->mode = archive_entry_mode(e) & (S_IFMT | 07777);
	if (!cfs_mode_type_ok(le->mode)) {
		cfs_error("unsupported file type 0%o", le->mode & S_IFMT);
		return -1;
	}
	if (uid < 0 || uid > UINT32_MAX || gid < 0 || gid > UINT32_MAX) {
		cfs_error("uid or gid out of range");
		return -1;
	}
	le->uid = uid;
	le->gid = gid;
	le->mtime_sec = archive_entry_mtime(e);
	le->mtime_nsec = archive_entry_mtime_nsec(e);
	if (le->mtime_nsec > CFS_MAX_NSEC)
		le->mtime_nsec = 0;
	if (read_xattrs(e, le) < 0)
		return -1;
	switch (le->mode & S_IFMT) {
	case S_IFLNK:
		return read_link_target(le, archive_entry_symlink(e));
	case S_IFCHR:
	case S_IFBLK:
		return read_device(e, le);
	case S_IFREG:
		break;
	default:
		return 0;
	}
	if (archive_entry_size(e) < 0) {
		cfs_error("negative size");
		return -1;
	}
	le->size = archive_entry_size(e);
	if (le->size == 0)
		return 0;
	if (cfs_store_add_stream(store, entry_data_read, r, le->size,
				 le->digest) < 0)
		return -1;
	le->has_digest = true;
	return 0;
}

static int read_hardlink(const char *target, struct cfs_layer_entry *le)
{
	le->kind = CFS_ENTRY_HARDLINK;
	return cfs_path_clean(target, &le->link);
}

static struct cfs_layer_entry *add_entry(struct cfs_layer *l)
{
	if (l->n_entries == l->cap_entries) {
		l->cap_entries = l->cap_entries ? 2 * l->cap_entries : 64;
		l->entries = xrealloc(l->entries,
				      l->cap_entries * sizeof(*l->entries));
	}
	memset(&l->entries[l->n_entries], 0, sizeof(*l->entries));
	return &l->entries[l->n_entries++];
}

/* Entry name: the bytes as stored, UTF-8 for PAX names if possible. */
static const char *entry_name(struct archive_entry *e)
{
	const char *p = archive_entry_pathname(e);

	return p ? p : archive_entry_pathname_utf8(e);
}

static int read_entry(struct reader *r, struct archive_entry *e,
		      struct cfs_layer *l, struct cfs_store *store)
{
	const char *hardlink = archive_entry_hardlink(e);
	struct cfs_layer_entry *le;
	char *path;
	int rc;

	if (!entry_name(e)) {
		cfs_error("entry without a name");
		return -1;
	}
	if (cfs_path_clean(entry_name(e), &path) < 0)
		return -1;
	le = add_entry(l);
	rc = classify(le, path);
	if (rc != 0) {
		if (rc < 0)
			return -1;
		free(le->path);
		l->n_entries--;
		return 0;
	}
	if (le->kind != CFS_ENTRY_NODE)
		return 0;
	if (hardlink)
		return read_hardlink(hardlink, le);
	if (read_node(r, e, le, store) < 0)
		return -1;
	if (S_ISREG(le->mode))
		l->content_bytes += le->size;
	return 0;
}

/* Names the entry, or reports the stream failure that broke it. */
static void entry_error(struct reader *r, const char *name)
{
	char pbuf[CFS_SHOWN_MAX];

	name = cfs_printable(pbuf, sizeof(pbuf), name ? name : "?");
	if (r->src_err)
		cfs_error("%s", r->src_err);
	else if (r->data_err)
		cfs_error("corrupt tar: %s: %s", name, r->data_err);
	else
		cfs_error_prefix("%s", name);
}

static int read_entries(struct reader *r, struct cfs_layer *l,
			struct cfs_store *store)
{
	struct archive_entry *e;
	int rc;

	while ((rc = archive_read_next_header(r->tar, &e)) != ARCHIVE_EOF) {
		/* ARCHIVE_RETRY means a damaged header was skipped. */
		if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) {
			if (r->src_err)
				cfs_error("%s", r->src_err);
			else
				cfs_error("corrupt tar: %s",
					  archive_msg(r->tar));
			return -1;
		}
		if (read_entry(r, e, l, store) < 0) {
			entry_error(r, entry_name(e));
			return -1;
		}
	}
	return 0;
}

static int check_diff_id(struct reader *r, const uint8_t *want, uint8_t got[32])
{
	char w[65], g[65];

	EVP_DigestFinal_ex(r->sha, got, NULL);
	if (!want || memcmp(want, got, 32) == 0)
		return 0;
	cfs_hex(w, want, 32);
	cfs_hex(g, got, 32);
	cfs_error("DiffID mismatch: expected sha256:%s, got sha256:%s", w, g);
	return -1;
}

static int read_layer(struct reader *r, struct cfs_layer *l,
		      const uint8_t *diff_id, struct cfs_store *store)
{
	if (open_raw(r) < 0 || start_pipe(r) < 0 || open_tar(r) < 0 ||
	    read_entries(r, l, store) < 0 || drain(r) < 0)
		return -1;
	if (r->progress)
		r->progress(r->popaque, r->bytes);
	return check_diff_id(r, diff_id, l->diff_id);
}

int cfs_layer_read(struct cfs_layer **out, cfs_stream_fn fn, void *opaque,
		   const uint8_t *diff_id, struct cfs_store *store,
		   const char *name, cfs_progress_fn progress, void *popaque)
{
	struct reader r = {
		.fn = fn,
		.opaque = opaque,
		.name = name,
		.progress = progress,
		.popaque = popaque,
		.next_progress = PROGRESS_STEP,
	};
	struct cfs_layer *l = xcalloc(1, sizeof(*l));
	int rc;

	r.inbuf = xmalloc(IN_BLOCK);
	r.sha = EVP_MD_CTX_new();
	if (!r.sha || !EVP_DigestInit_ex(r.sha, EVP_sha256(), NULL)) {
		cfs_error("cannot set up SHA-256");
		rc = -1;
	} else {
		rc = read_layer(&r, l, diff_id, store);
	}
	if (rc < 0) {
		char pbuf[CFS_SHOWN_MAX];

		cfs_error_prefix("layer %s", cfs_printable(pbuf, sizeof(pbuf),
							   name ? name : "?"));
		cfs_layer_free(l);
		l = NULL;
	}
	/* The producer uses the readers below: stop it first. */
	cfs_block_pipe_stop(r.pipe);
	if (r.tar)
		archive_read_free(r.tar);
	if (r.raw)
		archive_read_free(r.raw);
	cfs_gunzip_free(r.gz);
	EVP_MD_CTX_free(r.sha);
	free(r.inbuf);
	free(r.src_err);
	free(r.data_err);
	*out = l;
	return rc;
}
