// SPDX-License-Identifier: MIT
/*
 * Layers of a containers-storage: image. containers/storage keeps each
 * layer unpacked and serves it only as its uncompressed tar, found by its
 * DiffID (skopeo 1.9's proxy has no GetLayerInfo), while the stored
 * manifest names the compressed blobs it was pulled as. So the layers to
 * fetch become (DiffID, uncompressed size), the size read from the
 * store's <driver>-layers/layers.json, found as containers/storage finds
 * it: the [driver@graphroot+runroot] prefix of the name, else storage.conf
 * (CONTAINERS_STORAGE_CONF, else /etc/containers/storage.conf).
 */
#include <stdlib.h>
#include <string.h>

#include "cfs/json.h"
#include "internal.h"
#include "containers/conf.h"
#include "cfs/util.h"

struct where {
	char *driver, *graphroot;
};

/* "[overlay@/graph+/run]name" */
static void from_name(struct where *w, const char *name)
{
	const char *end = strchr(name, ']'), *at, *plus;

	if (name[0] != '[' || !end)
		return;
	at = memchr(name, '@', end - name);
	plus = memchr(name, '+', end - name);
	if (at)
		w->driver = xstrndup(name + 1, at - name - 1);
	at = at ? at + 1 : name + 1;
	w->graphroot = xstrndup(at, (plus ? plus : end) - at);
}

static void from_conf(struct where *w)
{
	uint8_t *text;
	size_t len;

	if (cfs_read_file(containers_storage_conf(NULL), &text, &len) < 0)
		return;
	if (!w->driver)
		w->driver = containers_conf_string((const char *)text, len,
						   "storage", "driver");
	if (!w->graphroot)
		w->graphroot = containers_conf_string((const char *)text, len,
						      "storage", "graphroot");
	free(text);
}

static int size_of(struct json_object *layers, const char *diff_id,
		   uint64_t *size)
{
	size_t n = json_object_array_length(layers);

	for (size_t i = 0; i < n; i++) {
		struct json_object *l = json_object_array_get_idx(layers, i);
		struct json_object *sz;
		const char *d = json_object_is_type(l, json_type_object)
					? cfs_json_str(l, "diff-digest")
					: NULL;

		if (d && !strcmp(d, diff_id) &&
		    json_object_object_get_ex(l, "diff-size", &sz) &&
		    json_object_get_int64(sz) > 0) {
			*size = (uint64_t)json_object_get_int64(sz);
			return 0;
		}
	}
	cfs_error("containers-storage: no layer with DiffID %s", diff_id);
	return -1;
}

static int use_diff_ids(struct cfs_oci_image *img, struct json_object *layers)
{
	for (size_t i = 0; i < img->n_layers; i++) {
		struct cfs_oci_layer *l = &img->layers[i];
		char hex[65];

		cfs_hex(hex, l->diff_id, 32);
		snprintf(l->digest, sizeof(l->digest), "sha256:%s", hex);
		if (size_of(layers, l->digest, &l->size) < 0)
			return -1;
		free(l->media_type);
		l->media_type = xstrdup(DOCKER_MT_LAYER_TAR);
	}
	return 0;
}

int oci_storage_layers(struct cfs_oci_image *img, const char *name)
{
	struct where w = {0};
	struct json_object *layers = NULL;
	uint8_t *data = NULL;
	size_t len;
	char *path;
	int r = -1;

	from_name(&w, name);
	from_conf(&w);
	path = xasprintf("%s/%s-layers/layers.json",
			 w.graphroot ? w.graphroot
				     : CONTAINERS_DEFAULT_GRAPHROOT,
			 w.driver ? w.driver : "overlay");
	if (cfs_read_file(path, &data, &len) == 0 &&
	    oci_json_parse(&layers, data, len, path) == 0) {
		if (json_object_is_type(layers, json_type_array))
			r = use_diff_ids(img, layers);
		else
			cfs_error("%s: not a JSON array", path);
	}
	json_object_put(layers);
	free(data);
	free(path);
	free(w.driver);
	free(w.graphroot);
	return r;
}
