// SPDX-License-Identifier: MIT
/*
 * The OCI reader on images made by umoci and skopeo (skipped when they
 * are not installed).
 */
#include <stdlib.h>
#include <string.h>

#include "oci-fixture.h"
#include "tap.h"

/* ---- images made by umoci and skopeo ---- */

static int run(const char *cmd)
{
	char *c = xasprintf("{ %s; } >/dev/null 2>&1", cmd);
	int r = system(c);

	free(c);
	return r;
}

/* sha256 of a whole layer stream equals its diff_id? */
static bool docker_layer_is_diff_id(struct cfs_oci_image *img, size_t i)
{
	uint8_t *data = NULL;
	ssize_t n = read_layer(img, i, &data);
	char hex[65], want[65];

	if (n < 0)
		return false;
	sha_hex(EVP_sha256(), data, n, hex);
	cfs_hex(want, img->layers[i].diff_id, 32);
	free(data);
	return !strcmp(hex, want);
}

static void test_real_tools(void)
{
	struct cfs_oci_image *oci = NULL, *arch = NULL, *dock = NULL;
	char *cmd;
	uint8_t *data = NULL;
	bool good;

	if (run("command -v umoci && command -v skopeo")) {
		ok(1, "umoci/skopeo images # SKIP umoci or skopeo missing");
		return;
	}
	cmd = xasprintf("cd %s && umoci init --layout real && "
			"umoci new --image real:t1 && echo hello > f && "
			"umoci insert --image real:t1 f /hello.txt && "
			"skopeo --insecure-policy copy oci:real:t1 "
			"oci-archive:real-oci.tar && "
			"skopeo --insecure-policy copy oci:real:t1 "
			"docker-archive:real-docker.tar:web:t1",
			oci_tmp);
	good = run(cmd) == 0;
	free(cmd);
	if (!good) {
		ok(1, "umoci/skopeo images # SKIP the tools failed");
		return;
	}
	cmd = xasprintf("%s/real", oci_tmp);
	ok(cfs_oci_open(&oci, cmd, "t1", NULL) == 0 && oci->n_layers == 1 &&
		   read_layer(oci, 0, &data) == (ssize_t)oci->layers[0].size,
	   "umoci layout: opens, layer verifies");
	free(data);
	data = NULL;
	free(cmd);
	cmd = xasprintf("%s/real-oci.tar", oci_tmp);
	ok(cfs_oci_open(&arch, cmd, NULL, NULL) == 0 && oci &&
		   arch->n_layers == 1 &&
		   !strcmp(arch->layers[0].digest, oci->layers[0].digest) &&
		   read_layer(arch, 0, &data) == (ssize_t)arch->layers[0].size,
	   "skopeo oci-archive: same layer, verifies");
	free(data);
	free(cmd);
	cmd = xasprintf("%s/real-docker.tar", oci_tmp);
	ok(cfs_oci_open(&dock, cmd, "web:t1", NULL) == 0 && oci &&
		   dock->n_layers == 1 &&
		   !memcmp(dock->layers[0].diff_id, oci->layers[0].diff_id,
			   32) &&
		   docker_layer_is_diff_id(dock, 0),
	   "skopeo docker-archive: same diff_id, layer is the plain tar");
	free(cmd);
	cfs_oci_close(oci);
	cfs_oci_close(arch);
	cfs_oci_close(dock);
}

int main(void)
{
	oci_fixture_start();
	test_real_tools();
	oci_fixture_end();
	return tap_done();
}
