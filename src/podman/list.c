// SPDX-License-Identifier: MIT
/* cfs-podman list: registered images, their names, mounts and digests. */
#include <json-c/json.h>
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

static struct json_object *string_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

/* The fields of the table; "mount", "digest" and "manifest" are null for an
 * image another tool registered. */
static int add_image_json(const struct cfs_podman_image *img, void *opaque)
{
	struct json_object *j = json_object_new_object();
	struct json_object *names = json_object_new_array();
	bool cfs = img->manifest != NULL;

	for (size_t i = 0; img->names[i]; i++)
		json_object_array_add(names,
				      json_object_new_string(img->names[i]));
	json_object_object_add(j, "id", json_object_new_string(img->id));
	json_object_object_add(j, "names", names);
	json_object_object_add(
		j, "mount",
		string_or_null(cfs ? mount_words[img->mount] : NULL));
	json_object_object_add(j, "digest",
			       string_or_null(cfs ? img->digest : NULL));
	json_object_object_add(j, "manifest", string_or_null(img->manifest));
	json_object_object_add(j, "mountpoint",
			       string_or_null(cfs ? img->mountpoint : NULL));
	json_object_array_add(opaque, j);
	return 0;
}

static int list_json(const struct cfs_podman_opts *o)
{
	struct json_object *all = json_object_new_array();
	int r = cfs_podman_images(o, true, add_image_json, all);

	if (r == 0)
		puts(json_object_to_json_string_ext(
			all, JSON_C_TO_STRING_PRETTY |
				     JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(all);
	return r;
}

int cmd_list(const struct cfs_podman_opts *o, bool json)
{
	int r;

	if (json) {
		r = list_json(o);
	} else {
		printf("%-12s  %-8s  %-64s  %s\n", "IMAGE ID", "MOUNT",
		       "DIGEST", "NAMES");
		r = cfs_podman_images(o, true, print_image, NULL);
	}
	if (r < 0) {
		fprintf(stderr, TOOL ": %s\n", cfs_strerror());
		return 1;
	}
	return 0;
}
