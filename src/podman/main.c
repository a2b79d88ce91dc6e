// SPDX-License-Identifier: MIT
/* cfs-podman: composefs images in podman through an additional image store. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfs-podman.h"
#include "cfs/util.h"

#define DEFAULT_STORE "/var/lib/cfs"

static void usage(FILE *f)
{
	fputs("Usage: cfs-podman [OPTION]... COMMAND [ARG]...\n"
	      "Make composefs images runnable by podman through an "
	      "additional image store\n"
	      "(STORE/podman).\n"
	      "\n"
	      "Commands:\n"
	      "  setup [--install] [FILE]   print (or add to FILE, default "
	      "podman's\n"
	      "                             storage.conf) the "
	      "additionalimagestores setting\n"
	      "  add NAME|MANIFEST [--name REPO:TAG]... [--mountpoint DIR]\n"
	      "                             mount an image and register it "
	      "with podman\n"
	      "  pull IMAGE                 oci2cfs --podman IMAGE: pull "
	      "(docker://...,\n"
	      "                             containers-storage:..., a "
	      "file), convert, add\n"
	      "  list                       registered images, mounts, "
	      "digests\n"
	      "  remove [--purge] IMAGE     unregister (refused while a "
	      "container uses it);\n"
	      "                             --purge: then cfs-store rm it "
	      "from the store\n"
	      "  sync                       remount registered images, "
	      "repair what is safe\n"
	      "  check                      report where records and mounts "
	      "disagree\n"
	      "\n"
	      "Options:\n"
	      "  -s, --store=DIR         cfs store (default " DEFAULT_STORE
	      ")\n"
	      "      --storage-conf=FILE podman's storage.conf (default "
	      "$CONTAINERS_STORAGE_CONF\n"
	      "                          or /etc/containers/storage.conf)\n"
	      "  -n, --name=REPO:TAG     add: a name for the image "
	      "(repeatable)\n"
	      "      --mountpoint=DIR    add: the image's tree is already "
	      "mounted at DIR\n"
	      "      --install           setup: edit the file instead of "
	      "printing\n"
	      "      --purge             remove: also remove the image from "
	      "the cfs store\n"
	      "      --signature-policy=FILE  pull: policy.json (default: "
	      "as podman)\n"
	      "      --tls-verify[=BOOL], --creds=USER:PASSWORD, "
	      "--authfile=FILE,\n"
	      "      --cert-dir=DIR      pull: registry options, as "
	      "oci2cfs(1)\n"
	      "  -h, --help              show this help\n"
	      "      --version           print the version\n",
	      f);
}

enum {
	OPT_STORAGE_CONF = 256,
	OPT_MOUNTPOINT,
	OPT_INSTALL,
	OPT_PURGE,
	OPT_POLICY,
	OPT_VERSION,
};

static const struct option long_opts[] = {
	{"store", required_argument, NULL, 's'},
	{"storage-conf", required_argument, NULL, OPT_STORAGE_CONF},
	{"name", required_argument, NULL, 'n'},
	{"mountpoint", required_argument, NULL, OPT_MOUNTPOINT},
	{"install", no_argument, NULL, OPT_INSTALL},
	{"purge", no_argument, NULL, OPT_PURGE},
	{"signature-policy", required_argument, NULL, OPT_POLICY},
	CFS_REGISTRY_LONG_OPTIONS,
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, OPT_VERSION},
	{NULL, 0, NULL, 0},
};

struct args {
	struct cfs_podman_opts o;
	const char **names;
	size_t n_names;
	const char *mountpoint;
	bool install, purge;
	const char *policy;
	char **pos; /* command and its arguments */
	int n_pos;
	struct cfs_registry_opts registry; /* pull */
};

/* 0 to run, 1 after --help/--version, -1 after a usage error (util.h). */
static int parse_args(int argc, char **argv, struct args *a)
{
	int c;

	a->o.store = DEFAULT_STORE;
	while ((c = getopt_long(argc, argv, "s:n:h", long_opts, NULL)) != -1) {
		switch (c) {
		case 's':
			a->o.store = optarg;
			break;
		case OPT_STORAGE_CONF:
			a->o.storage_conf = optarg;
			break;
		case 'n':
			a->names = xrealloc(
				a->names, (a->n_names + 2) * sizeof(*a->names));
			a->names[a->n_names++] = optarg;
			a->names[a->n_names] = NULL;
			break;
		case OPT_MOUNTPOINT:
			a->mountpoint = optarg;
			break;
		case OPT_INSTALL:
			a->install = true;
			break;
		case OPT_PURGE:
			a->purge = true;
			break;
		case OPT_POLICY:
			a->policy = optarg;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case OPT_VERSION:
			return cfs_print_version(TOOL);
		default:
			if (pull_option(&a->registry, c, optarg) <= 0)
				return -1;
		}
	}
	a->pos = argv + optind;
	a->n_pos = argc - optind;
	if (a->n_pos < 1) {
		fputs(TOOL ": expected a COMMAND (see --help)\n", stderr);
		return -1;
	}
	return 0;
}

