// SPDX-License-Identifier: MIT
/* cfs-info: inspect composefs images. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cfs/util.h"
#include "info.h"

static const char usage_text[] =
	"Usage: cfs-info [-h] COMMAND [ARGS...]\n"
	"Inspect composefs images (IMAGE \"-\" reads standard input).\n"
	"\n"
	"Commands:\n"
	"  dump IMAGE             print the image in composefs-dump(5) "
	"format\n"
	"  ls IMAGE               list every path; symlinks as "
	"\"PATH -> TARGET\",\n"
	"                         regular files with content as "
	"\"PATH @ BACKING\"\n"
	"  objects IMAGE...       list the backing files the images "
	"need,\n"
	"                         sorted and without duplicates\n"
	"  missing-objects --basedir DIR IMAGE...\n"
	"                         list the backing files absent from DIR\n"
	"  check IMAGE...         validate images; print \"IMAGE: ok\" or "
	"the error\n"
	"  measure FILE...        print \"DIGEST FILE\": the fs-verity "
	"digest\n"
	"                         (SHA-256, 4096-byte blocks) computed "
	"from content\n"
	"\n"
	"Options:\n"
	"  -h, --help             show this help and exit\n"
	"      --version          print the version and exit\n"
	"\n"
	"Exit status: 0 on success, 1 on an error, 2 on a usage error.\n";

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{"dump", cmd_dump},	  {"ls", cmd_ls},
	{"objects", cmd_objects}, {"missing-objects", cmd_missing_objects},
	{"check", cmd_check},	  {"measure", cmd_measure},
};

int need_operands(int argc, int optind_, int min, const char *cmd)
{
	if (argc - optind_ >= min)
		return 0;
	fprintf(stderr, "%s: %s: missing operand (see %s --help)\n", TOOL, cmd,
		TOOL);
	return -1;
}

/* 0 to run, 1 after --help/--version, -1 after a usage error (util.h). */
static int parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	int c = getopt_long(argc, argv, "+h", opts, NULL);

	if (c == 'h') {
		fputs(usage_text, stdout);
		return 1;
	}
	if (c == 'V')
		return cfs_print_version(TOOL);
	if (c != -1) {
		fprintf(stderr, "%s: see %s --help\n", TOOL, TOOL);
		return -1;
	}
	if (optind >= argc) {
		fputs(usage_text, stderr);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int r = parse_args(argc, argv);

	if (r)
		return r < 0 ? 2 : 0;
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[optind], commands[i].name) == 0)
			return commands[i].fn(argc - optind, argv + optind);
	fprintf(stderr, "%s: %s: unknown command (see %s --help)\n", TOOL,
		argv[optind], TOOL);
	return 2;
}
