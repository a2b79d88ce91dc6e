// SPDX-License-Identifier: MIT
/*
 * The signatures of a docker:// image, found as c/image v5.22.1 finds them
 * (docker/docker_image_src.go): in the lookaside of registries.d,
 * LOOKASIDE/REPO-PATH@ALG=HEX/signature-N for N from 1 until one is
 * missing; with use-sigstore-attachments, the layers of the image
 * REPO:ALG-HEX.sig, fetched through skopeo's proxy. All keyed by the
 * manifest digest skopeo reported (for a manifest list, the instance's).
 * A dir: image keeps its own as DIR/signature-N. Lookasides are file://
 * or http(s):// (sig-http.c).
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "cfs/json.h"
#include "internal.h"
#include "proxy.h"
#include "sig.h"
#include "cfs/util.h"

void oci_sigs_free(struct oci_sigs *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].data);
		free(s->v[i].mime);
		free(s->v[i].b64sig);
		free(s->v[i].where);
	}
	free(s->v);
	free(s->note);
	memset(s, 0, sizeof(*s));
}

static struct oci_sig *sig_add(struct oci_sigs *s, enum oci_sig_kind kind,
			       const uint8_t *data, size_t len,
			       const char *where)
{
	struct oci_sig *g;

	s->v = xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
	g = &s->v[s->n++];
	memset(g, 0, sizeof(*g));
	g->kind = kind;
	g->data = xmemdup(len ? data : (const uint8_t *)"", len ? len : 1);
	g->len = len;
	g->where = xstrdup(where);
	return g;
}

/* c/image's SigstoreFromBlobChunk: {mimeType, payload, annotations}. */
static int sigstore_chunk(struct oci_sigs *out, const uint8_t *p, size_t n,
			  const char *where)
{
	struct json_object *o, *ann;
	const char *mime, *payload, *sig = NULL;
	uint8_t *raw;
	size_t raw_len;
	int r = -1;

	if (oci_json_parse(&o, p, n, where) < 0)
		return -1;
	mime = cfs_json_str(o, "mimeType");
	payload = cfs_json_str(o, "payload");
	if (!json_object_object_get_ex(o, "annotations", &ann) ||
	    !json_object_is_type(ann, json_type_object) || !mime || !payload ||
	    json_object_object_length(o) != 3 ||
	    oci_json_unique_keys(p, n) < 0) {
		cfs_error("%s: not a sigstore signature", where);
	} else if (oci_base64_decode(payload, &raw, &raw_len) == 0) {
		struct oci_sig *g;

		sig = cfs_json_str(ann, OCI_SIG_COSIGN_ANNOTATION);
		g = sig_add(out, OCI_SIG_SIGSTORE, raw, raw_len, where);
		g->mime = xstrdup(mime);
		g->b64sig = sig ? xstrdup(sig) : NULL;
		free(raw);
		r = 0;
	} else {
		cfs_error_prefix("%s: payload", where);
	}
	json_object_put(o);
	return r;
}

int oci_sig_from_blob(struct oci_sigs *out, const uint8_t *blob, size_t len,
		      const char *where)
{
	static const uint8_t pgp[] = {0xa0, 0xa1, 0xa2, 0xa3, 0xc8,
				      0x90, 0x91, 0x92, 0x3d, 0xc4,
				      0x88, 0x89, 0x8a, 0x8b, 0xc2};
	const uint8_t *nl;
	size_t flen;

	if (len == 0) {
		cfs_error("%s: empty signature", where);
		return -1;
	}
	if (memchr(pgp, blob[0], sizeof(pgp))) {
		sig_add(out, OCI_SIG_SIMPLE, blob, len, where);
		return 0;
	}
	nl = blob[0] == 0 ? memchr(blob, '\n', len) : NULL;
	if (!nl) {
		cfs_error("%s: unrecognized signature format", where);
		return -1;
	}
	flen = (size_t)(nl - blob) - 1;
	if (flen == 14 && !memcmp(blob + 1, "simple-signing", 14)) {
		sig_add(out, OCI_SIG_SIMPLE, nl + 1, len - (nl + 1 - blob),
			where);
		return 0;
	}
	if (flen == 13 && !memcmp(blob + 1, "sigstore-json", 13))
		return sigstore_chunk(out, nl + 1, len - (nl + 1 - blob),
				      where);
	cfs_error("%s: unrecognized signature format", where);
	return -1;
}

