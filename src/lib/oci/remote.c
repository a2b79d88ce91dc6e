// SPDX-License-Identifier: MIT
/*
 * An OCI source read through skopeo's image proxy (proxy.c): any
 * transport skopeo knows. The manifest comes from the proxy (as OCI; a
 * manifest list is resolved by skopeo to the platform it was started for),
 * the config is fetched as the blob the manifest names, so it is the
 * image's own bytes, checked against their digest here. When the
 * signature policy asks for signatures, they are checked on the manifest
 * before the config or any layer is fetched. Layer blobs are
 * fetched only when the converter opens them, i.e. only layers missing from
 * the layer cache.
 */
#include <string.h>

#include "internal.h"
#include "proxy.h"
#include "cfs/util.h"

static int config_blob(struct cfs_oci_image *img, const struct oci_desc *cfg,
		       struct cfs_buf *b)
{
	struct oci_proxy_pipe *pp;
	ssize_t r = 0;

	if (oci_proxy_blob(oci_priv(img)->proxy, cfg->digest.str, cfg->size,
			   &pp) < 0)
		return -1;
	while (b->len <= cfg->size) {
		cfs_buf_reserve(b, 65536);
		r = oci_proxy_pipe_read(pp, b->data + b->len, b->cap - b->len);
		if (r <= 0)
			break;
		b->len += (size_t)r;
	}
	oci_proxy_pipe_close(pp);
	return r < 0 ? -1 : 0;
}

/*
 * skopeo sends an OCI manifest as it read it, but converts a docker
 * schema2 one: its config descriptor then names skopeo's OCI conversion of
 * the image's config (c/image convertToManifestOCI1), which no registry
 * holds and only GetFullConfig serves, the same json.Marshal bytes. They
 * are checked against that descriptor as any config is, and the image's
 * id is their digest.
 */
static bool converted(const uint8_t *manifest, size_t len, const char *digest)
{
	struct oci_digest d;

	return oci_digest_parse(&d, digest) < 0 ||
	       oci_digest_check_mem(&d, manifest, len) < 0;
}

static int fetch_config(struct cfs_oci_image *img, const struct oci_desc *cfg,
			bool from_skopeo)
{
	struct cfs_buf b = {0};
	int r;

	if (cfg->size > OCI_JSON_MAX) {
		cfs_error("config: larger than %zu bytes", OCI_JSON_MAX);
		return -1;
	}
	r = from_skopeo ? oci_proxy_full_config(oci_priv(img)->proxy,
						OCI_JSON_MAX, &b.data, &b.len)
			: config_blob(img, cfg, &b);
	if (r == 0 && b.len != cfg->size) {
		cfs_error("config %s: %zu bytes, descriptor says %llu",
			  cfg->digest.str, b.len,
			  (unsigned long long)cfg->size);
		r = -1;
	}
	if (r == 0 && oci_digest_check_mem(&cfg->digest, b.data, b.len) < 0)
		r = -1;
	if (r < 0) {
		cfs_buf_free(&b);
		return -1;
	}
	img->config = b.data ? b.data : xmalloc(1);
	img->config_len = b.len;
	strcpy(img->config_digest, cfg->digest.str);
	return oci_config_parse(img, img->config, img->config_len);
}

int oci_open_remote(struct cfs_oci_image *img, const char *name,
		    const char *platform, const struct cfs_registry_opts *reg,
		    const struct oci_policy *pol)
{
	struct oci_priv *priv = oci_priv(img);
	char digest[CFS_OCI_DIGEST_MAX + 1];
	struct json_object *m;
	struct oci_desc cfg;
	bool as_read;
	int r = -1;

	if (oci_proxy_open(&priv->proxy, name, platform, reg) < 0 ||
	    oci_proxy_manifest(priv->proxy, OCI_JSON_MAX, &img->manifest,
			       &img->manifest_len, digest) < 0)
		return -1;
	as_read = !converted(img->manifest, img->manifest_len, digest);
	if (pol &&
	    oci_policy_verify(pol, digest, as_read ? img->manifest : NULL,
			      img->manifest_len, reg) < 0)
		return -1;
	if (oci_json_parse(&m, img->manifest, img->manifest_len, "manifest") <
	    0)
		return -1;
	if (oci_manifest_parse(img, m, &cfg) == 0)
		r = fetch_config(img, &cfg, !as_read);
	json_object_put(m);
	if (r == 0 && platform)
		r = oci_config_check_platform(img, platform);
	if (r == 0 && !strncmp(name, "containers-storage:", 19))
		r = oci_storage_layers(img, name + 19);
	return r;
}
