// SPDX-License-Identifier: MIT
/* SHA-256 through OpenSSL's EVP interface (cfs/sha256.h). */
#include "cfs/sha256.h"

#include <openssl/evp.h>
#include <stdlib.h>

#include "cfs/util.h"

struct cfs_sha256 {
	EVP_MD_CTX *ctx;
};

int cfs_sha256(const void *data, size_t len, uint8_t out[CFS_SHA256_SIZE])
{
	if (!EVP_Digest(data, len, out, NULL, EVP_sha256(), NULL)) {
		cfs_error("cannot compute SHA-256 (OpenSSL failed)");
		return -1;
	}
	return 0;
}

int cfs_sha256_hex(const void *data, size_t len,
		   char out[CFS_SHA256_HEX_LEN + 1])
{
	uint8_t md[CFS_SHA256_SIZE];

	if (cfs_sha256(data, len, md) < 0)
		return -1;
	cfs_hex(out, md, sizeof(md));
	return 0;
}

struct cfs_sha256 *cfs_sha256_new(void)
{
	struct cfs_sha256 *c = xmalloc(sizeof(*c));

	c->ctx = EVP_MD_CTX_new();
	if (!c->ctx || !EVP_DigestInit_ex(c->ctx, EVP_sha256(), NULL)) {
		cfs_sha256_free(c);
		cfs_error("cannot start SHA-256 (OpenSSL failed)");
		return NULL;
	}
	return c;
}

int cfs_sha256_update(struct cfs_sha256 *c, const void *p, size_t n)
{
	if (!EVP_DigestUpdate(c->ctx, p, n)) {
		cfs_error("cannot compute SHA-256 (OpenSSL failed)");
		return -1;
	}
	return 0;
}

int cfs_sha256_final(struct cfs_sha256 *c, uint8_t out[CFS_SHA256_SIZE])
{
	int ok = EVP_DigestFinal_ex(c->ctx, out, NULL);

	cfs_sha256_free(c);
	if (!ok) {
		cfs_error("cannot compute SHA-256 (OpenSSL failed)");
		return -1;
	}
	return 0;
}

void cfs_sha256_free(struct cfs_sha256 *c)
{
	if (!c)
		return;
	EVP_MD_CTX_free(c->ctx);
	free(c);
}
