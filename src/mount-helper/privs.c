// SPDX-License-Identifier: MIT
/*
 * Capabilities: mounting needs CAP_SYS_ADMIN; reading the image, the
 * basedirs and the mount tables may need the DAC overrides. Everything
 * else is dropped before any path is looked at.
 */
#include <errno.h>
#include <string.h>
#include <sys/capability.h>

#include "mount-helper.h"

static const cap_value_t kept[] = {
	CAP_SYS_ADMIN,
	CAP_DAC_OVERRIDE,
	CAP_DAC_READ_SEARCH,
};
#define N_KEPT ((int)(sizeof(kept) / sizeof(kept[0])))

static bool has_sys_admin(cap_t caps)
{
	cap_flag_value_t v = CAP_CLEAR;

	return cap_get_flag(caps, CAP_SYS_ADMIN, CAP_EFFECTIVE, &v) == 0 &&
	       v == CAP_SET;
}

/* Keeps, of `kept`, only those already permitted. */
static int restrict_to_kept(cap_t caps)
{
	cap_value_t have[N_KEPT];
	int n = 0;

	for (int i = 0; i < N_KEPT; i++) {
		cap_flag_value_t v = CAP_CLEAR;

		if (cap_get_flag(caps, kept[i], CAP_PERMITTED, &v) == 0 &&
		    v == CAP_SET)
			have[n++] = kept[i];
	}
	if (cap_clear(caps) < 0 ||
	    cap_set_flag(caps, CAP_PERMITTED, n, have, CAP_SET) < 0 ||
	    cap_set_flag(caps, CAP_EFFECTIVE, n, have, CAP_SET) < 0)
		return -1;
	return cap_set_proc(caps);
}

int mh_drop_privileges(const char *subject, const char *what)
{
	cap_t caps = cap_get_proc();
	int rc = 0;

	if (!caps)
		return mh_fail(MNT_EX_SYSERR, subject,
			       "cannot read capabilities: %s", strerror(errno));
	if (!has_sys_admin(caps))
		rc = mh_fail(MNT_EX_USAGE, subject, "must be superuser to %s",
			     what);
	else if (restrict_to_kept(caps) < 0)
		rc = mh_fail(MNT_EX_SYSERR, subject,
			     "cannot drop capabilities: %s", strerror(errno));
	cap_free(caps);
	return rc;
}
