// SPDX-License-Identifier: MIT
/*
 * cfs-podman remove --purge: unregister the image, then remove it from the
 * cfs store with `cfs-store rm ID` (beside this program, else on PATH), so
 * that the store's own rules apply: refused while mounted elsewhere, refs
 * and manifest removed under the store lock, objects left to cfs-store gc.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cfs-podman.h"
#include "cfs/util.h"

static char *store_tool(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		char *slash, *beside;

		self[n] = '\0';
		slash = strrchr(self, '/');
		beside = xasprintf("%.*s/cfs-store", (int)(slash - self), self);
		if (access(beside, X_OK) == 0)
			return beside;
		free(beside);
	}
	return xstrdup("cfs-store");
}

static int run_store_rm(const struct cfs_podman_opts *o, const char *id)
{
	char *tool = store_tool();
	char *argv[] = {tool, "--store",  (char *)o->store,
			"rm", (char *)id, NULL};
	int status = -1;
	pid_t pid = fork();

	if (pid == 0) {
		execvp(tool, argv);
		fprintf(stderr, TOOL ": %s: %s\n", tool, strerror(errno));
		_exit(127);
	}
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	free(tool);
	return pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0
									: -1;
}

int cmd_remove_purge(const struct cfs_podman_opts *o, const char *name)
{
	char id[CFS_PODMAN_ID_LEN + 1];

	if (cfs_podman_lookup(o, name, id) < 0 ||
	    cfs_podman_remove(o, name) < 0) {
		fprintf(stderr, TOOL ": %s: %s\n", name, cfs_strerror());
		return 1;
	}
	if (run_store_rm(o, id) < 0) {
		fprintf(stderr,
			TOOL ": %s: unregistered, but not removed from the "
			     "store %s\n",
			name, o->store);
		return 1;
	}
	return 0;
}
