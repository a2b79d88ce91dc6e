// SPDX-License-Identifier: MIT
/*
 * cfs.conf(5): "KEY = VALUE" lines, '#' comments. The one key is store;
 * an unknown key or a bad line is an error, so that a typo never leaves a
 * tool quietly working on the built-in store.
 */
#include "cfs/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfs/util.h"

static char *trim(char *s)
{
	char *end;

	s += strspn(s, " \t");
	end = s + strlen(s);
	while (end > s && strchr(" \t\r\n", end[-1]))
		*--end = '\0';
	return s;
}

/* 1 with *store set (a copy), 0 for a line without a setting, -1 bad. */
static int parse_line(char *line, const char *file, int n, char **store)
{
	char *eq, *key, *val;

	line = trim(line);
	if (!*line || *line == '#')
		return 0;
	eq = strchr(line, '=');
	if (!eq) {
		cfs_error("%s:%d: not KEY = VALUE: %s", file, n, line);
		return -1;
	}
	*eq = '\0';
	key = trim(line);
	val = trim(eq + 1);
	if (strcmp(key, "store")) {
		cfs_error("%s:%d: unknown key '%s'", file, n, key);
		return -1;
	}
	if (val[0] != '/') {
		cfs_error("%s:%d: store must be an absolute path", file, n);
		return -1;
	}
	free(*store);
	*store = xstrdup(val);
	return 1;
}

/* The store the file sets, NULL if none; -1 after cfs_error(). */
static int read_config(const char *file, char **store)
{
	FILE *f = fopen(file, "re");
	char *line = NULL;
	size_t cap = 0;
	int n = 0, r = 0;

	if (!f) {
		if (errno == ENOENT)
			return 0;
		cfs_error("%s: %s", file, strerror(errno));
		return -1;
	}
	while (r >= 0 && getline(&line, &cap, f) >= 0)
		r = parse_line(line, file, ++n, store);
	if (r >= 0 && ferror(f)) {
		cfs_error("%s: read error", file);
		r = -1;
	}
	free(line);
	fclose(f);
	return r < 0 ? -1 : 0;
}

const char *cfs_default_store(void)
{
	static char *store;
	const char *env = getenv("CFS_STORE"), *file = getenv("CFS_CONFIG");

	if (store)
		return store;
	if (env && *env) {
		store = xstrdup(env);
		return store;
	}
	if (read_config(file && *file ? file : CFS_CONFIG_FILE, &store) < 0)
		return NULL;
	if (!store)
		store = xstrdup(CFS_BUILTIN_STORE);
	return store;
}
