// SPDX-License-Identifier: MIT
/*
 * composefs-dump(5): escaping, every file type, hard links, parse errors,
 * and dump -> image -> dump round trips (text and image bytes identical).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cfs/dump.h"
#include "cfs/image.h"
#include "cfs/util.h"
#include "cfs/store-layout.h"
#include "cfs/verity.h"

#include "tap.h"

#define DIGEST                                                                 \
	"00112233445566778899aabbccddeeff"                                     \
	"00112233445566778899aabbccddeeff"

/* A canonical dump: exactly what cfs_dump_image prints for its image. */
static const char canonical[] =
	"/ 215 40755 3 0 0 0 1695372970.944925700 - - - user.root=\n"
	"/- 0 100644 1 0 0 0 1.1 - - -\n"
	"/back\\\\slash 0 100600 1 1000 1000 0 0.0 - - -\n"
	"/blk 0 60660 1 0 6 2049 5.0 - - -\n"
	"/chr 0 20666 1 0 0 259 5.999999999 - - -\n"
	"/d 20 40700 2 0 0 0 7.0 - - -\n"
	"/d/file 4096 100644 2 0 0 0 8.0 x\\x20y/z\\\\w - " DIGEST
	" user.a=b\\x3dc user.b=-\n"
	"/eq=ual 0 100644 1 0 0 0 0.0 - - - "
	"user.k\\x3dey=v\\x3dal\\x20ue\\x0a\\x00\\xff\\\\\n"
	"/fifo 0 10644 1 0 0 0 0.0 - - -\n"
	"/hl 4096 @100644 2 0 0 0 8.0 /d/file - " DIGEST
	" user.a=b\\x3dc user.b=-\n"
	"/nl\\x0aname 0 100644 1 0 0 0 0.0 - - -\n"
	"/sock 0 140755 1 0 0 0 0.0 - - -\n"
	"/sym 1 120777 1 0 0 0 0.0 \\x2d - -\n"
	"/with\\x20space 3 120777 1 0 0 0 -5.3 a\\x20b - -\n"
	"/\\xff 0 100644 1 0 0 0 0.0 - - -\n";

static struct cfs_tree *parse(const char *text)
{
	return cfs_dump_parse(text, strlen(text), "t");
}

/* Builds the image of a tree (freed), or NULL. */
static uint8_t *build(struct cfs_tree *t, size_t *len)
{
	uint8_t *data = NULL;

	if (!t)
		return NULL;
	if (cfs_image_build(t, &data, len) < 0) {
		printf("# build: %s\n", cfs_strerror());
		data = NULL;
	}
	cfs_tree_free(t);
	return data;
}

/* Dumps image bytes to a malloc'ed string, or NULL. */
static char *dump_bytes(const uint8_t *data, size_t len)
{
	struct cfs_image img;
	char *text = NULL;
	size_t text_len;
	FILE *f;

	if (!data || cfs_image_open_mem(&img, data, len) < 0)
		return NULL;
	f = open_memstream(&text, &text_len);
	if (cfs_dump_image(&img, f) < 0) {
		fclose(f);
		free(text);
		return NULL;
	}
	fclose(f);
	return text;
}

static void test_escape_all_bytes(void)
{
	char in[256], *out = NULL, *back;
	size_t out_len, back_len;
	bool clean = true;
	FILE *f;

	for (int i = 0; i < 256; i++)
		in[i] = (char)i;
	f = open_memstream(&out, &out_len);
	cfs_dump_escape(f, in, sizeof(in), CFS_ESC_EQUAL);
	fclose(f);
	for (size_t i = 0; i < out_len; i++)
		if (out[i] < 0x21 || out[i] > 0x7e || out[i] == '=')
			clean = false;
	ok(clean, "escaped bytes are all printable, no space, no '='");
	ok(strstr(out, "\\\\") && strstr(out, "\\x3d") &&
		   strstr(out, "\\xff") && strstr(out, "\\x20") &&
		   strstr(out, "\\x0a"),
	   "backslash, '=', 0xff, space and newline are escaped");
	ok(cfs_dump_unescape(out, out_len, &back, &back_len) == 0 &&
		   back_len == 256 && memcmp(back, in, 256) == 0,
	   "all 256 bytes survive escape + unescape");
	free(back);
	free(out);
}

static void test_unescape_forms(void)
{
	char *s = NULL;
	size_t n;

	const char *in = "a\\n\\r\\t\\\\\\x41\\x2D";

	ok(cfs_dump_unescape(in, strlen(in), &s, &n) == 0 && n == 7 &&
		   memcmp(s, "a\n\r\t\\A-", 7) == 0,
	   "\\n \\r \\t \\\\ and \\xXY (either case) decode");
	free(s);
	char *d = NULL;
	size_t dl;
	FILE *f = open_memstream(&d, &dl);

	cfs_dump_escape(f, "-", 1, CFS_ESC_LONE_DASH);
	cfs_dump_escape(f, " ", 0, 0);
	cfs_dump_escape(f, "--", 2, CFS_ESC_LONE_DASH);
	fclose(f);
	ok(strcmp(d, "\\x2d--") == 0,
	   "a lone '-' is written \\x2d, '--' is not");
	free(d);
}

