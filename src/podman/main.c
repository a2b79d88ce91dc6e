// SPDX-License-Identifier: MIT
/* cfs-podman: composefs images in podman through an additional image store. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfs-podman.h"
#include "cfs/store-layout.h"
#include "cfs/util.h"

static const char usage_text[] =
	"Usage: cfs-podman [OPTION]... COMMAND [ARG]...\n"
	"Make composefs images runnable by podman through an additional\n"
	"image store (STORE/podman). Options may come anywhere on the line;\n"
	"\"--\" ends them.\n"
	"\n"
	"Commands:\n"
	"  setup [--install] [FILE]   print (or add to FILE, default podman's\n"
	"                             storage.conf) the additionalimagestores\n"
	"                             setting\n"
	"  add NAME|MANIFEST [--name REPO:TAG]... [--mountpoint DIR]\n"
	"                             mount an image and register it with\n"
	"                             podman\n"
	"  pull IMAGE                 oci2cfs --podman IMAGE: pull\n"
	"                             (docker://..., containers-storage:...,\n"
	"                             a file), convert, add\n"
	"  list [--json], ls          registered images, mounts, digests\n"
	"  remove [--purge] IMAGE, rm unregister (refused while a container\n"
	"                             uses it); --purge: then cfs-store rm it\n"
	"                             from the store\n"
	"  sync                       remount registered images, repair what\n"
	"                             is safe\n"
	"  check                      report where records and mounts\n"
	"                             disagree\n"
	"\n"
	"Options:\n"
	"  -s, --store=DIR            cfs store (default\n"
	"                             " CFS_STORE_DEFAULT_HELP ")\n"
	"      --storage-conf=FILE    podman's storage.conf (default\n"
	"                             $CONTAINERS_STORAGE_CONF or\n"
	"                             /etc/containers/storage.conf)\n"
	"  -n, --name=REPO:TAG        add: a name for the image (repeatable)\n"
	"      --mountpoint=DIR       add: the image's tree is already\n"
	"                             mounted at DIR\n"
	"      --install              setup: edit the file instead of\n"
	"                             printing\n"
	"      --purge                remove: also remove the image from the\n"
	"                             cfs store\n"
	"      --json                 list: one JSON array of the images\n"
	"      --signature-policy=FILE\n"
	"                             pull: policy.json (default: as podman)\n"
	"      --require-seal         pull: refuse an unsealed image\n"
	"      --tls-verify[=BOOL], --creds=USER:PASSWORD, --authfile=FILE,\n"
	"      --cert-dir=DIR, --registries.d=DIR\n"
	"                             pull: registry options, as oci2cfs(1)\n"
	"  -h, --help                 show this help and exit\n"
	"      --version              print the version and exit\n"
	"\n"
	"Exit status: 0 ok, 1 findings or failure, 2 usage error.\n";

enum {
	OPT_STORAGE_CONF = 256,
	OPT_MOUNTPOINT,
	OPT_INSTALL,
	OPT_PURGE,
	OPT_POLICY,
	OPT_REQUIRE_SEAL,
	OPT_JSON,
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
	{"json", no_argument, NULL, OPT_JSON},
	{"require-seal", no_argument, NULL, OPT_REQUIRE_SEAL},
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
	bool install, purge, json, require_seal;
	const char *policy;
	char **pos; /* command and its arguments */
	int n_pos;
	struct cfs_registry_opts registry; /* pull */
};

/* 0 to run, 1 after --help/--version, -1 after a usage error (util.h). */
static int parse_args(int argc, char **argv, struct args *a)
{
	int c, r;

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
		case OPT_JSON:
			a->json = true;
			break;
		case OPT_REQUIRE_SEAL:
			a->require_seal = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 1;
		case OPT_VERSION:
			return cfs_print_version(TOOL);
		default: /* the registry options, else getopt's error */
			r = pull_option(&a->registry, c, optarg);
			if (r == 0)
				cfs_usage_hint(TOOL);
			if (r <= 0)
				return -1;
		}
	}
	a->pos = argv + optind;
	a->n_pos = argc - optind;
	if (a->n_pos < 1)
		return cfs_usage_error(TOOL, "no command");
	return 0;
}

