// SPDX-License-Identifier: MIT
/*
 * Applying a layer record to a tree with OCI layer semantics. Parent
 * components of every entry are resolved inside the image: symlinks are
 * followed with the image root as "/", ".." stops at the root, so no entry
 * can land outside the tree (the securejoin rule of umoci and containerd).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cfs/escape.h"
#include "cfs/layer.h"
#include "cfs/util.h"
#include "cfs/store-layout.h"
#include "cfs/verity.h"

#define MAX_SYMLINKS 40
#define MAX_LINK_PASSES 16

struct apply {
	struct cfs_tree *t;
	int nlinks; /* symlinks followed for the current entry */
};

/* The next component of p[*i..len), skipping slashes; its length. */
static size_t next_comp(const char *p, size_t len, size_t *i, const char **c)
{
	size_t n = 0;

	while (*i < len && p[*i] == '/')
		(*i)++;
	*c = p + *i;
	while (*i < len && p[*i] != '/') {
		(*i)++;
		n++;
	}
	return n;
}

static struct cfs_node *mkdir_child(struct cfs_node *dir, const char *name,
				    size_t len)
{
	struct cfs_inode *ino = cfs_inode_new(S_IFDIR | 0755);

	return cfs_dir_link(dir, name, len, ino);
}

static int walk(struct apply *a, struct cfs_node *cur, const char *p,
		size_t len, bool create, struct cfs_node **out);

static int follow(struct apply *a, struct cfs_node *dir,
		  const struct cfs_inode *link, bool create,
		  struct cfs_node **out)
{
	const char *target = link->payload;

	if (++a->nlinks > MAX_SYMLINKS) {
		cfs_error("too many levels of symbolic links");
		return -1;
	}
	if (!target)
		target = "";
	if (target[0] == '/')
		dir = a->t->root;
	return walk(a, dir, target, strlen(target), create, out);
}

/* One step from directory cur by component c; *out NULL if missing. */
static int step(struct apply *a, struct cfs_node *cur, const char *c, size_t n,
		bool create, struct cfs_node **out)
{
	struct cfs_node *child;

	if (n == 1 && c[0] == '.') {
		*out = cur;
		return 0;
	}
	if (n == 2 && c[0] == '.' && c[1] == '.') {
		*out = cur->parent ? cur->parent : cur;
		return 0;
	}
	child = cfs_dir_lookup(cur, c, n);
	if (!child) {
		*out = create ? mkdir_child(cur, c, n) : NULL;
		return 0;
	}
	if (S_ISLNK(child->inode->mode))
		return follow(a, cur, child->inode, create, out);
	if (!S_ISDIR(child->inode->mode) && !create) {
		/*
		 * Nothing below a non-directory to hide or link to: an
		 * opaque directory that replaces a lower file (rm a; mkdir
		 * a) hides nothing, the directory entry replaces the file.
		 */
		*out = NULL;
		return 0;
	}
	if (!S_ISDIR(child->inode->mode)) {
		char *name = xstrndup(c, n), pbuf[CFS_SHOWN_MAX];

		cfs_error("%s: not a directory",
			  cfs_printable(pbuf, sizeof(pbuf), name));
		free(name);
		return -1;
	}
	*out = child;
	return 0;
}

/*
 * Resolves every component of p from cur, following symlinks, to a
 * directory. Missing directories are created if create, else *out = NULL.
 */
static int walk(struct apply *a, struct cfs_node *cur, const char *p,
		size_t len, bool create, struct cfs_node **out)
{
	size_t i = 0;

	while (cur) {
		const char *c;
		size_t n = next_comp(p, len, &i, &c);

		if (n == 0)
			break;
		if (step(a, cur, c, n, create, &cur) < 0)
			return -1;
	}
	*out = cur;
	return 0;
}

/* Splits a clean path into its parent directory (resolved) and last name. */
static int resolve_parent(struct apply *a, const char *path, bool create,
			  struct cfs_node **dir, const char **name)
{
	const char *slash = strrchr(path, '/');

	a->nlinks = 0;
	*name = slash ? slash + 1 : path;
	return walk(a, a->t->root, path, slash ? (size_t)(slash - path) : 0,
		    create, dir);
}

