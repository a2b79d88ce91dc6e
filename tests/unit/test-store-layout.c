// SPDX-License-Identifier: MIT
/*
 * store-layout: the one ref-name rule, ids, refs written/resolved/removed,
 * the store marker.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfs/store-layout.h"
#include "tap.h"
#include "cfs/util.h"

static char *repeat(char c, size_t n)
{
	char *s = xmalloc(n + 1);

	memset(s, c, n);
	s[n] = '\0';
	return s;
}

static void test_names(void)
{
	static const char *const good[] = {
		"web",	 "web:1.2", "registry.io/a/b:tag",
		"a/b/c", ".hidden", "a..b"};
	static const char *const bad[] = {"",	"/abs",	 "a/",	   "a//b", ".",
					  "..", "a/./b", "a/../b", "../x"};
	char *max = repeat('x', CFS_REF_NAME_MAX);
	char *over = repeat('x', CFS_REF_NAME_MAX + 1);

	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		ok(cfs_ref_name_ok(good[i]), "ref name '%s' is valid", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		ok(!cfs_ref_name_ok(bad[i]), "ref name '%s' is refused",
		   bad[i]);
	ok(cfs_ref_name_ok(max), "a %d-byte name is valid", CFS_REF_NAME_MAX);
	ok(!cfs_ref_name_ok(over), "a %d-byte name is refused",
	   CFS_REF_NAME_MAX + 1);
	free(max);
	free(over);
}

static void test_refs(void)
{
	char dir[] = "/tmp/test-store-layout.XXXXXX";
	char *id = repeat('a', CFS_IMAGE_ID_LEN), *path, *got = NULL;
	char idout[CFS_IMAGE_ID_LEN + 1];
	struct cfs_layout_image img = {
		.id = id,
		.config = (const uint8_t *)"{}",
		.config_len = 2,
		.oci_manifest = (const uint8_t *)"{}",
		.oci_manifest_len = 2,
		.manifest = (const uint8_t *)"x",
		.manifest_len = 1,
		.side_flags = CFS_ATOMIC_NOSYNC,
		.manifest_flags = CFS_ATOMIC_NOSYNC,
	};

	ok(mkdtemp(dir) != NULL, "scratch store");
	ok(cfs_layout_write_image(dir, &img) == 0, "image files written");
	ok(cfs_layout_write_ref(dir, "repo/web:1", id) == 0,
	   "a nested ref written");
	ok(cfs_layout_resolve_ref(dir, "repo/web:1", &got) == CFS_REF_OK &&
		   cfs_layout_manifest_id(got, idout) && !strcmp(idout, id),
	   "it resolves to the manifest of that id");
	free(got);
	ok(cfs_layout_resolve_ref(dir, "nope", &got) == CFS_REF_NONE,
	   "a missing ref is NONE");
	ok(cfs_layout_resolve_ref(dir, "../x", &got) == CFS_REF_BAD_NAME,
	   "a bad name is BAD_NAME");
	ok(cfs_layout_write_ref(dir, "../escape", id) < 0,
	   "a bad name is not written");
	path = cfs_layout_image_file(dir, id, ".cfs");
	unlink(path);
	ok(cfs_layout_resolve_ref(dir, "repo/web:1", &got) == CFS_REF_BROKEN,
	   "a ref to a removed manifest is BROKEN");
	ok(cfs_layout_remove_ref(dir, "repo/web:1") == 0, "ref removed");
	free(path);
	path = xasprintf("%s/refs/repo", dir);
	ok(access(path, F_OK) < 0, "its emptied directory went with it");
	free(path);
	ok(!cfs_layout_manifest_id("/x/images/abc.cfs", idout),
	   "a short name is no manifest id");
	path = xasprintf("rm -rf %s", dir);
	ok(system(path) == 0, "cleanup");
	free(path);
	free(id);
}

static void put(const char *dir, const char *text)
{
	char *path = xasprintf("%s/" CFS_STORE_MARKER, dir);

	unlink(path);
	ok(cfs_write_file_atomic(path, text, strlen(text), 0644,
				 CFS_ATOMIC_NOSYNC) == 0,
	   "marker of %zu bytes written", strlen(text));
	free(path);
}

static void test_marker(void)
{
	char dir[] = "/tmp/test-store-marker.XXXXXX", *big = repeat('x', 100);
	char *cmd;

	ok(mkdtemp(dir) != NULL, "scratch directory");
	ok(cfs_store_marker(dir) == 0, "an unmarked directory: 0");
	ok(cfs_store_mark(dir) == 0 && cfs_store_marker(dir) == 1,
	   "marked, then a store of this layout");
	put(dir, "cfs-store layout 2\n");
	ok(cfs_store_marker(dir) < 0 && strstr(cfs_strerror(), "newer"),
	   "a newer layout is refused: %s", cfs_strerror());
	ok(cfs_store_mark(dir) < 0, "and not overwritten by mark");
	put(dir, "cfs-store layout 1");
	ok(cfs_store_marker(dir) < 0, "a marker without its newline: refused");
	put(dir, "cfs-store layout 0\n");
	ok(cfs_store_marker(dir) < 0, "layout 0: refused");
	put(dir, big);
	ok(cfs_store_marker(dir) < 0, "a 100-byte marker: refused");
	ok(!cfs_store_shaped(dir), "no images/, no .lock: not store-shaped");
	cmd = xasprintf("rm -rf %s", dir);
	ok(system(cmd) == 0, "cleanup");
	free(cmd);
	free(big);
}

int main(void)
{
	test_names();
	test_refs();
	test_marker();
	return tap_done();
}
