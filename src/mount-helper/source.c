// SPDX-License-Identifier: MIT
/*
 * SOURCE: an image path, NAME under <store>/refs/ or a name or id podman
 * would resolve to one of the store's images; then the image
 * itself (a valid composefs image of a supported version) and its
 * fs-verity digest against digest= / verity / the image's seal.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfs/image.h"
#include "cfs/image-name.h"
#include "mount-helper.h"
#include "cfs/store-layout.h"
#include "cfs/util.h"
#include "cfs/verity.h"

static int resolve_store(struct mh_request *r)
{
	struct mh_opts *o = r->opts;
	char *real = realpath(o->store, NULL);
	struct stat st;

	if (!real || stat(real, &st) < 0 || !S_ISDIR(st.st_mode)) {
		int e = real ? ENOTDIR : errno;

		free(real);
		return mh_fail(MNT_EX_FAIL, r->source_arg, "store %s: %s",
			       o->store, strerror(e));
	}
	free(o->store);
	o->store = real;
	if (!o->basedir)
		o->basedir = xstrdup(real);
	return 0;
}

/*
 * A name that is not a ref as it is: a short name or an id (prefix), as
 * podman resolves it. The image is then mounted by its path, which the
 * mount table shows, since NAME is no file the kernel could open.
 */
static int resolve_name(struct mh_request *r)
{
	const char *name = r->source_arg, *store = r->opts->store;
	char *ref;
	int found = cfs_layout_lookup(store, name, &r->image, &ref);

	free(ref);
	if (found < 0)
		return mh_fail(MNT_EX_FAIL, NULL, "%s", cfs_strerror());
	if (!found)
		return mh_fail(MNT_EX_FAIL, name,
			       "no image of that name or id in %s", store);
	return 0;
}

static int resolve_ref(struct mh_request *r)
{
	const char *name = r->source_arg, *store = r->opts->store;
	enum cfs_ref_status st = cfs_layout_resolve_ref(store, name, &r->image);
	int e = errno;

	if (st == CFS_REF_BAD_NAME)
		return mh_fail(MNT_EX_USAGE, name, "not a valid image name");
	if (st == CFS_REF_NONE)
		return resolve_name(r);
	if (st != CFS_REF_OK) {
		char *ref = cfs_layout_ref_path(store, name);
		int rc = mh_fail(MNT_EX_FAIL, name, "%s: broken ref: %s", ref,
				 strerror(e));

		free(ref);
		return rc;
	}
	r->refs_dir = cfs_layout_refs_dir(store);
	return 0;
}

int mh_resolve_source(struct mh_request *r)
{
	int rc = 0;

	if (r->opts->store)
		rc = resolve_store(r);
	if (rc)
		return rc;
	if (r->opts->store && r->source_arg[0] != '/')
		return resolve_ref(r);
	r->image = realpath(r->source_arg, NULL);
	if (!r->image)
		return mh_fail(MNT_EX_FAIL, r->source_arg,
			       errno == ENOENT ? "image does not exist" : "%s",
			       strerror(errno));
	return 0;
}

/* The enabled fs-verity digest of the image, hex; -1 after the message. */
static int measure(struct mh_request *r, const char *why, char *hex)
{
	uint8_t d[CFS_DIGEST_SIZE];
	int fd = open(r->image, O_RDONLY | O_CLOEXEC);
	int rc = fd < 0 ? -1 : cfs_verity_measure(fd, d);
	int e = errno;

	if (fd >= 0)
		close(fd);
	if (rc == 0) {
		cfs_hex(hex, d, CFS_DIGEST_SIZE);
		return 0;
	}
	if (fd >= 0 && e == ENODATA)
		return mh_fail(MNT_EX_FAIL, r->image,
			       "fs-verity is not enabled on the image, so %s "
			       "cannot be checked (fsverity enable %s)",
			       why, r->image);
	/*
	 * ENOTTY: no verity ioctls (tmpfs, xfs); EOPNOTSUPP: an ext4 without
	 * the verity feature, or a kernel without CONFIG_FS_VERITY.
	 */
	if (fd >= 0 && (e == ENOTTY || e == EOPNOTSUPP))
		return mh_fail(MNT_EX_FAIL, r->image,
			       "fs-verity is not enabled on the image, so %s "
			       "cannot be checked: the image's filesystem or "
			       "this kernel has no fs-verity",
			       why);
	return mh_fail(MNT_EX_FAIL, r->image,
		       "cannot measure the fs-verity digest: %s", strerror(e));
}

/*
 * A sealed image of a store (ID.seal beside ID.cfs, see cfs/seal.h) is
 * mounted only with digest= set to its seal: *want is then the seal.
 */
static int sealed_digest(struct mh_request *r, const char **want, char *hex)
{
	uint8_t d[CFS_DIGEST_SIZE];
	int sealed = cfs_layout_read_seal(r->image, d);

	if (sealed < 0)
		return mh_fail(MNT_EX_FAIL, NULL, "%s", cfs_strerror());
	if (!sealed)
		return 0;
	cfs_hex(hex, d, CFS_DIGEST_SIZE);
	if (*want && strcmp(*want, hex))
		return mh_fail(
			MNT_EX_FAIL, r->image,
			"digest=%s given, but the image is sealed for %s",
			*want, hex);
	*want = hex;
	return 0;
}

static int check_digest(struct mh_request *r)
{
	const struct mh_opts *o = r->opts;
	char hex[2 * CFS_DIGEST_SIZE + 1], seal[2 * CFS_DIGEST_SIZE + 1];
	const char *want = o->digest;
	int rc = sealed_digest(r, &want, seal);

	if (rc || (!o->verity && !want))
		return rc;
	rc = measure(r,
		     want == seal ? "its seal"
		     : want	  ? "digest="
				  : "verity",
		     hex);
	if (rc)
		return rc;
	if (want && strcmp(hex, want) != 0)
		return mh_fail(MNT_EX_FAIL, r->image,
			       want == seal ? "fs-verity digest %s does not "
					      "match the image's seal %s"
					    : "fs-verity digest %s does not "
					      "match digest=%s",
			       hex, want);
	r->digest = xstrdup(hex);
	return 0;
}

int mh_check_image(struct mh_request *r)
{
	struct cfs_image img;

	if (cfs_image_open_file(&img, r->image) < 0)
		/* cfs_strerror() starts with the path */
		return mh_fail(MNT_EX_FAIL, NULL, "%s", cfs_strerror());
	cfs_image_close(&img);
	r->verity_check = r->opts->verity ? 2 : r->opts->verity_check;
	return check_digest(r);
}
