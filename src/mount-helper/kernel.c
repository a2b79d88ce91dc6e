// SPDX-License-Identifier: MIT
/*
 * What a failed mount(2) means.  There is no check of /proc/filesystems
 * before mounting: mount(2) itself loads the module through its
 * filesystem alias (fs-composefs), and answers ENODEV only when there is
 * no module to load.
 */
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
