// SPDX-License-Identifier: MIT
/*
 * cfs-podman setup [--install] [FILE]: print the storage.conf setting that
 * makes podman read the additional image store, or add it to FILE
 * (cfs_podman_install edits nothing else).
 */
#include <stdio.h>
#include <stdlib.h>

#include "cfs-podman.h"
#include "cfs/util.h"

int cmd_setup(const struct cfs_podman_opts *o, bool install_it,
	      const char *file)
{
	char *root = cfs_podman_ais_dir(o);
	bool changed;

	if (!file)
		file = cfs_podman_storage_conf(o);
	if (!root || (install_it && cfs_podman_install(o, file, &changed))) {
		fprintf(stderr, TOOL ": %s\n", cfs_strerror());
		free(root);
		return 1;
	}
	if (!install_it)
		printf("# in %s:\n[storage.options]\n"
		       "additionalimagestores = [\"%s\"]\n",
		       file, root);
	else if (changed)
		printf("%s: added %s to additionalimagestores\n", file, root);
	else
		printf("%s: %s is already listed in additionalimagestores\n",
		       file, root);
	free(root);
	return 0;
}
