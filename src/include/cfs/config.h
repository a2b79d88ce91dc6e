/* SPDX-License-Identifier: MIT */
/*
 * Where the tools find the store when no --store (or store=) names one:
 * $CFS_STORE if set and not empty, else the `store =` line of the
 * configuration file ($CFS_CONFIG, default /etc/cfs/cfs.conf) if it has
 * one, else /var/lib/cfs. The format is cfs.conf(5).
 */
#ifndef CFS_CONFIG_H
#define CFS_CONFIG_H

#define CFS_CONFIG_FILE "/etc/cfs/cfs.conf"
#define CFS_BUILTIN_STORE "/var/lib/cfs"

/*
 * The default store, an absolute path valid until exit; NULL after
 * cfs_error() naming the file and line when the configuration is bad.
 */
const char *cfs_default_store(void);

#endif
