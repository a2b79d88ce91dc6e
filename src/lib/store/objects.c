// SPDX-License-Identifier: MIT
/*
 * The content-addressed object store: writing objects. A small object is
 * hashed in memory, then written next to its final name (xx/.obj.PID.H.N);
 * a large one goes to .tmp/, its fs-verity digest computed while it is
 * written (one pass over the data) or, where fs-verity is enabled anyway,
 * taken from the kernel (temps.c names the temps). Per the sync policy
 * it is then placed at once (place.c), or queued for the commit
 * (commit.c).
 */
#include "cfs/store.h"

#include <dirent.h>
#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "cfs/store-layout.h"
#include "cfs/util.h"

/* Contents up to this size are hashed in memory before any write. */
#define SMALL_OBJECT_MAX (256 * 1024)
#define WRITE_BUF_SIZE (1024 * 1024)

static void unlink_temp(int storefd, const char *rel, void *opaque)
{
	unlinkat(storefd, rel, 0);
}

/*
 * Temp objects are named obj.PID.H.N in .tmp/ and .obj.PID.H.N in fanout
 * dirs (temps.c): those of a converter that is gone (kill -9, power
 * loss) are removed by the next one to open the store.
 */
static void remove_stale_tmp(int storefd)
{
	cfs_gone_temps(storefd, unlink_temp, NULL);
}

int cfs_store_open(struct cfs_store **out, const char *dir,
		   const struct cfs_store_opts *opts)
{
	struct cfs_store *s;
	char *tmp = xasprintf("%s/.tmp", dir);
	int r = cfs_layout_make_root(dir);

	if (r == 0)
		r = cfs_mkdir_p(tmp, CFS_STORE_DIR_MODE);
	free(tmp);
	if (r < 0 || cfs_store_mark(dir) < 0)
		return -1;
	s = xcalloc(1, sizeof(*s));
	s->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->dirfd < 0) {
		cfs_error("%s: %s", dir, strerror(errno));
		free(s);
		return -1;
	}
	s->dir = xstrdup(dir);
	s->pid = (int)getpid();
	remove_stale_tmp(s->dirfd);
	if (opts)
		s->opts = *opts;
	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_init(&s->place_lock, NULL);
	if (s->opts.sync == CFS_SYNC_BATCH) {
		struct cfs_writeback_hooks hooks = cfs_store_early_hooks(s);

		s->writeback = cfs_writeback_start(s->dirfd, &hooks);
	}
	*out = s;
	return 0;
}

void cfs_store_close(struct cfs_store *s)
{
	if (!s)
		return;
	cfs_writeback_stop(s->writeback);
	cfs_store_pending_free(s);
	cfs_store_unmark(s);
	close(s->dirfd);
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->place_lock);
	free(s->dir);
	free(s);
}

const char *cfs_store_dir(const struct cfs_store *s)
{
	return s->dir;
}

const struct cfs_store_opts *cfs_store_options(const struct cfs_store *s)
{
	return &s->opts;
}

int cfs_store_dirfd(const struct cfs_store *s)
{
	return s->dirfd;
}

bool cfs_store_names_trusted(struct cfs_store *s)
{
	return s->opts.no_verity || atomic_load(&s->verity_unsupported);
}

void cfs_store_get_stats(struct cfs_store *s, struct cfs_store_stats *st)
{
	pthread_mutex_lock(&s->lock);
	*st = s->stats;
	st->verity = atomic_load(&s->verity_used);
	pthread_mutex_unlock(&s->lock);
}

