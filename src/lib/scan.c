// SPDX-License-Identifier: MIT
/*
 * Reading a directory tree into a cfs_tree: an fd-relative lstat walk that
 * keeps metadata, symlink targets, xattrs and hard links, and names each
 * regular file's content by its fs-verity digest.
 */
#include "cfs/scan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cfs/hashtab.h"
#include "cfs/util.h"
#include "cfs/store-layout.h"
#include "cfs/verity.h"

/* A file with several links, by (st_dev, st_ino). */
struct link {
	dev_t dev;
	ino_t ino;
	struct cfs_inode *inode;
};

struct scan {
	struct cfs_store *store;
	unsigned int flags;
	dev_t dev;	     /* of the source root: never leave it */
	struct cfs_buf path; /* current path, for messages */
	struct link *links;
	size_t n_links, cap_links;
	struct cfs_htab link_index; /* hash of (dev, ino) -> links index + 1 */
};

static const char *cur_path(struct scan *s)
{
	return (const char *)s->path.data;
}

static int fail_errno(struct scan *s, const char *what)
{
	cfs_error("%s: %s: %s", cur_path(s), what, strerror(errno));
	return -1;
}

static uint64_t link_hash(dev_t dev, ino_t ino)
{
	return cfs_hash_u64((uint64_t)ino * 0x9e3779b97f4a7c15ULL ^
			    (uint64_t)dev);
}

/* The inode already made for this (dev, ino), or NULL. */
static struct cfs_inode *link_lookup(struct scan *s, const struct stat *st)
{
	struct cfs_htab_probe p;

	if (st->st_nlink < 2 || S_ISDIR(st->st_mode))
		return NULL;
	for (size_t v = cfs_htab_first(&s->link_index,
				       link_hash(st->st_dev, st->st_ino), &p);
	     v; v = cfs_htab_next(&s->link_index, &p)) {
		const struct link *l = &s->links[v - 1];

		if (l->dev == st->st_dev && l->ino == st->st_ino)
			return l->inode;
	}
	return NULL;
}

static void link_remember(struct scan *s, const struct stat *st,
			  struct cfs_inode *inode)
{
	if (st->st_nlink < 2 || S_ISDIR(st->st_mode))
		return;
	if (s->n_links == s->cap_links) {
		s->cap_links = s->cap_links ? 2 * s->cap_links : 64;
		s->links = xrealloc(s->links, s->cap_links * sizeof(*s->links));
	}
	s->links[s->n_links++] = (struct link){st->st_dev, st->st_ino, inode};
	cfs_htab_insert(&s->link_index, link_hash(st->st_dev, st->st_ino),
			s->n_links);
}

/* Lists names into a malloc'ed NUL-separated buffer; *len 0 if none. */
static int list_xattrs(struct scan *s, int fd, const char *proc, char **out,
		       ssize_t *len)
{
	for (;;) {
		ssize_t n = proc ? listxattr(proc, NULL, 0)
				 : flistxattr(fd, NULL, 0);

		if (n < 0 && (errno == ENOTSUP || errno == EPERM)) {
			n = 0;
		} else if (n < 0) {
			return fail_errno(s, "listing xattrs");
		}
		*out = xmalloc(n + 1);
		*len = n == 0 ? 0
		       : proc ? listxattr(proc, *out, n)
			      : flistxattr(fd, *out, n);
		if (*len >= 0)
			return 0;
		free(*out);
		if (errno != ERANGE)
			return fail_errno(s, "listing xattrs");
	}
}

/* Reads one xattr value; returns 1 if read, 0 if unreadable (skip it). */
static int read_xattr(struct scan *s, int fd, const char *proc, const char *key,
		      struct cfs_inode *inode)
{
	for (;;) {
		ssize_t n = proc ? getxattr(proc, key, NULL, 0)
				 : fgetxattr(fd, key, NULL, 0);
		uint8_t *v;

		if (n < 0 && (errno == ENODATA || errno == EPERM ||
			      errno == EACCES || errno == ENOTSUP))
			return 0;
		if (n < 0)
			return fail_errno(s, key);
		v = xmalloc(n + 1);
		if (n > 0)
			n = proc ? getxattr(proc, key, v, n)
				 : fgetxattr(fd, key, v, n);
		if (n >= 0)
			cfs_inode_set_xattr(inode, key, v, n);
		free(v);
		if (n >= 0)
			return 1;
		if (errno != ERANGE)
			return fail_errno(s, key);
	}
}

