// SPDX-License-Identifier: MIT
/*
 * libFuzzer: arbitrary text as a dump. If it parses and builds, the image
 * must validate, and its dump must parse and rebuild to the same bytes.
 */
#include <stdint.h>

#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cfs_tree *t = cfs_dump_parse((const char *)data, size, "fuzz");
	struct cfs_image img;
	uint8_t *image = NULL;
	size_t len = 0, text_len = 0;
	char *text;
	int r;

	if (!t)
		return 0;
	/* A parsed tree may still break format rules the writer checks. */
	r = cfs_image_build(t, &image, &len);
	cfs_tree_free(t);
	if (r < 0)
		return 0;
	fuzz_assert(cfs_image_open_mem(&img, image, len) == 0);
	text = fuzz_dump(&img, &text_len);
	fuzz_check_rebuild(text, text_len, image, len);
	cfs_image_close(&img);
	free(text);
	free(image);
	return 0;
}
