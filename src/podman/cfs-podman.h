/* SPDX-License-Identifier: MIT */
/* cfs-podman: the subcommands. */
#ifndef CFS_PODMAN_TOOL_H
#define CFS_PODMAN_TOOL_H

#include <stdbool.h>

#include "cfs/podman.h"

#define TOOL "cfs-podman"

/* Each returns the process exit status. */
int cmd_setup(const struct cfs_podman_opts *o, bool install, const char *file);
/* json: one array of objects, each field as in the table, "id" in full. */
int cmd_list(const struct cfs_podman_opts *o, bool json);
/* check (repair false) or sync (repair true). */
int cmd_check(const struct cfs_podman_opts *o, bool repair);
/* remove --purge: unregister, then cfs-store rm the image. */
int cmd_remove_purge(const struct cfs_podman_opts *o, const char *name);
/* Runs oci2cfs --podman IMAGE (exec: returns only on failure). */
int cmd_pull(const struct cfs_podman_opts *o, const char *image,
	     const char *policy);

#endif