static void set_xattrs(struct cfs_inode *ino, const struct cfs_layer_entry *e)
{
	cfs_inode_clear_xattrs(ino);
	for (uint32_t i = 0; i < e->n_xattrs; i++)
		cfs_inode_set_xattr(ino, e->xattrs[i].key, e->xattrs[i].value,
				    e->xattrs[i].value_len);
}

static void set_attrs(struct cfs_inode *ino, const struct cfs_layer_entry *e)
{
	ino->mode = e->mode;
	ino->uid = e->uid;
	ino->gid = e->gid;
	ino->mtime_sec = e->mtime_sec;
	ino->mtime_nsec = e->mtime_nsec;
	set_xattrs(ino, e);
}

static int set_content(struct cfs_inode *ino, const struct cfs_layer_entry *e)
{
	char obj[CFS_OBJECT_PATH_LEN + 1];

	switch (e->mode & S_IFMT) {
	case S_IFREG:
		ino->size = e->size;
		if (e->size == 0)
			return 0;
		if (!e->has_digest) {
			cfs_error("regular file without a content digest");
			return -1;
		}
		cfs_object_path(obj, e->digest);
		cfs_inode_set_payload(ino, obj, strlen(obj));
		ino->has_digest = true;
		memcpy(ino->digest, e->digest, CFS_DIGEST_SIZE);
		return 0;
	case S_IFLNK:
		if (!e->link || !e->link[0]) {
			cfs_error("symlink without a target");
			return -1;
		}
		cfs_inode_set_payload(ino, e->link, strlen(e->link));
		return 0;
	case S_IFCHR:
	case S_IFBLK:
		ino->rdev = e->rdev;
		return 0;
	}
	return 0;
}

static int apply_node(struct apply *a, const struct cfs_layer_entry *e)
{
	struct cfs_node *dir, *old;
	struct cfs_inode *ino;
	const char *name;

	if (e->path[0] == '\0') {
		if (!S_ISDIR(e->mode)) {
			cfs_error("cannot replace the root directory");
			return -1;
		}
		set_attrs(a->t->root->inode, e);
		return 0;
	}
	if (resolve_parent(a, e->path, true, &dir, &name) < 0)
		return -1;
	old = cfs_dir_lookup(dir, name, strlen(name));
	if (old && S_ISDIR(old->inode->mode) && S_ISDIR(e->mode)) {
		set_attrs(old->inode, e);
		return 0;
	}
	ino = cfs_inode_new(e->mode);
	set_attrs(ino, e);
	if (set_content(ino, e) < 0) {
		cfs_inode_unref(ino);
		return -1;
	}
	if (old)
		cfs_dir_link(dir, name, strlen(name), ino);
	else
		cfs_dir_add(dir, name, strlen(name), ino);
	return 0;
}

static int apply_whiteout(struct apply *a, const struct cfs_layer_entry *e)
{
	struct cfs_node *dir;
	const char *name;

	if (resolve_parent(a, e->path, false, &dir, &name) < 0)
		return -1;
	if (dir && S_ISDIR(dir->inode->mode))
		cfs_dir_unlink(dir, name, strlen(name));
	return 0;
}

static int apply_opaque(struct apply *a, const struct cfs_layer_entry *e)
{
	struct cfs_node *dir;

	a->nlinks = 0;
	if (walk(a, a->t->root, e->path, strlen(e->path), false, &dir) < 0)
		return -1;
	if (dir && S_ISDIR(dir->inode->mode))
		cfs_dir_clear(dir);
	return 0;
}

/* Hard link; returns 1 if the target does not exist (yet). */
static int apply_hardlink(struct apply *a, const struct cfs_layer_entry *e)
{
	struct cfs_node *tdir, *target, *dir, *old;
	const char *tname, *name;

	if (!e->link || resolve_parent(a, e->link, false, &tdir, &tname) < 0)
		return -1;
	if (!tdir)
		return 1;
	if (!tname[0]) {
		cfs_error("hard link to the root directory");
		return -1;
	}
	target = cfs_dir_lookup(tdir, tname, strlen(tname));
	if (!target)
		return 1;
	if (S_ISDIR(target->inode->mode)) {
		char pbuf[CFS_SHOWN_MAX];

		cfs_error("hard link to directory %s",
			  cfs_printable(pbuf, sizeof(pbuf), e->link));
		return -1;
	}
	if (e->path[0] == '\0') {
		cfs_error("cannot replace the root directory");
		return -1;
	}
	if (resolve_parent(a, e->path, true, &dir, &name) < 0)
		return -1;
	old = cfs_dir_lookup(dir, name, strlen(name));
	if (!old || old->inode != target->inode)
		cfs_dir_link(dir, name, strlen(name), target->inode);
	return 0;
}

