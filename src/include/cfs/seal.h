/* SPDX-License-Identifier: MIT */
/*
 * Sealed images: an OCI image manifest whose annotation
 * composefs.merged.cfs.v1.fsverity-sha256-12 carries D, the fs-verity
 * digest (SHA-256, 4096-byte blocks) of the composefs manifest that every
 * host must get when it converts the image. The annotation lives in the
 * manifest, so a signature of the manifest covers it; the config and
 * layers are those of the unsealed image, so its id does not change.
 * cfs-seal(1) writes it; oci2cfs checks it (seal.c, above json and mem).
 */
#ifndef CFS_SEAL_H
#define CFS_SEAL_H

#include <stddef.h>
#include <stdint.h>

#include <linux/composefs.h> /* CFS_DIGEST_SIZE */

#define CFS_SEAL_ANNOTATION "composefs.merged.cfs.v1.fsverity-sha256-12"

/*
 * The seal of an OCI image manifest (JSON, len bytes): 1 and its digest
 * in d, 0 when the manifest has no seal, -1 with cfs_error() naming what
 * is wrong when the manifest or its seal is malformed (label: what the
 * manifest is, for the message). A seal is exactly 64 lowercase hex
 * digits.
 */
int cfs_seal_read(const uint8_t *manifest, size_t len, const char *label,
		  uint8_t d[CFS_DIGEST_SIZE]);

#endif
