// SPDX-License-Identifier: MIT
/*
 * store-layout: the one ref-name rule, ids, an image's file names, refs
 * written/resolved/removed, the listing of images and refs, the marker.
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
#include "cfs/verity.h"

static char *repeat(char c, size_t n)
{
	char *s = xmalloc(n + 1);

	memset(s, c, n);
	s[n] = '\0';
	return s;
}

/* An image of id with a one-byte manifest and empty JSON side files. */
static struct cfs_layout_image tiny_image(const char *id)
{
	return (struct cfs_layout_image){
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
}

static void test_names(void)
{
	static const char *const good[] = {
		"web",	   "web:1.2", "registry.io/a/b:tag", "a/b/c",
		".hidden", "a..b",    "app.tmp.v2",	     "a.tmp.0"};
	static const char *const bad[] = {"",
					  "/abs",
					  "a/",
					  "a//b",
					  ".",
					  "..",
					  "a/./b",
					  "a/../b",
					  "../x",
					  "web.tmp.12",
					  "web.tmp.12.AbCdEf",
					  "a.tmp.9.xxxxxx/b"};
	char *max = repeat('x', CFS_REF_NAME_MAX);
	char *over = repeat('x', CFS_REF_NAME_MAX + 1);

	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		ok(cfs_ref_name_ok(good[i]), "ref name '%s' is valid", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		ok(!cfs_ref_name_ok(bad[i]), "ref name '%s' is refused",
		   bad[i]);
	ok(cfs_replacing_pid("images/x.json.tmp.42.AbC123") == 42 &&
		   cfs_replacing_pid("refs/web.tmp.7") == 7,
	   "the names of files being replaced give their writer's PID");
	ok(!cfs_replacing_pid("app.tmp.v2") && !cfs_replacing_pid(".tmp.5") &&
		   !cfs_replacing_pid("x.tmp.5.abc") &&
		   !cfs_replacing_pid("x.tmp.-5"),
	   "other names with .tmp. in them are not");
	ok(cfs_ref_name_ok(max), "a %d-byte name is valid", CFS_REF_NAME_MAX);
	ok(!cfs_ref_name_ok(over), "a %d-byte name is refused",
	   CFS_REF_NAME_MAX + 1);
	free(max);
	free(over);
}

/* Object paths: "xx/" and 62 lowercase hex digits, parsed in one place. */
static void test_object_names(const char *hex)
{
	uint8_t digest[CFS_DIGEST_SIZE], back[CFS_DIGEST_SIZE];
	char path[CFS_OBJECT_PATH_LEN + 1], bad[CFS_OBJECT_PATH_LEN + 1];

	cfs_unhex(digest, hex, CFS_DIGEST_SIZE);
	digest[0] = 0x0a;
	cfs_object_path(path, digest);
	ok(cfs_layout_object_digest(path, strlen(path), back) &&
		   !memcmp(back, digest, sizeof(back)),
	   "%s parses back to its digest", path);
	memcpy(bad, path, sizeof(bad));
	bad[5] = 'B';
	ok(!cfs_layout_object_digest(bad, strlen(bad), back),
	   "upper case is no object name");
	memcpy(bad, path, sizeof(bad));
	bad[2] = 'b';
	ok(!cfs_layout_object_digest(bad, strlen(bad), back),
	   "an object path has its slash after two digits");
	memcpy(bad, path + 3, CFS_OBJECT_PATH_LEN - 2);
	bad[4] = 'B';
	ok(cfs_layout_object_name(0x0a, path + 3, back) &&
		   !memcmp(back, digest, sizeof(back)) &&
		   !cfs_layout_object_name(0x0a, bad, back) &&
		   !cfs_layout_object_name(0x0a, path + 2, back),
	   "a name in its xx/ directory parses the same way");
	ok(!cfs_layout_object_digest(path, strlen(path) - 1, back) &&
		   !cfs_layout_object_digest("0a/bb", 5, back),
	   "a shorter path is no object name");
}

/* An image's file names, made and parsed in one place. */
static void test_image_files(void)
{
	char *id = repeat('b', CFS_IMAGE_ID_LEN), *up = repeat('B', 64);
	char id_out[CFS_IMAGE_ID_LEN + 1], *name, *got;
	static const char *const want[] = {".cfs", ".json", ".manifest.json",
					   ".seal"};

	for (int f = 0; f < CFS_IMAGE_N_FILES; f++) {
		char *rel = cfs_layout_image_rel(id, f);

		name = xasprintf("%s%s", id, want[f]);
		ok(!strncmp(rel, "images/", 7) && !strcmp(rel + 7, name),
		   "file %d is images/ID%s", f, want[f]);
		ok(cfs_layout_image_name(name, id_out) == f &&
			   !strcmp(id_out, id),
		   "ID%s parses back to file %d of that id", want[f], f);
		free(name);
		free(rel);
	}
	name = xasprintf("%s.cfs", up);
	ok(cfs_layout_image_name(name, id_out) < 0,
	   "an upper-case id is no image file");
	free(name);
	name = xasprintf("%s.tmp.12.AbCdEf", id);
	ok(cfs_layout_image_name(name, id_out) < 0,
	   "a file being replaced is no image file");
	free(name);
	got = cfs_layout_side_file("/x/y/img.cfs", CFS_IMAGE_CONFIG);
	ok(got && !strcmp(got, "/x/y/img.json"), "X.cfs has its config X.json");
	free(got);
	got = cfs_layout_side_file("/x/y/img.cfs", CFS_IMAGE_OCI_MANIFEST);
	ok(got && !strcmp(got, "/x/y/img.manifest.json"),
	   "and its OCI manifest X.manifest.json");
	free(got);
	ok(!cfs_layout_side_file("/x/y/img.cfs.bak", CFS_IMAGE_CONFIG) &&
		   !cfs_layout_side_file(".cfs", CFS_IMAGE_CONFIG),
	   "a path not ending in NAME.cfs has no side files");
	ok(cfs_layout_manifest_name("a.cfs") &&
		   !cfs_layout_manifest_name("a.cfs.old") &&
		   !cfs_layout_manifest_name("web.cfsx"),
	   "a manifest file's name ends in .cfs");
	test_object_names(id);
	free(up);
	free(id);
}

static void test_refs(void)
{
	char dir[] = "/tmp/test-store-layout.XXXXXX";
	char *id = repeat('a', CFS_IMAGE_ID_LEN), *path, *got = NULL;
	char idout[CFS_IMAGE_ID_LEN + 1];
	struct cfs_layout_image img = tiny_image(id);

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
	path = cfs_layout_image_file(dir, id, CFS_IMAGE_MANIFEST);
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

struct listed {
	char *seen; /* "name=id-prefix|why;" for each ref, in any order */
	int images;
};

static void list_ref(const char *name, const char *id, const char *why,
		     void *opaque)
{
	struct listed *l = opaque;
	char *old = l->seen;

	l->seen = xasprintf("%s%s=%.4s%s;", old, name, id ? id : "",
			    id ? "" : why);
	free(old);
}

static void list_image(const char *id, void *opaque)
{
	((struct listed *)opaque)->images++;
}

static void symlink_at(const char *dir, const char *target, const char *name)
{
	char *path = xasprintf("%s/refs/%s", dir, name);

	ok(symlink(target, path) == 0, "ref %s -> %s made", name, target);
	free(path);
}

/* One listing of images and refs decides what is live for every tool. */
static void test_listing(void)
{
	char dir[] = "/tmp/test-store-list.XXXXXX",
	     other[] = "/tmp/test-o.XXXXXX";
	char *id = repeat('c', CFS_IMAGE_ID_LEN), *path, *cmd;
	struct cfs_layout_image img = tiny_image(id);
	struct listed l = {xstrdup(""), 0};
	const char *why;
	char idout[CFS_IMAGE_ID_LEN + 1];

	ok(mkdtemp(dir) && mkdtemp(other), "two scratch stores");
	ok(cfs_layout_write_image(dir, &img) == 0 &&
		   cfs_layout_write_image(other, &img) == 0,
	   "the same image in both");
	ok(cfs_layout_write_ref(dir, "a/web", id) == 0 &&
		   cfs_layout_write_ref(dir, ".hidden", id) == 0,
	   "a nested and a dot ref");
	path = cfs_layout_image_file(other, id, CFS_IMAGE_MANIFEST);
	symlink_at(dir, path, "elsewhere");
	free(path);
	symlink_at(dir, "../images/gone.cfs", "broken");
	symlink_at(dir, "../images/x.cfs", "a/web.tmp.1.AbCdEf");
	ok(cfs_layout_each_image(dir, list_image, &l) == 0 && l.images == 1,
	   "one image listed");
	ok(cfs_layout_each_ref(dir, list_ref, &l) == 0, "refs listed");
	ok(strstr(l.seen, "a/web=cccc;") && strstr(l.seen, ".hidden=cccc;"),
	   "live refs, a dot ref too, lead to the image: %s", l.seen);
	ok(strstr(l.seen, "elsewhere=not a manifest of this store;") != NULL,
	   "a ref to another store's manifest of the same id is not live");
	ok(strstr(l.seen, "broken=No such file or directory;") != NULL,
	   "a broken ref says why");
	ok(!strstr(l.seen, ".tmp."), "a ref being replaced is not listed");
	ok(cfs_layout_ref_image(dir, "a/web", idout, &why) &&
		   !strcmp(idout, id) &&
		   !cfs_layout_ref_image(dir, "elsewhere", idout, &why),
	   "one ref alone is judged the same way");
	cmd = xasprintf("rm -rf %s %s", dir, other);
	ok(system(cmd) == 0, "cleanup");
	free(cmd);
	free(l.seen);
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

/* A seal written with the image, read back; anything else is refused. */
static void test_seal(void)
{
	char dir[] = "/tmp/test-store-seal.XXXXXX";
	char *id = repeat('c', CFS_IMAGE_ID_LEN), *manifest, *seal, *cmd;
	uint8_t d[CFS_DIGEST_SIZE], got[CFS_DIGEST_SIZE];
	struct cfs_layout_image img = tiny_image(id);

	for (size_t i = 0; i < sizeof(d); i++)
		d[i] = (uint8_t)(i * 7 + 1);
	ok(mkdtemp(dir) != NULL, "scratch store");
	ok(cfs_layout_write_image(dir, &img) == 0, "an unsealed image written");
	manifest = cfs_layout_image_file(dir, id, CFS_IMAGE_MANIFEST);
	seal = cfs_layout_image_file(dir, id, CFS_IMAGE_SEAL);
	ok(cfs_layout_read_seal(manifest, got) == 0 && access(seal, F_OK) < 0,
	   "an unsealed image has no seal");
	img.seal = d;
	ok(cfs_layout_write_image(dir, &img) == 0 &&
		   cfs_layout_read_seal(manifest, got) == 1 &&
		   !memcmp(got, d, sizeof(d)),
	   "the seal written with the image reads back");
	img.seal = NULL;
	ok(cfs_layout_write_image(dir, &img) == 0 &&
		   cfs_layout_read_seal(manifest, got) == 1,
	   "an unsealed write of the same image keeps its seal");
	ok(cfs_layout_read_seal("/tmp/x.json", got) == 0,
	   "a path that names no manifest has no seal");
	cmd = xasprintf("printf '%%064d' 0 > %s", seal);
	ok(system(cmd) == 0 && cfs_layout_read_seal(manifest, got) < 0 &&
		   strstr(cfs_strerror(), seal),
	   "a seal without its newline is refused: %s", cfs_strerror());
	free(cmd);
	cmd = xasprintf("printf '%%064d\\n' 0 | tr 0 A > %s", seal);
	ok(system(cmd) == 0 && cfs_layout_read_seal(manifest, got) < 0,
	   "upper-case hex is refused");
	free(cmd);
	cmd = xasprintf("rm %s && mkfifo %s", seal, seal);
	ok(system(cmd) == 0 && cfs_layout_read_seal(manifest, got) < 0,
	   "a FIFO is refused, not waited on: %s", cfs_strerror());
	free(cmd);
	cmd = xasprintf("rm %s && ln -s %s %s", seal, manifest, seal);
	ok(system(cmd) == 0 && cfs_layout_read_seal(manifest, got) < 0,
	   "a symlink is refused");
	free(cmd);
	cmd = xasprintf("rm -rf %s", dir);
	ok(system(cmd) == 0, "cleanup");
	free(cmd);
	free(seal);
	free(manifest);
	free(id);
}

int main(void)
{
	test_names();
	test_image_files();
	test_refs();
	test_seal();
	test_listing();
	test_marker();
	return tap_done();
}
