// SPDX-License-Identifier: MIT
/*
 * Access to the files of an image: a directory (OCI layout) or a tar
 * (oci-archive, docker-archive) read with libarchive. A tar is indexed once
 * at open; each stream then opens its own libarchive reader and skips
 * headers up to its member (cheap on an uncompressed file, where libarchive
 * skips data by seeking), so several streams may be read at once from
 * different threads.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/param.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "path.h"
#include "cfs/util.h"

#define TAR_BLOCK_SIZE (128 * 1024)
#define MAX_LINK_HOPS 16
#define NAME_SHOWN 256 /* names in messages: printable, at most this long */

struct oci_stream {
	int fd;		    /* directory source, else -1 */
	struct archive *ar; /* tar source, else NULL */
	char *name;
};

/* A path inside the image, normalised; NULL if ".." climbs above the top. */
static char *normalize(const char *name)
{
	bool above;
	char *out = cfs_path_normalize(name, &above);

	if (above) {
		free(out);
		return NULL;
	}
	return out;
}

/* A link target as a path from the top: relative to the member's dir. */
static char *resolve_target(const char *member, const char *target)
{
	const char *slash = strrchr(member, '/');
	char *joined, *out;

	if (target[0] == '/' || !slash)
		return normalize(target);
	joined = xasprintf("%.*s/%s", (int)(slash - member), member, target);
	out = normalize(joined);
	free(joined);
	return out;
}

/*
 * Only filters libarchive runs in-process: an archive must never make it
 * execute a program, as it does for lzop, grzip, lrzip and so on, and for
 * these four when built without their library (hence the version checks).
 */
static void tar_filters(struct archive *a)
{
	archive_read_support_filter_none(a);
	if (archive_zlib_version())
		archive_read_support_filter_gzip(a);
	if (archive_libzstd_version())
		archive_read_support_filter_zstd(a);
	if (archive_liblzma_version())
		archive_read_support_filter_xz(a);
	if (archive_bzlib_version())
		archive_read_support_filter_bzip2(a);
}

static struct archive *tar_open(const char *path)
{
	struct archive *a = archive_read_new();

	tar_filters(a);
	archive_read_support_format_tar(a);
	archive_read_support_format_empty(a);
	if (archive_read_open_filename(a, path, TAR_BLOCK_SIZE) != ARCHIVE_OK) {
		cfs_error("%s", archive_error_string(a));
		archive_read_free(a);
		return NULL;
	}
	return a;
}

static void add_member(struct oci_source *s, struct archive_entry *e,
		       size_t ordinal)
{
	const char *hard = archive_entry_hardlink(e);
	const char *sym = archive_entry_symlink(e);
	struct oci_member *m;
	char *name = normalize(archive_entry_pathname(e));

	if (!name) /* climbs above the top: never looked up */
		return;
	if (s->n_members == s->cap_members) {
		s->cap_members = s->cap_members ? 2 * s->cap_members : 64;
		s->members = xrealloc(s->members,
				      s->cap_members * sizeof(*s->members));
	}
	m = &s->members[s->n_members++];
	memset(m, 0, sizeof(*m));
	m->name = name;
	m->ordinal = ordinal;
	m->size = archive_entry_size(e);
	if (hard) {
		m->hardlink = true;
		m->link = normalize(hard);
	} else if (archive_entry_filetype(e) == AE_IFLNK && sym) {
		m->link = resolve_target(name, sym);
	} else {
		m->regular = archive_entry_filetype(e) == AE_IFREG;
	}
}

static int tar_index(struct oci_source *s)
{
	struct archive_entry *e;
	struct archive *a = tar_open(s->path);
	size_t ordinal = 0;
	int r;

	if (!a) {
		cfs_error_prefix("not an OCI or docker archive");
		return -1;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK ||
	       r == ARCHIVE_WARN)
		add_member(s, e, ordinal++);
	if (r != ARCHIVE_EOF) {
		cfs_error("%s: %s",
			  ordinal ? "corrupt or truncated tar archive"
				  : "not an OCI or docker archive",
			  archive_error_string(a));
		archive_read_free(a);
		return -1;
	}
	archive_read_free(a);
	return 0;
}

int oci_source_open(struct oci_source *s, const char *path)
{
	struct stat st;
	int fd;

	memset(s, 0, sizeof(*s));
	s->path = path;
	s->dirfd = -1;
	if (stat(path, &st) < 0) {
		cfs_error("%s", strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		s->dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (s->dirfd < 0) {
			cfs_error("%s", strerror(errno));
			return -1;
		}
		return 0;
	}
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		cfs_error("not a file or directory");
		return -1;
	}
	/* so that a permission problem is not reported as a bad format */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		cfs_error("%s", strerror(errno));
		return -1;
	}
	close(fd);
	s->is_tar = true;
	return tar_index(s);
}

void oci_source_close(struct oci_source *s)
{
	for (size_t i = 0; i < s->n_members; i++) {
		free(s->members[i].name);
		free(s->members[i].link);
	}
	free(s->members);
	s->members = NULL;
	s->n_members = s->cap_members = 0;
	if (s->dirfd >= 0)
		close(s->dirfd);
	s->dirfd = -1;
}

/*
 * The last member of that name among the first limit members (a later
 * entry replaces an earlier one).
 */
