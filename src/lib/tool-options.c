// SPDX-License-Identifier: MIT
/* What every tool's option parsing shares: --version, counts like -j N. */
#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cfs/config.h"
#include "cfs/util.h"

/*
 * The Makefile passes debian/changelog's version for this file only; other
 * builds of the library (tests/fuzz/run) do not need one.
 */
#ifndef CFS_VERSION
#define CFS_VERSION "unknown"
#endif

char *cfs_tool_beside(const char *name)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *path;

	if (n > 0) {
		self[n] = '\0';
		path = xasprintf("%s/%s", dirname(self), name);
		if (access(path, X_OK) == 0)
			return path;
		free(path);
	}
	return xstrdup(name);
}

const char *cfs_version(void)
{
	return CFS_VERSION;
}

int cfs_print_version(const char *tool)
{
	printf("%s %s\n", tool, CFS_VERSION);
	return 1;
}

int cfs_parse_count(const char *s, int min, int max, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end || isspace((unsigned char)s[0])) {
		cfs_error("not a number: %s", s);
		return -1;
	}
	if (errno == ERANGE || v < min || v > max) {
		cfs_error("out of range (%d to %d): %s", min, max, s);
		return -1;
	}
	*out = (int)v;
	return 0;
}

void cfs_usage_hint(const char *tool)
{
	fprintf(stderr, "Try '%s --help' for more information.\n", tool);
}

int cfs_usage_error(const char *tool, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", tool);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	cfs_usage_hint(tool);
	return -1;
}

int cfs_tool_store(const char *tool, const char **store)
{
	if (!*store)
		*store = cfs_default_store();
	if (*store)
		return 0;
	fprintf(stderr, "%s: %s\n", tool, cfs_strerror());
	return -1;
}