/*
 * Reads every readable xattr. fd is open on the file itself, or an O_PATH
 * fd (symlinks, devices, FIFOs): those take the /proc/self/fd route since
 * the f*xattr calls refuse O_PATH descriptors.
 */
static int scan_xattrs(struct scan *s, int fd, bool o_path,
		       struct cfs_inode *inode)
{
	char proc[64], *names = NULL;
	const char *p = NULL;
	ssize_t len = 0;
	int ret = 0;

	if (s->flags & CFS_SCAN_SKIP_XATTRS)
		return 0;
	if (o_path) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		p = proc;
	}
	if (list_xattrs(s, fd, p, &names, &len) < 0)
		return -1;
	for (ssize_t i = 0; i < len && ret >= 0; i += strlen(names + i) + 1)
		ret = read_xattr(s, fd, p, names + i, inode);
	free(names);
	return ret < 0 ? -1 : 0;
}

static int set_common(struct scan *s, struct cfs_inode *ino,
		      const struct stat *st)
{
	ino->mode = st->st_mode;
	ino->uid = st->st_uid;
	ino->gid = st->st_gid;
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode)) {
		if (st->st_rdev > UINT32_MAX) {
			cfs_error("%s: device number too large", cur_path(s));
			return -1;
		}
		ino->rdev = (uint32_t)st->st_rdev;
	}
	if (!(s->flags & CFS_SCAN_USE_EPOCH)) {
		ino->mtime_sec = st->st_mtim.tv_sec;
		ino->mtime_nsec = (uint32_t)st->st_mtim.tv_nsec;
	}
	return 0;
}

static int scan_content(struct scan *s, int fd, const struct stat *st,
			struct cfs_inode *ino)
{
	char obj[CFS_OBJECT_PATH_LEN + 1];
	int r;

	ino->size = st->st_size;
	if (st->st_size == 0)
		return 0;
	if (s->store)
		r = cfs_store_add_fd(s->store, fd, st->st_size, ino->digest);
	else
		r = cfs_verity_digest_fd(fd, st->st_size, ino->digest);
	if (r < 0) {
		cfs_error_prefix("%s", cur_path(s));
		return -1;
	}
	ino->has_digest = true;
	cfs_object_path(obj, ino->digest);
	cfs_inode_set_payload(ino, obj, strlen(obj));
	return 0;
}

static int scan_symlink(struct scan *s, int dfd, const char *name,
			const struct stat *st, struct cfs_inode *ino)
{
	size_t cap = st->st_size + 2;

	for (;;) {
		char *buf = xmalloc(cap);
		ssize_t n = readlinkat(dfd, name, buf, cap);

		if (n < 0) {
			free(buf);
			return fail_errno(s, "readlink");
		}
		if ((size_t)n < cap) {
			cfs_inode_set_payload(ino, buf, n);
			free(buf);
			return 0;
		}
		free(buf);
		cap *= 2;
	}
}

/* Opens an entry the way its type needs; checks it is still the same. */
static int open_entry(struct scan *s, int dfd, const char *name,
		      const struct stat *st, bool *o_path)
{
	/* O_NONBLOCK: a FIFO swapped in for a file must not block the open. */
	int flags = O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
	struct stat st2;
	int fd;

	*o_path = !S_ISDIR(st->st_mode) && !S_ISREG(st->st_mode);
	flags |= *o_path ? O_PATH : O_RDONLY;
	if (S_ISDIR(st->st_mode))
		flags |= O_DIRECTORY;
	fd = openat(dfd, name, flags);
	if (fd < 0)
		return fail_errno(s, "open");
	if (fstat(fd, &st2) < 0 || st2.st_dev != st->st_dev ||
	    st2.st_ino != st->st_ino) {
		close(fd);
		cfs_error("%s: changed while being read", cur_path(s));
		return -1;
	}
	return fd;
}

