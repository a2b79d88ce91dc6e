// SPDX-License-Identifier: MIT
/* OCI digest strings ("alg:hex"): validation and checking with OpenSSL. */
#include <ctype.h>
#include <string.h>

#include "internal.h"
#include "cfs/sha256.h"
#include "cfs/util.h"

static const EVP_MD *digest_algorithm(const char *alg, size_t alg_len)
{
	if (alg_len == 6 && !memcmp(alg, "sha256", 6))
		return EVP_sha256();
	if (alg_len == 6 && !memcmp(alg, "sha512", 6))
		return EVP_sha512();
	return NULL;
}

static bool lower_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]) && (s[i] < 'a' || s[i] > 'f'))
			return false;
	return true;
}

/*
 * Only a digest that passes here is ever used to form a path, so a hostile
 * string ("sha256:../../x") can never name a file outside blobs/.
 */
int oci_digest_parse(struct oci_digest *d, const char *s)
{
	char pbuf[96];
	const char *colon = s ? strchr(s, ':') : NULL;
	size_t hex_len;

	if (!colon) {
		cfs_error("invalid digest '%s'",
			  s ? cfs_printable(pbuf, sizeof(pbuf), s) : "");
		return -1;
	}
	d->md = digest_algorithm(s, colon - s);
	if (!d->md) {
		cfs_error("unsupported digest algorithm in '%s'",
			  cfs_printable(pbuf, sizeof(pbuf), s));
		return -1;
	}
	d->len = EVP_MD_get_size(d->md);
	hex_len = strlen(colon + 1);
	if (hex_len != 2 * d->len || !lower_hex(colon + 1, hex_len) ||
	    cfs_unhex(d->bytes, colon + 1, d->len) < 0) {
		cfs_error("invalid digest '%s'",
			  cfs_printable(pbuf, sizeof(pbuf), s));
		return -1;
	}
	strcpy(d->str, s);
	d->hex_off = colon + 1 - s;
	return 0;
}

static int digest_compare(const struct oci_digest *d, const uint8_t *got)
{
	char hex[129];

	if (!memcmp(got, d->bytes, d->len))
		return 0;
	cfs_hex(hex, got, d->len);
	cfs_error("digest mismatch: want %s, got %.*s%s", d->str,
		  (int)d->hex_off, d->str, hex);
	return -1;
}

int oci_digest_check_ctx(EVP_MD_CTX *ctx, const struct oci_digest *d)
{
	uint8_t got[EVP_MAX_MD_SIZE];
	int ret = 0;

	if (!EVP_DigestFinal_ex(ctx, got, NULL)) {
		cfs_error("cannot compute %s", d->str);
		ret = -1;
	}
	EVP_MD_CTX_free(ctx);
	return ret ? ret : digest_compare(d, got);
}

int oci_digest_check_mem(const struct oci_digest *d, const void *data,
			 size_t len)
{
	uint8_t got[EVP_MAX_MD_SIZE];

	if (!EVP_Digest(data, len, got, NULL, d->md, NULL)) {
		cfs_error("cannot compute %s", d->str);
		return -1;
	}
	return digest_compare(d, got);
}

void oci_sha256_string(char out[CFS_OCI_DIGEST_MAX + 1], const void *data,
		       size_t len)
{
	memcpy(out, "sha256:", 7);
	cfs_sha256_hex(data, len, out + 7);
}
