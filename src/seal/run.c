// SPDX-License-Identifier: MIT
/* cfs-seal: running skopeo and oci2cfs. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "seal.h"
#include "cfs/escape.h"
#include "cfs/util.h"

extern char **environ;

volatile int seal_interrupted;

#define TAIL_MAX 4096

/*
 * The last non-empty line of file err, without skopeo's logrus frame
 * (time="..." level=fatal msg="..."), made printable.
 */
static void last_line(const char *err, char *out, size_t size)
{
	char buf[TAIL_MAX + 1], *line = buf, *msg;
	int fd = open(err, O_RDONLY | O_CLOEXEC);
	size_t n;

	if (fd >= 0) {
		line = cfs_fd_last_line(fd, buf, sizeof(buf));
		close(fd);
	} else {
		buf[0] = '\0';
	}
	n = strlen(line);
	msg = strstr(line, " msg=\"");
	if (msg && n > 0 && line[n - 1] == '"') {
		line[n - 1] = '\0';
		line = msg + 6;
		/* Go's %q: only \" and \\ matter for one line */
		for (char *r = line, *w = line;; r++) {
			if (*r == '\\' && (r[1] == '"' || r[1] == '\\'))
				r++;
			if (!(*w++ = *r))
				break;
		}
	}
	cfs_printable(out, size, line);
}

static int child_failed(const char *prog, int status, const char *err)
{
	char tail[512];

	last_line(err, tail, sizeof(tail));
	if (tail[0])
		cfs_error("%s", tail);
	else if (WIFEXITED(status))
		cfs_error("%s failed (exit status %d)", prog,
			  WEXITSTATUS(status));
	else
		cfs_error("%s killed by signal %d", prog, WTERMSIG(status));
	return -1;
}

/* Waits for pid, passing it the signal that interrupted cfs-seal. */
static int wait_child(pid_t pid, int *status)
{
	bool passed = false;

	for (;;) {
		if (seal_interrupted && !passed) {
			kill(pid, seal_interrupted);
			passed = true;
		}
		if (waitpid(pid, status, 0) == pid)
			return 0;
		if (errno != EINTR) {
			cfs_error("waitpid: %s", strerror(errno));
			return -1;
		}
	}
}

int seal_run(const char *const *argv, const char *out, const char *err)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int r, status;

	if (seal_interrupted) {
		cfs_error("interrupted by signal %d", (int)seal_interrupted);
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, out,
					 O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_addopen(&fa, 2, err,
					 O_WRONLY | O_CREAT | O_TRUNC, 0600);
	r = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv,
			 environ);
	posix_spawn_file_actions_destroy(&fa);
	if (r) {
		cfs_error("cannot run %s: %s", argv[0], strerror(r));
		return -1;
	}
	if (wait_child(pid, &status) < 0)
		return -1;
	if (seal_interrupted) {
		cfs_error("interrupted by signal %d", (int)seal_interrupted);
		return -1;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	return child_failed(argv[0], status, err);
}
