/* SPDX-License-Identifier: MIT */
/* An image to register with podman: its manifest, config and digests. */
#ifndef CFS_PODMAN_SOURCE_H
#define CFS_PODMAN_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct psrc {
	char *manifest;	       /* absolute path of the .cfs manifest */
	uint8_t *config, *oci; /* ID.json and ID.manifest.json, NUL-ended */
	size_t config_len, oci_len;
	char id[65];	     /* sha256 of the config: the image id */
	char oci_digest[72]; /* "sha256:..." of the OCI manifest */
	char digest[65];     /* fs-verity digest of the .cfs manifest */
	bool verity;	     /* fs-verity is enabled on it */
	char *created;	     /* the config's "created" if RFC 3339 */
	char *ref;	     /* the store ref image resolved to, or NULL */
	uint64_t size;	     /* bytes of the image's regular files */
};

/* image: a manifest path, or a name or id the store resolves. */
int psrc_load(struct psrc *s, const char *store, const char *image);
void psrc_free(struct psrc *s);
void psrc_sha256_hex(char out[65], const void *data, size_t len);

#endif
