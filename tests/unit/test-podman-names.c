// SPDX-License-Identifier: MIT
/*
 * Image name normalisation for podman's stores (pname_normalize): the
 * defaults podman fills in, registries with ports, and names podman would
 * refuse.
 */
#include <stdlib.h>
#include <string.h>

#include "cfs/util.h"
#include "podman/internal.h"
#include "tap.h"

static bool norm_is(const char *in, const char *want)
{
	char *got = pname_normalize(in);
	bool good = got && !strcmp(got, want);

	if (!good)
		printf("# '%s' -> '%s'\n", in, got ? got : cfs_strerror());
	free(got);
	return good;
}

static bool refused(const char *in)
{
	char *got = pname_normalize(in);

	if (got) {
		printf("# '%s' accepted as '%s'\n", in, got);
		free(got);
		return false;
	}
	return strstr(cfs_strerror(), "not a valid image name") != NULL;
}

static void test_defaults(void)
{
	ok(norm_is("web", "localhost/web:latest"),
	   "bare name: localhost and latest");
	ok(norm_is("web:1.2", "localhost/web:1.2"), "tag kept");
	ok(norm_is("library/web:1", "localhost/library/web:1"),
	   "first component without '.' or ':' is a path, not a registry");
	ok(norm_is("docker.io/library/web:1", "docker.io/library/web:1"),
	   "full name unchanged");
	ok(norm_is("quay.io/a/b/c", "quay.io/a/b/c:latest"), "deep path");
	ok(norm_is("localhost/x", "localhost/x:latest"),
	   "localhost is a registry");
	ok(norm_is("localhost:5000/x", "localhost:5000/x:latest"),
	   "registry port is not a tag");
	ok(norm_is("reg.example:5000/a/b:v1", "reg.example:5000/a/b:v1"),
	   "registry port and a tag");
	ok(norm_is("host:5000", "localhost/host:5000"),
	   "no slash: the colon starts a tag");
	ok(norm_is("a.b-c_d:X_y.z-1", "localhost/a.b-c_d:X_y.z-1"),
	   "separators in the name, uppercase in the tag");
}

static void test_refused(void)
{
	char name[200], want[220];

	ok(refused(""), "empty name");
	ok(refused("Web"), "uppercase in the repository");
	ok(refused("web:"), "empty tag");
	ok(refused("web:-1"), "tag starting with '-'");
	ok(refused("web:.1"), "tag starting with '.'");
	ok(norm_is("web:1/x", "web:1/x:latest"),
	   "a colon before the first slash is a registry port");
	ok(refused("web@sha256:0123"), "digest references");
	ok(refused("a//b"), "empty path component");
	ok(refused("/web"), "leading slash");
	ok(refused("web/"), "trailing slash");
	ok(refused("docker.io/"), "registry without a repository");
	ok(refused("docker.io/:1"), "registry and a tag, no repository");
	ok(refused("we b"), "space");
	ok(refused("web\n:1"), "newline in the repository");
	ok(refused("web:1\n"), "newline in the tag");
	ok(refused("web:1;rm"), "';' in the tag");
	snprintf(name, sizeof(name), "web:%0128d", 0);
	snprintf(want, sizeof(want), "localhost/%s", name);
	ok(norm_is(name, want), "128-character tag accepted");
	snprintf(name, sizeof(name), "web:%0129d", 0);
	ok(refused(name), "129-character tag refused");
}

/* The reference grammar podman checks, component by component. */
static void test_grammar(void)
{
	ok(refused("../web"), "'..' as a registry");
	ok(refused("a b.io/x"), "space in the registry");
	ok(refused("-a"), "component starting with '-'");
	ok(refused("a-"), "component ending with '-'");
	ok(refused("a..b"), "two dots in a component");
	ok(refused("a___b"), "three underscores");
	ok(refused("x/.y"), "component starting with '.'");
	ok(refused("reg-.io/x"), "registry label ending with '-'");
	ok(refused("reg.io:5x/x"), "port that is not a number");
	ok(refused("reg.io:/x"), "empty port");
	ok(norm_is("x/a--b__c.d_e", "localhost/x/a--b__c.d_e:latest"),
	   "separators '-' runs, '__', '.' and '_' accepted");
	ok(norm_is("Reg-1.Example.io:443/x", "Reg-1.Example.io:443/x:latest"),
	   "registry labels with uppercase and inner '-'");
}

int main(void)
{
	test_defaults();
	test_refused();
	test_grammar();
	return tap_done();
}
