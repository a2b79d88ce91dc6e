// SPDX-License-Identifier: MIT
/* cfs-info: opening an image file or stdin. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "info.h"
#include "cfs/util.h"

int info_open(struct info_image *ii, const char *path)
{
	size_t len;

	memset(ii, 0, sizeof(*ii));
	ii->name = path;
	if (strcmp(path, "-") != 0) {
		if (cfs_image_open_file(&ii->img, path) == 0)
			return 0;
		fprintf(stderr, "%s: %s\n", TOOL, cfs_strerror());
		return -1;
	}
	ii->name = "<stdin>";
	if (cfs_read_file(path, &ii->buf, &len) == 0 &&
	    cfs_image_open_mem(&ii->img, ii->buf, len) == 0)
		return 0;
	fprintf(stderr, "%s: <stdin>: %s\n", TOOL, cfs_strerror());
	free(ii->buf);
	ii->buf = NULL;
	return -1;
}

void info_close(struct info_image *ii)
{
	cfs_image_close(&ii->img);
	free(ii->buf);
	ii->buf = NULL;
}
