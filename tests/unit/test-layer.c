// SPDX-License-Identifier: MIT
/* cfs_layer_read: layer tars built with libarchive, read into records. */
#include "layer-testutil.h"
#include "tap.h"

#define BIG (3 * 1024 * 1024 + 123)

static uint8_t *big_data(void)
{
	uint8_t *p = xmalloc(BIG);
	uint32_t x = 12345;

	for (size_t i = 0; i < BIG; i++) {
		x = x * 1103515245 + 12345;
		p[i] = x >> 16;
	}
	return p;
}

static const char hello[] = "hello world\n";

/* The main sample layer; the same entries whatever the filter. */
static void build_sample(struct tb *t, enum tb_filter f, const uint8_t *big)
{
	struct archive_entry *e;

	tb_begin(t, f);
	tb_dir(t, "./", 0755);
	tb_dir(t, "etc/", 0755);
	e = tb_entry("etc/hello", S_IFREG | 0640);
	archive_entry_set_uid(e, 1000);
	archive_entry_set_gid(e, 100);
	archive_entry_set_size(e, sizeof(hello) - 1);
	archive_entry_xattr_add_entry(e, "user.zz", "last", 4);
	archive_entry_xattr_add_entry(e, "security.capability", "\1\0\0\2", 4);
	archive_entry_xattr_add_entry(e, "user.aa", "", 0);
	tb_add(t, e, hello, sizeof(hello) - 1);
	tb_file(t, "usr/bin/su", 04755, "su", 2);
	tb_dir(t, "tmp", 01777);
	tb_file(t, "empty", 0644, NULL, 0);
	tb_file(t, "big", 0644, big, BIG);
	tb_symlink(t, "link", "../target/x");
	tb_hardlink(t, "hard", "./etc//hello");
	tb_dev(t, "dev/null", S_IFCHR | 0666, 1, 3);
	tb_dev(t, "dev/sda", S_IFBLK | 0660, 8, 1);
	tb_dev(t, "fifo", S_IFIFO | 0600, 0, 0);
	tb_file(t, ".wh.gone", 0, NULL, 0);
	tb_file(t, "opq/.wh..wh..opq", 0, NULL, 0);
	tb_file(t, ".wh..wh.plnk", 0, NULL, 0);
	tb_file(t, "../../etc/passwd", 0644, "root", 4);
	tb_file(t, "/abs", 0644, "abs", 3);
	tb_file(t, "./a//b/./c/../d", 0644, "d", 1);
	tb_end(t);
}

