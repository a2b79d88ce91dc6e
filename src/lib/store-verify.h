/* SPDX-License-Identifier: MIT */
/*
 * A conversion must not keep trusting a damaged object. Where the store's
 * filesystem has fs-verity, an existing object is trusted only if the
 * kernel's measurement equals its name; one without verity gets it
 * enabled first (the kernel then hashes what is really there). A bad one
 * is moved aside to STORE/damaged/ and the caller writes it again. Where
 * there is no fs-verity, the object is trusted: cfs-store fsck checks it.
 */
#ifndef CFS_STORE_VERIFY_H
#define CFS_STORE_VERIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "cfs/verity.h"

enum cfs_existing {
	CFS_EXISTING_OK,	/* matches its name, or cannot be checked */
	CFS_EXISTING_REPLACE,	/* was bad, moved aside: write it again */
	CFS_EXISTING_NO_VERITY, /* the filesystem has no fs-verity */
};

/* path: "xx/yyyy..." relative to dirfd, an existing regular file. */
enum cfs_existing
cfs_store_check_existing(int dirfd, const char *path,
			 const uint8_t digest[CFS_DIGEST_SIZE]);

#endif