static void test_canonical_round_trip(void)
{
	size_t len1 = 0, len2 = 0;
	uint8_t *img1 = build(parse(canonical), &len1);
	char *text1 = dump_bytes(img1, len1);
	uint8_t *img2;
	char *text2;

	ok(img1 != NULL, "canonical dump parses and builds");
	ok(text1 && strcmp(text1, canonical) == 0,
	   "dump -> image -> dump gives the same text");
	if (text1 && strcmp(text1, canonical) != 0)
		printf("# got:\n%s", text1);
	img2 = build(text1 ? parse(text1) : NULL, &len2);
	ok(img2 && len1 == len2 && memcmp(img1, img2, len1) == 0,
	   "image bytes identical after a dump round trip");
	text2 = dump_bytes(img2, len2);
	ok(text2 && text1 && strcmp(text1, text2) == 0,
	   "second dump identical to the first");
	free(img1);
	free(img2);
	free(text1);
	free(text2);
}

static struct cfs_inode *inode_at(struct cfs_tree *t, const char *name)
{
	struct cfs_node *n = cfs_dir_lookup(t->root, name, strlen(name));

	return n ? n->inode : NULL;
}

static void test_parsed_fields(void)
{
	struct cfs_tree *t = parse(canonical);
	struct cfs_node *d = t ? cfs_dir_lookup(t->root, "d", 1) : NULL;
	struct cfs_node *file = d ? cfs_dir_lookup(d, "file", 4) : NULL;
	struct cfs_inode *i;

	ok(t && file, "parsed tree has /d/file");
	if (!t || !file) {
		cfs_tree_free(t);
		return;
	}
	ok(inode_at(t, "hl") == file->inode && file->inode->refcount == 2,
	   "hard link shares the inode of its target");
	ok(strcmp(file->inode->payload, "x y/z\\w") == 0 &&
		   file->inode->has_digest && file->inode->digest[1] == 0x11,
	   "backing path unescaped and digest decoded");
	ok(file->inode->n_xattrs == 2 &&
		   strcmp(file->inode->xattrs[0].key, "user.a") == 0 &&
		   file->inode->xattrs[0].value_len == 3 &&
		   memcmp(file->inode->xattrs[0].value, "b=c", 3) == 0,
	   "xattr value with '=' unescaped");
	i = inode_at(t, "-");
	ok(i && i->mtime_sec == 1 && i->mtime_nsec == 1,
	   "MTIME 1.1 is 1 s + 1 ns, not a fraction");
	i = inode_at(t, "with space");
	ok(i && i->mtime_sec == -5 && i->mtime_nsec == 3 &&
		   strcmp(i->payload, "a b") == 0 && i->size == 3,
	   "negative seconds; symlink target and size");
	i = inode_at(t, "blk");
	ok(i && S_ISBLK(i->mode) && i->rdev == 2049 && i->gid == 6,
	   "block device rdev and gid");
	ok(inode_at(t, "chr") && S_ISCHR(inode_at(t, "chr")->mode) &&
		   inode_at(t, "fifo") && S_ISFIFO(inode_at(t, "fifo")->mode) &&
		   inode_at(t, "sock") && S_ISSOCK(inode_at(t, "sock")->mode),
	   "char device, fifo and socket types");
	i = inode_at(t, "eq=ual");
	ok(i && i->n_xattrs == 1 &&
		   strcmp(i->xattrs[0].key, "user.k=ey") == 0 &&
		   i->xattrs[0].value_len == 11 &&
		   memcmp(i->xattrs[0].value, "v=al ue\n\0\xff\\", 11) == 0,
	   "xattr key/value with '=', space, newline, NUL, 0xff, backslash");
	ok(inode_at(t, "nl\nname") && inode_at(t, "\xff") &&
		   inode_at(t, "back\\slash"),
	   "names with newline, 0xff and backslash");
	ok(t->root->inode->n_xattrs == 1 &&
		   t->root->inode->xattrs[0].value_len == 0,
	   "empty xattr value on the root");
	cfs_tree_free(t);
}

static void test_digest_only_payload(void)
{
	struct cfs_tree *t = parse("/ 0 40755 2 0 0 0 0.0 - - -\n"
				   "/f 10 100644 1 0 0 0 0.0 - - " DIGEST "\n");
	struct cfs_inode *i = t ? inode_at(t, "f") : NULL;

	ok(i && i->payload &&
		   strcmp(i->payload, "00/112233445566778899aabbccddeeff"
				      "00112233445566778899aabbccddeeff") == 0,
	   "regular file with a digest but no PAYLOAD gets the object path");
	cfs_tree_free(t);
}

