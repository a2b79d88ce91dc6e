// SPDX-License-Identifier: MIT
/*
 * Mounting an image's tree for podman through mount.composefs. Nothing is
 * printed here: a helper that cannot be run is an error of the caller's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "cfs/util.h"

int pmount_is_mounted(const char *path)
{
	struct statx stx, parent;
	char *up;
	int r;

	if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS,
		  &stx) < 0) {
		if (errno == ENOENT)
			return 0;
		cfs_error("%s: %s", path, strerror(errno));
		return -1;
	}
	if (stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT)
		return !!(stx.stx_attributes & STATX_ATTR_MOUNT_ROOT);
	/* older kernels: a mount root sits on another device than .. */
	up = xasprintf("%s/..", path);
	r = statx(AT_FDCWD, up, 0, STATX_BASIC_STATS, &parent);
	free(up);
	if (r < 0) {
		cfs_error("%s: %s", path, strerror(errno));
		return -1;
	}
	return stx.stx_dev_major != parent.stx_dev_major ||
	       stx.stx_dev_minor != parent.stx_dev_minor;
}

static bool executable(const char *p)
{
	return access(p, X_OK) == 0;
}

/* The helper: option, $CFS_MOUNT_HELPER, beside this program, /sbin. */
static char *find_helper(const struct cfs_podman_opts *o)
{
	const char *env = getenv("CFS_MOUNT_HELPER");
	char self[PATH_MAX];
	ssize_t n;

	if (o->mount_helper)
		return xstrdup(o->mount_helper);
	if (env && *env)
		return xstrdup(env);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		char *slash = strrchr(self, '/');
		char *beside = xasprintf("%.*s/mount.composefs",
					 (int)(slash - self), self);

		if (executable(beside))
			return beside;
		free(beside);
	}
	if (executable("/sbin/mount.composefs"))
		return xstrdup("/sbin/mount.composefs");
	return xstrdup("/usr/sbin/mount.composefs");
}

/* The child's exec errno reaches the parent through a close-on-exec pipe. */
static int exec_error(int fd)
{
	int e = 0;
	ssize_t n;

	while ((n = read(fd, &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(fd);
	return n == (ssize_t)sizeof(e) ? e : 0;
}

static int run_helper(const char *helper, char *const argv[])
{
	int status, e, fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0) {
		cfs_error("pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		cfs_error("fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		execv(helper, argv);
		e = errno;
		if (write(fds[1], &e, sizeof(e)) < 0)
			_exit(126);
		_exit(127);
	}
	close(fds[1]);
	e = exec_error(fds[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			cfs_error("waitpid: %s", strerror(errno));
			return -1;
		}
	}
	if (e) {
		cfs_error("%s: %s", helper, strerror(e));
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		cfs_error("%s failed (%s %d)", helper,
			  WIFEXITED(status) ? "exit status" : "signal",
			  WIFEXITED(status) ? WEXITSTATUS(status)
					    : WTERMSIG(status));
		return -1;
	}
	return 0;
}

int pmount_mount(const struct cfs_podman_opts *o, const char *store,
		 const char *manifest, const char *digest, const char *target)
{
	char *helper = find_helper(o);
	char *opts =
		digest ? xasprintf("ro,basedir=%s,digest=%s", store, digest)
		       : xasprintf("ro,basedir=%s", store);
	char *argv[] = {helper, (char *)manifest, (char *)target, "-o", opts,
			NULL};
	int r = run_helper(helper, argv);

	if (r == 0 && pmount_is_mounted(target) != 1) {
		cfs_error("%s: %s reported success but nothing is mounted",
			  target, helper);
		r = -1;
	}
	if (r < 0)
		cfs_error_prefix("%s: cannot mount %s", target, manifest);
	free(opts);
	free(helper);
	return r;
}

/*
 * A mount can stay busy for a moment after its last user is done: podman
 * run --rm returns once the container has exited, while the container's
 * processes may still be torn down and conmon's exit command (podman
 * container cleanup) unmounts its rootfs and removes it in the
 * background. So EBUSY is retried for a while before it is reported.
 *
 * No lazy unmount (MNT_DETACH) then: it would only hide a mount that is
 * still in use, and whatever uses it could go on reading objects that a
 * later store clean-up removes. A busy mount is left and reported; the
 * caller has already unregistered the image, so cfs-podman sync unmounts
 * it (a mount without a record) once it is free.
 */
#define UMOUNT_BUSY_WAIT_MS 10000
#define UMOUNT_BUSY_STEP_MS 100

int pmount_umount(const char *target)
{
	int waited = 0;

	while (umount2(target, UMOUNT_NOFOLLOW) < 0) {
		int e = errno;

		if (e == EINVAL || e == ENOENT)
			return 0;
		if (e == EBUSY && waited < UMOUNT_BUSY_WAIT_MS) {
			usleep(UMOUNT_BUSY_STEP_MS * 1000);
			waited += UMOUNT_BUSY_STEP_MS;
			continue;
		}
		if (e == EBUSY)
			cfs_error("%s: cannot unmount: still in use after %d s "
				  "(a process has files open in it, or a "
				  "container is still being cleaned up: "
				  "fuser -vm shows who); cfs-podman sync "
				  "unmounts it once it is free",
				  target, UMOUNT_BUSY_WAIT_MS / 1000);
		else
			cfs_error("%s: cannot unmount: %s", target,
				  strerror(e));
		return -1;
	}
	return 0;
}

int pmount_ensure(const struct cfs_podman_opts *o, const struct pstore *p,
		  const struct pmeta *m)
{
	int r = pmount_is_mounted(m->mountpoint);

	if (r != 0)
		return r < 0 ? -1 : 0;
	if (cfs_mkdir_p(m->mountpoint, 0755) < 0)
		return -1;
	return pmount_mount(o, p->store, m->manifest,
			    m->verity ? m->digest : NULL, m->mountpoint);
}
