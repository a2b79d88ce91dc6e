// SPDX-License-Identifier: MIT
/* cfs-podman list: registered images, their names, mounts and digests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfs/escape.h"
#include "../lib/podman/internal.h"
#include "cfs-podman.h"
#include "cfs/util.h"

/* "mounted", "missing" (not mounted), "external" (a tree of its own). */
static const char *mount_state(const struct pmeta *m)
{
	int mounted = pmount_is_mounted(m->mountpoint);

	if (m->managed || m->was_mounted)
		return mounted == 1 ? "mounted" : "missing";
	return pstore_dir_entries(m->mountpoint) > 0 ? "external" : "missing";
}

static void print_names(struct json_object *img)
{
	struct json_object *names;
	size_t n = 0;

	if (json_object_object_get_ex(img, "names", &names) &&
	    json_object_is_type(names, json_type_array))
		n = json_object_array_length(names);
	for (size_t i = 0; i < n; i++) {
		char *name = cfs_printable_dup(json_object_get_string(
			json_object_array_get_idx(names, i)));

		printf("%s%s", i ? "," : "", name);
		free(name);
	}
	if (!n)
		fputs("<none>", stdout);
}

int cmd_list(const struct cfs_podman_opts *o)
{
	struct pstore p;
	size_t n;

	if (pstore_open(&p, o, false) < 0 ||
	    (access(p.root, F_OK) == 0 && pstore_lock(&p, false, false) < 0)) {
		fprintf(stderr, TOOL ": %s\n", cfs_strerror());
		pstore_close(&p);
		return 1;
	}
	n = p.images ? json_object_array_length(p.images) : 0;
	printf("%-12s  %-8s  %-64s  %s\n", "IMAGE ID", "MOUNT", "DIGEST",
	       "NAMES");
	for (size_t i = 0; i < n; i++) {
		struct json_object *img =
			json_object_array_get_idx(p.images, i);
		const char *id = pjson_str(img, "id");
		struct pmeta m;
		bool cfs = pmeta_parse(img, &m) == 0;

		printf("%-12.12s  %-8s  %-64s  ", id ? id : "?",
		       cfs ? mount_state(&m) : "-", cfs ? m.digest : "-");
		print_names(img);
		putchar('\n');
		if (cfs)
			pmeta_free(&m);
	}
	pstore_close(&p);
	return 0;
}
