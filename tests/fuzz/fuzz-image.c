// SPDX-License-Identifier: MIT
/*
 * libFuzzer: arbitrary bytes as an image. A valid image must survive every
 * accessor, dump, and rebuild (via the tree and via its dump) into an
 * image that validates and is the same both ways.
 */
#include <stdint.h>
#include <sys/stat.h>

#include "fuzz-common.h"

static volatile uint64_t sink;

static void touch_dir(const struct cfs_image_inode *in)
{
	uint32_t n = cfs_image_dir_count(in);

	for (uint32_t i = 0; i < n; i++) {
		struct cfs_image_dirent d, found;

		cfs_image_dir_entry(in, i, &d);
		fuzz_assert(
			cfs_image_dir_lookup(in, d.name, d.name_len, &found) &&
			found.ino == d.ino);
		sink += d.d_type + (uint8_t)d.name[d.name_len - 1];
	}
}

static void touch_all(const struct cfs_image *img)
{
	for (uint32_t ino = 0; ino < img->n_inodes; ino++) {
		struct cfs_image_inode in;
		uint32_t nx;

		cfs_image_get_inode(img, ino, &in);
		if (S_ISDIR(in.mode))
			touch_dir(&in);
		else if (in.vdata_len)
			sink += in.vdata[in.vdata_len - 1];
		nx = cfs_image_xattr_count(&in);
		for (uint32_t i = 0; i < nx; i++) {
			struct cfs_image_xattr x;

			cfs_image_xattr_get(&in, i, &x);
			sink += x.key_len + x.value_len;
		}
		if (in.digest)
			sink += in.digest[31];
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cfs_image img, img2;
	uint8_t *rebuilt;
	size_t len = 0, text_len = 0;
	char *text;

	if (cfs_image_open_mem(&img, data, size) < 0)
		return 0;
	touch_all(&img);
	text = fuzz_dump(&img, &text_len);
	rebuilt = fuzz_build(cfs_image_to_tree(&img), &len);
	fuzz_assert(cfs_image_open_mem(&img2, rebuilt, len) == 0);
	fuzz_check_rebuild(text, text_len, rebuilt, len);
	cfs_image_close(&img2);
	cfs_image_close(&img);
	free(text);
	free(rebuilt);
	return 0;
}
