// SPDX-License-Identifier: MIT
/*
 * The layer cache: one record per layer at <store>/layers/<diffid hex>, so
 * a layer already read never has to be decompressed again.
 *
 * Record format, version 1 (varint = unsigned LEB128, at most 10 bytes;
 * zigzag = signed value mapped to unsigned, then varint):
 *
 *   "CFSLAYR\n"          8-byte magic
 *   u32 LE  version      1
 *   u8[32]  diff_id      sha256 of the uncompressed layer tar
 *   varint  content_bytes  sum of regular file sizes
 *   varint  n_entries
 *   n_entries x entry, in tar order:
 *     u8      kind        enum cfs_entry_kind
 *     u8      flags       1 = has link, 2 = has digest
 *     varint  path_len, then path bytes (clean, no NUL)
 *     varint  mode, uid, gid, rdev, size
 *     zigzag  mtime_sec
 *     varint  mtime_nsec
 *     if has link:   varint len, then link bytes
 *     if has digest: u8[32] fs-verity digest of the content
 *     varint  n_xattrs, then each: varint key_len, key, varint value_len,
 *             value (sorted by key, unique)
 *   u8[32]  sha256 of every byte before it
 *
 * A loader trusts nothing: any malformed or inconsistent record, or one
 * whose objects are gone from the store, is a cache miss.
 *
 * A record holds what read.c made of the tar, not the tar: a change to
 * what a tar reads as (which entries are kept, their paths, modes, times,
 * xattrs) must bump CACHE_VERSION with it. Else a host converting from
 * old records and a host converting cold make different manifests of one
 * image, and a sealed image converts to its D on one of them only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "path.h"
#include "cfs/layer.h"
#include "rules.h"
#include "cfs/sha256.h"
#include "cfs/store-layout.h"
#include "cfs/util.h"

#define CACHE_MAGIC "CFSLAYR\n"
#define CACHE_VERSION 1
#define FLAG_LINK 1
#define FLAG_DIGEST 2
#define MIN_ENTRY_BYTES 11 /* the smallest possible encoded entry */
#define MAX_RECORD (1ull << 32)

static char *record_path(struct cfs_store *s,
			 const uint8_t diff_id[CFS_SHA256_SIZE])
{
	char hex[65];

	cfs_hex(hex, diff_id, 32);
	return cfs_layout_record_path(cfs_store_dir(s), hex);
}

/* Encoding */

static void put_varint(struct cfs_buf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n] = v & 0x7f;
		v >>= 7;
		if (v)
			tmp[n] |= 0x80;
		n++;
	} while (v);
	cfs_buf_append(b, tmp, n);
}

static void put_bytes(struct cfs_buf *b, const void *p, size_t n)
{
	put_varint(b, n);
	cfs_buf_append(b, p, n);
}

static void put_u8(struct cfs_buf *b, uint8_t v)
{
	cfs_buf_append(b, &v, 1);
}

static void put_entry(struct cfs_buf *b, const struct cfs_layer_entry *e)
{
	uint64_t sec = e->mtime_sec;

	put_u8(b, e->kind);
	put_u8(b,
	       (e->link ? FLAG_LINK : 0) | (e->has_digest ? FLAG_DIGEST : 0));
	put_bytes(b, e->path, strlen(e->path));
	put_varint(b, e->mode);
	put_varint(b, e->uid);
	put_varint(b, e->gid);
	put_varint(b, e->rdev);
	put_varint(b, e->size);
	put_varint(b, (sec << 1) ^ (uint64_t)(e->mtime_sec >> 63));
	put_varint(b, e->mtime_nsec);
	if (e->link)
		put_bytes(b, e->link, strlen(e->link));
	if (e->has_digest)
		cfs_buf_append(b, e->digest, CFS_DIGEST_SIZE);
	put_varint(b, e->n_xattrs);
	for (uint32_t i = 0; i < e->n_xattrs; i++) {
		put_bytes(b, e->xattrs[i].key, strlen(e->xattrs[i].key));
		put_bytes(b, e->xattrs[i].value, e->xattrs[i].value_len);
	}
}

static void encode(struct cfs_buf *b, const struct cfs_layer *l)
{
	uint8_t version[4] = {CACHE_VERSION, 0, 0, 0};
	uint8_t sum[CFS_SHA256_SIZE];

	cfs_buf_append(b, CACHE_MAGIC, 8);
	cfs_buf_append(b, version, 4);
	cfs_buf_append(b, l->diff_id, 32);
	put_varint(b, l->content_bytes);
	put_varint(b, l->n_entries);
	for (size_t i = 0; i < l->n_entries; i++)
		put_entry(b, &l->entries[i]);
	cfs_sha256(b->data, b->len, sum);
	cfs_buf_append(b, sum, 32);
}

