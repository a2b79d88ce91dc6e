// SPDX-License-Identifier: MIT
/*
 * Capabilities: mounting needs CAP_SYS_ADMIN; reading the image, the
 * basedirs and the mount tables may need the DAC overrides. Everything
 * else leaves the effective set before any path is looked at.
 *
 * The one exception is the overlay of an upperdir= mount. Overlayfs
 * records the credentials of the process that mounts it and does every
 * copy-up, whiteout and directory creation in the upper directory with
 * them (ovl_override_creds): mounted with only the three capabilities
 * above, it cannot chown a copy, keep its times, setuid bit or
 * security.capability, so every write below an image directory fails
 * with EPERM. That mount gets the full permitted set, what a root
 * `mount -t overlay` has; for it, and only for it, the permitted set is
 * kept while the effective set stays reduced (mh_overlay_privileges).
 *
 * The other mounts were checked for the same problem: composefs records
 * no credentials. It opens the image and resolves the basedirs while
 * mounting (the reduced set has what that needs) and opens each backing
 * file with the credentials of whoever opens the composefs file
 * (kernel/fs/composefs/file.c): for an upperdir= mount, that is the
 * overlay's recorded credentials, the full set. Unmounting records
 * nothing, and the helper makes no bind or idmapped mounts.
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

/*
 * Effective: of `kept`, those permitted. Permitted: the same, or left as
 * it is when keep_permitted (for the overlay mount).
 */
static int restrict_to_kept(cap_t caps, bool keep_permitted)
{
	cap_value_t have[N_KEPT];
	int n = 0;

	for (int i = 0; i < N_KEPT; i++) {
		cap_flag_value_t v = CAP_CLEAR;

		if (cap_get_flag(caps, kept[i], CAP_PERMITTED, &v) == 0 &&
		    v == CAP_SET)
			have[n++] = kept[i];
	}
	if (cap_clear_flag(caps, CAP_EFFECTIVE) < 0 ||
	    cap_clear_flag(caps, CAP_INHERITABLE) < 0 ||
	    (!keep_permitted && cap_clear_flag(caps, CAP_PERMITTED) < 0) ||
	    cap_set_flag(caps, CAP_PERMITTED, n, have, CAP_SET) < 0 ||
	    cap_set_flag(caps, CAP_EFFECTIVE, n, have, CAP_SET) < 0)
		return -1;
	return cap_set_proc(caps);
}

static int set_privileges(bool keep_permitted, bool full_effective)
{
	cap_t caps = cap_get_proc();
	int rc;

	if (!caps)
		return -1;
	if (full_effective)
		rc = cap_fill(caps, CAP_EFFECTIVE, CAP_PERMITTED) < 0
			     ? -1
			     : cap_set_proc(caps);
	else
		rc = restrict_to_kept(caps, keep_permitted);
	cap_free(caps);
	return rc;
}

int mh_drop_privileges(const char *subject, const char *what, bool for_overlay)
{
	cap_t caps = cap_get_proc();
	int rc = 0;

	if (!caps)
		return mh_fail(MNT_EX_SYSERR, subject,
			       "cannot read capabilities: %s", strerror(errno));
	if (!has_sys_admin(caps))
		rc = mh_fail(MNT_EX_USAGE, subject, "must be superuser to %s",
			     what);
	else if (restrict_to_kept(caps, for_overlay) < 0)
		rc = mh_fail(MNT_EX_SYSERR, subject,
			     "cannot drop capabilities: %s", strerror(errno));
	cap_free(caps);
	return rc;
}

int mh_overlay_privileges(const char *subject, bool raise)
{
	if (set_privileges(raise, raise) < 0)
		return mh_fail(MNT_EX_SYSERR, subject,
			       "cannot %s capabilities for the overlay mount: "
			       "%s",
			       raise ? "raise" : "drop", strerror(errno));
	return 0;
}