static int nargs(const struct args *a, int want, const char *what)
{
	if (a->n_pos - 1 == want)
		return 0;
	return cfs_usage_error(TOOL, "%s: %s", a->pos[0], what);
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
	    !cfs_layout_manifest_name(a->pos[1]))
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

/* podman's short spellings */
static const char *const aliases[][2] = {{"rm", "remove"}, {"ls", "list"}};

static const char *const commands[] = {"setup",	 "add",	 "pull", "list",
				       "remove", "sync", "check"};

/* The command cmd names (podman's spellings too), or NULL. */
static const char *command_name(const char *cmd)
{
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(cmd, aliases[i][0]))
			return aliases[i][1];
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(cmd, commands[i]))
			return cmd;
	return NULL;
}

/* An option given to a command it is not for is a usage error. */
static int check_options(const struct args *a, const char *cmd)
{
	const struct {
		bool given;
		const char *option, *command;
	} rules[] = {
		{a->names || a->mountpoint, "--name and --mountpoint", "add"},
		{a->purge, "--purge", "remove"},
		{a->policy, "--signature-policy", "pull"},
		{a->require_seal, "--require-seal", "pull"},
		{a->install, "--install", "setup"},
		{a->json, "--json", "list"},
		{cfs_registry_opts_given(&a->registry),
		 "--tls-verify, --creds, --authfile, --cert-dir and "
		 "--registries.d",
		 "pull"},
	};

	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (rules[i].given && strcmp(cmd, rules[i].command))
			return cfs_usage_error(TOOL, "%s: %s: only for %s",
					       a->pos[0], rules[i].option,
					       rules[i].command);
	return 0;
}

static int dispatch(struct args *a)
{
	const char *cmd = command_name(a->pos[0]);

	if (!cmd) {
		cfs_usage_error(TOOL, "unknown command '%s'", a->pos[0]);
		return 2;
	}
	if (check_options(a, cmd) < 0)
		return 2;
	if (!strcmp(cmd, "setup") && a->n_pos > 2) {
		cfs_usage_error(TOOL, "setup: expected at most one FILE");
		return 2;
	}
	if (!strcmp(cmd, "setup"))
		return cmd_setup(&a->o, a->install,
				 a->n_pos == 2 ? a->pos[1] : NULL);
	if (!strcmp(cmd, "add"))
		return nargs(a, 1, "expected one NAME or MANIFEST")
			       ? 2
			       : cmd_add(a);
	if (!strcmp(cmd, "pull"))
		return nargs(a, 1, "expected one IMAGE")
			       ? 2
			       : cmd_pull(&a->o, a->pos[1], a->policy,
					  a->require_seal, &a->registry);
	if (!strcmp(cmd, "remove"))
		return nargs(a, 1, "expected one IMAGE") ? 2 : cmd_remove(a);
	if (!strcmp(cmd, "list"))
		return nargs(a, 0, "takes no argument")
			       ? 2
			       : cmd_list(&a->o, a->json);
	return nargs(a, 0, "takes no argument")
		       ? 2
		       : cmd_check(&a->o, !strcmp(cmd, "sync"));
}

int main(int argc, char **argv)
{
	struct args a = {0};
	int r;

	umask(022);		/* podman's rootless readers need 0644 files */
	argv[0] = (char *)TOOL; /* getopt_long's messages name the tool */
	r = parse_args(argc, argv, &a);
	if (r) {
		free(a.names);
		return r < 0 ? 2 : 0;
	}
	if (cfs_tool_store(TOOL, &a.o.store) < 0) {
		free(a.names);
		return 1;
	}
	r = dispatch(&a);
	free(a.names);
	return r;
}
