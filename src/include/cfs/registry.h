/* SPDX-License-Identifier: MIT */
/*
 * Registry options as podman and skopeo spell them (--tls-verify,
 * --creds, --authfile, --cert-dir, --registries.d): parsed by the tools
 * that read from a registry, handed to skopeo's image proxy, passed on by
 * cfs-podman pull; --registries.d also says where oci2cfs finds an
 * image's signatures.
 */
#ifndef CFS_REGISTRY_H
#define CFS_REGISTRY_H

#include <stdbool.h>

enum cfs_tls_verify {
	CFS_TLS_DEFAULT, /* as registries.conf says */
	CFS_TLS_VERIFY,
	CFS_TLS_NO_VERIFY,
};

/* The strings are borrowed (argv): they must outlive every user. */
struct cfs_registry_opts {
	enum cfs_tls_verify tls_verify;
	const char *creds; /* USERNAME[:PASSWORD] */
	const char *authfile;
	const char *cert_dir;
	const char *registries_d; /* containers-registries.d(5) directory */
};

enum {
	CFS_OPT_TLS_VERIFY = 0x1000, /* above any tool's own option values */
	CFS_OPT_CREDS,
	CFS_OPT_AUTHFILE,
	CFS_OPT_CERT_DIR,
	CFS_OPT_REGISTRIES_D,
};

/* Entries for a getopt_long table. */
/* clang-format off */
#define CFS_REGISTRY_LONG_OPTIONS                                         \
	{"tls-verify", optional_argument, NULL, CFS_OPT_TLS_VERIFY},      \
	{"creds", required_argument, NULL, CFS_OPT_CREDS},                \
	{"authfile", required_argument, NULL, CFS_OPT_AUTHFILE},          \
	{"cert-dir", required_argument, NULL, CFS_OPT_CERT_DIR},          \
	{"registries.d", required_argument, NULL, CFS_OPT_REGISTRIES_D}
/* clang-format on */

/*
 * Takes the option getopt_long returned as opt: 1 if it was a registry
 * option, 0 if not, -1 after cfs_error() on a bad value.
 */
int cfs_registry_opt(struct cfs_registry_opts *r, int opt, const char *arg);
bool cfs_registry_opts_given(const struct cfs_registry_opts *r);

/*
 * 0, or -1 after cfs_error() naming the option when the auth file
 * (--authfile, else $REGISTRY_AUTH_FILE), --cert-dir or --registries.d
 * does not exist:
 * skopeo would ignore it and fail later, as if no file had been named.
 */
int cfs_registry_check(const struct cfs_registry_opts *r);

#define CFS_REGISTRY_MAX_ARGS 9
/*
 * Appends the options given, spelled for skopeo and oci2cfs alike, to
 * argv at *argc (at most CFS_REGISTRY_MAX_ARGS entries).
 */
void cfs_registry_args(const struct cfs_registry_opts *r, const char **argv,
		       int *argc);

#endif
