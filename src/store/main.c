// SPDX-License-Identifier: MIT
/* cfs-store: list, remove, garbage-collect and check the object store. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store-tool.h"
#include "cfs/util.h"

static const char usage_text[] =
	"Usage: cfs-store [--store=DIR] COMMAND [OPTIONS] [ARGS]\n"
	"List, remove, garbage-collect and check a composefs object store.\n"
	"Options may come anywhere on the line; \"--\" ends them.\n"
	"\n"
	"Commands:\n"
	"  ls [--json]              images: id, created, exclusive and shared\n"
	"                           bytes, mounted, podman, sealed, names\n"
	"  rm NAME|ID...            drop a ref (and the image when no ref is\n"
	"                           left), or an image and all its refs;\n"
	"                           refused while mounted or registered with\n"
	"                           podman\n"
	"  gc [--dry-run] [--json]  remove images no ref, podman or mount\n"
	"                           uses, then objects no kept image\n"
	"                           references, broken layer records and\n"
	"                           dead converters' temp files\n"
	"  fsck [--repair] [--json] [-j|--jobs N]\n"
	"                           check every object's digest, manifests,\n"
	"                           refs, layer records, podman records and\n"
	"                           .tmp; exit 1 when anything is wrong\n"
	"  df [--json]              total, used, shared, unused and per-image\n"
	"                           exclusive bytes, dedup ratio\n"
	"\n"
	"Options:\n"
	"  -s, --store=DIR          the object store\n"
	"                           (default " CFS_STORE_DEFAULT_HELP ")\n"
	"  -h, --help               show this help and exit\n"
	"      --version            print the version and exit\n"
	"\n"
	"Exit status: 0 ok, 1 findings or failure, 2 usage error.\n";

static const struct option long_opts[] = {
	{"store", required_argument, NULL, 's'},
	{"json", no_argument, NULL, 'J'},
	{"dry-run", no_argument, NULL, 'n'},
	{"repair", no_argument, NULL, 'r'},
	{"jobs", required_argument, NULL, 'j'},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

static int parse_opt(int c, struct cmd_opts *o)
{
	switch (c) {
	case 's':
		o->store = optarg;
		return 0;
	case 'J':
		o->json = true;
		return 0;
	case 'n':
		o->dry_run = true;
		return 0;
	case 'r':
		o->repair = true;
		return 0;
	case 'j':
		if (cfs_parse_count(optarg, 1, 256, &o->threads) < 0)
			return cfs_usage_error(TOOL, "--jobs: %s",
					       cfs_strerror());
		return 0;
	case 'h':
		fputs(usage_text, stdout);
		return 1;
	case 'V':
		return cfs_print_version(TOOL);
	default:
		cfs_usage_hint(TOOL);
		return -1;
	}
}

/*
 * GNU style: options anywhere, before or after the command and its
 * operands; "--" ends them. Returns 0 to run, 1 after --help/--version,
 * -1 after a usage error (util.h).
 */
static int parse(int argc, char **argv, struct cmd_opts *o, char ***pos,
		 int *n_pos)
{
	int c, r;

	argv[0] = (char *)TOOL; /* getopt_long's messages name the tool */
	while ((c = getopt_long(argc, argv, "s:j:h", long_opts, NULL)) != -1)
		if ((r = parse_opt(c, o)) != 0)
			return r;
	if (optind >= argc)
		return cfs_usage_error(TOOL, "no command");
	*pos = argv + optind;
	*n_pos = argc - optind;
	return 0;
}

static const char *const commands[] = {"ls", "rm", "gc", "fsck", "df"};

static int check_usage(const struct cmd_opts *o, char **pos, int n_pos)
{
	const char *cmd = pos[0];
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(cmd, commands[i]))
			break;
	if (i == sizeof(commands) / sizeof(commands[0]))
		return cfs_usage_error(TOOL, "unknown command '%s'", cmd);
	if (o->dry_run && strcmp(cmd, "gc"))
		return cfs_usage_error(TOOL, "%s: --dry-run is for gc", cmd);
	if (o->repair && strcmp(cmd, "fsck"))
		return cfs_usage_error(TOOL, "%s: --repair is for fsck", cmd);
	if (o->json && !strcmp(cmd, "rm"))
		return cfs_usage_error(TOOL, "rm: --json is not for rm");
	if (!strcmp(cmd, "rm") && n_pos == 1)
		return cfs_usage_error(TOOL, "rm: expected NAME or ID");
	if (strcmp(cmd, "rm") && n_pos > 1)
		return cfs_usage_error(TOOL, "%s: unexpected operand '%s'", cmd,
				       pos[1]);
	return 0;
}

static int run(const struct cmd_opts *o, const char *cmd, char **args,
	       int n_args)
{
	if (!strcmp(cmd, "rm"))
		return cmd_rm(o, args, n_args);
	if (!strcmp(cmd, "ls"))
		return cmd_ls(o);
	if (!strcmp(cmd, "df"))
		return cmd_df(o);
	if (!strcmp(cmd, "gc"))
		return cmd_gc(o);
	return cmd_fsck(o);
}

static int default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

int main(int argc, char **argv)
{
	struct cmd_opts o = {0};
	char *real, **pos = NULL;
	int n_pos = 0, r = parse(argc, argv, &o, &pos, &n_pos);

	if (r)
		return r > 0 ? 0 : 2;
	if (check_usage(&o, pos, n_pos) < 0)
		return 2;
	if (!o.threads)
		o.threads = default_threads();
	if (cfs_tool_store(TOOL, &o.store) < 0)
		return 1;
	real = realpath(o.store, NULL);
	if (!real) {
		fprintf(stderr, TOOL ": %s: not a store: %m\n", o.store);
		return 1;
	}
	o.store = real;
	r = store_check_marker(&o, pos[0]) < 0
		    ? 1
		    : run(&o, pos[0], pos + 1, n_pos - 1);
	free(real);
	return r;
}