static const struct oci_member *member_named(const struct oci_source *s,
					     const char *name, size_t limit)
{
	for (size_t i = limit; i-- > 0;)
		if (!strcmp(s->members[i].name, name))
			return &s->members[i];
	return NULL;
}

/*
 * Follows symlinks (to the final entry of the target name) and hardlinks
 * (to an entry before the link, as tar defines them) to the member that
 * holds the data.
 */
static const struct oci_member *member_find(const struct oci_source *s,
					    const char *name)
{
	char *norm = normalize(name);
	const struct oci_member *m =
		norm ? member_named(s, norm, s->n_members) : NULL;

	free(norm);
	for (int hops = 0; m && m->link && hops < MAX_LINK_HOPS; hops++)
		m = member_named(s, m->link,
				 m->hardlink ? (size_t)(m - s->members)
					     : s->n_members);
	return m && m->regular ? m : NULL;
}

static int dir_open(const struct oci_source *s, const char *name)
{
	char *norm = normalize(name), pbuf[NAME_SHOWN];
	int fd;

	cfs_printable(pbuf, sizeof(pbuf), name);
	if (!norm || !*norm) {
		cfs_error("%s: invalid path", pbuf);
		free(norm);
		return -1;
	}
	fd = cfs_open_beneath(s->dirfd, norm);
	free(norm);
	if (fd >= 0)
		return fd;
	cfs_error("%s: %s", pbuf, cfs_beneath_strerror(fd));
	return -1;
}

bool oci_source_has(const struct oci_source *s, const char *name)
{
	char *norm;
	int fd;

	if (s->is_tar)
		return member_find(s, name) != NULL;
	norm = normalize(name);
	fd = norm && *norm ? cfs_open_beneath(s->dirfd, norm) : -1;
	free(norm);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

int oci_source_size(const struct oci_source *s, const char *name,
		    uint64_t *size)
{
	const struct oci_member *m;
	char pbuf[NAME_SHOWN];
	struct stat st;
	int fd;

	if (s->is_tar) {
		m = member_find(s, name);
		if (!m) {
			cfs_error("%s: missing",
				  cfs_printable(pbuf, sizeof(pbuf), name));
			return -1;
		}
		*size = m->size;
		return 0;
	}
	fd = dir_open(s, name);
	if (fd < 0)
		return -1;
	fstat(fd, &st);
	close(fd);
	*size = st.st_size;
	return 0;
}

/* A fresh reader positioned at the data of member m. */
static struct archive *tar_seek(const struct oci_source *s,
				const struct oci_member *m)
{
	struct archive_entry *e;
	struct archive *a = tar_open(s->path);
	int r = ARCHIVE_OK;

	if (!a)
		return NULL;
	for (size_t i = 0; i <= m->ordinal; i++) {
		r = archive_read_next_header(a, &e);
		if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
			break;
	}
	if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
		cfs_error("%s", r == ARCHIVE_EOF ? "archive changed while open"
						 : archive_error_string(a));
		archive_read_free(a);
		return NULL;
	}
	return a;
}

int oci_stream_open(const struct oci_source *s, const char *name,
		    struct oci_stream **out)
{
	struct oci_stream *st = xcalloc(1, sizeof(*st));
	const struct oci_member *m;
	char pbuf[NAME_SHOWN];

	st->fd = -1;
	st->name = xstrdup(cfs_printable(pbuf, sizeof(pbuf), name));
	if (!s->is_tar) {
		st->fd = dir_open(s, name);
		if (st->fd < 0)
			goto fail;
	} else {
		m = member_find(s, name);
		if (!m) {
			cfs_error("%s: missing",
				  cfs_printable(pbuf, sizeof(pbuf), name));
			goto fail;
		}
		st->ar = tar_seek(s, m);
		if (!st->ar) {
			cfs_error_prefix("%s", st->name);
			goto fail;
		}
	}
	*out = st;
	return 0;
fail:
	oci_stream_close(st);
	return -1;
}

ssize_t oci_stream_read(struct oci_stream *st, void *buf, size_t n)
{
	ssize_t r;

	if (st->ar) {
		r = archive_read_data(st->ar, buf, n);
		if (r < 0) {
			cfs_error("%s: %s", st->name,
				  archive_error_string(st->ar));
			return -1;
		}
		return r;
	}
	do
		r = read(st->fd, buf, n);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		cfs_error("%s: %s", st->name, strerror(errno));
	return r;
}

void oci_stream_close(struct oci_stream *st)
{
	if (!st)
		return;
	if (st->ar)
		archive_read_free(st->ar);
	if (st->fd >= 0)
		close(st->fd);
	free(st->name);
	free(st);
}

int oci_source_read_all(const struct oci_source *s, const char *name,
			size_t limit, uint8_t **data, size_t *len)
{
	struct cfs_buf b = {0};
	struct oci_stream *st;
	ssize_t r = 0;

	if (oci_stream_open(s, name, &st) < 0)
		return -1;
	while (b.len <= limit) {
		cfs_buf_reserve(&b, 65536);
		r = oci_stream_read(st, b.data + b.len,
				    MIN(b.cap - b.len, limit + 1 - b.len));
		if (r <= 0)
			break;
		b.len += r;
	}
	oci_stream_close(st);
	if (r < 0) {
		cfs_buf_free(&b);
		return -1;
	}
	*data = b.data ? b.data : xmalloc(1);
	*len = b.len;
	return 0;
}