static bool object_exists(struct cfs_store *s, const uint8_t *digest)
{
	char path[CFS_OBJECT_PATH_LEN + 1];
	struct stat st;

	cfs_object_path(path, digest);
	if (fstatat(s->dirfd, path, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISREG(st.st_mode))
		return false;
	/* with fs-verity, an existing object is trusted once measured */
	if (cfs_store_names_trusted(s))
		return true;
	switch (cfs_store_check_existing(s->dirfd, path, digest)) {
	case CFS_EXISTING_REPLACE:
		return false;
	case CFS_EXISTING_NO_VERITY:
		atomic_store(&s->verity_unsupported, true);
		return true;
	default:
		return true;
	}
}

bool cfs_store_has(struct cfs_store *s, const uint8_t digest[CFS_DIGEST_SIZE])
{
	bool r;

	pthread_mutex_lock(&s->lock);
	r = cfs_store_pending_has(s, digest);
	pthread_mutex_unlock(&s->lock);
	return r || object_exists(s, digest);
}

static int close_object(struct cfs_store *s, int fd)
{
	int r = 0;

	if (s->opts.sync == CFS_SYNC_EACH && fsync(fd) < 0) {
		cfs_error("%s: fsync: %s", s->dir, strerror(errno));
		r = -1;
	}
	if (close(fd) < 0 && r == 0) {
		cfs_error("%s: writing object: %s", s->dir, strerror(errno));
		r = -1;
	}
	return r;
}

/*
 * Hands a closed temp object (or, r < 0, a failed one) to the store:
 * dropped if the object exists, placed now (sync each/none) or queued for
 * cfs_store_commit. With looked, the caller found no such object just
 * before writing it: only this handle's other threads are checked again
 * (another process placing it meanwhile makes the rename find it).
 */
static int file_object(struct cfs_store *s, int r, char *tmp,
		       const uint8_t *digest, uint64_t size, bool looked)
{
	pthread_mutex_lock(&s->lock);
	if (r == 0 && (cfs_store_pending_has(s, digest) ||
		       (!looked && object_exists(s, digest)))) {
		s->stats.existing_objects++;
	} else if (r == 0 && s->opts.sync == CFS_SYNC_BATCH) {
		cfs_store_pending_add(s, tmp, digest);
		tmp = NULL;
		s->stats.new_objects++;
		s->stats.new_bytes += size;
		cfs_writeback_note(s->writeback, size);
	} else if (r == 0) {
		r = cfs_store_place(s, tmp, digest);
		if (r == 0) {
			s->stats.new_objects++;
			s->stats.new_bytes += size;
		}
	}
	pthread_mutex_unlock(&s->lock);
	if (tmp) {
		unlinkat(s->dirfd, tmp, 0);
		free(tmp);
	}
	return r;
}

static int finish_object(struct cfs_store *s, int fd, char *tmp,
			 const uint8_t *digest, uint64_t size, bool looked)
{
	return file_object(s, close_object(s, fd), tmp, digest, size, looked);
}

static int add_small(struct cfs_store *s, cfs_read_fn fn, void *opaque,
		     uint64_t size, uint8_t digest[CFS_DIGEST_SIZE])
{
	uint8_t *buf = xmalloc(size);
	char *tmp;
	int fd, r = fn(opaque, buf, size);

	if (r < 0) {
		free(buf);
		return -1;
	}
	if (cfs_verity_digest_mem(buf, size, digest) < 0) {
		free(buf);
		return -1;
	}
	if (cfs_store_has(s, digest)) {
		pthread_mutex_lock(&s->lock);
		s->stats.existing_objects++;
		pthread_mutex_unlock(&s->lock);
		free(buf);
		return 0;
	}
	fd = cfs_store_tmp_create_beside(s, digest, &tmp);
	if (fd < 0) {
		free(buf);
		return -1;
	}
	if (cfs_write_all(fd, buf, size) < 0) {
		cfs_error("%s: writing object: %s", s->dir, strerror(errno));
		free(buf);
		close(fd);
		unlinkat(s->dirfd, tmp, 0);
		free(tmp);
		return -1;
	}
	free(buf);
	return finish_object(s, fd, tmp, digest, size, true);
}

/* Tee: what libfsverity reads is also written to the temp file. */
struct tee {
	cfs_read_fn fn;
	void *opaque;
	int fd;
	uint8_t *buf;
	size_t used;
	int write_errno;
};

static int tee_flush(struct tee *t)
{
	if (t->used && cfs_write_all(t->fd, t->buf, t->used) < 0) {
		t->write_errno = errno;
		return -1;
	}
	t->used = 0;
	return 0;
}

static int tee_read(void *opaque, void *buf, size_t count)
{
	struct tee *t = opaque;
	int r = t->fn(t->opaque, buf, count);

	if (r < 0)
		return r;
	if (t->used + count > WRITE_BUF_SIZE && tee_flush(t) < 0)
		return -t->write_errno;
	if (count > WRITE_BUF_SIZE) {
		if (cfs_write_all(t->fd, buf, count) < 0) {
			t->write_errno = errno;
			return -errno;
		}
		return 0;
	}
	memcpy(t->buf + t->used, buf, count);
	t->used += count;
	return 0;
}

static int add_large_hashed(struct cfs_store *s, cfs_read_fn fn, void *opaque,
			    uint64_t size, uint8_t digest[CFS_DIGEST_SIZE])
{
	struct tee t = {fn, opaque, -1, NULL, 0, 0};
	char *tmp;
	int r;

	t.fd = cfs_store_tmp_create(s, &tmp);
	if (t.fd < 0)
		return -1;
	t.buf = xmalloc(WRITE_BUF_SIZE);
	r = cfs_verity_digest_stream(tee_read, &t, size, digest);
	if (r == 0)
		r = tee_flush(&t);
	free(t.buf);
	if (r < 0) {
		if (t.write_errno)
			cfs_error("%s: writing object: %s", s->dir,
				  strerror(t.write_errno));
		close(t.fd);
		unlinkat(s->dirfd, tmp, 0);
		free(tmp);
		return -1;
	}
	return finish_object(s, t.fd, tmp, digest, size, false);
}

static int copy_stream(struct cfs_store *s, cfs_read_fn fn, void *opaque,
		       uint64_t size, int fd)
{
	uint8_t *buf = xmalloc(WRITE_BUF_SIZE);
	int r = 0;

	while (size && r == 0) {
		size_t n = size < WRITE_BUF_SIZE ? size : WRITE_BUF_SIZE;

		r = fn(opaque, buf, n);
		if (r == 0 && cfs_write_all(fd, buf, n) < 0) {
			cfs_error("%s: writing object: %s", s->dir,
				  strerror(errno));
			r = -1;
		}
		size -= n;
	}
	free(buf);
	return r < 0 ? -1 : 0;
}

/* The digest of a closed temp object: the kernel's, or computed here. */
static int temp_digest(struct cfs_store *s, const char *tmp, uint64_t size,
		       uint8_t digest[CFS_DIGEST_SIZE])
{
	int fd, r;

	if (cfs_store_enable_verity(s, tmp) < 0)
		return -1;
	fd = openat(s->dirfd, tmp, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		cfs_error("%s: %s: %s", s->dir, tmp, strerror(errno));
		return -1;
	}
	if (atomic_load(&s->verity_unsupported)) {
		r = cfs_verity_digest_fd(fd, size, digest);
	} else {
		r = cfs_verity_measure(fd, digest);
		if (r < 0)
			cfs_error("%s: %s: measuring fs-verity: %s", s->dir,
				  tmp, strerror(errno));
	}
	close(fd);
	return r;
}

/*
 * Where fs-verity is enabled anyway, the kernel hashes the object when it
 * builds the Merkle tree, and its measurement is the object's name: the
 * content is written unhashed and the kernel's digest taken, one SHA-256
 * pass instead of two. An object that turns out to exist cost a write.
 * The first object finds out whether the filesystem has fs-verity; where
 * it has none, it is hashed from the page cache and the rest on the way.
 */
static int add_large(struct cfs_store *s, cfs_read_fn fn, void *opaque,
		     uint64_t size, uint8_t digest[CFS_DIGEST_SIZE])
{
	char *tmp;
	int fd, r;

	if (s->opts.no_verity || atomic_load(&s->verity_unsupported))
		return add_large_hashed(s, fn, opaque, size, digest);
	fd = cfs_store_tmp_create(s, &tmp);
	if (fd < 0)
		return -1;
	r = copy_stream(s, fn, opaque, size, fd);
	if (r == 0)
		r = close_object(s, fd);
	else
		close(fd);
	if (r == 0)
		r = temp_digest(s, tmp, size, digest);
	return file_object(s, r, tmp, digest, size, false);
}

void cfs_store_interrupt(struct cfs_store *s)
{
	atomic_store(&s->interrupted, true);
}

int cfs_store_add_stream(struct cfs_store *s, cfs_read_fn fn, void *opaque,
			 uint64_t size, uint8_t digest[CFS_DIGEST_SIZE])
{
	if (atomic_load(&s->interrupted)) {
		cfs_error("interrupted");
		return -1;
	}
	if (size == 0) {
		cfs_error("%s: empty objects are not stored", s->dir);
		return -1;
	}
	if (size <= SMALL_OBJECT_MAX)
		return add_small(s, fn, opaque, size, digest);
	return add_large(s, fn, opaque, size, digest);
}

int cfs_store_add_fd(struct cfs_store *s, int fd, uint64_t size,
		     uint8_t digest[CFS_DIGEST_SIZE])
{
	if (lseek(fd, 0, SEEK_SET) < 0) {
		cfs_error("seek: %s", strerror(errno));
		return -1;
	}
	return cfs_store_add_stream(s, cfs_fd_read_fn, &fd, size, digest);
}
