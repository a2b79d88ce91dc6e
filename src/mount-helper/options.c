// SPDX-License-Identifier: MIT
/*
 * The -o string, split with libmount's option maps into VFS options,
 * userspace options and filesystem options; the last are ours.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <linux/composefs.h>

#include "mount-helper.h"
#include "cfs/util.h"

/* VFS options that make no sense for an image mount. */
static const char *const refused_vfs[] = {
	"remount", "bind", "rbind", "move", NULL,
};

struct opt_ctx {
	const struct mh_flags *flags;
	const char *subject;
	struct mh_opts *o;
};

static int need_value(const struct opt_ctx *c, const char *name,
		      const char *val)
{
	if (val && *val)
		return 0;
	return mh_fail(MNT_EX_USAGE, c->subject, "option %s needs a value",
		       name);
}

static int set_string(const struct opt_ctx *c, const char *name,
		      const char *val, char **out)
{
	int rc = need_value(c, name, val);

	if (rc)
		return rc;
	free(*out);
	*out = xstrdup(val);
	return 0;
}

static int set_digest(const struct opt_ctx *c, const char *val)
{
	uint8_t bin[CFS_DIGEST_SIZE];
	char hex[2 * CFS_DIGEST_SIZE + 1];

	if (!val || strlen(val) != 2 * CFS_DIGEST_SIZE ||
	    cfs_unhex(bin, val, CFS_DIGEST_SIZE) < 0)
		return mh_fail(MNT_EX_USAGE, c->subject,
			       "digest= must be %d hex digits (the image's "
			       "fs-verity SHA-256 digest)",
			       2 * CFS_DIGEST_SIZE);
	cfs_hex(hex, bin, CFS_DIGEST_SIZE);
	free(c->o->digest);
	c->o->digest = xstrdup(hex);
	return 0;
}

static int set_verity_check(const struct opt_ctx *c, const char *val)
{
	if (!val || strlen(val) != 1 || val[0] < '0' || val[0] > '2')
		return mh_fail(MNT_EX_USAGE, c->subject,
			       "verity_check= must be 0, 1 or 2");
	c->o->verity_check = val[0] - '0';
	return 0;
}

static int no_value(const struct opt_ctx *c, const char *name, const char *val)
{
	if (!val)
		return 0;
	return mh_fail(MNT_EX_USAGE, c->subject, "option %s takes no value",
		       name);
}

/* One filesystem option: ours, or unknown. */
static int fs_option(const struct opt_ctx *c, const char *name, const char *val)
{
	struct mh_opts *o = c->o;

	if (strcmp(name, "basedir") == 0)
		return set_string(c, name, val, &o->basedir);
	if (strcmp(name, "digest") == 0)
		return set_digest(c, val);
	if (strcmp(name, "verity_check") == 0)
		return set_verity_check(c, val);
	if (strcmp(name, "store") == 0)
		return set_string(c, name, val, &o->store);
	if (strcmp(name, "upperdir") == 0)
		return set_string(c, name, val, &o->upperdir);
	if (strcmp(name, "workdir") == 0)
		return set_string(c, name, val, &o->workdir);
	if (strcmp(name, "backing_paths") == 0) {
		if (!val || strcmp(val, "any"))
			return mh_fail(MNT_EX_USAGE, c->subject,
				       "backing_paths= must be any");
		o->any_backing_paths = true;
		return 0;
	}
	if (strcmp(name, "verity") == 0) {
		o->verity = true;
		return no_value(c, name, val);
	}
	if (c->flags->sloppy) {
		mh_verbose(c->flags, "ignoring unknown option '%s' (sloppy)",
			   name);
		return 0;
	}
	return mh_fail(MNT_EX_USAGE, c->subject, "unknown mount option '%s'",
		       name);
}

