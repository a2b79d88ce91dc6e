// SPDX-License-Identifier: MIT
/* Directories named by the request: basedirs, target, upper/work dirs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mount-helper.h"
#include "cfs/util.h"

/* The kernel's limit on basedir= entries (CFS_MAX_BASEDIRS). */
#define MAX_BASEDIRS 64

/*
 * Canonical path of an existing directory into *out; what names the
 * directory in messages ("basedir", "upperdir", ...).
 */
static int real_dir(const char *subject, const char *what, const char *path,
		    char **out)
{
	struct stat st;
	char *real = realpath(path, NULL);

	if (!real)
		return mh_fail(MNT_EX_FAIL, subject, "%s %s: %s", what, path,
			       errno == ENOENT ? "does not exist"
					       : strerror(errno));
	if (stat(real, &st) < 0 || !S_ISDIR(st.st_mode)) {
		free(real);
		return mh_fail(MNT_EX_FAIL, subject, "%s %s: not a directory",
			       what, path);
	}
	/* Mount option strings cannot carry these. */
	if (strpbrk(real, ",:")) {
		int rc = mh_fail(MNT_EX_USAGE, subject,
				 "%s %s: a path with ',' or ':' cannot be "
				 "passed as a mount option",
				 what, real);

		free(real);
		return rc;
	}
	*out = real;
	return 0;
}

int mh_check_basedirs(struct mh_request *r)
{
	char *list, *cur, *dir;
	struct cfs_buf joined = {0};
	int n = 0, rc = 0;

	if (!r->opts->basedir)
		return 0;
	list = xstrdup(r->opts->basedir);
	cur = list;
	while (!rc && (dir = strsep(&cur, ":")) != NULL) {
		char *real = NULL;

		if (!*dir)
			rc = mh_fail(MNT_EX_USAGE, r->source_arg,
				     "basedir=%s has an empty entry",
				     r->opts->basedir);
		else if (++n > MAX_BASEDIRS)
			rc = mh_fail(MNT_EX_USAGE, r->source_arg,
				     "basedir= has more than %d directories",
				     MAX_BASEDIRS);
		else
			rc = real_dir(r->source_arg, "basedir", dir, &real);
		if (rc)
			break;
		if (joined.len)
			cfs_buf_append(&joined, ":", 1);
		cfs_buf_append(&joined, real, strlen(real));
		free(real);
	}
	cfs_buf_append(&joined, "", 1);
	free(list);
	if (rc) {
		cfs_buf_free(&joined);
		return rc;
	}
	r->basedirs = (char *)joined.data;
	return 0;
}

int mh_check_target(struct mh_request *r)
{
	struct stat st;
	char *real = realpath(r->target, NULL);

	if (!real)
		return mh_fail(MNT_EX_FAIL, r->target, "mount point %s",
			       errno == ENOENT ? "does not exist"
					       : strerror(errno));
	if (stat(real, &st) < 0 || !S_ISDIR(st.st_mode)) {
		free(real);
		return mh_fail(MNT_EX_FAIL, r->target,
			       "mount point is not a directory");
	}
	free(r->target);
	r->target = real;
	return 0;
}

int mh_check_overlay_dirs(struct mh_request *r)
{
	struct mh_opts *o = r->opts;
	char *upper = NULL, *work = NULL;
	int rc;

	if (!o->upperdir)
		return 0;
	rc = real_dir(r->source_arg, "upperdir", o->upperdir, &upper);
	if (!rc)
		rc = real_dir(r->source_arg, "workdir", o->workdir, &work);
	if (rc) {
		free(upper);
		return rc;
	}
	free(o->upperdir);
	free(o->workdir);
	o->upperdir = upper;
	o->workdir = work;
	return 0;
}