static int nargs(const struct args *a, int want, const char *what)
{
	if (a->n_pos - 1 == want)
		return 0;
	fprintf(stderr, TOOL ": %s: %s\n", a->pos[0], what);
	return -1;
}

static int cmd_add(struct args *a)
{
	const char *self[] = {a->pos[1], NULL};
	struct cfs_podman_add add = {
		.image = a->pos[1],
		.names = a->names,
		.mountpoint = a->mountpoint,
	};
	char id[CFS_PODMAN_ID_LEN + 1];

	/* a store ref doubles as the image's name unless --name is given */
	if (!a->names && access(a->pos[1], F_OK) != 0 &&
	    !strstr(a->pos[1], ".cfs"))
		add.names = self;
	if (cfs_podman_add(&a->o, &add, id) < 0) {
		fprintf(stderr, TOOL ": %s: %s\n", a->pos[1],
			cfs_strerror_after(a->pos[1]));
		return 1;
	}
	printf("%s\n", id);
	return 0;
}

static int cmd_remove(struct args *a)
{
	if (a->purge)
		return cmd_remove_purge(&a->o, a->pos[1]);
	if (cfs_podman_remove(&a->o, a->pos[1]) < 0) {
		fprintf(stderr, TOOL ": %s: %s\n", a->pos[1],
			cfs_strerror_after(a->pos[1]));
		return 1;
	}
	return 0;
}

static int dispatch(struct args *a)
{
	const char *cmd = a->pos[0];

	if (strcmp(cmd, "add") && (a->names || a->mountpoint)) {
		fprintf(stderr,
			TOOL ": %s: --name and --mountpoint are for "
			     "add\n",
			cmd);
		return 2;
	}
	if (strcmp(cmd, "remove") && a->purge) {
		fprintf(stderr, TOOL ": %s: --purge is for remove\n", cmd);
		return 2;
	}
	if (strcmp(cmd, "pull") && a->policy) {
		fprintf(stderr, TOOL ": %s: --signature-policy is for pull\n",
			cmd);
		return 2;
	}
	if (strcmp(cmd, "pull") && cfs_registry_opts_given(&a->registry)) {
		fprintf(stderr,
			TOOL ": %s: --tls-verify, --creds, --authfile and "
			     "--cert-dir are for pull\n",
			cmd);
		return 2;
	}
	if (strcmp(cmd, "setup") && a->install) {
		fprintf(stderr, TOOL ": %s: --install is for setup\n", cmd);
		return 2;
	}
	if (!strcmp(cmd, "setup") && a->n_pos <= 2)
		return cmd_setup(&a->o, a->install,
				 a->n_pos == 2 ? a->pos[1] : NULL);
	if (!strcmp(cmd, "setup")) {
		fputs(TOOL ": setup: expected at most one FILE\n", stderr);
		return 2;
	}
	if (!strcmp(cmd, "add"))
		return nargs(a, 1, "expected one NAME or MANIFEST")
			       ? 2
			       : cmd_add(a);
	if (!strcmp(cmd, "pull"))
		return nargs(a, 1, "expected one IMAGE")
			       ? 2
			       : cmd_pull(&a->o, a->pos[1], a->policy,
					  &a->registry);
	if (!strcmp(cmd, "remove"))
		return nargs(a, 1, "expected one IMAGE") ? 2 : cmd_remove(a);
	if (!strcmp(cmd, "list"))
		return nargs(a, 0, "takes no argument") ? 2 : cmd_list(&a->o);
	if (!strcmp(cmd, "check") || !strcmp(cmd, "sync"))
		return nargs(a, 0, "takes no argument")
			       ? 2
			       : cmd_check(&a->o, !strcmp(cmd, "sync"));
	fprintf(stderr, TOOL ": %s: unknown command (see --help)\n", cmd);
	return 2;
}

int main(int argc, char **argv)
{
	struct args a = {0};
	int r;

	umask(022); /* podman's rootless readers need 0644 files */
	r = parse_args(argc, argv, &a);
	if (r) {
		free(a.names);
		return r < 0 ? 2 : 0;
	}
	r = dispatch(&a);
	free(a.names);
	return r;
}