static void check_sample(const struct cfs_layer *l, struct cfs_store *s,
			 const uint8_t *big, const char *what)
{
	const struct cfs_layer_entry *e;
	uint8_t d[CFS_DIGEST_SIZE];

	ok(l->n_entries == 17, "%s: 17 entries (got %zu)", what, l->n_entries);
	e = find_entry(l, "", CFS_ENTRY_NODE);
	ok(e && e->mode == (S_IFDIR | 0755), "%s: ./ is the root", what);
	e = find_entry(l, "etc/hello", CFS_ENTRY_NODE);
	cfs_verity_digest_mem(hello, sizeof(hello) - 1, d);
	ok(e && e->mode == (S_IFREG | 0640) && e->uid == 1000 &&
		   e->gid == 100 && e->size == 12 && e->mtime_sec == 1000 &&
		   e->mtime_nsec == 500000000,
	   "%s: file attributes", what);
	ok(e && e->has_digest && !memcmp(e->digest, d, sizeof(d)) &&
		   object_has(s, e->digest, hello, sizeof(hello) - 1),
	   "%s: file digest and object", what);
	/* user.aa has an empty value: a PAX deletion, so it is dropped. */
	ok(e && e->n_xattrs == 2 &&
		   !strcmp(e->xattrs[0].key, "security.capability") &&
		   e->xattrs[0].value_len == 4 &&
		   !memcmp(e->xattrs[0].value, "\1\0\0\2", 4) &&
		   !strcmp(e->xattrs[1].key, "user.zz"),
	   "%s: xattrs kept and sorted, empty ones dropped", what);
	e = find_entry(l, "usr/bin/su", CFS_ENTRY_NODE);
	ok(e && e->mode == (S_IFREG | 04755), "%s: setuid kept", what);
	e = find_entry(l, "tmp", CFS_ENTRY_NODE);
	ok(e && e->mode == (S_IFDIR | 01777), "%s: sticky kept", what);
	e = find_entry(l, "empty", CFS_ENTRY_NODE);
	ok(e && e->size == 0 && !e->has_digest, "%s: empty file", what);
	e = find_entry(l, "big", CFS_ENTRY_NODE);
	cfs_verity_digest_mem(big, BIG, d);
	ok(e && e->size == BIG && !memcmp(e->digest, d, sizeof(d)) &&
		   object_has(s, e->digest, big, BIG),
	   "%s: big file streamed", what);
	e = find_entry(l, "link", CFS_ENTRY_NODE);
	ok(e && S_ISLNK(e->mode) && !strcmp(e->link, "../target/x") &&
		   e->size == 11,
	   "%s: symlink target verbatim", what);
	e = find_entry(l, "hard", CFS_ENTRY_HARDLINK);
	ok(e && !strcmp(e->link, "etc/hello"), "%s: hardlink", what);
	e = find_entry(l, "dev/null", CFS_ENTRY_NODE);
	ok(e && S_ISCHR(e->mode) && e->rdev == makedev(1, 3), "%s: char device",
	   what);
	e = find_entry(l, "dev/sda", CFS_ENTRY_NODE);
	ok(e && S_ISBLK(e->mode) && e->rdev == makedev(8, 1),
	   "%s: block device", what);
	e = find_entry(l, "fifo", CFS_ENTRY_NODE);
	ok(e && S_ISFIFO(e->mode), "%s: fifo", what);
	ok(find_entry(l, "gone", CFS_ENTRY_WHITEOUT) != NULL, "%s: whiteout",
	   what);
	ok(find_entry(l, "opq", CFS_ENTRY_OPAQUE) != NULL, "%s: opaque", what);
	ok(find_entry(l, "etc/passwd", CFS_ENTRY_NODE) &&
		   find_entry(l, "abs", CFS_ENTRY_NODE) &&
		   find_entry(l, "a/b/d", CFS_ENTRY_NODE),
	   "%s: hostile names cleaned", what);
	ok(l->content_bytes == 12 + 2 + BIG + 4 + 3 + 1, "%s: content_bytes",
	   what);
}

static void test_filters(struct cfs_store *s, const uint8_t *big)
{
	static const enum tb_filter filters[] = {TB_NONE, TB_GZIP, TB_ZSTD};
	static const char *const names[] = {"plain", "gzip", "zstd"};
	struct tb plain;
	uint8_t diff_id[32];

	build_sample(&plain, TB_NONE, big);
	sha256_mem(plain.out.data, plain.out.len, diff_id);
	for (int i = 0; i < 3; i++) {
		struct cfs_layer *l = NULL;
		struct tb t;
		int rc;

		build_sample(&t, filters[i], big);
		rc = read_mem(&l, t.out.data, t.out.len, diff_id, s);
		if (!ok(rc == 0, "%s layer reads", names[i]))
			fprintf(stderr, "# %s\n", cfs_strerror());
		if (l) {
			ok(!memcmp(l->diff_id, diff_id, 32), "%s: diff_id",
			   names[i]);
			check_sample(l, s, big, names[i]);
		}
		cfs_layer_free(l);
		cfs_buf_free(&t.out);
	}
	cfs_buf_free(&plain.out);
}

static struct cfs_buf small_layer(enum tb_filter f)
{
	struct tb t;

	tb_begin(&t, f);
	tb_file(&t, "a", 0644, hello, sizeof(hello) - 1);
	tb_file(&t, "b", 0644, hello, sizeof(hello) - 1);
	tb_end(&t);
	return t.out;
}

static int expect_error(struct cfs_store *s, const void *p, size_t len,
			const uint8_t *diff_id, const char *want)
{
	struct cfs_layer *l = (void *)1;
	int rc = read_mem(&l, p, len, diff_id, s);

	if (rc == 0) {
		cfs_layer_free(l);
		return 0;
	}
	printf("# error: %s\n", cfs_strerror());
	if (!strstr(cfs_strerror(), want) ||
	    strncmp(cfs_strerror(), "layer test: ", 12)) {
		fprintf(stderr, "# got error: %s\n", cfs_strerror());
		return 0;
	}
	return l == NULL;
}

