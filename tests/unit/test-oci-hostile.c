// SPDX-License-Identifier: MIT
/*
 * Hostile OCI inputs: bad digests and media types, oversize descriptors
 * and JSON, things that are not images, truncated archives.
 */
#include <stdlib.h>

#include "oci-fixture.h"
#include "tap.h"

/* A layout whose index has one entry with the given descriptor fields. */
static char *layout_with_entry(const char *name, const char *mt,
			       const char *digest, const char *size)
{
	struct fileset fs = {0};
	char *d = xasprintf(
		"{\"mediaType\":\"%s\",\"digest\":\"%s\",\"size\":%s}", mt,
		digest, size);
	char *dir;

	add_index(&fs, 1, &d);
	dir = fs_write_dir(&fs, name);
	fs_free(&fs);
	return dir;
}

static void test_hostile(void)
{
	struct fileset fs = {0};
	struct built b;
	char *dir, *tar, *path, *evil;
	const char *zeros =
		"0000000000000000000000000000000000000000000000000000000000";

	simple_layout(&fs, &b, "h", 1, "application/vnd.example.layer");
	dir = fs_write_dir(&fs, "badmt");
	ok(open_fails(dir, NULL, NULL,
		      "unsupported layer media type "
		      "application/vnd.example.layer"),
	   "unsupported layer media type");
	ok(open_fails(dir, NULL, NULL, "manifest layer 1 sha256:"),
	   "the first layer is called layer 1, as in progress output");
	free(dir);
	fs_free(&fs);
	built_free(&b);

	evil = xasprintf("sha256:../../../../../../etc/passwd%s", zeros);
	evil[71] = '\0'; /* 64 characters after "sha256:" */
	dir = layout_with_entry("evil1", OCI_MANIFEST, evil, "10");
	ok(open_fails(dir, NULL, NULL, "invalid digest"),
	   "digest with ../ is refused");
	free(dir);
	free(evil);
	dir = layout_with_entry("evil2", OCI_MANIFEST,
				"sha256:ABCDEF0000000000000000000000000000000"
				"000000000000000000000000000",
				"10");
	ok(open_fails(dir, NULL, NULL, "invalid digest"),
	   "uppercase hex digest is refused");
	free(dir);
	dir = layout_with_entry("evil3", OCI_MANIFEST,
				"md5:d41d8cd98f00b204e9800998ecf8427e", "10");
	ok(open_fails(dir, NULL, NULL, "unsupported digest algorithm"),
	   "md5 digest is refused");
	free(dir);
	dir = layout_with_entry("evil4", OCI_MANIFEST,
				"sha256:0000000000000000000000000000000000000"
				"000000000000000000000000000",
				"999999999999");
	ok(open_fails(dir, NULL, NULL, "exceeds"),
	   "oversize manifest descriptor is refused before reading");
	free(dir);
	dir = layout_with_entry("evil5", "application/vnd.example.manifest",
				"sha256:0000000000000000000000000000000000000"
				"000000000000000000000000000",
				"10");
	ok(open_fails(dir, NULL, NULL,
		      "unsupported manifest media type "
		      "application/vnd.example.manifest"),
	   "unsupported manifest media type");
	free(dir);

	fs_add_str(&fs, "index.json", "{\"schemaVersion\":2,\"manifests\":[");
	fs_add_str(&fs, "oci-layout", "{\"imageLayoutVersion\":\"1.0.0\"}");
	dir = fs_write_dir(&fs, "badjson");
	ok(open_fails(dir, NULL, NULL, "index.json: bad JSON"),
	   "truncated index.json");
	free(dir);
	fs_free(&fs);

	fs_add_str(&fs, "index.json", "{}");
	fs_add_str(&fs, "oci-layout", "{\"imageLayoutVersion\":\"1.0.0\"}");
	dir = fs_write_dir(&fs, "hugejson");
	path = xasprintf("%s/index.json", dir);
	resize(path, ((off_t)64 << 20) + 1);
	ok(open_fails(dir, NULL, NULL, "index.json: larger than"),
	   "index.json over the 64 MiB cap");
	free(path);
	free(dir);
	fs_free(&fs);

	path = xasprintf("%s/notatar", oci_tmp);
	write_file(path, "this is not a tar file at all\n", 30);
	ok(open_fails(path, NULL, NULL, "not an OCI or docker archive"),
	   "random file");
	free(path);
	path = xasprintf("%s/nonexistent", oci_tmp);
	ok(open_fails(path, NULL, NULL, "No such file"), "missing path");
	free(path);
	ok(open_fails("/dev/null", NULL, NULL, "not a file or directory"),
	   "character device");

	simple_layout(&fs, &b, "t", 2, NULL);
	tar = fs_write_tar(&fs, "truncated.tar");
	resize(tar, 3000);
	ok(open_fails(tar, NULL, NULL, "truncated"), "truncated oci-archive");
	free(tar);
	fs_free(&fs);
	built_free(&b);
}

int main(void)
{
	oci_fixture_start();
	test_hostile();
	oci_fixture_end();
	return tap_done();
}
