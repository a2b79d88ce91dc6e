// SPDX-License-Identifier: MIT
/* cfs-store: which directories a command may act on (the store marker). */
#include <stdio.h>
#include <string.h>

#include "store-tool.h"
#include "cfs/util.h"

/* The commands that delete or move files in the store. */
static bool changes_store(const struct cmd_opts *o, const char *cmd)
{
	return !strcmp(cmd, "rm") || (!strcmp(cmd, "gc") && !o->dry_run) ||
	       (!strcmp(cmd, "fsck") && o->repair);
}

/*
 * Every command refuses a newer layout; those that change the store also
 * a directory that does not say it is a store. A store made before the
 * marker (images/ and .lock) is marked now.
 */
int store_check_marker(const struct cmd_opts *o, const char *cmd)
{
	int r = cfs_store_marker(o->store);

	if (r == 0 && changes_store(o, cmd)) {
		if (!cfs_store_shaped(o->store)) {
			fprintf(stderr,
				TOOL
				": %s: not a cfs store (no " CFS_STORE_MARKER
				"); %s%s leaves it alone. A store is marked "
				"when oci2cfs or mkcfs --digest-store "
				"first writes to it\n",
				o->store, cmd, o->repair ? " --repair" : "");
			return -1;
		}
		r = cfs_store_mark(o->store);
	}
	if (r < 0)
		fprintf(stderr, TOOL ": %s\n", cfs_strerror());
	return r < 0 ? -1 : 0;
}
