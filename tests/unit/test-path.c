// SPDX-License-Identifier: MIT
/*
 * The path module (src/lib/path.h): names, backing paths and clean paths
 * against the format's limits, and lexical cleaning of hostile tar names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"
#include "tap.h"
#include "cfs/util.h"

static bool cleans_to(const char *in, const char *want)
{
	char *out = NULL;
	bool r = cfs_path_clean(in, &out) == 0 && !strcmp(out, want);

	if (!r)
		fprintf(stderr, "# '%s' -> '%s'\n", in, out ? out : "(error)");
	free(out);
	return r;
}

static void test_names(void)
{
	char name[CFS_MAX_NAME + 2];

	memset(name, 'n', sizeof(name));
	ok(cfs_name_ok("a", 1) && cfs_name_ok("...", 3) &&
		   cfs_name_ok(name, CFS_MAX_NAME),
	   "names of 1 and 255 bytes, and \"...\"");
	ok(!cfs_name_ok("", 0) && !cfs_name_ok(".", 1) &&
		   !cfs_name_ok("..", 2) && !cfs_name_ok("a/b", 3) &&
		   !cfs_name_ok("a\0b", 3) &&
		   !cfs_name_ok(name, CFS_MAX_NAME + 1),
	   "not empty, \".\", \"..\", a '/', a NUL or 256 bytes");
}

static void test_backing(void)
{
	char *long_path = xmalloc(CFS_MAX_PATH + 1);

	memset(long_path, 'p', CFS_MAX_PATH + 1);
	ok(cfs_backing_path_ok("ab/cdef", 7) && cfs_backing_path_ok("a..", 3) &&
		   cfs_backing_path_ok("x/..y", 5) &&
		   cfs_backing_path_ok(long_path, CFS_MAX_PATH),
	   "relative backing paths, \"..\" only as part of a name, 4095 bytes");
	ok(!cfs_backing_path_ok("/abs", 4) && !cfs_backing_path_ok("..", 2) &&
		   !cfs_backing_path_ok("a/../b", 6) &&
		   !cfs_backing_path_ok("a/..", 4) &&
		   !cfs_backing_path_ok("", 0) &&
		   !cfs_backing_path_ok("a\0b", 3) &&
		   !cfs_backing_path_ok(long_path, CFS_MAX_PATH + 1),
	   "not absolute, a \"..\" component, empty, a NUL, 4096 bytes");
	free(long_path);
}

static void test_check(void)
{
	char deep[CFS_MAX_PATH + 2], name[CFS_MAX_NAME + 3];

	ok(cfs_path_check("a/b/c", 5) == CFS_PATH_CLEAN &&
		   cfs_path_check("a", 1) == CFS_PATH_CLEAN &&
		   cfs_path_is_clean("", 0),
	   "a/b/c, a and \"\" (the top) are clean");
	ok(cfs_path_check("a//b", 4) == CFS_PATH_NOT_NORMAL &&
		   cfs_path_check("a/", 2) == CFS_PATH_NOT_NORMAL &&
		   cfs_path_check("/a", 2) == CFS_PATH_NOT_NORMAL &&
		   cfs_path_check("./a", 3) == CFS_PATH_NOT_NORMAL &&
		   cfs_path_check("a/..", 4) == CFS_PATH_NOT_NORMAL,
	   "\"//\", trailing or leading '/', \".\", \"..\": not normal");
	memset(name, 'n', sizeof(name));
	name[0] = 'a';
	name[1] = '/';
	ok(cfs_path_check(name, CFS_MAX_NAME + 2) == CFS_PATH_CLEAN &&
		   cfs_path_check(name, CFS_MAX_NAME + 3) ==
			   CFS_PATH_NAME_TOO_LONG,
	   "a last component of 255 bytes is clean, of 256 too long");
	/* 2048 components "a/": a deep path, one byte over the limit */
	memset(deep, 'a', sizeof(deep));
	for (size_t i = 1; i < sizeof(deep); i += 2)
		deep[i] = '/';
	ok(cfs_path_is_clean(deep, CFS_MAX_PATH) &&
		   cfs_path_check(deep, CFS_MAX_PATH + 2) == CFS_PATH_CLEAN &&
		   !cfs_path_is_clean(deep, CFS_MAX_PATH + 2),
	   "2048 levels deep: clean at 4095 bytes, too long at 4097");
	ok(!cfs_path_is_clean("a\0b", 3) && cfs_path_check("a\0b", 3) == 0,
	   "a NUL: components fine, but not a clean path");
}

static void test_clean(void)
{
	char *out = NULL, *huge = xmalloc(CFS_MAX_PATH + 2), name[300];
	bool above;

	ok(cleans_to("./usr//bin/./sh", "usr/bin/sh") &&
		   cleans_to("/etc/", "etc") && cleans_to("", "") &&
		   cleans_to("./", "") && cleans_to("a/b/../../c", "c"),
	   "\"./\", \"//\", \".\" and \"..\" resolved");
	ok(cleans_to("../../../etc/passwd", "etc/passwd") &&
		   cleans_to("a/../../../b", "b"),
	   "\"..\" never climbs above the top");
	memset(huge, 'x', CFS_MAX_PATH + 1);
	huge[CFS_MAX_PATH + 1] = '\0';
	ok(cfs_path_clean(huge, &out) < 0 &&
		   strstr(cfs_strerror(), "longer than 4095"),
	   "a 4096-byte name refused");
	memset(name, 'n', sizeof(name));
	memcpy(name + 256, "/../", 4);
	name[sizeof(name) - 1] = '\0';
	ok(cfs_path_clean(name, &out) < 0 &&
		   strstr(cfs_strerror(), "component longer than 255"),
	   "a 256-byte component refused, even one that \"..\" drops");
	out = cfs_path_normalize("a/../../b", &above);
	ok(above && !strcmp(out, "b"), "normalize reports a climb above");
	free(out);
	out = cfs_path_normalize("/a/./b/..", &above);
	ok(!above && !strcmp(out, "a"), "and none where there is none");
	free(out);
	free(huge);
}

int main(void)
{
	test_names();
	test_backing();
	test_check();
	test_clean();
	return tap_done();
}