int cfs_layer_cache_save(struct cfs_store *store, const struct cfs_layer *l)
{
	struct cfs_buf b = {0};
	char *dir = xasprintf("%s/layers", cfs_store_dir(store));
	char *path = record_path(store, l->diff_id);
	int flags = 0, rc = -1;

	if (cfs_store_options(store)->sync == CFS_SYNC_NONE)
		flags |= CFS_ATOMIC_NOSYNC;
	if (cfs_mkdir_p(dir, CFS_STORE_DIR_MODE) == 0) {
		encode(&b, l);
		rc = cfs_write_file_atomic(path, b.data, b.len, 0644, flags);
	}
	cfs_buf_free(&b);
	free(dir);
	free(path);
	return rc;
}

/* Decoding: every getter fails softly, setting c->bad. */

struct cursor {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t get_varint(struct cursor *c)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		uint8_t byte;

		if (c->p >= c->end)
			break;
		byte = *c->p++;
		if (shift == 63 && byte > 1)
			break;
		v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

static uint32_t get_u32(struct cursor *c)
{
	uint64_t v = get_varint(c);

	if (v > UINT32_MAX)
		c->bad = true;
	return v;
}

static const uint8_t *get_raw(struct cursor *c, size_t n)
{
	const uint8_t *p = c->p;

	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		return NULL;
	}
	c->p += n;
	return p;
}

/* A length-prefixed string of at most max bytes without NUL, or NULL. */
static char *get_string(struct cursor *c, size_t max)
{
	uint64_t n = get_varint(c);
	const uint8_t *p;

	if (n > max) {
		c->bad = true;
		return NULL;
	}
	p = get_raw(c, n);
	if (!p || memchr(p, '\0', n)) {
		c->bad = true;
		return NULL;
	}
	return xstrndup((const char *)p, n);
}

static bool xattrs_ok(const struct cfs_layer_entry *e)
{
	for (uint32_t i = 0; i < e->n_xattrs; i++) {
		size_t klen = strlen(e->xattrs[i].key);

		if (klen == 0 || klen > CFS_MAX_NAME)
			return false;
		if (i > 0 &&
		    strcmp(e->xattrs[i - 1].key, e->xattrs[i].key) >= 0)
			return false;
	}
	return true;
}

static void get_xattrs(struct cursor *c, struct cfs_layer_entry *e)
{
	uint64_t n = get_varint(c);

	if (n > UINT16_MAX || n > (uint64_t)(c->end - c->p) / 2) {
		c->bad = true;
		return;
	}
	e->xattrs = xcalloc(n ? n : 1, sizeof(*e->xattrs));
	for (uint32_t i = 0; i < n && !c->bad; i++) {
		struct cfs_xattr *x = &e->xattrs[i];
		uint64_t vlen;
		const uint8_t *v;

		x->key = get_string(c, CFS_MAX_NAME);
		e->n_xattrs = i + 1;
		vlen = get_varint(c);
		v = vlen <= UINT16_MAX ? get_raw(c, vlen) : NULL;
		if (!x->key || !v) {
			c->bad = true;
			return;
		}
		x->value = vlen ? xmemdup(v, vlen) : xcalloc(1, 1);
		x->value_len = vlen;
	}
}

/* Kind-specific consistency of a decoded entry. */
static bool entry_ok(const struct cfs_layer_entry *e)
{
	bool plen = e->link && strlen(e->link) > 0;

	switch (e->kind) {
	case CFS_ENTRY_NODE:
		break;
	case CFS_ENTRY_HARDLINK:
		return e->link && !e->has_digest && e->path[0] &&
		       cfs_path_is_clean(e->link, strlen(e->link));
	case CFS_ENTRY_WHITEOUT:
		return !e->link && !e->has_digest && e->path[0];
	case CFS_ENTRY_OPAQUE:
		return !e->link && !e->has_digest;
	default:
		return false;
	}
	if (!cfs_mode_ok(e->mode) || e->mtime_nsec > CFS_MAX_NSEC ||
	    !xattrs_ok(e))
		return false;
	if (S_ISLNK(e->mode))
		return plen && e->size == strlen(e->link) && !e->has_digest;
	if (e->link)
		return false;
	if (S_ISREG(e->mode))
		return e->has_digest == (e->size > 0);
	return !e->has_digest;
}

/* Whether every object the n records name is in the store. */
static bool objects_present(struct cfs_layer *const *l, size_t n,
			    struct cfs_store *s)
{
	uint8_t(*digests)[CFS_DIGEST_SIZE];
	size_t entries = 0, k = 0;
	bool ok;

	for (size_t i = 0; i < n; i++)
		entries += l[i] ? l[i]->n_entries : 0;
	digests = xmalloc((entries + 1) * sizeof(*digests));
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; l[i] && j < l[i]->n_entries; j++)
			if (l[i]->entries[j].has_digest)
				memcpy(digests[k++], l[i]->entries[j].digest,
				       CFS_DIGEST_SIZE);
	ok = cfs_store_has_all(s, digests, k);
	free(digests);
	return ok;
}