static int entry_failed(const struct cfs_layer_entry *e)
{
	char pbuf[CFS_SHOWN_MAX];

	cfs_error_prefix("%s",
			 e->path[0] ? cfs_printable(pbuf, sizeof(pbuf), e->path)
				    : "/");
	return -1;
}

/*
 * Whiteouts and opaque markers hide only what lower layers hold, never an
 * entry of their own layer, wherever they sit in the tar: so they are all
 * applied first, and only to what exists (nothing is created for them).
 */
static int apply_hiding(struct apply *a, const struct cfs_layer *l)
{
	for (size_t i = 0; i < l->n_entries; i++) {
		const struct cfs_layer_entry *e = &l->entries[i];
		int r = 0;

		if (e->kind == CFS_ENTRY_OPAQUE)
			r = apply_opaque(a, e);
		else if (e->kind == CFS_ENTRY_WHITEOUT)
			r = apply_whiteout(a, e);
		if (r < 0)
			return entry_failed(e);
	}
	return 0;
}

static int apply_entry(struct apply *a, const struct cfs_layer_entry *e)
{
	switch (e->kind) {
	case CFS_ENTRY_NODE:
		return apply_node(a, e);
	case CFS_ENTRY_HARDLINK:
		return apply_hardlink(a, e);
	case CFS_ENTRY_WHITEOUT:
	case CFS_ENTRY_OPAQUE:
		return 0; /* applied first, by apply_hiding */
	}
	cfs_error("unknown entry kind %u", e->kind);
	return -1;
}

/*
 * Retries deferred hard links until none makes progress, in at most
 * MAX_LINK_PASSES passes: a chain of links each to a later one, listed in
 * reverse, resolves one link per pass, so an unbounded loop is quadratic
 * in the layer's entries. (Tar and umoci allow only links to earlier
 * entries; a later target is a courtesy.)
 */
static int apply_deferred(struct apply *a, const struct cfs_layer *l,
			  size_t *deferred, size_t n)
{
	bool progress = true;

	for (int pass = 0; n > 0 && progress && pass < MAX_LINK_PASSES;
	     pass++) {
		size_t left = 0;

		progress = false;
		for (size_t i = 0; i < n; i++) {
			const struct cfs_layer_entry *e =
				&l->entries[deferred[i]];
			int rc = apply_hardlink(a, e);

			if (rc < 0)
				return entry_failed(e);
			if (rc == 1)
				deferred[left++] = deferred[i];
			else
				progress = true;
		}
		n = left;
	}
	if (n == 0)
		return 0;
	char p1[CFS_SHOWN_MAX], p2[CFS_SHOWN_MAX];

	cfs_error("%s: hard link target %s not found",
		  cfs_printable(p1, sizeof(p1), l->entries[deferred[0]].path),
		  cfs_printable(p2, sizeof(p2), l->entries[deferred[0]].link));
	return -1;
}

int cfs_layer_apply(struct cfs_tree *t, const struct cfs_layer *l)
{
	struct apply a = {.t = t};
	size_t *deferred = NULL, n_deferred = 0;
	int rc = apply_hiding(&a, l);

	for (size_t i = 0; rc == 0 && i < l->n_entries; i++) {
		int r = apply_entry(&a, &l->entries[i]);

		if (r < 0) {
			rc = entry_failed(&l->entries[i]);
		} else if (r == 1) {
			deferred = xrealloc(
				deferred, (n_deferred + 1) * sizeof(*deferred));
			deferred[n_deferred++] = i;
		}
	}
	if (rc == 0)
		rc = apply_deferred(&a, l, deferred, n_deferred);
	free(deferred);
	return rc;
}
