// SPDX-License-Identifier: MIT
/* cfs-info: inspect composefs images. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

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

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage_text, stdout);
			return 0;
		}
		fprintf(stderr, "%s: see %s --help\n", TOOL, TOOL);
		return 2;
	}
	if (optind >= argc) {
		fputs(usage_text, stderr);
		return 2;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[optind], commands[i].name) == 0)
			return commands[i].fn(argc - optind, argv + optind);
	fprintf(stderr, "%s: %s: unknown command (see %s --help)\n", TOOL,
		argv[optind], TOOL);
	return 2;
}
