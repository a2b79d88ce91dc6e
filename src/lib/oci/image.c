// SPDX-License-Identifier: MIT
/* Opening an OCI image: detect its kind, then read it as a layout or docker. */
#include <string.h>

#include "internal.h"
#include "proxy.h"
#include "cfs/util.h"

static int open_kind(struct cfs_oci_image *img, const char *ref,
		     const char *platform)
{
	const struct oci_source *src = &oci_priv(img)->src;

	if (oci_source_has(src, "index.json") &&
	    oci_source_has(src, "oci-layout"))
		return oci_open_layout(img, ref, platform);
	if (oci_source_has(src, "manifest.json"))
		return oci_open_docker(img, ref, platform);
	cfs_error("not an OCI image layout or docker archive (no index.json "
		  "and oci-layout, no manifest.json)");
	return -1;
}

int cfs_oci_open(struct cfs_oci_image **out, const char *path, const char *ref,
		 const char *platform)
{
	struct cfs_oci_image *img = xcalloc(1, sizeof(*img));
	struct oci_priv *priv = xcalloc(1, sizeof(*priv));

	img->source = xstrdup(path);
	img->priv = priv;
	priv->src.dirfd = -1;
	if (oci_source_open(&priv->src, img->source) < 0 ||
	    open_kind(img, ref, platform) < 0) {
		cfs_error_prefix("%s", path);
		cfs_oci_close(img);
		return -1;
	}
	*out = img;
	return 0;
}

bool cfs_oci_proxied(const struct cfs_oci_image *img)
{
	return oci_priv(img)->proxy != NULL;
}

void cfs_oci_close(struct cfs_oci_image *img)
{
	struct oci_priv *priv;

	if (!img)
		return;
	priv = img->priv;
	oci_source_close(&priv->src);
	oci_proxy_close(priv->proxy);
	for (size_t i = 0; priv->layer_paths && i < img->n_layers; i++)
		free(priv->layer_paths[i]);
	free(priv->layer_paths);
	free(priv);
	for (size_t i = 0; i < img->n_layers; i++)
		free(img->layers[i].media_type);
	free(img->layers);
	free(img->manifest);
	free(img->config);
	free(img->ref_name);
	free(img->source);
	free(img);
}
