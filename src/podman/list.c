// SPDX-License-Identifier: MIT
/* cfs-podman list: registered images, their names, mounts and digests. */
#include <stdio.h>
#include <stdlib.h>

#include "cfs/escape.h"
#include "cfs-podman.h"
#include "cfs/util.h"

static const char *const mount_words[] = {
	[CFS_PODMAN_MOUNTED] = "mounted",
	[CFS_PODMAN_MISSING] = "missing",
	[CFS_PODMAN_EXTERNAL] = "external",
};

static void print_names(const char *const *names)
{
	for (size_t i = 0; names[i]; i++) {
		char *name = cfs_printable_dup(names[i]);

		printf("%s%s", i ? "," : "", name);
		free(name);
	}
	if (!names[0])
		fputs("<none>", stdout);
}

static int print_image(const struct cfs_podman_image *img, void *opaque)
{
	bool cfs = img->manifest != NULL;

	(void)opaque;
	printf("%-12.12s  %-8s  %-64s  ", img->id,
	       cfs ? mount_words[img->mount] : "-", cfs ? img->digest : "-");
	print_names(img->names);
	putchar('\n');
	return 0;
}

int cmd_list(const struct cfs_podman_opts *o)
{
	printf("%-12s  %-8s  %-64s  %s\n", "IMAGE ID", "MOUNT", "DIGEST",
	       "NAMES");
	if (cfs_podman_images(o, true, print_image, NULL) < 0) {
		fprintf(stderr, TOOL ": %s\n", cfs_strerror());
		return 1;
	}
	return 0;
}
