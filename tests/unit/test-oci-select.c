// SPDX-License-Identifier: MIT
/*
 * Choosing one image of an OCI layout: nested indexes, platforms, and refs
 * (tag only, name:tag, full names) against the index annotations.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "oci-fixture.h"
#include "tap.h"

static const char *host_arch(void)
{
	static struct utsname u;

	uname(&u);
	if (!strcmp(u.machine, "x86_64"))
		return "amd64";
	if (!strcmp(u.machine, "aarch64"))
		return "arm64";
	return NULL;
}

static void test_nested_and_platform(void)
{
	struct fileset fs = {0};
	struct built amd, arm;
	char *descs[2], *ext, *nested, *dir, nested_digest[136];
	size_t nested_len;

	build_image(&fs, &amd, "amd", 1, NULL);
	build_image(&fs, &arm, "arm", 2, NULL);
	ext = platform_extra("amd64", NULL);
	descs[0] = manifest_desc(&amd, ext);
	free(ext);
	ext = platform_extra("arm64", NULL);
	descs[1] = manifest_desc(&arm, ext);
	free(ext);
	nested = xasprintf("{\"schemaVersion\":2,\"mediaType\":\"%s\","
			   "\"manifests\":[%s,%s]}",
			   OCI_INDEX, descs[0], descs[1]);
	free(descs[0]);
	free(descs[1]);
	nested_len = strlen(nested);
	fs_add_blob(&fs, nested, nested_len, nested_digest);
	free(nested);
	descs[0] = xasprintf("{\"mediaType\":\"%s\",\"digest\":\"%s\",\"size\":"
			     "%zu,\"annotations\":{\"%s\":\"multi\"}}",
			     OCI_INDEX, nested_digest, nested_len, REF_KEY);
	add_index(&fs, 1, descs);
	dir = fs_write_dir(&fs, "nested");

	ok(opens_as(dir, "multi", "linux/arm64", &arm, "multi"),
	   "nested index: explicit platform arm64, ref inherited");
	ok(opens_as(dir, NULL, "linux/amd64", &amd, "multi"),
	   "nested index: explicit platform amd64");
	ok(opens_as(dir, NULL, "linux/arm64/v8", &arm, "multi"),
	   "arm64/v8 matches arm64 without variant");
	ok(open_fails(dir, NULL, "linux/s390x",
		      "no manifest for platform "
		      "linux/s390x"),
	   "no such platform: error");
	ok(open_fails(dir, NULL, "linux", "invalid platform"),
	   "malformed platform string");
	if (host_arch())
		ok(opens_as(dir, NULL, NULL,
			    strcmp(host_arch(), "arm64") ? &amd : &arm,
			    "multi"),
		   "host platform picked without arguments");
	free(dir);
	fs_free(&fs);
	built_free(&amd);
	built_free(&arm);
}

static void test_ambiguity_and_refs(void)
{
	struct fileset fs = {0};
	struct built one, two;
	char *descs[2], *ext, *dir;

	/* two amd64 manifests: the platform cannot decide */
	build_image(&fs, &one, "one", 1, NULL);
	build_image(&fs, &two, "two", 1, NULL);
	ext = platform_extra("amd64", "docker.io/library/web:1.0");
	descs[0] = manifest_desc(&one, ext);
	free(ext);
	ext = platform_extra("amd64", "2.0");
	descs[1] = manifest_desc(&two, ext);
	free(ext);
	add_index(&fs, 2, descs);
	dir = fs_write_dir(&fs, "ambiguous");
	ok(open_fails(dir, NULL, "linux/amd64", "several manifests") &&
		   error_has("docker.io/library/web:1.0 (linux/amd64), 2.0"),
	   "ambiguous platform: error lists the choices");
	ok(open_fails(dir, NULL, NULL, "several manifests"),
	   "ambiguous without ref or platform");
	ok(opens_as(dir, "2.0", NULL, &two, "2.0"), "ref picks one");
	ok(opens_as(dir, "web:2.0", NULL, &two, "2.0"),
	   "name:tag ref picks a tag-only annotation");
	ok(opens_as(dir, "1.0", NULL, &one, "docker.io/library/web:1.0"),
	   "tag-only ref picks a full name annotation");
	ok(opens_as(dir, "web:1.0", NULL, &one, "docker.io/library/web:1.0"),
	   "short name:tag picks a full name annotation");
	ok(open_fails(dir, "other:1.0", NULL, "no manifest matching"),
	   "different repository with the same tag does not match");
	free(dir);
	fs_free(&fs);
	built_free(&one);
	built_free(&two);
}

int main(void)
{
	oci_fixture_start();
	test_nested_and_platform();
	test_ambiguity_and_refs();
	oci_fixture_end();
	return tap_done();
}
