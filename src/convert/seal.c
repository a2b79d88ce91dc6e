// SPDX-License-Identifier: MIT
/*
 * A sealed image (cfs/seal.h) must convert to the digest its seal names:
 * a host that gets another manifest from the same image writes nothing.
 */
#include <string.h>

#include "convert.h"
#include "cfs/seal.h"
#include "cfs/util.h"

int convert_seal_read(const struct convert_opts *o,
		      const struct cfs_oci_image *img, struct convert_seal *s)
{
	int r = cfs_seal_read(img->manifest, img->manifest_len,
			      "image manifest", s->digest);

	s->sealed = r == 1;
	if (r == 0 && o->require_seal) {
		cfs_error("not sealed (its manifest has no %s annotation), "
			  "and --require-seal was given",
			  CFS_SEAL_ANNOTATION);
		return -1;
	}
	return r < 0 ? -1 : 0;
}

int convert_seal_check(const struct convert_seal *s,
		       const uint8_t d[CFS_DIGEST_SIZE])
{
	char want[2 * CFS_DIGEST_SIZE + 1], got[2 * CFS_DIGEST_SIZE + 1];

	if (!s->sealed || !memcmp(d, s->digest, CFS_DIGEST_SIZE))
		return 0;
	cfs_hex(want, s->digest, CFS_DIGEST_SIZE);
	cfs_hex(got, d, CFS_DIGEST_SIZE);
	cfs_error("sealed for manifest digest %s, but it converts to %s: "
		  "refused",
		  want, got);
	return -1;
}