/* The directory a file:// lookaside names, or NULL with a message. */
/*
 * Where the signatures of r's manifest d are in a lookaside: a file path
 * or an http(s) URL, to which N is appended (malloc'ed); NULL with a
 * message for other URLs. Query strings, fragments and escapes are
 * refused rather than placed as c/image's url.URL would place them.
 */
static char *lookaside_prefix(const char *url, const struct oci_dref *r,
			      const struct oci_digest *d, bool *http)
{
	char shown[CFS_SHOWN_MAX];
	const char *base = NULL;

	*http = !strncmp(url, "http://", 7) || !strncmp(url, "https://", 8);
	if (strpbrk(url, "%?#"))
		base = NULL;
	else if (*http)
		base = url;
	else if (!strncmp(url, "file:///", 8))
		base = url + 7;
	if (!base) {
		cfs_error("lookaside %s: not a file:///PATH or http(s) URL "
			  "without query, fragment or escapes",
			  cfs_printable(shown, sizeof(shown), url));
		return NULL;
	}
	return xasprintf("%s/%s@%.*s=%s/signature-", base,
			 strchr(r->name, '/') + 1, (int)d->hex_off - 1, d->str,
			 d->str + d->hex_off);
}

/* One signature file: 0 read, 1 missing, -1 error. */
static int read_one(const char *path, bool http, uint8_t **data, size_t *len)
{
	struct stat st;

	if (http)
		return oci_http_get(path, OCI_SIG_MAX, data, len);
	if (stat(path, &st) < 0 && errno == ENOENT)
		return 1;
	if (cfs_read_file(path, data, len) < 0)
		return -1;
	if (*len <= OCI_SIG_MAX)
		return 0;
	cfs_error("%s: larger than %zu bytes", path, OCI_SIG_MAX);
	free(*data);
	return -1;
}

/* PREFIX1, PREFIX2, ... until one is missing (c/image's getOneSignature). */
static int read_numbered(struct oci_sigs *out, const char *prefix, bool http)
{
	uint8_t *data;
	size_t len;

	for (int n = 1; n <= OCI_SIGS_MAX; n++) {
		char *path = xasprintf("%s%d", prefix, n);
		int rr = read_one(path, http, &data, &len);

		if (rr == 0) {
			rr = oci_sig_from_blob(out, data, len, path);
			free(data);
		}
		free(path);
		if (rr != 0)
			return rr < 0 ? -1 : 0;
	}
	return 0;
}

static int read_lookaside(struct oci_sigs *out, const char *url,
			  const struct oci_dref *r, const struct oci_digest *d)
{
	bool http;
	char *prefix = lookaside_prefix(url, r, d, &http);
	int ret;

	if (!prefix)
		return -1;
	ret = read_numbered(out, prefix, http);
	free(prefix);
	return ret;
}

int oci_sigs_dir(struct oci_sigs *out, const char *dir)
{
	char *prefix = xasprintf("%s/signature-", dir);
	int ret;

	memset(out, 0, sizeof(*out));
	ret = read_numbered(out, prefix, false);
	free(prefix);
	if (ret < 0)
		oci_sigs_free(out);
	return ret;
}

static int read_blob(struct oci_proxy *p, const struct oci_desc *l,
		     uint8_t **data, size_t *len)
{
	struct oci_proxy_pipe *pp;
	struct cfs_buf b = {0};
	ssize_t r = 0;

	if (l->size > OCI_SIG_MAX) {
		cfs_error("attachment layer %s: larger than %zu bytes",
			  l->digest.str, OCI_SIG_MAX);
		return -1;
	}
	if (oci_proxy_blob(p, l->digest.str, l->size, &pp) < 0)
		return -1;
	while (b.len <= l->size) {
		cfs_buf_reserve(&b, 65536);
		r = oci_proxy_pipe_read(pp, b.data + b.len, b.cap - b.len);
		if (r <= 0)
			break;
		b.len += (size_t)r;
	}
	oci_proxy_pipe_close(pp);
	if (r == 0 && (b.len != l->size ||
		       oci_digest_check_mem(&l->digest, b.data, b.len) < 0))
		r = -1;
	if (r < 0) {
		cfs_error_prefix("attachment layer %s", l->digest.str);
		cfs_buf_free(&b);
		return -1;
	}
	*data = b.data;
	*len = b.len;
	return 0;
}

