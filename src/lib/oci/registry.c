// SPDX-License-Identifier: MIT
/* Registry options (cfs/registry.h). */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cfs/registry.h"
#include "cfs/util.h"

/* As Go's strconv.ParseBool, which podman's and skopeo's flags use. */
static int parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = {"1",	  "t",	  "T",
					  "true", "TRUE", "True"};
	static const char *const no[] = {"0",	  "f",	   "F",
					 "false", "FALSE", "False"};

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcmp(s, yes[i]) || !strcmp(s, no[i])) {
			*out = !strcmp(s, yes[i]);
			return 0;
		}
	}
	return -1;
}

static int set_tls_verify(struct cfs_registry_opts *r, const char *arg)
{
	bool v = true;

	if (arg && parse_bool(arg, &v) < 0) {
		cfs_error("--tls-verify: '%s' is neither true nor false", arg);
		return -1;
	}
	r->tls_verify = v ? CFS_TLS_VERIFY : CFS_TLS_NO_VERIFY;
	return 1;
}

static int set_string(const char **field, const char *option, const char *arg)
{
	if (!*arg) {
		cfs_error("--%s: empty value", option);
		return -1;
	}
	*field = arg;
	return 1;
}

int cfs_registry_opt(struct cfs_registry_opts *r, int opt, const char *arg)
{
	switch (opt) {
	case CFS_OPT_TLS_VERIFY:
		return set_tls_verify(r, arg);
	case CFS_OPT_CREDS:
		return set_string(&r->creds, "creds", arg);
	case CFS_OPT_AUTHFILE:
		return set_string(&r->authfile, "authfile", arg);
	case CFS_OPT_CERT_DIR:
		return set_string(&r->cert_dir, "cert-dir", arg);
	case CFS_OPT_REGISTRIES_D:
		return set_string(&r->registries_d, "registries.d", arg);
	default:
		return 0;
	}
}

bool cfs_registry_opts_given(const struct cfs_registry_opts *r)
{
	return r->tls_verify != CFS_TLS_DEFAULT || r->creds || r->authfile ||
	       r->cert_dir || r->registries_d;
}

static int check_exists(const char *what, const char *path)
{
	struct stat st;

	if (!path || stat(path, &st) == 0)
		return 0;
	cfs_error("%s %s: %s", what, path, strerror(errno));
	return -1;
}

int cfs_registry_check(const struct cfs_registry_opts *r)
{
	const char *env = getenv("REGISTRY_AUTH_FILE");
	int bad;

	if (r->authfile)
		bad = check_exists("--authfile", r->authfile);
	else
		bad = check_exists("REGISTRY_AUTH_FILE",
				   env && *env ? env : NULL);
	if (!bad)
		bad = check_exists("--cert-dir", r->cert_dir);
	return bad ? bad : check_exists("--registries.d", r->registries_d);
}

void cfs_registry_args(const struct cfs_registry_opts *r, const char **argv,
		       int *argc)
{
	if (r->tls_verify != CFS_TLS_DEFAULT)
		argv[(*argc)++] = r->tls_verify == CFS_TLS_VERIFY
					  ? "--tls-verify=true"
					  : "--tls-verify=false";
	if (r->creds) {
		argv[(*argc)++] = "--creds";
		argv[(*argc)++] = r->creds;
	}
	if (r->authfile) {
		argv[(*argc)++] = "--authfile";
		argv[(*argc)++] = r->authfile;
	}
	if (r->cert_dir) {
		argv[(*argc)++] = "--cert-dir";
		argv[(*argc)++] = r->cert_dir;
	}
	if (r->registries_d) {
		argv[(*argc)++] = "--registries.d";
		argv[(*argc)++] = r->registries_d;
	}
}