static void test_errors(struct cfs_store *s)
{
	struct cfs_buf gz = small_layer(TB_GZIP), plain = small_layer(TB_NONE);
	struct cfs_buf zst = small_layer(TB_ZSTD);
	uint8_t wrong[32] = {0}, good[32];
	char msg[200], hex[65];
	struct tb t;

	sha256_mem(plain.data, plain.len, good);
	cfs_hex(hex, good, 32);
	snprintf(msg, sizeof(msg),
		 "DiffID mismatch: expected sha256:%064d, got sha256:%s", 0,
		 hex);
	ok(expect_error(s, gz.data, gz.len, wrong, msg), "DiffID mismatch");
	ok(expect_error(s, "", 0, NULL, "empty layer stream"),
	   "empty stream is an error");
	ok(expect_error(s, gz.data, gz.len - 10, good, "truncated gzip"),
	   "truncated gzip is an error");
	ok(expect_error(s, gz.data, gz.len / 2, NULL, "truncated gzip"),
	   "gzip cut in half is an error");
	ok(expect_error(s, zst.data, zst.len - 5, NULL, "zstd"),
	   "truncated zstd is an error");
	ok(expect_error(s, plain.data, 700, NULL, "corrupt tar"),
	   "tar cut inside file data is an error");
	plain.data[2048 + 100] ^= 0x55; /* b's header: 2 x 1024 per entry */
	ok(expect_error(s, plain.data, plain.len, NULL, "corrupt tar"),
	   "bad checksum in a later header is an error");
	plain.data[100] ^= 0x55; /* mode field: the header checksum breaks */
	ok(expect_error(s, plain.data, plain.len, NULL, "corrupt tar"),
	   "bad header checksum is an error");
	ok(expect_error(s, "this is not a tar file at all, not even close", 45,
			NULL, "corrupt tar"),
	   "garbage is an error");

	char longname[300];
	memset(longname, 'n', 299);
	longname[299] = '\0';
	tb_begin(&t, TB_NONE);
	tb_file(&t, longname, 0644, "x", 1);
	tb_end(&t);
	ok(expect_error(s, t.out.data, t.out.len, NULL, "longer than 255"),
	   "name component > 255 is an error");
	cfs_buf_free(&t.out);

	tb_begin(&t, TB_NONE);
	tb_symlink(&t, "l", "");
	tb_end(&t);
	ok(expect_error(s, t.out.data, t.out.len, NULL, "l: symlink target"),
	   "empty symlink target is an error naming the entry");
	cfs_buf_free(&t.out);
	cfs_buf_free(&gz);
	cfs_buf_free(&zst);
	cfs_buf_free(&plain);
}

static void test_source_error(struct cfs_store *s)
{
	struct cfs_buf gz = small_layer(TB_GZIP);
	struct memsrc m = {gz.data, gz.len, 0, 100, true};
	struct cfs_layer *l;
	int rc;

	rc = cfs_layer_read(&l, memsrc_read, &m, NULL, s, "src", NULL, NULL);
	ok(rc < 0 &&
		   !strcmp(cfs_strerror(), "layer src: blob: digest mismatch"),
	   "source error at the end is reported");
	cfs_buf_free(&gz);
}

static void count_progress(void *opaque, uint64_t bytes)
{
	uint64_t *last = opaque;

	if (bytes >= *last)
		*last = bytes;
	else
		*last = UINT64_MAX;
}

static void test_trailing_and_progress(struct cfs_store *s, const uint8_t *big)
{
	struct cfs_buf b = {0};
	struct tb t;
	uint8_t id[32];
	uint64_t last = 0;
	struct memsrc m;
	struct cfs_layer *l = NULL;
	int rc;

	tb_begin(&t, TB_NONE);
	tb_file(&t, "big", 0644, big, BIG);
	tb_end(&t);
	cfs_buf_append(&b, t.out.data, t.out.len);
	cfs_buf_zero(&b, 4096);
	cfs_buf_append(&b, "junk", 4);
	sha256_mem(b.data, b.len, id);
	m = (struct memsrc){b.data, b.len, 0, 0, false};
	rc = cfs_layer_read(&l, memsrc_read, &m, id, s, "t", count_progress,
			    &last);
	ok(rc == 0, "bytes after the end marker count in the DiffID");
	ok(last == b.len, "progress reaches the uncompressed size");
	ok(m.off == m.len, "the source is read to its end");
	cfs_layer_free(l);
	cfs_buf_free(&t.out);
	cfs_buf_free(&b);
}

