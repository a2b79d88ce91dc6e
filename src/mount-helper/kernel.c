// SPDX-License-Identifier: MIT
/* Whether the kernel has composefs, and what a failed mount(2) means. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mount-helper.h"

static int not_loaded(const char *subject)
{
	return mh_fail(MNT_EX_FAIL, subject,
		       "the kernel has no composefs filesystem (module not "
		       "loaded): load it with 'modprobe composefs' (or "
		       "'insmod composefs.ko' from a cfs build: "
		       "build/kernel/composefs.ko)");
}

/* A line of /proc/filesystems: "nodev\tNAME" or "\tNAME". */
static bool line_names(const char *line, const char *fs)
{
	const char *tab = strchr(line, '\t');
	size_t len = strlen(fs);

	return tab && strncmp(tab + 1, fs, len) == 0 &&
	       (tab[1 + len] == '\n' || tab[1 + len] == '\0');
}

int mh_check_kernel_support(const char *subject)
{
	FILE *f = fopen("/proc/filesystems", "re");
	char line[256];
	bool found = false;

	if (!f) /* no /proc: mount(2) answers ENODEV if it is missing */
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = line_names(line, "composefs");
	fclose(f);
	return found ? 0 : not_loaded(subject);
}

int mh_mount_error(struct libmnt_context *cxt, int rc, const char *subject,
		   const char *target)
{
	char buf[BUFSIZ] = "";
	int e, ex;

	if (mnt_context_syscall_called(cxt) &&
	    (e = mnt_context_get_syscall_errno(cxt)) != 0) {
		switch (e) {
		case ENODEV:
			return not_loaded(subject);
		case EBUSY:
			return mh_fail(MNT_EX_FAIL, subject,
				       "target busy: %s is in use", target);
		case EINVAL:
			return mh_fail(MNT_EX_FAIL, subject,
				       "the kernel refused the image or its "
				       "options on %s (see dmesg)",
				       target);
		default:
			return mh_fail(MNT_EX_FAIL, subject, "%s: %s", target,
				       strerror(e));
		}
	}
	ex = mnt_context_get_excode(cxt, rc, buf, sizeof(buf));
	if (ex == MNT_EX_SUCCESS)
		return 0;
	return mh_fail(ex, subject, "%s: %s", target, *buf ? buf : "failed");
}
