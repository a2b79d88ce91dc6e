// SPDX-License-Identifier: MIT
/*
 * fsck's object check: every object's fs-verity digest, the kernel's
 * measurement where verity is enabled on it (cheap: the kernel checked the
 * content when it built the Merkle tree and checks it on every read),
 * computed otherwise, on several threads.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store-tool.h"
#include "cfs/pool.h"
#include "cfs/util.h"

struct hash_job {
	int storefd;
	struct hashed_object *objs;
	size_t n;
	atomic_size_t next;
	atomic_size_t measured;
	atomic_bool no_verity; /* the filesystem has none: do not ask */
	struct store_progress *progress;
};

static void hash_one(struct hash_job *j, struct hashed_object *h)
{
	char path[CFS_OBJECT_PATH_LEN + 1];
	struct stat st;
	int fd;

	cfs_object_path(path, h->digest);
	fd = openat(j->storefd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 || fstat(fd, &st) < 0) {
		h->error = errno;
		if (fd >= 0)
			close(fd);
		return;
	}
	h->size = (uint64_t)st.st_size;
	if (!atomic_load(&j->no_verity) &&
	    cfs_verity_measure(fd, h->actual) == 0) {
		h->kernel = true;
		atomic_fetch_add(&j->measured, 1);
		close(fd);
		return;
	}
	if (errno == ENOTTY || errno == EOPNOTSUPP)
		atomic_store(&j->no_verity, true);
	if (cfs_verity_digest_fd(fd, h->size, h->actual) < 0)
		h->error = errno ? errno : EIO;
	close(fd);
}

static void hash_worker(void *opaque)
{
	struct hash_job *j = opaque;
	size_t i;

	while ((i = atomic_fetch_add(&j->next, 1)) < j->n) {
		hash_one(j, &j->objs[i]);
		store_progress_step(j->progress);
	}
}

size_t hash_objects(const char *store, struct hashed_object *objs, size_t n,
		    int threads, struct store_progress *progress)
{
	struct hash_job j = {.objs = objs, .n = n, .progress = progress};

	j.storefd = open(store, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cfs_pool_run(cfs_pool_size(threads, n, 0), hash_worker, &j);
	if (j.storefd >= 0)
		close(j.storefd);
	return atomic_load(&j.measured);
}
