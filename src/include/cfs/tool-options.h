/* SPDX-License-Identifier: MIT */
/*
 * What every tool's option parsing shares (tool-options.c): above the
 * base, it includes cfs/config.h for the default store.
 */
#ifndef CFS_TOOL_OPTIONS_H
#define CFS_TOOL_OPTIONS_H

/*
 * Option parsing, the same in every tool: parse_args() returns 0 to run,
 * 1 after printing --help or --version (the tool exits 0), or -1 after
 * printing a usage error "TOOL: message" (the tool exits 2; mount and
 * umount.composefs: 1, as mount(8) expects of helpers).
 */
/*
 * The program name installed beside the running tool, else name itself
 * for execvp's PATH search (malloc'ed): a tool that runs another (cfs-seal
 * and cfs-podman pull run oci2cfs) runs the one of its own installation.
 */
char *cfs_tool_beside(const char *name);
/* debian/changelog's version of the package ("0.1.0"). */
const char *cfs_version(void);
/* Prints "TOOL VERSION" on stdout for --version; returns 1 (see above). */
int cfs_print_version(const char *tool);
/*
 * The one usage-error style of every tool, on stderr: "TOOL: MESSAGE", then
 * "Try 'TOOL --help' for more information.". getopt_long's own messages
 * take the place of "TOOL: MESSAGE" when main() sets argv[0] to TOOL first.
 * cfs_usage_error returns -1 (see above).
 */
void cfs_usage_hint(const char *tool);
int cfs_usage_error(const char *tool, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * *store, or the default store (cfs/config.h) when no option set it: 0, or
 * -1 after printing "TOOL: FILE:LINE: PROBLEM" for a bad cfs.conf(5) (the
 * tool exits 1).
 */
int cfs_tool_store(const char *tool, const char **store);
/* The --help line's default, the same in every tool. */
#define CFS_STORE_DEFAULT_HELP "$CFS_STORE, cfs.conf(5), or /var/lib/cfs"
/*
 * A decimal integer option value in [min, max] (all of s: no sign-only,
 * no trailing junk, no leading blank): 0, or -1 after cfs_error() saying
 * "not a number: S" or "out of range (MIN to MAX): S".
 */
int cfs_parse_count(const char *s, int min, int max, int *out);

#endif
