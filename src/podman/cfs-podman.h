/* SPDX-License-Identifier: MIT */
/* cfs-podman: the subcommands. */
#ifndef CFS_PODMAN_TOOL_H
#define CFS_PODMAN_TOOL_H

#include <stdbool.h>

#include "cfs/podman.h"
#include "cfs/registry.h"

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
	     const char *policy, bool require_seal,
	     const struct cfs_registry_opts *reg);
/*
 * A registry option of pull (getopt_long's c): 1 if taken, 0 if c is none,
 * -1 after printing what is wrong with its value.
 */
int pull_option(struct cfs_registry_opts *reg, int c, const char *arg);

#endif