/* Peer dumps: inline CONTENT becomes a digest, RDEV of a non-device 0. */
static void test_peer_fields(void)
{
	struct cfs_tree *t = parse("/ 0 40755 2 0 0 0 0.0 - - -\n"
				   "/f 4 100644 1 0 0 7 0.0 - a\\x00\\x0ab -\n"
				   "/c 0 20644 1 0 0 2049 0.0 - - -\n");
	struct cfs_inode *f = t ? inode_at(t, "f") : NULL;
	struct cfs_inode *c = t ? inode_at(t, "c") : NULL;
	uint8_t want[CFS_DIGEST_SIZE];
	char path[CFS_OBJECT_PATH_LEN + 1];

	cfs_verity_digest_mem("a\0\nb", 4, want);
	cfs_object_path(path, want);
	ok(f && f->has_digest && !memcmp(f->digest, want, CFS_DIGEST_SIZE) &&
		   f->payload && !strcmp(f->payload, path) && f->size == 4,
	   "inline CONTENT: its digest and object path, NUL bytes kept");
	ok(f && f->rdev == 0, "RDEV of a regular file is accepted, not kept");
	ok(c && c->rdev == 2049, "RDEV of a device is kept");
	cfs_tree_free(t);
}

struct bad_case {
	const char *line; /* after a valid root line (unless it starts "!") */
	const char *msg;
};

#define ROOT "/ 0 40755 2 0 0 0 0.0 - - -\n"
#define F(path) path " 0 100644 1 0 0 0 0.0 - - -"

static const struct bad_case bad_cases[] = {
	{"!", "t: no entries"},
	{"!" F("/a"), "t:1: the first entry must be the root '/'"},
	{"!/ 0 100644 1 0 0 0 0.0 - - -",
	 "t:1: the root '/' must be a directory"},
	{"!/ 0 @40755 1 0 0 0 0.0 /x - -",
	 "t:1: the root directory cannot be a hard link"},
	{"/a 0 100644 1 0 0 0 0.0 - -",
	 "t:2: expected at least 11 fields, found 10"},
	{"/a  0 100644 1 0 0 0 0.0 - - -", "t:2: empty SIZE field"},
	{F("/a") " ", "t:2: trailing space"},
	{F("/a") " user.a=1  user.b=2", "t:2: empty xattr field"},
	{F("/a\\q"), "t:2: PATH: unknown escape '\\q'"},
	{F("/a\\x4"), "t:2: PATH: bad \\x escape"},
	{F("/a\\"), "t:2: PATH: backslash at end of field"},
	{F("/a\\x00"), "t:2: PATH contains a NUL byte"},
	{"/a 12a 100644 1 0 0 0 0.0 - - -", "t:2: bad SIZE '12a'"},
	{"/a 0 100648 1 0 0 0 0.0 - - -", "t:2: bad MODE '100648'"},
	{"/a 0 170644 1 0 0 0 0.0 - - -",
	 "t:2: MODE 170644 is not a valid file type and mode"},
	{"/a 0 1100644 1 0 0 0 0.0 - - -",
	 "t:2: MODE 1100644 is not a valid file type and mode"},
	{"/a 0 100644 1 4294967296 0 0 0.0 - - -", "t:2: bad UID '4294967296'"},
	{"/a 0 100644 x 0 0 0 0.0 - - -", "t:2: bad NLINK 'x'"},
	{"/a 0 100644 1 0 0 0 1.1000000000 - - -",
	 "t:2: bad MTIME '1.1000000000'"},
	{"/a 0 100644 1 0 0 0 1.-1 - - -", "t:2: bad MTIME"},
	{F("a"), "t:2: PATH 'a' is not absolute"},
	{F("/a/../b"), "t:2: PATH '/a/../b' is not normalised"},
	{F("/a//b"), "t:2: PATH '/a//b' is not normalised"},
	{F("/a/"), "t:2: PATH '/a/' is not normalised"},
	{F("/./a"), "t:2: PATH '/./a' is not normalised"},
	{F("/x/y"), "t:2: parent directory '/x' was not listed before"},
	{F("/f") "\n" F("/f/y"), "t:3: '/f' is not a directory"},
	{F("/a") "\n" F("/a"), "t:3: duplicate path '/a'"},
	{ROOT, "t:2: duplicate path '/'"},
	{"/h 0 @100644 1 0 0 0 0.0 /nope - -",
	 "t:2: hardlink target '/nope' was not listed before"},
	{"/d 0 40755 1 0 0 0 0.0 - - -\n/h 0 @100644 1 0 0 0 0.0 /d - -",
	 "t:3: hardlink target '/d' is a directory"},
	{"/h 0 @100644 1 0 0 0 0.0 rel - -",
	 "t:2: hardlink target 'rel' is not absolute"},
	{"/a 2 100644 1 0 0 0 0.0 - abc -",
	 "t:2: CONTENT has 3 bytes but SIZE is 2"},
	{"/a 0 40755 1 0 0 0 0.0 - abc -",
	 "t:2: CONTENT given for a non-regular file"},
	{"/a 3 100644 1 0 0 0 0.0 x/y abc -",
	 "t:2: both PAYLOAD and CONTENT given"},
	{"/a 3 100644 1 0 0 0 0.0 - abc " DIGEST,
	 "t:2: DIGEST is not the digest of CONTENT"},
	{"/a 3 100644 1 0 0 0 0.0 - a\\q -", "t:2: CONTENT"},
	{"/a 5 100644 1 0 0 0 0.0 x/y - 00zz", "t:2: bad DIGEST"},
	{"/a 5 100644 1 0 0 0 0.0 - - -",
	 "t:2: regular file of size 5 has neither a backing path nor a digest"},
	{"/a 0 100644 1 0 0 0 0.0 x/y - -",
	 "t:2: empty regular file with a backing path"},
	{"/a 0 100644 1 0 0 0 0.0 - - " DIGEST,
	 "t:2: empty regular file with a backing path or digest"},
	{"/a 5 100644 1 0 0 0 0.0 x/../y - -",
	 "t:2: backing path must be relative"},
	{"/a 5 100644 1 0 0 0 0.0 /x - -",
	 "t:2: backing path must be relative"},
	{"/a 0 100644 1 0 0 0 -9223372036854775809.0 - - -", "t:2: bad MTIME"},
	{"/a 0 120777 1 0 0 0 0.0 - - -",
	 "t:2: symlink without a target in PAYLOAD"},
	{"/a 0 40755 1 0 0 0 0.0 x - -", "t:2: PAYLOAD given for a file"},
	{"/a 0 20644 1 0 0 0 0.0 - - " DIGEST,
	 "t:2: DIGEST given for a non-regular file"},
	{F("/a") " user.x=1 user.x=2", "t:2: duplicate xattr user.x"},
	{F("/a") " user.x", "t:2: xattr 'user.x' has no '='"},
	{F("/a") " =v", "t:2: bad xattr key ''"},
	{F("/a") " user.x=\\z", "t:2: xattr: unknown escape '\\z'"},
};