static void get_entry(struct cursor *c, struct cfs_layer_entry *e)
{
	const uint8_t *fixed = get_raw(c, 2);
	uint64_t zz;

	if (!fixed)
		return;
	e->kind = fixed[0];
	e->path = get_string(c, CFS_MAX_PATH);
	e->mode = get_u32(c);
	e->uid = get_u32(c);
	e->gid = get_u32(c);
	e->rdev = get_u32(c);
	e->size = get_varint(c);
	zz = get_varint(c);
	e->mtime_sec = (int64_t)(zz >> 1) ^ -(int64_t)(zz & 1);
	e->mtime_nsec = get_u32(c);
	if (fixed[1] & ~(FLAG_LINK | FLAG_DIGEST))
		c->bad = true;
	if (fixed[1] & FLAG_LINK)
		e->link = get_string(c, CFS_MAX_PATH);
	if (fixed[1] & FLAG_DIGEST) {
		const uint8_t *d = get_raw(c, CFS_DIGEST_SIZE);

		e->has_digest = true;
		if (d)
			memcpy(e->digest, d, CFS_DIGEST_SIZE);
	}
	if (!c->bad)
		get_xattrs(c, e);
}

static bool entries_ok(const struct cfs_layer *l)
{
	uint64_t content = 0;

	for (size_t i = 0; i < l->n_entries; i++) {
		const struct cfs_layer_entry *e = &l->entries[i];

		if (!cfs_path_is_clean(e->path, strlen(e->path)) ||
		    !entry_ok(e))
			return false;
		if (e->kind == CFS_ENTRY_NODE && S_ISREG(e->mode))
			content += e->size;
	}
	return content == l->content_bytes;
}

/* Parses and checks a whole record; NULL if it is unusable. */
static struct cfs_layer *decode(const uint8_t *data, size_t len,
				const uint8_t diff_id[CFS_SHA256_SIZE])
{
	uint8_t sum[CFS_SHA256_SIZE];
	struct cursor c = {data, data + len - 32, false};
	struct cfs_layer *l;
	const uint8_t *hdr;
	uint64_t n;

	if (len < 8 + 4 + 32 + 2 + 32)
		return NULL;
	cfs_sha256(data, len - 32, sum);
	hdr = get_raw(&c, 8 + 4 + 32);
	if (memcmp(sum, data + len - 32, 32) || memcmp(hdr, CACHE_MAGIC, 8) ||
	    memcmp(hdr + 8, "\1\0\0\0", 4) || memcmp(hdr + 12, diff_id, 32))
		return NULL;
	l = xcalloc(1, sizeof(*l));
	memcpy(l->diff_id, diff_id, 32);
	l->content_bytes = get_varint(&c);
	n = get_varint(&c);
	if (c.bad || n > (uint64_t)(c.end - c.p) / MIN_ENTRY_BYTES)
		goto bad;
	l->entries = xcalloc(n ? n : 1, sizeof(*l->entries));
	l->cap_entries = n;
	for (; l->n_entries < n && !c.bad; l->n_entries++)
		get_entry(&c, &l->entries[l->n_entries]);
	if (!c.bad && c.p == c.end && entries_ok(l))
		return l;
bad:
	cfs_layer_free(l);
	return NULL;
}

/* The store's record of a layer, not yet checked against its objects. */
static int load_record(struct cfs_store *store,
		       const uint8_t diff_id[CFS_SHA256_SIZE],
		       struct cfs_layer **out)
{
	char *path = record_path(store, diff_id);
	struct stat st;
	uint8_t *data;
	size_t len;

	*out = NULL;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > MAX_RECORD) {
		free(path);
		return 0;
	}
	if (cfs_read_file(path, &data, &len) < 0) {
		free(path);
		return -1;
	}
	free(path);
	*out = decode(data, len, diff_id);
	free(data);
	return *out ? 1 : 0;
}

int cfs_layer_cache_load(struct cfs_store *store,
			 const uint8_t diff_id[CFS_SHA256_SIZE],
			 struct cfs_layer **out)
{
	int r = load_record(store, diff_id, out);

	if (r == 1 && !objects_present(out, 1, store)) {
		cfs_layer_free(*out);
		*out = NULL;
		r = 0;
	}
	return r;
}

size_t cfs_layer_cache_load_all(struct cfs_store *store, size_t n,
				const uint8_t (*diff_ids)[CFS_SHA256_SIZE],
				struct cfs_layer **out)
{
	size_t loaded = 0;

	for (size_t i = 0; i < n; i++)
		load_record(store, diff_ids[i], &out[i]);
	/* one look at the store for all; if some object is gone, find whose */
	if (!objects_present(out, n, store)) {
		for (size_t i = 0; i < n; i++) {
			if (out[i] && !objects_present(&out[i], 1, store)) {
				cfs_layer_free(out[i]);
				out[i] = NULL;
			}
		}
	}
	for (size_t i = 0; i < n; i++)
		loaded += out[i] != NULL;
	return loaded;
}

int cfs_layer_cache_read(const char *path,
			 const uint8_t diff_id[CFS_SHA256_SIZE],
			 struct cfs_layer **out)
{
	uint8_t *data;
	size_t len;

	*out = NULL;
	if (cfs_read_file(path, &data, &len) < 0)
		return -1;
	*out = len <= MAX_RECORD ? decode(data, len, diff_id) : NULL;
	free(data);
	return *out ? 1 : 0;
}
