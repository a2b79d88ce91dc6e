// SPDX-License-Identifier: MIT
/*
 * Transport names: the ref podman would record for a docker reference, and
 * the signature policy's scope lookup on hand-written policy files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfs/oci.h"
#include "tap.h"
#include "cfs/util.h"

static void norm(const char *in, const char *want)
{
	char *got = cfs_oci_normalize_name(in);

	ok(!strcmp(got, want), "%s -> %s (got %s)", in, want, got);
	free(got);
}

static char *write_policy(const char *dir, const char *json)
{
	char *path = xasprintf("%s/policy.json", dir);
	FILE *f = fopen(path, "w");

	fputs(json, f);
	fclose(f);
	return path;
}

/* 0 accepted, -1 refused (with the message in cfs_strerror) */
static int policy(const char *dir, const char *json, const char *name)
{
	char *path = write_policy(dir, json);
	struct cfs_oci_image *img = NULL;
	int r = cfs_oci_open_name(&img, name, NULL, NULL, path, NULL);

	cfs_oci_close(img);
	free(path);
	return r;
}

static void policies(void)
{
	char dir[] = "/tmp/cfs-policy.XXXXXX";
	/* a layout that is not there: acceptance shows as a different error */
	const char *name = "oci:/nonexistent/cfs-layout:tag";
	const char *scoped =
		"{\"default\":[{\"type\":\"insecureAcceptAnything\"}],"
		"\"transports\":{\"oci\":{\"\":[{\"type\":\"reject\"}]}}}";

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	ok(policy(dir, "{\"default\":[{\"type\":\"reject\"}]}", name) < 0 &&
		   strstr(cfs_strerror(), "rejected by signature policy"),
	   "reject by default: refused");
	ok(policy(dir, "{\"default\":[{\"type\":\"insecureAcceptAnything\"}]}",
		  name) < 0 &&
		   !strstr(cfs_strerror(), "policy"),
	   "insecureAcceptAnything: accepted, then the layout is missing");
	ok(policy(dir, scoped, name) < 0 && strstr(cfs_strerror(), "rejected"),
	   "the transport's \"\" scope wins over the default");
	ok(policy(dir, "{\"default\":[]}", name) < 0 &&
		   strstr(cfs_strerror(), "no requirements"),
	   "an empty requirement list is refused");
	ok(policy(dir, "{\"default\":[{\"type\":\"signedBy\"}]}", name) < 0 &&
		   strstr(cfs_strerror(), "signedBy"),
	   "signedBy is refused, naming the requirement");
	ok(policy(dir, "[1,2]", name) < 0, "a policy that is not an object");
	ok(policy(dir, "{\"default\":[{\"type\":\"reject\"}]}",
		  "/nonexistent/plain-path") < 0 &&
		   !strstr(cfs_strerror(), "policy"),
	   "a plain path is not subject to the policy");
	{
		char *p = xasprintf("%s/policy.json", dir);

		unlink(p);
		free(p);
	}
	rmdir(dir);
}

int main(void)
{
	norm("busybox", "docker.io/library/busybox:latest");
	norm("busybox:1.36", "docker.io/library/busybox:1.36");
	norm("library/busybox", "docker.io/library/busybox:latest");
	norm("user/app:2", "docker.io/user/app:2");
	norm("docker.io/busybox", "docker.io/library/busybox:latest");
	norm("index.docker.io/user/app", "docker.io/user/app:latest");
	norm("quay.io/org/app", "quay.io/org/app:latest");
	norm("localhost/app:1", "localhost/app:1");
	norm("localhost:5000/app", "localhost:5000/app:latest");
	norm("127.0.0.1:5000/cfs/app:v1", "127.0.0.1:5000/cfs/app:v1");
	norm("registry.example/app@sha256:"
	     "0000000000000000000000000000000000000000000000000000000000000000",
	     "registry.example/app@sha256:"
	     "000000000000000000000000000000000000000000000000000000000000000"
	     "0");
	policies();
	return tap_done();
}
