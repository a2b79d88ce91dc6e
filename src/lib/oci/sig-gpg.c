// SPDX-License-Identifier: MIT
/*
 * GPG verification of a simple signing signature, as c/image's
 * newEphemeralGPGSigningMechanism does: a keyring of its own in a private
 * temp directory (removed after), holding only the policy's keys; the
 * signature must be the only one, valid, and made by a key imported there
 * (its fingerprint one of the imported ones). The user's keyring and
 * trust database play no part.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpgme.h>

#include "internal.h"
#include "sig.h"
#include "cfs/util.h"

static char *make_home(void)
{
	const char *base = getenv("TMPDIR");
	char *dir;

	if (!base || !*base)
		base = "/tmp";
	dir = xasprintf("%s/cfs-ephemeral-gpg.XXXXXX", base);
	if (mkdtemp(dir))
		return dir;
	cfs_error("GPG home in %s: %s", base, strerror(errno));
	free(dir);
	return NULL;
}

static int gpg_fail(const char *what, gpgme_error_t e)
{
	cfs_error("GPG: %s: %s", what, gpgme_strerror(e));
	return -1;
}

static int new_ctx(gpgme_ctx_t *ctx, const char *home)
{
	gpgme_error_t e;

	gpgme_check_version(NULL);
	e = gpgme_new(ctx);
	if (e)
		return gpg_fail("cannot start", e);
	e = gpgme_set_protocol(*ctx, GPGME_PROTOCOL_OpenPGP);
	if (!e)
		e = gpgme_ctx_set_engine_info(*ctx, GPGME_PROTOCOL_OpenPGP,
					      NULL, home);
	if (e) {
		gpgme_release(*ctx);
		return gpg_fail("cannot set up a keyring", e);
	}
	return 0;
}

/* Imports one key blob; adds the fingerprints imported to *fprs. */
static int import(gpgme_ctx_t ctx, const uint8_t *key, size_t len, char ***fprs,
		  size_t *n)
{
	gpgme_import_result_t res;
	gpgme_data_t d;
	gpgme_error_t e;

	e = gpgme_data_new_from_mem(&d, (const char *)key, len, 0);
	if (e)
		return gpg_fail("key", e);
	e = gpgme_op_import(ctx, d);
	gpgme_data_release(d);
	if (e)
		return gpg_fail("importing the policy's keys", e);
	res = gpgme_op_import_result(ctx);
	for (gpgme_import_status_t s = res ? res->imports : NULL; s;
	     s = s->next) {
		if (s->result != GPG_ERR_NO_ERROR || !s->fpr)
			continue;
		*fprs = xrealloc(*fprs, (*n + 1) * sizeof(**fprs));
		(*fprs)[(*n)++] = xstrdup(s->fpr);
	}
	return 0;
}

static int check_result(gpgme_ctx_t ctx, char *const *fprs, size_t n)
{
	gpgme_verify_result_t res = gpgme_op_verify_result(ctx);
	gpgme_signature_t s = res ? res->signatures : NULL;
	char shown[128];
	size_t count = 0;

	for (gpgme_signature_t c = s; c; c = c->next)
		count++;
	if (count != 1) {
		cfs_error("%zu GPG signatures, not one", count);
		return -1;
	}
	if (s->status || s->validity == GPGME_VALIDITY_NEVER ||
	    s->validity_reason || s->wrong_key_usage || !s->fpr) {
		cfs_error("invalid GPG signature (%s)",
			  gpgme_strerror(s->status ? s->status
						   : s->validity_reason));
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(fprs[i], s->fpr))
			return 0;
	cfs_error("signature by key %s is not accepted",
		  cfs_printable(shown, sizeof(shown), s->fpr));
	return -1;
}

static int verify(gpgme_ctx_t ctx, char *const *fprs, size_t n,
		  const uint8_t *sig, size_t sig_len, uint8_t **plain,
		  size_t *plain_len)
{
	gpgme_data_t in, out;
	gpgme_error_t e;
	char *mem;
	size_t len;

	e = gpgme_data_new_from_mem(&in, (const char *)sig, sig_len, 0);
	if (e)
		return gpg_fail("signature", e);
	e = gpgme_data_new(&out);
	if (e) {
		gpgme_data_release(in);
		return gpg_fail("signature", e);
	}
	e = gpgme_op_verify(ctx, in, NULL, out);
	gpgme_data_release(in);
	if (e || check_result(ctx, fprs, n) < 0) {
		gpgme_data_release(out);
		return e ? gpg_fail("verifying", e) : -1;
	}
	mem = gpgme_data_release_and_get_mem(out, &len);
	*plain = xmemdup(mem ? mem : "", len ? len : 1);
	*plain_len = len;
	gpgme_free(mem);
	return 0;
}

int oci_gpg_verify(const uint8_t *const *keys, const size_t *key_lens,
		   size_t n_keys, const uint8_t *sig, size_t sig_len,
		   uint8_t **plain, size_t *plain_len)
{
	char *home = make_home(), **fprs = NULL;
	gpgme_ctx_t ctx;
	size_t n = 0;
	int r = -1;

	if (!home)
		return -1;
	if (new_ctx(&ctx, home) == 0) {
		r = 0;
		for (size_t i = 0; r == 0 && i < n_keys; i++)
			r = import(ctx, keys[i], key_lens[i], &fprs, &n);
		if (r == 0 && n == 0) {
			cfs_error("no public keys imported");
			r = -1;
		}
		if (r == 0)
			r = verify(ctx, fprs, n, sig, sig_len, plain,
				   plain_len);
		gpgme_release(ctx);
	}
	for (size_t i = 0; i < n; i++)
		free(fprs[i]);
	free(fprs);
	cfs_remove_tree(home);
	free(home);
	return r;
}
