// SPDX-License-Identifier: MIT
/*
 * Layer cache: save/load round trip, rejection of damaged records, and
 * loading an image's records at once (a layer whose object is gone is
 * dropped, the others kept).
 */
#include <unistd.h>

#include "layer-testutil.h"
#include "tap.h"

static bool entries_equal(const struct cfs_layer_entry *a,
			  const struct cfs_layer_entry *b)
{
	if (a->kind != b->kind || strcmp(a->path, b->path) ||
	    a->mode != b->mode || a->uid != b->uid || a->gid != b->gid ||
	    a->rdev != b->rdev || a->size != b->size ||
	    a->mtime_sec != b->mtime_sec || a->mtime_nsec != b->mtime_nsec ||
	    !a->link != !b->link || (a->link && strcmp(a->link, b->link)) ||
	    a->has_digest != b->has_digest ||
	    (a->has_digest && memcmp(a->digest, b->digest, 32)) ||
	    a->n_xattrs != b->n_xattrs)
		return false;
	for (uint32_t i = 0; i < a->n_xattrs; i++)
		if (strcmp(a->xattrs[i].key, b->xattrs[i].key) ||
		    a->xattrs[i].value_len != b->xattrs[i].value_len ||
		    memcmp(a->xattrs[i].value, b->xattrs[i].value,
			   a->xattrs[i].value_len))
			return false;
	return true;
}

static bool layers_equal(const struct cfs_layer *a, const struct cfs_layer *b)
{
	if (memcmp(a->diff_id, b->diff_id, 32) ||
	    a->n_entries != b->n_entries ||
	    a->content_bytes != b->content_bytes)
		return false;
	for (size_t i = 0; i < a->n_entries; i++)
		if (!entries_equal(&a->entries[i], &b->entries[i]))
			return false;
	return true;
}

static struct cfs_layer *sample_layer(struct cfs_store *s)
{
	struct archive_entry *e;
	struct cfs_layer *l;
	struct tb t;

	tb_begin(&t, TB_GZIP);
	tb_dir(&t, "./", 0755);
	e = tb_entry("etc/hello", S_IFREG | 0640);
	archive_entry_set_uid(e, 4000000000u);
	archive_entry_set_gid(e, 100);
	archive_entry_set_mtime(e, -12345, 999999999);
	archive_entry_set_size(e, 5);
	archive_entry_xattr_add_entry(e, "security.capability", "\1\0\0\2", 4);
	archive_entry_xattr_add_entry(e, "user.empty", "", 0);
	tb_add(&t, e, "hello", 5);
	tb_file(&t, "empty", 0644, NULL, 0);
	tb_symlink(&t, "link", "/etc/hello");
	tb_hardlink(&t, "hard", "etc/hello");
	tb_dev(&t, "dev/sda", S_IFBLK | 0660, 8, 1);
	tb_file(&t, ".wh.gone", 0, NULL, 0);
	tb_file(&t, "opq/.wh..wh..opq", 0, NULL, 0);
	tb_file(&t, "other", 0755, "other content", 13);
	tb_end(&t);
	if (read_mem(&l, t.out.data, t.out.len, NULL, s) < 0) {
		fprintf(stderr, "# read: %s\n", cfs_strerror());
		exit(2);
	}
	cfs_buf_free(&t.out);
	return l;
}

static char *record_path(struct cfs_store *s, const uint8_t *diff_id)
{
	char hex[65];

	cfs_hex(hex, diff_id, 32);
	return xasprintf("%s/layers/%s", cfs_store_dir(s), hex);
}

static int load_bytes(struct cfs_store *s, const uint8_t *id, const uint8_t *p,
		      size_t n)
{
	char *path = record_path(s, id);
	struct cfs_layer *got = NULL;
	int rc = -1;

	if (cfs_write_file_atomic(path, p, n, 0644, CFS_ATOMIC_NOSYNC) == 0)
		rc = cfs_layer_cache_load(s, id, &got);
	free(path);
	cfs_layer_free(got);
	return rc;
}

static void test_damage(struct cfs_store *s, const struct cfs_layer *l,
			const uint8_t *rec, size_t len)
{
	uint8_t *copy = xmemdup(rec, len);
	int misses = 0, errors = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		int rc;

		copy[i] ^= 0x20;
		rc = load_bytes(s, l->diff_id, copy, len);
		copy[i] ^= 0x20;
		misses += rc == 0;
		errors += rc < 0;
	}
	ok(misses == (int)len && errors == 0,
	   "every flipped byte (%zu) loads as a miss (%d)", len, misses);
	misses = 0;
	for (i = 0; i < len; i++)
		misses += load_bytes(s, l->diff_id, rec, i) == 0;
	ok(misses == (int)len, "every truncation loads as a miss");
	ok(load_bytes(s, l->diff_id, rec, len) == 1, "intact record loads");
	free(copy);
}

