// SPDX-License-Identifier: MIT
/* cfs_layer_apply: layer tars read into records and applied to a tree. */
#include "layer-testutil.h"
#include "tap.h"
#include "cfs/tree.h"

static struct cfs_store *store;

/* The node at a path, no symlinks followed; NULL if absent. */
static struct cfs_node *at(struct cfs_tree *t, const char *path)
{
	struct cfs_node *n = t->root;

	while (n && *path) {
		size_t len = strcspn(path, "/");

		n = cfs_dir_lookup(n, path, len);
		path += len + (path[len] == '/');
	}
	return n;
}

static uint32_t mode_at(struct cfs_tree *t, const char *path)
{
	struct cfs_node *n = at(t, path);

	return n ? n->inode->mode : 0;
}

/* Reads the built tar and applies it; returns cfs_layer_apply's result. */
static int apply_tar(struct cfs_tree *t, struct tb *b)
{
	struct cfs_layer *l;
	int rc;

	tb_end(b);
	rc = read_mem(&l, b->out.data, b->out.len, NULL, store);
	cfs_buf_free(&b->out);
	if (rc < 0) {
		printf("# read: %s\n", cfs_strerror());
		return -2;
	}
	rc = cfs_layer_apply(t, l);
	if (rc < 0)
		printf("# apply: %s\n", cfs_strerror());
	cfs_layer_free(l);
	return rc;
}

static void test_basic_nodes(void)
{
	struct cfs_tree *t = cfs_tree_new();
	struct cfs_node *n;
	uint8_t d[CFS_DIGEST_SIZE];
	char obj[CFS_OBJECT_PATH_LEN + 1];
	struct tb b;

	tb_begin(&b, TB_GZIP);
	tb_dir(&b, "./", 0700);
	tb_file(&b, "p/q/file", 04755, "content", 7);
	tb_file(&b, "p/empty", 0644, NULL, 0);
	tb_symlink(&b, "p/sym", "/etc/../x");
	tb_dev(&b, "dev/null", S_IFCHR | 0666, 1, 3);
	tb_file(&b, "../../etc/passwd", 0644, "root", 4);
	ok(apply_tar(t, &b) == 0, "basic layer applies");
	ok(t->root->inode->mode == (S_IFDIR | 0700) &&
		   t->root->inode->mtime_sec == 1000,
	   "./ entry sets root attributes");
	n = at(t, "p/q");
	ok(n && n->inode->mode == (S_IFDIR | 0755) && n->inode->uid == 0 &&
		   n->inode->mtime_sec == 0,
	   "missing parents created as 0755 dirs");
	n = at(t, "p/q/file");
	cfs_verity_digest_mem("content", 7, d);
	cfs_object_path(obj, d);
	ok(n && n->inode->mode == (S_IFREG | 04755) && n->inode->size == 7 &&
		   n->inode->has_digest && !memcmp(n->inode->digest, d, 32) &&
		   n->inode->payload && !strcmp(n->inode->payload, obj),
	   "regular file: digest and object path payload");
	ok(cfs_store_commit(store) == 0 && object_has(store, d, "content", 7),
	   "object file holds the content");
	n = at(t, "p/empty");
	ok(n && n->inode->size == 0 && !n->inode->payload &&
		   !n->inode->has_digest,
	   "empty file has no payload");
	n = at(t, "p/sym");
	ok(n && S_ISLNK(n->inode->mode) && n->inode->payload &&
		   !strcmp(n->inode->payload, "/etc/../x") &&
		   n->inode->size == 9,
	   "symlink payload is the target");
	n = at(t, "dev/null");
	ok(n && S_ISCHR(n->inode->mode) && n->inode->rdev == makedev(1, 3),
	   "device rdev");
	ok(S_ISREG(mode_at(t, "etc/passwd")), "../../etc/passwd lands inside");
	cfs_tree_free(t);
}

