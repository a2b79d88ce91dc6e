// SPDX-License-Identifier: MIT
/*
 * umount.composefs TARGET [-flnrv]: what umount(8) runs for a composefs
 * mount, and for the overlay of an upperdir= mount (its utab entry says
 * helper=composefs): unmounts TARGET, then the private composefs mount
 * below the overlay, and removes its directory.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mount-helper.h"
#include "cfs/util.h"

static int umount_error(struct libmnt_context *cxt, int rc, const char *subject,
			const char *path)
{
	char buf[BUFSIZ] = "";
	int e, ex;

	if (mnt_context_syscall_called(cxt) &&
	    (e = mnt_context_get_syscall_errno(cxt)) != 0)
		return mh_fail(MNT_EX_FAIL, subject, "%s: %s", path,
			       e == EBUSY    ? "target is busy"
			       : e == EINVAL ? "not mounted"
					     : strerror(e));
	ex = mnt_context_get_excode(cxt, rc, buf, sizeof(buf));
	if (ex == MNT_EX_SUCCESS)
		return 0;
	return mh_fail(ex, subject, "%s: %s", path, *buf ? buf : "failed");
}

int mh_umount_path(const char *path, const struct mh_flags *f,
		   const char *subject)
{
	struct libmnt_context *cxt = mh_new_context(MNT_ACT_UMOUNT, f);
	int rc;

	if (!cxt || mnt_context_set_target(cxt, path)) {
		mnt_free_context(cxt);
		return mh_fail(MNT_EX_SYSERR, subject,
			       "cannot set up the libmount context");
	}
	mh_verbose(f, "unmounting %s", path);
	rc = mnt_context_umount(cxt);
	rc = umount_error(cxt, rc, subject, path);
	mnt_free_context(cxt);
	return rc;
}

static const char umount_usage[] =
	"Usage: umount.composefs [-flnrv] TARGET\n"
	"Unmount a composefs mount; for an upperdir= mount also the\n"
	"composefs mount below its overlay. See mount.composefs(8).\n";

/* 0 to run, 1 after --help/--version, -1 after a usage error (util.h). */
static int parse_umount_args(int argc, char **argv, struct mh_flags *f,
			     const char **target)
{
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "flnrvt:N:hV", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'f':
			f->force = true;
			break;
		case 'l':
			f->lazy = true;
			break;
		case 'n':
			f->nomtab = true;
			break;
		case 'r':
			f->rdonly_umount = true;
			break;
		case 'v':
			f->verbose = true;
			break;
		case 't':
			break;
		case 'h':
			fputs(umount_usage, stdout);
			return 1;
		case 'V':
			return cfs_print_version(mh_prog);
		default:
			cfs_usage_hint(mh_prog);
			return -1;
		}
	}
	if (argc - optind != 1)
		return cfs_usage_error(mh_prog, "%s",
				       argc - optind < 1
					       ? "expected TARGET"
					       : "too many arguments");
	*target = argv[optind];
	return 0;
}

/* The private lower mount below target, or NULL; -1 if not mounted. */
static int find_lower(const char *target, char **lower)
{
	struct libmnt_table *tb =
		mnt_new_table_from_file("/proc/self/mountinfo");
	struct libmnt_fs *fs;

	*lower = NULL;
	if (!tb)
		return 0;
	fs = mnt_table_find_target(tb, target, MNT_ITER_BACKWARD);
	if (fs)
		*lower = mh_private_lower(fs);
	mnt_unref_table(tb);
	return fs ? 0 : -1;
}

int mh_umount_main(int argc, char **argv)
{
	struct mh_flags f = {0};
	const char *arg = NULL;
	char *target, *lower;
	int rc = parse_umount_args(argc, argv, &f, &arg);

	if (rc)
		return rc < 0 ? MNT_EX_USAGE : MNT_EX_SUCCESS;
	rc = mh_drop_privileges(arg, "unmount composefs", false);
	if (rc)
		return rc;
	target = realpath(arg, NULL);
	if (!target)
		target = xstrdup(arg);
	if (find_lower(target, &lower) < 0) {
		free(target);
		return mh_fail(MNT_EX_FAIL, arg, "not mounted");
	}
	rc = mh_umount_path(target, &f, arg);
	if (!rc && lower) {
		rc = mh_umount_path(lower, &f, arg);
		if (!rc)
			rmdir(lower);
	}
	free(lower);
	free(target);
	return rc;
}
