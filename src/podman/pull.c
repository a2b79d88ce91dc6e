// SPDX-License-Identifier: MIT
/*
 * cfs-podman pull IMAGE: oci2cfs --podman IMAGE, i.e. pull (or read),
 * convert, mount and register in one step. oci2cfs is run as a program (the
 * one installed beside cfs-podman, else from PATH) rather than linked in:
 * the converter's pipeline, signal handling and progress live there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfs-podman.h"
#include "cfs/util.h"

int pull_option(struct cfs_registry_opts *reg, int c, const char *arg)
{
	int r = cfs_registry_opt(reg, c, arg);

	if (r < 0)
		fprintf(stderr, TOOL ": %s\n", cfs_strerror());
	return r;
}

#define PULL_ARGS_MAX (9 + CFS_REGISTRY_MAX_ARGS) /* prog .. -- IMAGE */

int cmd_pull(const struct cfs_podman_opts *o, const char *image,
	     const char *policy, bool require_seal,
	     const struct cfs_registry_opts *reg)
{
	char *prog = cfs_tool_beside("oci2cfs");
	const char *argv[PULL_ARGS_MAX + 1] = {prog, "--podman", "--store",
					       o->store};
	int argc = 4;

	if (policy) {
		argv[argc++] = "--signature-policy";
		argv[argc++] = policy;
	}
	if (require_seal)
		argv[argc++] = "--require-seal";
	cfs_registry_args(reg, argv, &argc);
	argv[argc++] = "--";
	argv[argc++] = image;
	argv[argc] = NULL;
	/* oci2cfs --podman registers with podman's default storage.conf */
	if (o->storage_conf &&
	    setenv("CONTAINERS_STORAGE_CONF", o->storage_conf, 1) < 0) {
		fprintf(stderr, TOOL ": %s\n", strerror(errno));
		free(prog);
		return 1;
	}
	execvp(prog, (char *const *)argv);
	fprintf(stderr, TOOL ": cannot run %s: %s\n", prog, strerror(errno));
	free(prog);
	return 1;
}
