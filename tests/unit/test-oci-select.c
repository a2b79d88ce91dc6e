// SPDX-License-Identifier: MIT
/*
 * Choosing one image of an OCI layout: nested indexes, platforms, and refs
 * (tag only, name:tag, full names) against the index annotations; then the
 * rules alone (oci/select.c): ref matching and platform strings.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "oci-fixture.h"
#include "oci/internal.h"
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

static void test_ref_rule(void)
{
	ok(oci_ref_match("web:1.2", "web:1.2") == 3, "identical: 3");
	ok(oci_ref_match("", "") == 3, "two empty refs are identical");
	ok(oci_ref_match("web:1.2", "docker.io/library/web:1.2") == 2 &&
		   oci_ref_match("docker.io/library/web:1.2", "web:1.2") == 2,
	   "short name is a trailing path of the full name: 2, both ways");
	ok(oci_ref_match("library/web:1", "docker.io/library/web:1") == 2,
	   "trailing path of two components: 2");
	ok(oci_ref_match("localhost:5000/web:1", "web:1") == 2,
	   "a registry port is not the tag");
	ok(oci_ref_match("eb:1.2", "web:1.2") == 0 &&
		   oci_ref_match("web:1.2", "eb:1.2") == 0,
	   "a suffix that is not at a '/' does not match");
	ok(oci_ref_match("x/web:1", "y/web:1") == 0,
	   "same name under another path: 0");
	ok(oci_ref_match("web:1.2", "docker.io/library/web:1.3") == 0,
	   "same name, other tag: 0");
	ok(oci_ref_match("1.2", "docker.io/library/web:1.2") == 1 &&
		   oci_ref_match("web:1.2", "1.2") == 1,
	   "bare tag against a tag: 1, both ways");
	ok(oci_ref_match("1.3", "web:1.2") == 0 &&
		   oci_ref_match("web:1.3", "1.2") == 0,
	   "bare tag against another tag: 0");
	ok(oci_ref_match("web", "web:latest") == 0, "no implied ':latest'");
	ok(oci_ref_match(":1", "web:1") == 0 &&
		   oci_ref_match("web:1", ":1") == 0,
	   "an empty repository is no trailing path");
	ok(oci_ref_match("5000", "localhost:5000/web") == 0,
	   "a registry port is not a tag for a bare-tag ref");
}

static bool platform_is(const char *s, const char *os, const char *arch,
			const char *variant)
{
	struct oci_platform p;

	return oci_platform_parse(&p, s) == 0 && !strcmp(p.os, os) &&
	       !strcmp(p.arch, arch) && !strcmp(p.variant, variant);
}

static bool platform_refused(const char *s)
{
	struct oci_platform p;

	return oci_platform_parse(&p, s) < 0 && error_has("invalid platform");
}

static void test_platform_rule(void)
{
	struct oci_platform p;
	char s[80];

	ok(platform_is("linux/amd64", "linux", "amd64", ""), "os/arch");
	ok(platform_is("linux/arm/v7", "linux", "arm", "v7"),
	   "os/arch/variant");
	ok(oci_platform_parse(&p, NULL) == 0 && !strcmp(p.os, "linux") &&
		   p.arch[0] && (!host_arch() || !strcmp(p.arch, host_arch())),
	   "no string: the host's platform, in GOARCH terms");
	ok(platform_refused("linux"), "no arch");
	ok(platform_refused("linux/") && platform_refused("/amd64"),
	   "empty os or arch");
	ok(platform_refused("linux/arm64/"), "empty variant");
	ok(platform_refused("linux/arm/v7/x"), "four parts");
	ok(platform_refused("linux/amd 64"), "space in a part");
	snprintf(s, sizeof(s), "linux/%031d", 0);
	ok(oci_platform_parse(&p, s) == 0, "31-character part accepted");
	snprintf(s, sizeof(s), "linux/%032d", 0);
	ok(platform_refused(s), "32-character part refused");
	oci_platform_parse(&p, "linux/arm64");
	ok(oci_platform_match(&p, "linux", "arm64", "v8") &&
		   oci_platform_match(&p, "linux", "arm64", NULL),
	   "no wanted variant matches any");
	oci_platform_parse(&p, "linux/arm64/v8");
	ok(oci_platform_match(&p, "linux", "arm64", NULL) &&
		   oci_platform_match(&p, "linux", "arm64", ""),
	   "arm64 without a variant is v8");
	oci_platform_parse(&p, "linux/arm/v7");
	ok(!oci_platform_match(&p, "linux", "arm", NULL) &&
		   !oci_platform_match(&p, "linux", "arm", "v6"),
	   "arm without a variant is not v7");
	ok(!oci_platform_match(&p, NULL, "arm", "v7") &&
		   !oci_platform_match(&p, "linux", NULL, "v7") &&
		   !oci_platform_match(&p, "windows", "arm", "v7"),
	   "missing or other os or arch");
}

int main(void)
{
	oci_fixture_start();
	test_nested_and_platform();
	test_ambiguity_and_refs();
	test_ref_rule();
	test_platform_rule();
	oci_fixture_end();
	return tap_done();
}
