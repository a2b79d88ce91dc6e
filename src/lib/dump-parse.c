// SPDX-License-Identifier: MIT
/* Parsing the composefs-dump(5) format into a cfs_tree. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cfs/dump.h"
#include "cfs/escape.h"
#include "path.h"
#include "rules.h"
#include "cfs/store.h"
#include "cfs/util.h"
#include "cfs/store-layout.h"
#include "cfs/verity.h"

#define N_FIELDS 11

enum field {
	F_PATH,
	F_SIZE,
	F_MODE,
	F_NLINK,
	F_UID,
	F_GID,
	F_RDEV,
	F_MTIME,
	F_PAYLOAD,
	F_CONTENT,
	F_DIGEST,
};

static const char *const field_names[N_FIELDS] = {
	"PATH", "SIZE",	 "MODE",    "NLINK",   "UID",	 "GID",
	"RDEV", "MTIME", "PAYLOAD", "CONTENT", "DIGEST",
};

struct field_ref {
	const char *s;
	size_t len;
};

struct line {
	struct field_ref f[N_FIELDS];
	const char *xattrs; /* the rest of the line after the fields */
	size_t xattrs_len;
};

struct parser {
	const char *name;
	size_t lineno;
	struct cfs_tree *tree;
	struct cfs_store *store; /* for inline CONTENT; may be NULL */
	bool have_root;
	struct line l;
};

/* The decoded attributes of a full (not hard link) line. */
struct attrs {
	uint64_t size;
	uint32_t mode, uid, gid, rdev;
	int64_t mtime_sec;
	uint32_t mtime_nsec;
	char *payload;
	size_t payload_len;
	bool has_digest;
	uint8_t digest[CFS_DIGEST_SIZE];
};

__attribute__((format(printf, 2, 3))) static int fail(struct parser *p,
						      const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cfs_error("%s:%zu: %s", p->name, p->lineno, msg);
	return -1;
}

/* Puts the location in front of a message set by a helper. */
static int fail_located(struct parser *p, const char *what)
{
	cfs_error_prefix("%s:%zu: %s", p->name, p->lineno, what);
	return -1;
}

/* A short, terminal-safe copy of some bytes for error messages. */
static const char *shown(const char *s, size_t len, char buf[64])
{
	return cfs_printable_n(buf, 64, s, len);
}

static int split_line(struct parser *p, const char *s, size_t len)
{
	struct line *l = &p->l;
	size_t pos = 0;
	int i;

	for (i = 0; i < N_FIELDS && pos <= len; i++) {
		const char *sp = memchr(s + pos, ' ', len - pos);
		size_t end = sp ? (size_t)(sp - s) : len;

		if (end == pos)
			return fail(p,
				    "empty %s field (double or trailing "
				    "space?)",
				    field_names[i]);
		l->f[i] = (struct field_ref){s + pos, end - pos};
		pos = end + 1;
	}
	if (i < N_FIELDS)
		return fail(p, "expected at least %d fields, found %d",
			    N_FIELDS, i);
	l->xattrs = s + (pos <= len ? pos : len);
	l->xattrs_len = pos <= len ? len - pos : 0;
	if (pos == len)
		return fail(p, "trailing space");
	return 0;
}

static bool is_dash(const struct field_ref *f)
{
	return f->len == 1 && f->s[0] == '-';
}