/*
 * Compressions that OCI layers do not use are refused by name: libarchive
 * would run lzop, grzip, lrzip, ... as programs found on PATH.
 */
static void test_foreign_compression(struct cfs_store *s)
{
	static const struct {
		const char *name;
		const char *magic;
		size_t len;
	} foreign[] = {
		{"lzop", "\x89LZO\0\r\n\x1a\n\x10\x30\x20\xa0", 13},
		{"grzip", "GRZipII\0\x02\x04:)\0\0\0\0", 16},
		{"lrzip", "LRZI\0\x06\0\0\0\0\0\0", 12},
		{"bzip2", "BZh91AY&SY", 10},
		{"xz",
		 "\xfd"
		 "7zXZ\0\0\x04",
		 8},
		{"lz4", "\x04\x22\x4d\x18\x64\x40\xa7", 7},
	};
	char want[64];

	for (size_t i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++) {
		snprintf(want, sizeof(want), "unsupported compression %s",
			 foreign[i].name);
		ok(expect_error(s, foreign[i].magic, foreign[i].len, NULL,
				want),
		   "%s layer refused by name", foreign[i].name);
	}
}

/* True if msg is one line of printable ASCII. */
static bool printable_line(const char *msg)
{
	for (; *msg; msg++)
		if (*msg < 0x20 || *msg > 0x7e)
			return false;
	return true;
}

/* Image-controlled names come out escaped: one line, no terminal codes. */
static void test_hostile_names_escaped(struct cfs_store *s)
{
	static const char evil[] = "x\n\x1b]0;title\x07\nFAKE: image converted";
	struct cfs_layer *l;
	struct tb t;
	int rc;

	tb_begin(&t, TB_NONE);
	tb_symlink(&t, evil, "");
	tb_end(&t);
	rc = read_mem(&l, t.out.data, t.out.len, NULL, s);
	ok(rc < 0 && printable_line(cfs_strerror()) &&
		   strstr(cfs_strerror(),
			  "x\\x0a\\x1b]0;title\\x07\\x0aFAKE: image converted: "
			  "symlink target"),
	   "an entry name with newlines and escapes is escaped in the error");
	printf("# %s\n", cfs_strerror());
	cfs_buf_free(&t.out);

	tb_begin(&t, TB_NONE);
	tb_file(&t, "f", 0644, "x", 1);
	tb_end(&t);
	rc = cfs_layer_read(&l, memsrc_read,
			    &(struct memsrc){t.out.data, 10, 0, 0, false}, NULL,
			    s, "lay\ner\x1b[2J", NULL, NULL);
	ok(rc < 0 && printable_line(cfs_strerror()) &&
		   !strncmp(cfs_strerror(), "layer lay\\x0aer\\x1b[2J: ", 23),
	   "a layer name is escaped in the error");
	printf("# %s\n", cfs_strerror());
	cfs_buf_free(&t.out);
}

/* Empty gzip layers: an empty tar, and a gzip member of no bytes at all. */
static void test_empty_gzip(struct cfs_store *s)
{
	static const uint8_t empty_gz[] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3,
					   3,	 0,    0, 0, 0, 0, 0, 0, 0, 0};
	struct cfs_layer *l = NULL;
	uint8_t id[32];
	struct tb t;
	struct tb plain;

	tb_begin(&plain, TB_NONE);
	tb_end(&plain);
	sha256_mem(plain.out.data, plain.out.len, id);
	tb_begin(&t, TB_GZIP);
	tb_end(&t);
	ok(read_mem(&l, t.out.data, t.out.len, id, s) == 0 && l &&
		   l->n_entries == 0 && !memcmp(l->diff_id, id, 32),
	   "gzip of an empty tar: no entries, DiffID of the tar");
	cfs_layer_free(l);
	l = NULL;
	/* Like a plain stream of no bytes: there is no tar in it. */
	ok(expect_error(s, empty_gz, sizeof(empty_gz), NULL, "corrupt tar"),
	   "gzip of nothing is an error");
	cfs_buf_free(&t.out);
	cfs_buf_free(&plain.out);
}

int main(void)
{
	struct cfs_store *s = scratch_store();
	uint8_t *big = big_data();

	test_filters(s, big);
	test_errors(s);
	test_empty_gzip(s);
	test_source_error(s);
	test_foreign_compression(s);
	test_hostile_names_escaped(s);
	test_trailing_and_progress(s, big);
	free(big);
	scratch_store_close(s);
	return tap_done();
}
