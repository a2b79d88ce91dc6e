// SPDX-License-Identifier: MIT
/* libmount contexts set up the way a [u]mount.TYPE helper uses them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mount-helper.h"
#include "cfs/util.h"

/* The helper flags, as the letters mnt_context_helper_setopt knows. */
static void flag_letters(int action, const struct mh_flags *f, char *out)
{
	if (action == MNT_ACT_MOUNT) {
		if (f->fake)
			*out++ = 'f';
		if (f->sloppy)
			*out++ = 's';
	} else {
		if (f->lazy)
			*out++ = 'l';
		if (f->force)
			*out++ = 'f';
		if (f->rdonly_umount)
			*out++ = 'r';
	}
	if (f->nomtab)
		*out++ = 'n';
	if (f->verbose)
		*out++ = 'v';
	*out = '\0';
}

struct libmnt_context *mh_new_context(int action, const struct mh_flags *f)
{
	struct libmnt_context *cxt = mnt_new_context();
	char letters[8];

	if (!cxt)
		return NULL;
	/* also disables mount.TYPE helpers: we are the helper */
	if (mnt_context_init_helper(cxt, action, 0) < 0)
		goto fail;
	flag_letters(action, f, letters);
	for (const char *c = letters; *c; c++)
		if (mnt_context_helper_setopt(cxt, *c, NULL) < 0)
			goto fail;
	return cxt;
fail:
	mnt_free_context(cxt);
	return NULL;
}

char *mh_join_options(const char *a, const char *b)
{
	if (!a || !*a)
		return xstrdup(b ? b : "");
	if (!b || !*b)
		return xstrdup(a);
	return xasprintf("%s,%s", a, b);
}
