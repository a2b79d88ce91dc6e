// SPDX-License-Identifier: MIT
/* cfs-store: list, remove, garbage-collect and check the object store. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store-tool.h"
#include "cfs/util.h"

#define DEFAULT_STORE "/var/lib/cfs"

static void usage(FILE *f)
{
	fputs("Usage: " TOOL " [--store=DIR] COMMAND [OPTIONS] [ARGS]\n"
	      "List, remove, garbage-collect and check a composefs object "
	      "store.\n"
	      "\n"
	      "  ls [--json]              images: id, created, exclusive and "
	      "shared\n"
	      "                           bytes, mounted, podman, names\n"
	      "  rm NAME|ID...            drop a ref (and the image when no "
	      "ref is left),\n"
	      "                           or an image and all its refs; "
	      "refused while\n"
	      "                           mounted or registered with podman\n"
	      "  gc [--dry-run] [--json]  remove images no ref, podman or "
	      "mount uses, then\n"
	      "                           objects no kept image references, "
	      "broken layer\n"
	      "                           records and dead converters' temp "
	      "files\n"
	      "  fsck [--repair] [--json] [-j|--jobs N]\n"
	      "                           check every object's digest, "
	      "manifests, refs,\n"
	      "                           layer records, podman records and "
	      ".tmp; exit 1\n"
	      "                           when anything is wrong\n"
	      "  df [--json]              total, used, shared, unused and "
	      "per-image\n"
	      "                           exclusive bytes, dedup ratio\n"
	      "\n"
	      "  -s, --store=DIR   the object store (default " DEFAULT_STORE
	      ")\n"
	      "  -h, --help        this help\n"
	      "      --version     print the version\n",
	      f);
}

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

/* 0 to run, 1 after --help/--version, -1 after a usage error (util.h). */
static int parse(int argc, char **argv, struct cmd_opts *o)
{
	int c;

	while ((c = getopt_long(argc, argv, "+s:j:h", long_opts, NULL)) != -1) {
		switch (c) {
		case 's':
			o->store = optarg;
			break;
		case 'J':
			o->json = true;
			break;
		case 'n':
			o->dry_run = true;
			break;
		case 'r':
			o->repair = true;
			break;
		case 'j':
			if (cfs_parse_count(optarg, 1, 256, &o->threads) < 0) {
				fprintf(stderr, TOOL ": --jobs: %s\n",
					cfs_strerror());
				return -1;
			}
			break;
		case 'h':
			usage(stdout);
			return 1;
		case 'V':
			return cfs_print_version(TOOL);
		default:
			return -1;
		}
	}
	return 0;
}

/* Options may come before or after the command; returns as parse(). */
static int parse_all(int argc, char **argv, struct cmd_opts *o, char **cmd,
		     char ***args, int *n_args)
{
	int r = parse(argc, argv, o);

	if (r)
		return r;
	if (optind >= argc) {
		fputs(TOOL ": no command\n", stderr);
		return -1;
	}
	*cmd = argv[optind];
	argc -= optind;
	argv += optind;
	optind = 0; /* glibc: start afresh, at argv[1] */
	r = parse(argc, argv, o);
	if (r)
		return r;
	*args = argv + optind;
	*n_args = argc - optind;
	return 0;
}

static bool allowed(const struct cmd_opts *o, const char *cmd)
{
	if (o->dry_run && strcmp(cmd, "gc"))
		return false;
	if (o->repair && strcmp(cmd, "fsck"))
		return false;
	if (o->json && !strcmp(cmd, "rm"))
		return false;
	return true;
}

static int run(const struct cmd_opts *o, const char *cmd, char **args,
	       int n_args)
{
	if (!strcmp(cmd, "rm") && n_args > 0)
		return cmd_rm(o, args, n_args);
	if (n_args > 0 || !strcmp(cmd, "rm")) {
		fprintf(stderr, TOOL ": %s: wrong arguments\n", cmd);
		return 2;
	}
	if (!strcmp(cmd, "ls"))
		return cmd_ls(o);
	if (!strcmp(cmd, "df"))
		return cmd_df(o);
	if (!strcmp(cmd, "gc"))
		return cmd_gc(o);
	if (!strcmp(cmd, "fsck"))
		return cmd_fsck(o);
	fprintf(stderr, TOOL ": unknown command %s\n", cmd);
	return 2;
}

int main(int argc, char **argv)
{
	struct cmd_opts o = {.store = DEFAULT_STORE};
	char *cmd = NULL, *real, **args = NULL;
	int n_args = 0, r = parse_all(argc, argv, &o, &cmd, &args, &n_args);

	if (r > 0)
		return 0;
	if (r < 0 || !allowed(&o, cmd)) {
		if (cmd && !allowed(&o, cmd))
			fprintf(stderr, TOOL ": option not valid for %s\n",
				cmd);
		fputs("Try '" TOOL " --help'.\n", stderr);
		return 2;
	}
	if (!o.threads) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		o.threads = n < 1 ? 1 : n > 64 ? 64 : (int)n;
	}
	real = realpath(o.store, NULL);
	if (!real) {
		fprintf(stderr, TOOL ": %s: not a store: %m\n", o.store);
		return 2;
	}
	o.store = real;
	r = run(&o, cmd, args, n_args);
	free(real);
	return r;
}