static int scan_children(struct scan *s, int dfd, struct cfs_node *dir);

static int scan_inode(struct scan *s, int dfd, const char *name,
		      const struct stat *st, struct cfs_node *node)
{
	struct cfs_inode *ino = node->inode;
	bool o_path;
	int fd, r;

	if (set_common(s, ino, st) < 0)
		return -1;
	if (S_ISLNK(st->st_mode) && scan_symlink(s, dfd, name, st, ino) < 0)
		return -1;
	fd = open_entry(s, dfd, name, st, &o_path);
	if (fd < 0)
		return -1;
	r = scan_xattrs(s, fd, o_path, ino);
	if (r == 0 && S_ISREG(st->st_mode))
		r = scan_content(s, fd, st, ino);
	if (r == 0 && S_ISDIR(st->st_mode))
		r = scan_children(s, fd, node);
	close(fd);
	return r;
}

static int scan_entry(struct scan *s, int dfd, const char *name,
		      struct cfs_node *dir)
{
	struct cfs_inode *ino;
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return fail_errno(s, "stat");
	if (st.st_dev != s->dev) {
		cfs_error("%s: is a mount point (crossing into another "
			  "filesystem is not supported)",
			  cur_path(s));
		return -1;
	}
	ino = link_lookup(s, &st);
	if (ino) {
		cfs_dir_link(dir, name, strlen(name), ino);
		return 0;
	}
	ino = cfs_inode_new(st.st_mode);
	link_remember(s, &st, ino);
	return scan_inode(s, dfd, name, &st,
			  cfs_dir_link(dir, name, strlen(name), ino));
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in a directory, sorted, without "." and "..". */
static int read_names(struct scan *s, int dfd, char ***out, size_t *n)
{
	DIR *d = cfs_opendir_at(dfd, ".");
	size_t cap = 0;
	struct dirent *e;

	if (!d)
		return fail_errno(s, "opendir");
	*out = NULL;
	*n = 0;
	errno = 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			*out = xrealloc(*out, cap * sizeof(char *));
		}
		(*out)[(*n)++] = xstrdup(e->d_name);
	}
	if (errno) {
		fail_errno(s, "readdir");
		closedir(d);
		return -1;
	}
	closedir(d);
	if (*n)
		qsort(*out, *n, sizeof(char *), cmp_names);
	return 0;
}

static int scan_children(struct scan *s, int dfd, struct cfs_node *dir)
{
	size_t base = s->path.len, n = 0, i;
	char **names = NULL;
	int r = read_names(s, dfd, &names, &n);

	for (i = 0; r == 0 && i < n; i++) {
		s->path.len = base;
		cfs_buf_append(&s->path, "/", 1);
		cfs_buf_append(&s->path, names[i], strlen(names[i]) + 1);
		s->path.len--;
		r = scan_entry(s, dfd, names[i], dir);
	}
	s->path.len = base;
	s->path.data[base] = '\0';
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return r;
}

struct cfs_tree *cfs_scan_dir(const char *path, struct cfs_store *store,
			      unsigned int flags)
{
	struct scan s = {.store = store, .flags = flags};
	struct cfs_tree *t = cfs_tree_new();
	struct stat st;
	int fd, r = -1;

	size_t len = strlen(path);

	/* "dir/" must not give "dir//name" in messages. */
	while (len > 1 && path[len - 1] == '/')
		len--;
	cfs_buf_append(&s.path, path, len);
	cfs_buf_append(&s.path, "", 1);
	s.path.len--;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fail_errno(&s, "open");
	} else {
		s.dev = st.st_dev;
		if (set_common(&s, t->root->inode, &st) == 0 &&
		    scan_xattrs(&s, fd, false, t->root->inode) == 0)
			r = scan_children(&s, fd, t->root);
	}
	if (fd >= 0)
		close(fd);
	cfs_buf_free(&s.path);
	free(s.links);
	cfs_htab_free(&s.link_index);
	if (r < 0) {
		cfs_tree_free(t);
		return NULL;
	}
	return t;
}
