// SPDX-License-Identifier: MIT
/* Opening an OCI image: detect its kind, then read it as a layout or docker. */
#include <string.h>
#include <unistd.h>

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

/* "-" is standard input, read from a copy; anything else is a path */
static int open_source(struct cfs_oci_image *img)
{
	struct oci_priv *priv = oci_priv(img);

	if (strcmp(img->source, "-"))
		return oci_source_open(&priv->src, img->source);
	if (oci_spool_stdin(&priv->spool_fd, &priv->spool_path) < 0)
		return -1;
	return oci_source_open(&priv->src, priv->spool_path);
}

struct cfs_oci_image *oci_image_new(const char *source)
{
	struct cfs_oci_image *img = xcalloc(1, sizeof(*img));
	struct oci_priv *priv = xcalloc(1, sizeof(*priv));

	img->source = xstrdup(source);
	img->priv = priv;
	priv->src.dirfd = -1;
	priv->spool_fd = -1;
	return img;
}

int cfs_oci_open(struct cfs_oci_image **out, const char *path, const char *ref,
		 const char *platform)
{
	struct cfs_oci_image *img = oci_image_new(path);

	if (open_source(img) < 0 || open_kind(img, ref, platform) < 0) {
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
	if (priv->spool_fd >= 0)
		close(priv->spool_fd);
	free(priv->spool_path);
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
