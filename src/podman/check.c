// SPDX-License-Identifier: MIT
/*
 * cfs-podman check and sync: the library's one check of the additional
 * image store (cfs_podman_check, also run by cfs-store fsck), one line per
 * finding: "SUBJECT: PROBLEM", and with sync ": repaired" or ": not
 * repaired: WHY". Exit 1 if a problem remains.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cfs/escape.h"
#include "cfs-podman.h"
#include "cfs/util.h"

static void print_finding(const struct cfs_podman_finding *f, void *opaque)
{
	/* Lines name files and images from the stores: escaped, one line. */
	char *line = xasprintf("%s: %s", f->subject, f->problem);
	char *shown = cfs_printable_dup(line);

	(void)opaque;
	fputs(shown, stdout);
	if (f->repaired == 1)
		fputs(": repaired", stdout);
	else if (f->repaired < 0)
		printf(": not repaired: %s", f->why);
	putchar('\n');
	free(shown);
	free(line);
}

int cmd_check(const struct cfs_podman_opts *o, bool repair)
{
	size_t remaining;

	if (cfs_podman_check(o, repair, print_finding, NULL, &remaining) < 0) {
		fprintf(stderr, TOOL ": %s\n", cfs_strerror());
		return 1;
	}
	return remaining ? 1 : 0;
}