static void test_parse_errors(void)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		char *text = c->line[0] == '!'
				     ? xasprintf("%s\n", c->line + 1)
				     : xasprintf(ROOT "%s\n", c->line);
		size_t len = strcmp(c->line, "!") == 0 ? 0 : strlen(text);
		struct cfs_tree *t = cfs_dump_parse(text, len, "t");
		const char *err = t ? "" : cfs_strerror();

		ok(!t && strncmp(err, c->msg, strlen(c->msg)) == 0,
		   "rejects: %s", c->msg);
		if (t || strncmp(err, c->msg, strlen(c->msg)) != 0)
			printf("# got: %s\n", t ? "(parsed)" : err);
		cfs_tree_free(t);
		free(text);
	}
}

static void test_extreme_mtime(void)
{
	struct cfs_tree *t =
		parse("/ 0 40755 2 0 0 0 -9223372036854775808.999999999 - - -\n"
		      "/a 0 100644 1 0 0 0 9223372036854775807.0 - - -\n");
	struct cfs_inode *a = t ? inode_at(t, "a") : NULL;

	ok(t && t->root->inode->mtime_sec == INT64_MIN &&
		   t->root->inode->mtime_nsec == 999999999 && a &&
		   a->mtime_sec == INT64_MAX,
	   "MTIME at both ends of the 64-bit range");
	cfs_tree_free(t);
}

static void test_lenient_forms(void)
{
	struct cfs_tree *t = parse("/ 0 40755 2 0 0 0 0 - - -\n\n"
				   "/b 0 100644 1 0 0 0 0.0 - - -\n"
				   "/a 0 100644 1 0 0 0 0.0 - - -");
	struct cfs_node *first;

	if (t)
		cfs_dir_sort(t->root->inode);
	first = t && t->root->inode->n_children == 2
			? t->root->inode->children[0]
			: NULL;

	ok(first && strcmp(first->name, "a") == 0,
	   "MTIME without nanoseconds, blank line, no final newline, any "
	   "order");
	cfs_tree_free(t);
}

int main(void)
{
	test_escape_all_bytes();
	test_unescape_forms();
	test_canonical_round_trip();
	test_parsed_fields();
	test_digest_only_payload();
	test_peer_fields();
	test_parse_errors();
	test_extreme_mtime();
	test_lenient_forms();
	return tap_done();
}