static int take_layer(struct oci_sigs *out, struct oci_proxy *p,
		      struct json_object *lo, const char *att)
{
	struct json_object *ann;
	struct oci_desc l;
	struct oci_sig *g;
	uint8_t *data;
	size_t len;
	char *where;

	if (oci_desc_parse(&l, lo, "attachment layer") < 0 ||
	    read_blob(p, &l, &data, &len) < 0)
		return -1;
	where = xasprintf("%s layer %s", att, l.digest.str);
	g = sig_add(out, OCI_SIG_SIGSTORE, data, len, where);
	free(where);
	free(data);
	g->mime = xstrdup(l.media_type ? l.media_type : "");
	if (json_object_object_get_ex(lo, "annotations", &ann) &&
	    cfs_json_str(ann, OCI_SIG_COSIGN_ANNOTATION))
		g->b64sig =
			xstrdup(cfs_json_str(ann, OCI_SIG_COSIGN_ANNOTATION));
	return 0;
}

static int attachment_layers(struct oci_sigs *out, struct oci_proxy *p,
			     const char *att)
{
	struct json_object *m, *layers;
	uint8_t *data;
	size_t len, n;
	int r = 0;

	if (oci_proxy_manifest(p, OCI_JSON_MAX, &data, &len, NULL) < 0)
		return -1;
	r = oci_json_parse(&m, data, len, att);
	free(data);
	if (r < 0)
		return -1;
	layers = oci_json_array(m, "layers");
	n = layers ? json_object_array_length(layers) : 0;
	if (n > OCI_SIGS_MAX) {
		cfs_error("%s: more than %d layers", att, OCI_SIGS_MAX);
		r = -1;
	}
	for (size_t i = 0; r == 0 && i < n; i++)
		r = take_layer(out, p, json_object_array_get_idx(layers, i),
			       att);
	json_object_put(m);
	return r;
}

/*
 * The proxy cannot tell a missing attachment image from an unreachable
 * one (skopeo 1.9 has no OpenImageOptional): either way there are no
 * attachments, and the reason is kept for the refusal that follows.
 */
static int read_attachments(struct oci_sigs *out, const struct oci_dref *r,
			    const struct oci_digest *d,
			    const struct cfs_registry_opts *reg)
{
	char *att = xasprintf("docker://%s:%.*s-%s.sig", r->name,
			      (int)d->hex_off - 1, d->str, d->str + d->hex_off);
	struct oci_proxy *p;
	int ret = 0;

	if (oci_proxy_open(&p, att, NULL, reg) < 0) {
		out->note = xasprintf("no sigstore attachment %s: %s", att,
				      cfs_strerror());
	} else {
		ret = attachment_layers(out, p, att);
		oci_proxy_close(p);
	}
	free(att);
	return ret;
}

int oci_sigs_docker(struct oci_sigs *out, const char *image_ref,
		    const char *digest, const struct cfs_registry_opts *reg)
{
	struct oci_sig_config c;
	struct oci_digest d;
	struct oci_dref r;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (oci_digest_parse(&d, digest) < 0)
		return -1;
	if (oci_dref_parse(&r, image_ref) < 0)
		return -1;
	if (oci_registries_d(&c, reg ? reg->registries_d : NULL, image_ref) ==
	    0) {
		ret = read_lookaside(out, c.lookaside, &r, &d);
		if (ret == 0 && c.attachments)
			ret = read_attachments(out, &r, &d, reg);
		if (ret < 0)
			cfs_error_prefix("signatures (registries.d %s)",
					 c.config_path);
		oci_sig_config_free(&c);
	}
	oci_dref_free(&r);
	if (ret < 0)
		oci_sigs_free(out);
	return ret;
}
