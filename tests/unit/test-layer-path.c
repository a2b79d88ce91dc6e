// SPDX-License-Identifier: MIT
/*
 * Cleaning tar member names (layer/path.c): what a layer may name, '..'
 * that never climbs above the root, the length limits, and the check that
 * a path is already clean, on fixed and on random names.
 */
#include <stdlib.h>
#include <string.h>

#include "cfs/util.h"
#include "path.h"
#include "tap.h"

static bool clean_is(const char *in, const char *want)
{
	char *got = NULL;
	bool good = cfs_path_clean(in, &got) == 0 && !strcmp(got, want);

	if (!good)
		printf("# '%s' -> '%s'\n", in, got ? got : cfs_strerror());
	free(got);
	return good;
}

static bool clean_fails(const char *in, const char *msg)
{
	char *got = NULL;

	if (cfs_path_clean(in, &got) == 0) {
		printf("# accepted as '%.40s'\n", got);
		free(got);
		return false;
	}
	return strstr(cfs_strerror(), msg) != NULL;
}

static bool is_clean(const char *p)
{
	return cfs_path_is_clean(p, strlen(p));
}

static char *repeat(char c, size_t n, const char *suffix)
{
	char *s = xmalloc(n + strlen(suffix) + 1);

	memset(s, c, n);
	strcpy(s + n, suffix);
	return s;
}

static void test_clean(void)
{
	ok(clean_is("usr/bin/env", "usr/bin/env"), "a clean name unchanged");
	ok(clean_is("/usr/bin/", "usr/bin"), "leading and trailing '/'");
	ok(clean_is("./etc/passwd", "etc/passwd"), "leading './'");
	ok(clean_is(".//a///b/./c/.", "a/b/c"), "'//' and '.' components");
	ok(clean_is("a/b/../c", "a/c"), "'..' drops the component before");
	ok(clean_is("../../../etc/shadow", "etc/shadow"),
	   "'..' never climbs above the root");
	ok(clean_is("a/../../b/../../c", "c"), "'..' past the root, twice");
	ok(clean_is("a/b/../..", ""), "back to the root");
	ok(clean_is(".", ""), "'.' is the root");
	ok(clean_is("./", ""), "'./' is the root");
	ok(clean_is("", ""), "empty name is the root");
	ok(clean_is("/", ""), "'/' is the root");
	ok(clean_is("...", "..."), "'...' is an ordinary name");
	ok(clean_is("a/..b/.c/c..", "a/..b/.c/c.."), "dots inside names kept");
	ok(clean_is("a\\..\\b", "a\\..\\b"), "backslashes are not separators");
	ok(clean_is(".wh..wh..opq", ".wh..wh..opq"), "whiteout names kept");
}

static void test_limits(void)
{
	char *s, *t;

	s = repeat('n', 255, "");
	ok(clean_is(s, s), "255-byte component");
	t = repeat('n', 256, "");
	ok(clean_fails(t, "component longer than 255"),
	   "256-byte component refused");
	free(t);
	t = repeat('n', 256, "/..");
	ok(clean_fails(t, "component longer than 255"),
	   "256-byte component refused even when '..' drops it");
	free(t);
	free(s);
	s = xmalloc(4096 + 2);
	for (int i = 0; i < 4095; i++)
		s[i] = i % 2 ? '/' : 'a';
	s[4095] = '\0';
	ok(clean_is(s, s), "4095-byte name of 2048 components");
	strcat(s, "a");
	ok(clean_fails(s, "longer than 4095"), "4096-byte name refused");
	free(s);
	s = repeat('/', 5000, "a");
	ok(clean_fails(s, "longer than 4095"),
	   "the limit is on the name as given, before cleaning");
	free(s);
}

static void test_is_clean(void)
{
	char *s;

	ok(is_clean("a/b/c"), "a/b/c is clean");
	ok(is_clean(""), "the root is clean");
	ok(is_clean("..."), "'...' is clean");
	ok(!is_clean("/a"), "leading '/'");
	ok(!is_clean("a/"), "trailing '/'");
	ok(!is_clean("a//b"), "'//'");
	ok(!is_clean("./a") && !is_clean("a/."), "'.' component");
	ok(!is_clean("a/..") && !is_clean("../a"), "'..' component");
	ok(!cfs_path_is_clean("a\0b", 3), "NUL inside the length");
	ok(cfs_path_is_clean("ab/c", 2), "only len bytes are read");
	s = repeat('n', 256, "");
	ok(!is_clean(s), "256-byte component");
	free(s);
	s = repeat('n', 4096, "");
	ok(!is_clean(s), "4096-byte name");
	free(s);
}

/* Random names of "a", "bc", ".", "..", "" and "/": clean is idempotent. */
static void test_random(void)
{
	static const char *const parts[] = {"a", "bc", ".", "..", "", "/"};
	unsigned seed = 12345, bad = 0;
	char in[64], *once, *twice;

	for (int i = 0; i < 20000; i++) {
		in[0] = '\0';
		for (int k = 0; k < 12; k++) {
			seed = seed * 1103515245 + 12345;
			strcat(in, parts[(seed >> 16) % 6]);
			if ((seed >> 8) & 1)
				strcat(in, "/");
		}
		once = twice = NULL;
		if (cfs_path_clean(in, &once) < 0 || !is_clean(once) ||
		    cfs_path_clean(once, &twice) < 0 || strcmp(once, twice)) {
			if (!bad++)
				printf("# '%s' -> '%s'\n", in, once);
		}
		free(once);
		free(twice);
	}
	ok(bad == 0,
	   "20000 random names: cleaned into a clean path, idempotent");
}

int main(void)
{
	test_clean();
	test_limits();
	test_is_clean();
	test_random();
	return tap_done();
}