static void test_dir_merge_and_replace(void)
{
	struct cfs_tree *t = cfs_tree_new();
	struct archive_entry *e;
	struct cfs_node *n;
	struct tb b;

	tb_begin(&b, TB_NONE);
	tb_dir(&b, "d", 0755);
	tb_file(&b, "d/f", 0644, "f", 1);
	tb_dir(&b, "x", 0755);
	tb_file(&b, "x/child", 0644, "c", 1);
	tb_file(&b, "y", 0644, "y", 1);
	ok(apply_tar(t, &b) == 0, "lower layer applies");

	tb_begin(&b, TB_NONE);
	e = tb_entry("d", S_IFDIR | 0700);
	archive_entry_set_uid(e, 5);
	archive_entry_xattr_add_entry(e, "user.new", "v", 1);
	tb_add(&b, e, NULL, 0);
	tb_file(&b, "x", 0600, "now a file", 10);
	tb_dir(&b, "y", 0711);
	ok(apply_tar(t, &b) == 0, "upper layer applies");
	n = at(t, "d");
	ok(n && n->inode->mode == (S_IFDIR | 0700) && n->inode->uid == 5 &&
		   n->inode->n_xattrs == 1 && at(t, "d/f"),
	   "dir over dir: children kept, attributes taken");
	ok(mode_at(t, "x") == (S_IFREG | 0600) && at(t, "x/child") == NULL,
	   "file over dir replaces the subtree");
	ok(mode_at(t, "y") == (S_IFDIR | 0711), "dir over file replaces");
	cfs_tree_free(t);
}

static void test_whiteouts(void)
{
	struct cfs_tree *t = cfs_tree_new();
	struct cfs_node *o;
	struct tb b;

	tb_begin(&b, TB_NONE);
	tb_file(&b, "a/gone", 0644, "g", 1);
	tb_file(&b, "a/kept", 0644, "k", 1);
	tb_file(&b, "o/old1", 0644, "1", 1);
	tb_dir(&b, "o/old2", 0755);
	tb_file(&b, "o/old2/deep", 0644, "d", 1);
	ok(apply_tar(t, &b) == 0, "lower layer applies");

	tb_begin(&b, TB_NONE);
	tb_file(&b, "a/.wh.gone", 0, NULL, 0);
	tb_file(&b, "a/.wh.never-existed", 0, NULL, 0);
	tb_file(&b, "o/new", 0644, "n", 1);
	tb_file(&b, "o/.wh..wh..opq", 0, NULL, 0);
	tb_file(&b, ".wh..wh.plnk", 0, NULL, 0);
	ok(apply_tar(t, &b) == 0, "whiteout layer applies");
	ok(!at(t, "a/gone") && at(t, "a/kept"), "whiteout removes the name");
	ok(!at(t, "a/.wh.gone") && !at(t, "a/.wh.never-existed") &&
		   !at(t, "a/never-existed") && !at(t, ".wh..wh.plnk"),
	   "no whiteout files in the result");
	o = at(t, "o");
	ok(o && o->inode->n_children == 1 && at(t, "o/new"),
	   "opaque dir hides lower children, keeps this layer's (after it)");
	cfs_tree_free(t);
}

/*
 * rm a; mkdir a, as overlayfs-based builders record it: the directory
 * entry, its opaque marker and its new content replace the lower file.
 */
static void test_file_replaced_by_opaque_dir(void)
{
	struct cfs_tree *t = cfs_tree_new();
	struct cfs_node *a;
	struct tb b;

	tb_begin(&b, TB_NONE);
	tb_file(&b, "a", 0644, "file", 4);
	tb_file(&b, "b/old", 0644, "o", 1);
	ok(apply_tar(t, &b) == 0, "lower layer with the file a applies");

	tb_begin(&b, TB_NONE);
	tb_dir(&b, "a/", 0755);
	tb_file(&b, "a/.wh..wh..opq", 0, NULL, 0);
	tb_file(&b, "a/new", 0644, "n", 1);
	tb_file(&b, "b/old/.wh.x", 0, NULL, 0);
	ok(apply_tar(t, &b) == 0,
	   "a layer replacing the file a by an opaque directory applies");
	a = at(t, "a");
	ok(a && S_ISDIR(a->inode->mode) && a->inode->n_children == 1 &&
		   at(t, "a/new") && S_ISREG(mode_at(t, "a/new")),
	   "a is a directory holding only new");
	ok(S_ISREG(mode_at(t, "b/old")),
	   "a whiteout below a file hides nothing and keeps the file");
	cfs_tree_free(t);
}

