// SPDX-License-Identifier: MIT
/*
 * Blob verification in the OCI reader: a damaged, truncated, grown or
 * missing blob is an error naming the blob and the layout.
 */
#include <stdlib.h>
#include <unistd.h>

#include "oci-fixture.h"
#include "tap.h"

/* Opens dir, then damages layer 0 with fn and reads it: error expected. */
static bool damaged_read_fails(const char *dir, const struct built *b, int how,
			       const char *msg)
{
	struct cfs_oci_image *img;
	char *blob = image_file(dir, b->layer_digest[0]);
	uint8_t *data = NULL;
	bool failed;

	if (cfs_oci_open(&img, dir, NULL, NULL) < 0) {
		free(blob);
		return false;
	}
	if (how == 0)
		flip_byte(blob, b->layer_len[0] / 2);
	else
		resize(blob, b->layer_len[0] + (how == 1 ? -1 : 10));
	failed = read_layer(img, 0, &data) < 0 && error_has(msg) &&
		 error_has(b->layer_digest[0]) && error_has(dir);
	free(data);
	cfs_oci_close(img);
	free(blob);
	return failed;
}

static void test_blob_verification(void)
{
	struct fileset fs = {0};
	struct built b;
	char *dir, *blob;

	simple_layout(&fs, &b, "v", 1, NULL);
	dir = fs_write_dir(&fs, "verify0");
	ok(damaged_read_fails(dir, &b, 0, "digest mismatch"),
	   "corrupted byte: stream ends with a digest error");
	free(dir);
	dir = fs_write_dir(&fs, "verify1");
	ok(damaged_read_fails(dir, &b, 1, "size mismatch"),
	   "truncated while open: stream ends with a size error");
	free(dir);
	dir = fs_write_dir(&fs, "verify2");
	ok(damaged_read_fails(dir, &b, 2, "longer"),
	   "grown while open: stream fails with a size error");
	blob = image_file(dir, b.layer_digest[0]);
	ok(open_fails(dir, NULL, NULL, "size mismatch"),
	   "blob size differs from descriptor: open fails");
	unlink(blob);
	ok(open_fails(dir, NULL, NULL, "missing"), "missing layer blob");
	free(blob);
	blob = image_file(dir, b.config_digest);
	unlink(blob);
	ok(open_fails(dir, NULL, NULL, "missing"), "missing config blob");
	free(blob);
	blob = image_file(dir, b.manifest_digest);
	flip_byte(blob, 5);
	ok(open_fails(dir, NULL, NULL, "digest mismatch"),
	   "manifest with a wrong digest");
	free(blob);
	free(dir);
	fs_free(&fs);
	built_free(&b);
}

int main(void)
{
	oci_fixture_start();
	test_blob_verification();
	oci_fixture_end();
	return tap_done();
}
