// SPDX-License-Identifier: MIT
/* cfs-info: inspect composefs images. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cfs/util.h"
#include "info.h"

static const char usage_text[] =
	"Usage: cfs-info COMMAND [OPTIONS] ARGS...\n"
	"Inspect composefs images (IMAGE \"-\" reads standard input).\n"
	"Options may come anywhere on the line; \"--\" ends them.\n"
	"\n"
	"Commands:\n"
	"  dump IMAGE             print the image in composefs-dump(5) format\n"
	"  ls IMAGE               list every path; symlinks as\n"
	"                         \"PATH -> TARGET\", regular files with\n"
	"                         content as \"PATH @ BACKING\"\n"
	"  objects IMAGE...       list the backing files the images need,\n"
	"                         sorted and without duplicates\n"
	"  missing-objects --basedir DIR IMAGE...\n"
	"                         list the backing files absent from DIR\n"
	"  check IMAGE...         validate images; print \"IMAGE: ok\" or the\n"
	"                         error\n"
	"  measure FILE...        print \"DIGEST FILE\": the fs-verity digest\n"
	"                         (SHA-256, 4096-byte blocks) computed from\n"
	"                         content\n"
	"\n"
	"Options:\n"
	"  -b, --basedir=DIR      missing-objects: the object store\n"
	"  -h, --help             show this help and exit\n"
	"      --version          print the version and exit\n"
	"\n"
	"Exit status: 0 ok, 1 findings or failure, 2 usage error.\n";

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv, const char *basedir);
} commands[] = {
	{"dump", cmd_dump},	  {"ls", cmd_ls},
	{"objects", cmd_objects}, {"missing-objects", cmd_missing_objects},
	{"check", cmd_check},	  {"measure", cmd_measure},
};

int need_operands(int argc, int min, const char *cmd)
{
	if (argc - 1 >= min)
		return 0;
	cfs_usage_error(TOOL, "%s: missing operand", cmd);
	return -1;
}

int at_most_one(int argc, const char *cmd)
{
	if (argc <= 2)
		return 0;
	cfs_usage_error(TOOL, "%s: takes one IMAGE", cmd);
	return -1;
}

/*
 * GNU style, for the tool and every command alike: options anywhere, "--"
 * ends them. 0 to run, 1 after --help/--version, -1 after a usage error
 * (util.h).
 */
static int parse_args(int argc, char **argv, const char **basedir)
{
	static const struct option opts[] = {
		{"basedir", required_argument, NULL, 'b'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	int c;

	argv[0] = (char *)TOOL; /* getopt_long's messages name the tool */
	while ((c = getopt_long(argc, argv, "b:h", opts, NULL)) != -1) {
		if (c == 'b') {
			*basedir = optarg;
		} else if (c == 'h') {
			fputs(usage_text, stdout);
			return 1;
		} else if (c == 'V') {
			return cfs_print_version(TOOL);
		} else {
			cfs_usage_hint(TOOL);
			return -1;
		}
	}
	if (optind >= argc)
		return cfs_usage_error(TOOL, "no command");
	return 0;
}

int main(int argc, char **argv)
{
	const char *basedir = NULL;
	int r = parse_args(argc, argv, &basedir);

	if (r)
		return r < 0 ? 2 : 0;
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[optind], commands[i].name))
			continue;
		if (basedir && commands[i].fn != cmd_missing_objects) {
			cfs_usage_error(TOOL,
					"%s: --basedir is for missing-objects",
					argv[optind]);
			return 2;
		}
		return commands[i].fn(argc - optind, argv + optind, basedir);
	}
	cfs_usage_error(TOOL, "unknown command '%s'", argv[optind]);
	return 2;
}
