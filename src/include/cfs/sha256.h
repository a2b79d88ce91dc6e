/* SPDX-License-Identifier: MIT */
/*
 * The one SHA-256 helper (OpenSSL's EVP): image ids, layer-cache checksums,
 * the mount helper's private directory names. One-shot or streaming; raw
 * or lowercase hex. (OCI blob digests, which may be sha512 too, are
 * checked by the OCI reader with the algorithm the digest names.)
 */
#ifndef CFS_SHA256_H
#define CFS_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define CFS_SHA256_SIZE 32
#define CFS_SHA256_HEX_LEN (2 * CFS_SHA256_SIZE)

/* One-shot: 0, or -1 with cfs_error (OpenSSL failed, e.g. out of memory). */
int cfs_sha256(const void *data, size_t len, uint8_t out[CFS_SHA256_SIZE]);
int cfs_sha256_hex(const void *data, size_t len,
		   char out[CFS_SHA256_HEX_LEN + 1]);

/* Streaming: new, update any number of times, then final (which frees). */
struct cfs_sha256;
struct cfs_sha256 *cfs_sha256_new(void); /* NULL with cfs_error */
int cfs_sha256_update(struct cfs_sha256 *c, const void *p, size_t n);
int cfs_sha256_final(struct cfs_sha256 *c, uint8_t out[CFS_SHA256_SIZE]);
/* Frees a context that is not finished (an error path); NULL is fine. */
void cfs_sha256_free(struct cfs_sha256 *c);

#endif
