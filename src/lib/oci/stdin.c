// SPDX-License-Identifier: MIT
/*
 * IMAGE "-": an archive on standard input (podman save | oci2cfs -). The
 * tar readers need to read the archive more than once (an index, then one
 * reader per layer), so standard input is copied to a temp file without a
 * name (O_TMPFILE) under TMPDIR, default /var/tmp as for skopeo: no other
 * user can open it, and it is gone when the image is closed or the
 * process dies.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "cfs/util.h"

#define SPOOL_BUF (1 << 20)

static const char *spool_dir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/var/tmp";
}

/* An unnamed file in dir; a named one, removed at once, where unsupported. */
static int unnamed_file(const char *dir)
{
	char *tmpl;
	int fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);

	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR))
		return fd;
	tmpl = xasprintf("%s/oci2cfs-stdin.XXXXXX", dir);
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd >= 0)
		unlink(tmpl);
	free(tmpl);
	return fd;
}

static int copy_all(int in, int out, const char *dir)
{
	char *buf = xmalloc(SPOOL_BUF);
	ssize_t n = 0;
	int r = -1;

	for (;;) {
		/* EINTR: a signal the tool catches to stop, so stop */
		n = read(in, buf, SPOOL_BUF);
		if (n < 0) {
			cfs_error("reading standard input: %s",
				  strerror(errno));
			break;
		}
		if (n == 0) {
			r = 0;
			break;
		}
		if (cfs_write_all(out, buf, (size_t)n) < 0) {
			cfs_error("copying standard input to %s: %s", dir,
				  strerror(errno));
			break;
		}
	}
	free(buf);
	return r;
}

int oci_spool_stdin(int *fd_out, char **path_out)
{
	const char *dir = spool_dir();
	int fd;

	if (isatty(STDIN_FILENO)) {
		cfs_error("standard input is a terminal, not an archive");
		return -1;
	}
	fd = unnamed_file(dir);
	if (fd < 0) {
		cfs_error("temp file in %s: %s", dir, strerror(errno));
		return -1;
	}
	if (copy_all(STDIN_FILENO, fd, dir) < 0) {
		close(fd);
		return -1;
	}
	*fd_out = fd;
	*path_out = xasprintf("/proc/self/fd/%d", fd);
	return 0;
}
