// SPDX-License-Identifier: MIT
/* Leftovers of dead converters: .tmp/obj.PID.* whose PID is gone. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "store-tool.h"
#include "util.h"

static bool pid_dead(int pid)
{
	return pid > 0 && kill(pid, 0) < 0 && errno == ESRCH;
}

void store_dead_leftovers(const char *store, leftover_fn fn, void *opaque)
{
	char *dir = xasprintf("%s/.tmp", store);
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		int pid;

		if (sscanf(e->d_name, "obj.%d.", &pid) == 1 && pid_dead(pid)) {
			char *path = xasprintf(".tmp/%s", e->d_name);

			fn(path, opaque);
			free(path);
		}
	}
	if (d)
		closedir(d);
	free(dir);
}
