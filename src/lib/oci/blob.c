// SPDX-License-Identifier: MIT
/*
 * Streaming a layer blob: bytes pass through a digest as they are read
 * (through skopeo's, for a blob it fetches); at the end of the stream its
 * size and digest are checked, so a consumer sees an error before it treats
 * the last bytes as good.
 */
#include <inttypes.h>
#include <string.h>

#include "internal.h"
#include "proxy.h"
#include "cfs/util.h"

struct cfs_blob {
	struct oci_stream *st;
	struct oci_proxy_pipe *pipe; /* a blob fetched through skopeo */
	EVP_MD_CTX *md;		     /* NULL when there is no digest to check */
	struct oci_digest want;
	uint64_t size, got;
	char *label; /* "IMAGE: blob DIGEST" for messages */
	int state;   /* 0 reading, 1 ended and good, -1 failed */
};

int cfs_oci_open_layer(struct cfs_oci_image *img, size_t i,
		       struct cfs_blob **out)
{
	struct oci_priv *priv = oci_priv(img);
	struct cfs_oci_layer *l;
	struct cfs_blob *b;
	char pbuf[256];
	int r;

	if (i >= img->n_layers) {
		cfs_error("%s: no layer %zu", img->source, i);
		return -1;
	}
	l = &img->layers[i];
	b = xcalloc(1, sizeof(*b));
	b->size = l->size;
	b->label = l->digest[0]
			   ? xasprintf("%s: blob %s", img->source, l->digest)
			   : xasprintf("%s: layer %s", img->source,
				       cfs_printable(pbuf, sizeof(pbuf),
						     priv->layer_paths[i]));
	/*
	 * skopeo's proxy checks a blob's digest and size itself and reports
	 * a mismatch when the pipe ends (FinishPipe): hashing it here again
	 * would cost a second SHA-256 pass over every compressed byte.
	 */
	if (l->digest[0] && !priv->proxy) {
		if (oci_digest_parse(&b->want, l->digest) < 0)
			goto fail;
		b->md = EVP_MD_CTX_new();
		if (!b->md || !EVP_DigestInit_ex(b->md, b->want.md, NULL)) {
			cfs_error("cannot start %s", l->digest);
			goto fail;
		}
	}
	if (priv->proxy)
		r = oci_proxy_blob(priv->proxy, l->digest, l->size, &b->pipe);
	else
		r = oci_stream_open(&priv->src, priv->layer_paths[i], &b->st);
	if (r < 0)
		goto fail;
	*out = b;
	return 0;
fail:
	cfs_error_prefix("%s", b->label);
	cfs_blob_close(b);
	return -1;
}

static ssize_t blob_fail(struct cfs_blob *b)
{
	cfs_error_prefix("%s", b->label);
	b->state = -1;
	return -1;
}

static ssize_t blob_end(struct cfs_blob *b)
{
	EVP_MD_CTX *md = b->md;

	if (b->got != b->size) {
		cfs_error("size mismatch: descriptor says %" PRIu64
			  ", stream ended after %" PRIu64 " bytes",
			  b->size, b->got);
		return blob_fail(b);
	}
	b->md = NULL;
	if (md && oci_digest_check_ctx(md, &b->want) < 0)
		return blob_fail(b);
	b->state = 1;
	return 0;
}

ssize_t cfs_blob_read(struct cfs_blob *b, void *buf, size_t n)
{
	ssize_t r;

	if (b->state < 0) {
		cfs_error("%s: read after an error", b->label);
		return -1;
	}
	if (b->state > 0 || !n)
		return 0;
	r = b->pipe ? oci_proxy_pipe_read(b->pipe, buf, n)
		    : oci_stream_read(b->st, buf, n);
	if (r < 0)
		return blob_fail(b);
	if (!r)
		return blob_end(b);
	b->got += r;
	if (b->got > b->size) {
		cfs_error("size mismatch: descriptor says %" PRIu64
			  ", stream is longer",
			  b->size);
		return blob_fail(b);
	}
	if (b->md && !EVP_DigestUpdate(b->md, buf, r)) {
		cfs_error("digest update failed");
		return blob_fail(b);
	}
	return r;
}

const char *cfs_blob_label(const struct cfs_blob *b)
{
	return b->label;
}

void cfs_blob_close(struct cfs_blob *b)
{
	if (!b)
		return;
	oci_stream_close(b->st);
	oci_proxy_pipe_close(b->pipe);
	EVP_MD_CTX_free(b->md);
	free(b->label);
	free(b);
}