/* A record whose checksum is right but whose content breaks a rule. */
static void test_semantic(struct cfs_store *s, const struct cfs_layer *l,
			  const uint8_t *rec, size_t len)
{
	uint8_t *copy = xmemdup(rec, len);
	uint8_t *p = memmem(copy, len, "etc/hello", 9);

	if (p) {
		p[4] = '/'; /* "etc//ello": not a clean path */
		sha256_mem(copy, len - 32, copy + len - 32);
	}
	ok(p && load_bytes(s, l->diff_id, copy, len) == 0,
	   "unclean path with a valid checksum is a miss");
	free(copy);
}

/* A one-file layer, read into the store, its record saved. */
static struct cfs_layer *one_file_layer(struct cfs_store *s, const char *name,
					const char *content)
{
	struct cfs_layer *l;
	struct tb t;

	tb_begin(&t, TB_GZIP);
	tb_file(&t, name, 0644, content, strlen(content));
	tb_end(&t);
	if (read_mem(&l, t.out.data, t.out.len, NULL, s) < 0 ||
	    cfs_store_commit(s) < 0 || cfs_layer_cache_save(s, l) < 0) {
		fprintf(stderr, "# one_file_layer: %s\n", cfs_strerror());
		exit(2);
	}
	cfs_buf_free(&t.out);
	return l;
}

static bool remove_object(struct cfs_store *s, const struct cfs_layer *l)
{
	char obj[CFS_OBJECT_PATH_LEN + 1];
	char *path;
	bool r;

	cfs_object_path(obj, l->entries[0].digest);
	path = xasprintf("%s/%s", cfs_store_dir(s), obj);
	r = unlink(path) == 0;
	free(path);
	return r;
}

static size_t load_all(struct cfs_store *s, uint8_t (*ids)[32],
		       struct cfs_layer **out)
{
	for (int i = 0; i < 3; i++)
		cfs_layer_free(out[i]);
	memset(out, 0, 3 * sizeof(*out));
	return cfs_layer_cache_load_all(s, 3, ids, out);
}

static void test_load_all(void)
{
	struct cfs_store *s = scratch_store();
	struct cfs_layer *a = one_file_layer(s, "a", "content of a");
	struct cfs_layer *b = one_file_layer(s, "b", "content of b");
	struct cfs_layer *out[3] = {0};
	uint8_t ids[3][32] = {{0}, {7}, {0}};

	memcpy(ids[0], a->diff_id, 32);
	memcpy(ids[2], b->diff_id, 32);
	ok(load_all(s, ids, out) == 2 && out[0] && layers_equal(a, out[0]) &&
		   !out[1] && out[2] && layers_equal(b, out[2]),
	   "load_all: two cached layers loaded, the one without a record not");
	ok(remove_object(s, b) && load_all(s, ids, out) == 1 && out[0] &&
		   layers_equal(a, out[0]) && !out[1] && !out[2],
	   "load_all: a layer whose object is gone is dropped, the other kept");
	ok(remove_object(s, a) && load_all(s, ids, out) == 0 && !out[0],
	   "load_all: with both objects gone nothing loads");
	load_all(s, ids, out);
	cfs_layer_free(a);
	cfs_layer_free(b);
	scratch_store_close(s);
}

int main(void)
{
	struct cfs_store *s = scratch_store();
	struct cfs_layer *l = sample_layer(s), *got = NULL;
	uint8_t other[32] = {1}, *rec;
	const struct cfs_layer_entry *e;
	char obj[CFS_OBJECT_PATH_LEN + 1], *path;
	size_t len;

	ok(cfs_layer_cache_load(s, l->diff_id, &got) == 0 && !got,
	   "absent record is a miss");
	ok(cfs_store_commit(s) == 0, "store commit");
	ok(cfs_layer_cache_save(s, l) == 0, "record saved");
	ok(cfs_layer_cache_load(s, l->diff_id, &got) == 1 && got &&
		   layers_equal(l, got),
	   "round trip gives the same record");
	cfs_layer_free(got);

	path = record_path(s, l->diff_id);
	if (cfs_read_file(path, &rec, &len) < 0)
		return 2;
	test_damage(s, l, rec, len);
	test_semantic(s, l, rec, len);
	ok(load_bytes(s, other, rec, len) == 0,
	   "record stored under another DiffID is a miss");
	ok(load_bytes(s, l->diff_id, rec, len) == 1, "restored record loads");

	e = find_entry(l, "other", CFS_ENTRY_NODE);
	cfs_object_path(obj, e->digest);
	free(path);
	path = xasprintf("%s/%s", cfs_store_dir(s), obj);
	ok(unlink(path) == 0, "object removed");
	ok(cfs_layer_cache_load(s, l->diff_id, &got) == 0 && !got,
	   "record whose object is gone is a miss");
	free(path);
	free(rec);
	cfs_layer_free(l);
	scratch_store_close(s);
	test_load_all();
	return tap_done();
}
