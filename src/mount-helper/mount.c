// SPDX-License-Identifier: MIT
/*
 * The mounts themselves, through libmount: composefs on TARGET, or for
 * upperdir= composefs on a private directory and an overlayfs on TARGET
 * whose utab entry carries helper=composefs, so that umount(8) calls
 * umount.composefs, which unmounts both.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mount-helper.h"
#include "cfs/util.h"

static int busy_at(struct libmnt_table *tb, const char *path,
		   const struct mh_request *r, const char *what)
{
	struct libmnt_fs *fs =
		mnt_table_find_target(tb, path, MNT_ITER_BACKWARD);

	if (!fs || !mh_is_composefs_mount(fs))
		return 0;
	return mh_fail(MNT_EX_FAIL, r->source_arg,
		       "target busy: %s already has a composefs mount%s "
		       "(of %s)",
		       path, what, mnt_fs_get_source(fs));
}

int mh_check_not_busy(struct mh_request *r)
{
	struct libmnt_table *tb =
		mnt_new_table_from_file("/proc/self/mountinfo");
	char *priv = NULL;
	int rc;

	if (!tb) /* no /proc: leave it to the kernel */
		return 0;
	rc = busy_at(tb, r->target, r, "");
	if (!rc && r->opts->upperdir) {
		priv = mh_private_dir(r->target);
		if (priv)
			rc = busy_at(tb, priv, r,
				     " left by an earlier upperdir= mount "
				     "(umount it)");
	}
	free(priv);
	mnt_unref_table(tb);
	return rc;
}

/* ro + VFS + userspace options + ours for the kernel. */
static char *composefs_options(const struct mh_request *r, const char *user)
{
	char *s = mh_join_options("ro", r->opts->vfs), *t;

	t = mh_join_options(s, user);
	free(s);
	s = t;
	if (r->basedirs) {
		t = xasprintf("%s,basedir=%s", s, r->basedirs);
		free(s);
		s = t;
	}
	if (r->digest) {
		t = xasprintf("%s,digest=%s", s, r->digest);
		free(s);
		s = t;
	}
	if (r->verity_check >= 0) {
		t = xasprintf("%s,verity_check=%d", s, r->verity_check);
		free(s);
		s = t;
	}
	if (r->opts->any_backing_paths) {
		t = xasprintf("%s,backing_paths=any", s);
		free(s);
		s = t;
	}
	return s;
}

/*
 * A NAME source is mounted as NAME, opened by the kernel relative to the
 * store's refs/ (the working directory), so the mount table shows what
 * fstab says and `mount -a` run again sees the line as mounted. Paths
 * stay canonical; libmount must not turn NAME into one.
 */
static const char *mount_source(const struct mh_request *r,
				struct libmnt_context *cxt)
{
	if (!r->refs_dir)
		return r->image;
	if (chdir(r->refs_dir) < 0 ||
	    mnt_context_disable_canonicalize(cxt, 1) < 0)
		return NULL;
	return r->source_arg;
}

/*
 * mnt_context_mount() split in its documented steps, so that only the
 * mount(2) of the overlay runs with the full permitted set (privs.c says
 * why): what libmount reads and writes around it stays reduced.
 */
static int mount_raised(const struct mh_request *r, struct libmnt_context *cxt,
			int *ex)
{
	int rc = mnt_context_prepare_mount(cxt);

	if (rc)
		return rc;
	*ex = mh_overlay_privileges(r->source_arg, true);
	if (*ex)
		return rc;
	rc = mnt_context_do_mount(cxt);
	*ex = mh_overlay_privileges(r->source_arg, false);
	if (!rc && !*ex)
		rc = mnt_context_finalize_mount(cxt);
	return rc;
}

static int mount_one(const struct mh_request *r, const char *type,
		     const char *target, const char *options)
{
	struct libmnt_context *cxt = mh_new_context(MNT_ACT_MOUNT, r->flags);
	const char *source = cxt ? mount_source(r, cxt) : NULL;
	int rc;

	if (!source || mnt_context_set_fstype(cxt, type) ||
	    mnt_context_set_source(cxt, source) ||
	    mnt_context_set_target(cxt, target) ||
	    mnt_context_set_options(cxt, options)) {
		mnt_free_context(cxt);
		return mh_fail(MNT_EX_SYSERR, r->source_arg,
			       "cannot set up the libmount context");
	}
	mh_verbose(r->flags, "%smounting %s on %s: %s %s",
		   r->flags->fake ? "(fake) " : "", r->image, target, type,
		   options);
	if (strcmp(type, "overlay") == 0) {
		int ex = 0;

		rc = mount_raised(r, cxt, &ex);
		rc = ex ? ex : mh_mount_error(cxt, rc, r->source_arg, target);
	} else {
		rc = mnt_context_mount(cxt);
		rc = mh_mount_error(cxt, rc, r->source_arg, target);
	}
	mnt_free_context(cxt);
	return rc;
}

static int make_private_dir(const struct mh_request *r, const char *priv)
{
	if ((mkdir(MH_PRIVATE_ROOT, 0700) < 0 && errno != EEXIST) ||
	    (mkdir(priv, 0700) < 0 && errno != EEXIST))
		return mh_fail(MNT_EX_SYSERR, r->source_arg, "%s: %s", priv,
			       strerror(errno));
	return 0;
}

static int mount_with_overlay(const struct mh_request *r)
{
	const struct mh_opts *o = r->opts;
	char *priv = mh_private_dir(r->target), *cfs_opts, *ovl, *s;
	int rc;

	if (!priv)
		return mh_fail(MNT_EX_SOFTWARE, r->source_arg,
			       "cannot hash the target path");
	rc = r->flags->fake ? 0 : make_private_dir(r, priv);
	cfs_opts = composefs_options(r, NULL);
	if (!rc)
		rc = mount_one(r, "composefs", priv, cfs_opts);
	s = xasprintf("%slowerdir=%s,upperdir=%s,workdir=%s,helper=composefs",
		      o->read_only ? "ro," : "", priv, o->upperdir, o->workdir);
	ovl = mh_join_options(s, o->vfs);
	free(s);
	s = mh_join_options(ovl, o->user);
	if (!rc) {
		rc = mount_one(r, "overlay", r->target, s);
		if (rc && !r->flags->fake)
			mh_umount_path(priv, r->flags, r->source_arg);
	}
	if (rc && !r->flags->fake)
		rmdir(priv);
	free(s);
	free(ovl);
	free(cfs_opts);
	free(priv);
	return rc;
}

int mh_do_mount(struct mh_request *r)
{
	char *options;
	int rc;

	if (r->opts->upperdir)
		return mount_with_overlay(r);
	options = composefs_options(r, r->opts->user);
	rc = mount_one(r, "composefs", r->target, options);
	free(options);
	return rc;
}