static void test_hardlinks(void)
{
	struct cfs_tree *t = cfs_tree_new();
	struct cfs_node *a, *b2;
	struct tb b;

	tb_begin(&b, TB_NONE);
	tb_file(&b, "lower", 0644, "L", 1);
	ok(apply_tar(t, &b) == 0, "lower layer applies");

	tb_begin(&b, TB_NONE);
	tb_hardlink(&b, "to-lower", "lower");
	tb_hardlink(&b, "early", "./later");
	tb_file(&b, "later", 0755, "later", 5);
	tb_file(&b, "replaced", 0644, "r", 1);
	tb_hardlink(&b, "replaced", "lower");
	ok(apply_tar(t, &b) == 0, "hardlink layer applies");
	a = at(t, "to-lower");
	ok(a && a->inode == at(t, "lower")->inode && a->inode->refcount == 3,
	   "hardlink to a lower-layer file shares the inode");
	a = at(t, "early");
	b2 = at(t, "later");
	ok(a && b2 && a->inode == b2->inode &&
		   a->inode->mode == (S_IFREG | 0755),
	   "hardlink to a later entry is deferred and resolved");
	ok(at(t, "replaced") &&
		   at(t, "replaced")->inode == at(t, "lower")->inode,
	   "hardlink replaces an existing name");

	tb_begin(&b, TB_NONE);
	tb_hardlink(&b, "dangling", "nowhere");
	ok(apply_tar(t, &b) == -1 && strstr(cfs_strerror(), "dangling") &&
		   strstr(cfs_strerror(), "nowhere"),
	   "missing hardlink target is an error naming the entry");

	tb_begin(&b, TB_NONE);
	tb_dir(&b, "somedir", 0755);
	tb_hardlink(&b, "dirlink", "somedir");
	ok(apply_tar(t, &b) == -1 && strstr(cfs_strerror(), "dirlink"),
	   "hardlink to a directory is an error");
	cfs_tree_free(t);
}

static void test_symlink_parents(void)
{
	struct cfs_tree *t = cfs_tree_new();
	struct tb b;

	tb_begin(&b, TB_NONE);
	tb_dir(&b, "etc", 0755);
	tb_symlink(&b, "evil", "/");
	tb_file(&b, "evil/x", 0644, "x", 1);
	tb_symlink(&b, "up", "../../..");
	tb_file(&b, "up/y", 0644, "y", 1);
	tb_symlink(&b, "etclink", "/etc");
	tb_file(&b, "etclink/z", 0644, "z", 1);
	tb_symlink(&b, "rel", "etc/sub/../sub2");
	tb_file(&b, "rel/w", 0644, "w", 1);
	tb_symlink(&b, "chain", "etclink");
	tb_file(&b, "chain/v", 0644, "v", 1);
	tb_symlink(&b, "evil2", "/");
	tb_symlink(&b, "evil2", "../../../");
	tb_hardlink(&b, "evil2/hl", "evil/x");
	ok(apply_tar(t, &b) == 0, "symlink-parent layer applies");
	ok(S_ISREG(mode_at(t, "x")) && S_ISLNK(mode_at(t, "evil")),
	   "evil -> / then evil/x lands at /x, symlink kept");
	ok(S_ISREG(mode_at(t, "y")), "up -> ../../.. clamps at the root");
	ok(S_ISREG(mode_at(t, "etc/z")), "absolute target is image-relative");
	ok(S_ISREG(mode_at(t, "etc/sub2/w")) && S_ISDIR(mode_at(t, "etc/sub")),
	   "relative target with .. resolved, missing dirs created");
	ok(S_ISREG(mode_at(t, "etc/v")), "symlink chain followed");
	ok(at(t, "hl") && at(t, "hl")->inode == at(t, "x")->inode,
	   "hardlink through symlinked parents");
	ok(S_ISLNK(mode_at(t, "etclink")),
	   "final symlink component not followed");

	tb_begin(&b, TB_NONE);
	tb_symlink(&b, "l1", "l2");
	tb_symlink(&b, "l2", "l1");
	tb_file(&b, "l1/f", 0644, "f", 1);
	ok(apply_tar(t, &b) == -1 &&
		   strstr(cfs_strerror(),
			  "too many levels of symbolic links") &&
		   strstr(cfs_strerror(), "l1/f"),
	   "symlink loop is an error");

	tb_begin(&b, TB_NONE);
	tb_file(&b, "plain", 0644, "p", 1);
	tb_file(&b, "plain/under", 0644, "u", 1);
	ok(apply_tar(t, &b) == -1 && strstr(cfs_strerror(), "plain/under") &&
		   strstr(cfs_strerror(), "not a directory"),
	   "file as a parent is an error naming the entry");
	cfs_tree_free(t);
}

static void test_root_replace(void)
{
	struct cfs_tree *t = cfs_tree_new();
	struct tb b;

	tb_begin(&b, TB_NONE);
	tb_file(&b, "a/..", 0644, "oops", 4);
	ok(apply_tar(t, &b) == -1 && strstr(cfs_strerror(), "root"),
	   "a file entry for the root is an error");
	cfs_tree_free(t);
}

int main(void)
{
	store = scratch_store();
	test_basic_nodes();
	test_dir_merge_and_replace();
	test_whiteouts();
	test_file_replaced_by_opaque_dir();
	test_hardlinks();
	test_symlink_parents();
	test_root_replace();
	scratch_store_close(store);
	return tap_done();
}
