// SPDX-License-Identifier: MIT
/*
 * The signature of a sigstore (cosign) payload, checked with a public key
 * as c/image's VerifySigstorePayload does through sigstore's LoadVerifier
 * with SHA-256: an ECDSA key verifies an ASN.1 signature, an RSA key a
 * PKCS#1 v1.5 one. Other key types are refused.
 */
#include <string.h>

#include <openssl/err.h>
#include <openssl/pem.h>

#include "internal.h"
#include "sig.h"
#include "cfs/util.h"

static int b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* Strict standard base64: groups of 4, '=' only at the very end. */
int oci_base64_decode(const char *s, uint8_t **out, size_t *len)
{
	size_t n = strlen(s), o = 0;
	uint8_t *buf;

	if (n % 4) {
		cfs_error("bad base64: length %zu", n);
		return -1;
	}
	buf = xmalloc(n / 4 * 3 + 1);
	for (size_t i = 0; i < n; i += 4) {
		int v[4], pad = 0;
		uint32_t w = 0;

		for (int k = 0; k < 4; k++) {
			bool last = i + 4 == n;

			v[k] = b64_value(s[i + k]);
			if (v[k] < 0 && last && s[i + k] == '=' && k >= 2 &&
			    (k == 3 || s[i + 3] == '=')) {
				v[k] = 0;
				pad++;
			} else if (v[k] < 0 || pad) {
				cfs_error("bad base64 at offset %zu", i + k);
				free(buf);
				return -1;
			}
			w = w << 6 | (uint32_t)v[k];
		}
		buf[o++] = (uint8_t)(w >> 16);
		if (pad < 2)
			buf[o++] = (uint8_t)(w >> 8);
		if (pad < 1)
			buf[o++] = (uint8_t)w;
	}
	*out = buf;
	*len = o;
	return 0;
}

static EVP_PKEY *load_key(const uint8_t *pem, size_t len)
{
	BIO *bio = BIO_new_mem_buf(pem, (int)len);
	EVP_PKEY *k = bio ? PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL) : NULL;

	BIO_free(bio);
	ERR_clear_error();
	if (!k) {
		cfs_error("not a PEM public key");
		return NULL;
	}
	if (EVP_PKEY_base_id(k) != EVP_PKEY_EC &&
	    EVP_PKEY_base_id(k) != EVP_PKEY_RSA) {
		cfs_error("public key type not supported (only ECDSA and "
			  "RSA)");
		EVP_PKEY_free(k);
		return NULL;
	}
	return k;
}

int oci_sigstore_verify(const uint8_t *pem, size_t pem_len,
			const uint8_t *payload, size_t payload_len,
			const char *b64sig)
{
	EVP_PKEY *k;
	EVP_MD_CTX *ctx;
	uint8_t *sig;
	size_t sig_len;
	int ok = 0;

	if (oci_base64_decode(b64sig, &sig, &sig_len) < 0) {
		cfs_error_prefix("sigstore signature");
		return -1;
	}
	k = load_key(pem, pem_len);
	if (!k) {
		free(sig);
		return -1;
	}
	ctx = EVP_MD_CTX_new();
	if (ctx && EVP_DigestVerifyInit(ctx, NULL, EVP_sha256(), NULL, k) == 1)
		ok = EVP_DigestVerify(ctx, sig, sig_len, payload,
				      payload_len) == 1;
	ERR_clear_error(); /* a bad signature leaves OpenSSL's reasons */
	EVP_MD_CTX_free(ctx);
	EVP_PKEY_free(k);
	free(sig);
	if (ok)
		return 0;
	cfs_error("cryptographic signature verification failed");
	return -1;
}