static int parse_u64(const char *s, size_t len, uint64_t max, unsigned int base,
		     uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0)
		return -1;
	for (size_t i = 0; i < len; i++) {
		unsigned int d = (unsigned char)s[i] - '0';

		if (d >= base || v > (max - d) / base)
			return -1;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

static int parse_num(struct parser *p, enum field which, uint64_t max,
		     unsigned int base, uint64_t *out)
{
	const struct field_ref *f = &p->l.f[which];
	char buf[64];

	if (parse_u64(f->s, f->len, max, base, out) < 0)
		return fail(p, "bad %s '%s'", field_names[which],
			    shown(f->s, f->len, buf));
	return 0;
}

static int parse_u32(struct parser *p, enum field which, uint32_t *out)
{
	uint64_t v;

	if (parse_num(p, which, UINT32_MAX, 10, &v) < 0)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* MTIME is "SEC.NSEC" (NSEC a plain count, not a fraction), SEC signed. */
static int parse_mtime(struct parser *p, struct attrs *a)
{
	const struct field_ref *f = &p->l.f[F_MTIME];
	const char *s = f->s, *dot = memchr(f->s, '.', f->len);
	size_t sec_len = dot ? (size_t)(dot - s) : f->len;
	bool neg = sec_len > 0 && s[0] == '-';
	uint64_t max = neg ? (uint64_t)INT64_MAX + 1 : INT64_MAX;
	uint64_t sec, nsec = 0;
	char buf[64];

	if (parse_u64(s + neg, sec_len - neg, max, 10, &sec) < 0 ||
	    (dot && parse_u64(dot + 1, f->len - sec_len - 1, CFS_MAX_NSEC, 10,
			      &nsec) < 0))
		return fail(p, "bad MTIME '%s' (SECONDS.NANOSECONDS expected)",
			    shown(s, f->len, buf));
	/* Written so that INT64_MIN does not overflow. */
	a->mtime_sec = neg && sec ? -(int64_t)(sec - 1) - 1 : (int64_t)sec;
	a->mtime_nsec = (uint32_t)nsec;
	return 0;
}

static int parse_mode(struct parser *p, struct attrs *a)
{
	uint64_t v;

	if (parse_num(p, F_MODE, UINT32_MAX, 8, &v) < 0)
		return -1;
	if (!cfs_mode_ok((uint32_t)v))
		return fail(p, "MODE %llo is not a valid file type and mode",
			    (unsigned long long)v);
	a->mode = (uint32_t)v;
	return 0;
}

static int parse_digest(struct parser *p, struct attrs *a)
{
	const struct field_ref *f = &p->l.f[F_DIGEST];

	if (is_dash(f))
		return 0;
	if (f->len != 2 * CFS_DIGEST_SIZE ||
	    cfs_unhex(a->digest, f->s, CFS_DIGEST_SIZE) < 0)
		return fail(p, "bad DIGEST (64 hex digits or '-' expected)");
	a->has_digest = true;
	return 0;
}

/* Unescapes a field that must not contain NUL (paths, payloads). */
static int unescape_string(struct parser *p, const struct field_ref *f,
			   const char *what, char **out, size_t *out_len)
{
	if (cfs_dump_unescape(f->s, f->len, out, out_len) < 0)
		return fail_located(p, what);
	if (memchr(*out, '\0', *out_len)) {
		free(*out);
		*out = NULL;
		return fail(p, "%s contains a NUL byte", what);
	}
	return 0;
}

static int parse_payload(struct parser *p, struct attrs *a)
{
	const struct field_ref *f = &p->l.f[F_PAYLOAD];

	if (is_dash(f))
		return 0;
	return unescape_string(p, f, "PAYLOAD", &a->payload, &a->payload_len);
}

static int parse_numbers(struct parser *p, struct attrs *a)
{
	uint32_t nlink;

	/* NLINK is checked for syntax only: the image writer counts links. */
	if (parse_num(p, F_SIZE, UINT64_MAX, 10, &a->size) < 0 ||
	    parse_mode(p, a) < 0 || parse_u32(p, F_NLINK, &nlink) < 0 ||
	    parse_u32(p, F_UID, &a->uid) < 0 ||
	    parse_u32(p, F_GID, &a->gid) < 0 ||
	    parse_u32(p, F_RDEV, &a->rdev) < 0 || parse_mtime(p, a) < 0)
		return -1;
	return 0;
}

/* Relative, without a ".." component (it must stay inside a basedir). */
/* Rules tying payload, digest and rdev to the file type. */
static int check_type_rules(struct parser *p, struct attrs *a)
{
	uint32_t type = a->mode & S_IFMT;

	if (a->payload && type != S_IFREG && type != S_IFLNK)
		return fail(p, "PAYLOAD given for a file that is neither a "
			       "regular file nor a symlink");
	if (type == S_IFLNK && !a->payload)
		return fail(p, "symlink without a target in PAYLOAD");
	if (a->has_digest && type != S_IFREG)
		return fail(p, "DIGEST given for a non-regular file");
	/*
	 * As upstream mkcomposefs: accepted on any file, but only a device
	 * keeps it (the image has no device number for other types).
	 */
	if (type != S_IFCHR && type != S_IFBLK)
		a->rdev = 0;
	if (a->payload && a->payload_len > CFS_MAX_PATH)
		return fail(p, "PAYLOAD longer than %d bytes", CFS_MAX_PATH);
	if (type != S_IFREG)
		return 0;
	if (a->size == 0 && (a->payload || a->has_digest))
		return fail(p, "empty regular file with a backing path or "
			       "digest");
	if (a->payload && !cfs_backing_path_ok(a->payload, a->payload_len))
		return fail(p, "backing path must be relative, without '..'");
	if (a->size > 0 && !a->payload) {
		char path[CFS_OBJECT_PATH_LEN + 1];

		if (!a->has_digest)
			return fail(p,
				    "regular file of size %llu has neither "
				    "a backing path nor a digest",
				    (unsigned long long)a->size);
		cfs_object_path(path, a->digest);
		a->payload = xstrdup(path);
		a->payload_len = strlen(path);
	}
	return 0;
}

/* The digest of inline content, stored as an object when there is a store. */
static int content_digest(struct parser *p, const char *data, size_t len,
			  uint8_t digest[CFS_DIGEST_SIZE])
{
	struct cfs_mem_src m = {(const uint8_t *)data, len};
	int r = p->store ? cfs_store_add_stream(p->store, cfs_mem_read_fn, &m,
						len, digest)
			 : cfs_verity_digest_mem(data, len, digest);

	return r < 0 ? fail_located(p, "CONTENT") : 0;
}

/*
 * Inline CONTENT (upstream keeps small files in the image): this format has
 * no inline data, so the content becomes an object named by its digest.
 */
static int parse_content(struct parser *p, struct attrs *a)
{
	const struct field_ref *f = &p->l.f[F_CONTENT];
	uint8_t digest[CFS_DIGEST_SIZE];
	char *data;
	size_t len;
	int r = -1;

	if (is_dash(f))
		return 0;
	if (!S_ISREG(a->mode))
		return fail(p, "CONTENT given for a non-regular file");
	if (a->payload)
		return fail(p, "both PAYLOAD and CONTENT given");
	if (cfs_dump_unescape(f->s, f->len, &data, &len) < 0)
		return fail_located(p, "CONTENT");
	if (len != a->size)
		fail(p, "CONTENT has %zu bytes but SIZE is %llu", len,
		     (unsigned long long)a->size);
	else if (content_digest(p, data, len, digest) == 0)
		r = 0;
	free(data);
	if (r < 0)
		return -1;
	if (a->has_digest && memcmp(a->digest, digest, CFS_DIGEST_SIZE))
		return fail(p, "DIGEST is not the digest of CONTENT");
	memcpy(a->digest, digest, CFS_DIGEST_SIZE);
	a->has_digest = true;
	return 0;
}

static int parse_attrs(struct parser *p, struct attrs *a)
{
	if (parse_numbers(p, a) < 0 || parse_digest(p, a) < 0 ||
	    parse_payload(p, a) < 0 || parse_content(p, a) < 0)
		return -1;
	return check_type_rules(p, a);
}

static void apply_attrs(struct cfs_inode *ino, const struct attrs *a)
{
	ino->mode = a->mode;
	ino->uid = a->uid;
	ino->gid = a->gid;
	ino->rdev = a->rdev;
	ino->mtime_sec = a->mtime_sec;
	ino->mtime_nsec = a->mtime_nsec;
	ino->size = S_ISREG(a->mode) ? a->size : 0;
	cfs_inode_set_payload(ino, a->payload, a->payload_len);
	ino->has_digest = a->has_digest;
	memcpy(ino->digest, a->digest, CFS_DIGEST_SIZE);
}

static bool has_xattr(const struct cfs_inode *ino, const char *key)
{
	for (uint32_t i = 0; i < ino->n_xattrs; i++)
		if (strcmp(ino->xattrs[i].key, key) == 0)
			return true;
	return false;
}

static int parse_xattr(struct parser *p, const char *s, size_t len,
		       struct cfs_inode *ino)
{
	const char *eq = memchr(s, '=', len);
	char *key = NULL, *value = NULL, buf[64];
	size_t key_len, value_len;
	int ret = -1;

	if (!eq)
		return fail(p, "xattr '%s' has no '='", shown(s, len, buf));
	if (cfs_dump_unescape(s, eq - s, &key, &key_len) < 0 ||
	    cfs_dump_unescape(eq + 1, len - (eq - s) - 1, &value, &value_len) <
		    0) {
		fail_located(p, "xattr");
		goto out;
	}
	if (key_len == 0 || key_len > CFS_MAX_XATTR_KEY ||
	    memchr(key, '\0', key_len))
		fail(p, "bad xattr key '%s' (1 to %d bytes, no NUL)",
		     shown(key, key_len, buf), CFS_MAX_XATTR_KEY);
	else if (value_len > CFS_MAX_XATTR_VALUE)
		fail(p, "xattr %s: value longer than %d bytes",
		     shown(key, key_len, buf), CFS_MAX_XATTR_VALUE);
	else if (has_xattr(ino, key))
		fail(p, "duplicate xattr %s", shown(key, key_len, buf));
	else if (ino->n_xattrs >= CFS_MAX_XATTRS)
		fail(p, "more than %d xattrs", CFS_MAX_XATTRS);
	else
		ret = 0;
	if (ret == 0)
		cfs_inode_set_xattr(ino, key, value, value_len);
out:
	free(key);
	free(value);
	return ret;
}

static int parse_xattrs(struct parser *p, struct cfs_inode *ino)
{
	const char *s = p->l.xattrs, *end = s + p->l.xattrs_len;

	while (s < end) {
		const char *sp = memchr(s, ' ', end - s);
		size_t len = sp ? (size_t)(sp - s) : (size_t)(end - s);

		if (len == 0)
			return fail(p, "empty xattr field (double or trailing "
				       "space?)");
		if (parse_xattr(p, s, len, ino) < 0)
			return -1;
		s += len + 1;
	}
	return 0;
}

/* An absolute path without empty, "." or ".." components or trailing '/'. */
static int check_path(struct parser *p, const char *what, const char *path,
		      size_t len)
{
	char buf[64];

	if (len == 0 || path[0] != '/')
		return fail(p, "%s '%s' is not absolute", what,
			    shown(path, len, buf));
	if (len == 1)
		return 0;
	switch (cfs_path_check(path + 1, len - 1)) {
	case CFS_PATH_CLEAN:
		return 0;
	case CFS_PATH_NAME_TOO_LONG:
		return fail(p, "%s: a name is longer than %d bytes", what,
			    CFS_MAX_NAME);
	default:
		return fail(p, "%s '%s' is not normalised", what,
			    shown(path, len, buf));
	}
}

/*
 * Finds the node of a checked path, walking its first len bytes. On failure
 * sets *bad_len to the length of the prefix that is missing or (*not_dir)
 * is not a directory.
 */
static struct cfs_node *walk_path(struct cfs_tree *t, const char *path,
				  size_t len, size_t *bad_len, bool *not_dir)
{
	struct cfs_node *n = t->root;
	size_t i = 1;

	while (i < len) {
		const char *sl = memchr(path + i, '/', len - i);
		size_t c = sl ? (size_t)(sl - path) - i : len - i;

		*not_dir = !S_ISDIR(n->inode->mode);
		if (*not_dir) {
			*bad_len = i - 1;
			return NULL;
		}
		n = cfs_dir_lookup(n, path + i, c);
		if (!n) {
			*bad_len = i + c;
			return NULL;
		}
		i += c + 1;
	}
	return n;
}

/* Finds the parent directory of path; *name points at the last part. */
static struct cfs_node *find_parent(struct parser *p, const char *path,
				    size_t len, const char **name)
{
	const char *last = memrchr(path, '/', len);
	size_t parent_len = (size_t)(last - path), bad = parent_len;
	bool not_dir = false;
	struct cfs_node *dir;
	char buf[64];

	*name = last + 1;
	dir = walk_path(p->tree, path, parent_len, &bad, &not_dir);
	if (dir && S_ISDIR(dir->inode->mode))
		return dir;
	if (dir || not_dir)
		fail(p, "'%s' is not a directory", shown(path, bad, buf));
	else
		fail(p, "parent directory '%s' was not listed before",
		     shown(path, bad, buf));
	return NULL;
}

static int link_hardlink(struct parser *p, struct cfs_node *dir,
			 const char *name, size_t name_len)
{
	const struct field_ref *f = &p->l.f[F_PAYLOAD];
	struct cfs_node *target;
	char *tpath = NULL, buf[64];
	size_t tlen, bad;
	bool not_dir;
	int ret = -1;

	if (unescape_string(p, f, "hardlink target", &tpath, &tlen) < 0 ||
	    check_path(p, "hardlink target", tpath, tlen) < 0)
		goto out;
	target = walk_path(p->tree, tpath, tlen, &bad, &not_dir);
	if (!target)
		fail(p, "hardlink target '%s' was not listed before",
		     shown(tpath, tlen, buf));
	else if (S_ISDIR(target->inode->mode))
		fail(p, "hardlink target '%s' is a directory",
		     shown(tpath, tlen, buf));
	else
		ret = cfs_dir_link(dir, name, name_len, target->inode) ? 0 : -1;
out:
	free(tpath);
	return ret;
}

static int add_file(struct parser *p, struct cfs_node *dir, const char *name,
		    size_t name_len)
{
	struct attrs a = {0};
	struct cfs_inode *ino;
	int ret = -1;

	if (parse_attrs(p, &a) < 0)
		goto out;
	ino = cfs_inode_new(a.mode);
	apply_attrs(ino, &a);
	cfs_dir_link(dir, name, name_len, ino);
	ret = parse_xattrs(p, ino);
out:
	free(a.payload);
	return ret;
}

static int set_root(struct parser *p)
{
	struct cfs_inode *root = p->tree->root->inode;
	struct attrs a = {0};
	int ret = -1;

	if (p->l.f[F_MODE].s[0] == '@')
		return fail(p, "the root directory cannot be a hard link");
	if (parse_attrs(p, &a) < 0)
		goto out;
	if (!S_ISDIR(a.mode)) {
		fail(p, "the root '/' must be a directory");
		goto out;
	}
	apply_attrs(root, &a);
	ret = parse_xattrs(p, root);
	p->have_root = true;
out:
	free(a.payload);
	return ret;
}

static int parse_line(struct parser *p, const char *s, size_t len)
{
	struct cfs_node *dir;
	const char *name;
	char *path = NULL, buf[64];
	size_t plen, name_len;
	int ret = -1;

	if (split_line(p, s, len) < 0 ||
	    unescape_string(p, &p->l.f[F_PATH], "PATH", &path, &plen) < 0 ||
	    check_path(p, "PATH", path, plen) < 0)
		goto out;
	if (!p->have_root) {
		if (plen != 1)
			fail(p, "the first entry must be the root '/'");
		else
			ret = set_root(p);
		goto out;
	}
	if (plen == 1) {
		fail(p, "duplicate path '/'");
		goto out;
	}
	dir = find_parent(p, path, plen, &name);
	if (!dir)
		goto out;
	name_len = plen - (size_t)(name - path);
	if (cfs_dir_lookup(dir, name, name_len)) {
		fail(p, "duplicate path '%s'", shown(path, plen, buf));
		goto out;
	}
	if (p->l.f[F_MODE].s[0] == '@')
		ret = link_hardlink(p, dir, name, name_len);
	else
		ret = add_file(p, dir, name, name_len);
out:
	free(path);
	return ret;
}

struct cfs_tree *cfs_dump_parse(const char *data, size_t len, const char *name)
{
	return cfs_dump_parse_store(data, len, name, NULL);
}

struct cfs_tree *cfs_dump_parse_store(const char *data, size_t len,
				      const char *name, struct cfs_store *store)
{
	struct parser p = {
		.name = name, .tree = cfs_tree_new(), .store = store};
	size_t pos = 0;

	while (pos < len) {
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - data) : len;

		p.lineno++;
		if (end > pos && parse_line(&p, data + pos, end - pos) < 0) {
			cfs_tree_free(p.tree);
			return NULL;
		}
		pos = end + 1;
	}
	if (!p.have_root) {
		cfs_error("%s: no entries (a dump starts with the root '/')",
			  name);
		cfs_tree_free(p.tree);
		return NULL;
	}
	return p.tree;
}