/* Calls fn for each NAME[=VALUE] of optstr (NUL-terminated copies). */
static int each_option(const char *optstr, const struct opt_ctx *c,
		       int (*fn)(const struct opt_ctx *, const char *,
				 const char *))
{
	char *p = (char *)optstr, *name, *val;
	size_t namesz, valsz;
	int rc = 0;

	while (!rc && p &&
	       mnt_optstr_next_option(&p, &name, &namesz, &val, &valsz) == 0) {
		char *n = xstrndup(name, namesz);
		char *v = val ? xstrndup(val, valsz) : NULL;

		rc = fn(c, n, v);
		free(n);
		free(v);
	}
	return rc;
}

static int vfs_option(const struct opt_ctx *c, const char *name,
		      const char *val)
{
	char *joined;

	/* The image is always read-only: "rw" is what mount(8) passes when
	 * ro is not given, so it cannot be refused (see the man page). */
	if (strcmp(name, "ro") == 0 || strcmp(name, "rw") == 0)
		return 0;
	for (size_t i = 0; refused_vfs[i]; i++)
		if (strcmp(name, refused_vfs[i]) == 0)
			return mh_fail(MNT_EX_USAGE, c->subject,
				       "option %s is not supported for "
				       "composefs",
				       name);
	joined = mh_join_options(c->o->vfs, name);
	free(c->o->vfs);
	c->o->vfs = joined;
	return 0;
}

/*
 * Userspace options (x-*, X-*) are comments, except X-mount.*: requests to
 * mount(8) itself. util-linux 2.38 does X-mount.mkdir before running the
 * helper (and does not pass X-* to helpers); X-mount.subdir, and 2.39's
 * idmap, owner, group and mode, change what is mounted or who owns it,
 * which this helper does not do: refuse them rather than ignore them.
 */
static int user_option(const struct opt_ctx *c, const char *name,
		       const char *val)
{
	if (strncasecmp(name, "x-mount.", 8) != 0 ||
	    strcmp(name + 8, "mkdir") == 0)
		return 0;
	return mh_fail(MNT_EX_USAGE, c->subject,
		       "option %s is not supported for composefs", name);
}

static int check_combinations(const struct opt_ctx *c)
{
	const struct mh_opts *o = c->o;

	if (!o->upperdir != !o->workdir)
		return mh_fail(MNT_EX_USAGE, c->subject,
			       "upperdir= and workdir= go together");
	if (o->verity && o->verity_check >= 0 && o->verity_check != 2)
		return mh_fail(MNT_EX_USAGE, c->subject,
			       "verity requires verity_check=2, not "
			       "verity_check=%d",
			       o->verity_check);
	return 0;
}

/* Whether the last of ro/rw in optstr is ro. */
static bool asks_read_only(const char *optstr)
{
	char *p = (char *)optstr, *name, *val;
	size_t namesz, valsz;
	bool ro = false;

	while (p &&
	       mnt_optstr_next_option(&p, &name, &namesz, &val, &valsz) == 0) {
		if (namesz == 2 && strncmp(name, "ro", 2) == 0)
			ro = true;
		else if (namesz == 2 && strncmp(name, "rw", 2) == 0)
			ro = false;
	}
	return ro;
}

int mh_parse_options(const char *optstr, const struct mh_flags *f,
		     const char *subject, struct mh_opts *o)
{
	struct opt_ctx c = {.flags = f, .subject = subject, .o = o};
	char *user = NULL, *vfs = NULL, *fs = NULL;
	int rc;

	if (!optstr)
		return 0;
	if (mnt_split_optstr(optstr, &user, &vfs, &fs, 0, 0) < 0)
		return mh_fail(MNT_EX_USAGE, subject,
			       "cannot parse the mount options '%s'", optstr);
	o->read_only = asks_read_only(vfs);
	rc = each_option(user, &c, user_option);
	if (!rc)
		rc = each_option(vfs, &c, vfs_option);
	if (!rc)
		rc = each_option(fs, &c, fs_option);
	if (!rc)
		rc = check_combinations(&c);
	o->user = user;
	free(vfs);
	free(fs);
	return rc;
}

void mh_free_options(struct mh_opts *o)
{
	free(o->basedir);
	free(o->digest);
	free(o->store);
	free(o->upperdir);
	free(o->workdir);
	free(o->vfs);
	free(o->user);
}
