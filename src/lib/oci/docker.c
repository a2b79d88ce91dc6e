// SPDX-License-Identifier: MIT
/*
 * docker-archive (docker save, podman save, skopeo docker-archive:):
 * manifest.json = [{"Config": PATH, "RepoTags": [..], "Layers": [PATH..]}].
 * There are no descriptors, so layer blobs have no expected digest: their
 * cfs_oci_layer.digest is "" and size is the size of the member as stored;
 * their content is still checked through the config's diff_ids by the
 * layer reader. Their media type is always the uncompressed docker type
 * (the archive does not say; the layer reader detects compression by
 * magic). The config digest is computed from its bytes (and checked
 * against its file name when that name is a sha256 hex, as docker writes).
 */
#include <string.h>

#include "cfs/json.h"
#include "internal.h"
#include "cfs/util.h"

#define MAX_LISTED 12

static struct json_object *repo_tags(struct json_object *entry)
{
	return json_object_is_type(entry, json_type_object)
		       ? oci_json_array(entry, "RepoTags")
		       : NULL;
}

/* The best oci_ref_match level of ref over an entry's RepoTags. */
static int entry_match(struct json_object *entry, const char *ref,
		       const char **tag)
{
	struct json_object *tags = repo_tags(entry);
	size_t n = tags ? json_object_array_length(tags) : 0;
	int best = 0;

	for (size_t i = 0; i < n; i++) {
		const char *t = json_object_get_string(
			json_object_array_get_idx(tags, i));
		int l = t ? oci_ref_match(ref, t) : 0;

		if (l > best) {
			best = l;
			*tag = t;
		}
	}
	return best;
}

static char *list_tags(struct json_object *list)
{
	struct cfs_buf b = {0};
	char pbuf[96];
	size_t listed = 0;

	for (size_t i = 0; i < json_object_array_length(list); i++) {
		struct json_object *tags =
			repo_tags(json_object_array_get_idx(list, i));

		for (size_t j = 0; tags && j < json_object_array_length(tags);
		     j++) {
			const char *t = json_object_get_string(
				json_object_array_get_idx(tags, j));

			if (!t)
				continue;
			if (listed++ == MAX_LISTED) {
				cfs_buf_append(&b, ", ...", 5);
				goto out;
			}
			if (b.len)
				cfs_buf_append(&b, ", ", 2);
			cfs_printable(pbuf, sizeof(pbuf), t);
			cfs_buf_append(&b, pbuf, strlen(pbuf));
		}
	}
out:
	if (!listed)
		cfs_buf_append(&b, "no tags", 7);
	cfs_buf_append(&b, "", 1);
	return (char *)b.data;
}

static int select_by_ref(struct json_object *list, const char *ref,
			 size_t *pick, const char **tag)
{
	size_t n = json_object_array_length(list), found = 0;
	int best = 0;
	char *tags, pbuf[96];

	for (size_t i = 0; i < n; i++) {
		const char *t = NULL;
		int l = entry_match(json_object_array_get_idx(list, i), ref,
				    &t);

		if (l > best) {
			best = l;
			found = 0;
		}
		if (l && l == best) {
			found++;
			*pick = i;
			*tag = t;
		}
	}
	if (found == 1)
		return 0;
	tags = list_tags(list);
	cfs_error("%s ref '%s' (available: %s)",
		  found ? "several images match" : "no image matching",
		  cfs_printable(pbuf, sizeof(pbuf), ref), tags);
	free(tags);
	return -1;
}

/* Picks an entry of manifest.json; *tag gets its name (or NULL). */
static int select_entry(struct json_object *list, const char *ref, size_t *pick,
			const char **tag)
{
	struct json_object *tags;
	char *avail;

	*tag = NULL;
	*pick = 0;
	if (ref)
		return select_by_ref(list, ref, pick, tag);
	if (json_object_array_length(list) > 1) {
		avail = list_tags(list);
		cfs_error(
			"manifest.json: several images; choose one with a ref "
			"(available: %s)",
			avail);
		free(avail);
		return -1;
	}
	tags = repo_tags(json_object_array_get_idx(list, 0));
	if (tags && json_object_array_length(tags))
		*tag = json_object_get_string(
			json_object_array_get_idx(tags, 0));
	return 0;
}

/* When the config's file name is its sha256 ("<hex>.json"), check it. */
static int check_config_name(const char *path, const char *digest)
{
	const char *base = strrchr(path, '/');
	char name[80], pbuf[256];

	base = base ? base + 1 : path;
	snprintf(name, sizeof(name), "sha256:%.64s", base);
	if (strlen(base) < 64 || (base[64] && strcmp(base + 64, ".json")) ||
	    !cfs_lower_hex(base, 64))
		return 0;
	if (!strcmp(name, digest))
		return 0;
	cfs_error("config %s: digest mismatch: want %s, got %s",
		  cfs_printable(pbuf, sizeof(pbuf), path), name, digest);
	return -1;
}

static int load_config(struct cfs_oci_image *img, const char *path)
{
	const struct oci_source *src = &oci_priv(img)->src;

	if (!path) {
		cfs_error("manifest.json: no Config");
		return -1;
	}
	if (oci_source_read_all(src, path, OCI_JSON_MAX, &img->config,
				&img->config_len) < 0)
		return -1;
	if (img->config_len > OCI_JSON_MAX) {
		cfs_error("config: larger than %zu bytes", OCI_JSON_MAX);
		return -1;
	}
	oci_sha256_string(img->config_digest, img->config, img->config_len);
	return check_config_name(path, img->config_digest);
}

static int load_layers(struct cfs_oci_image *img, struct json_object *layers)
{
	struct oci_priv *priv = oci_priv(img);
	size_t n = layers ? json_object_array_length(layers) : 0;

	if (!layers) {
		cfs_error("manifest.json: no Layers array");
		return -1;
	}
	img->layers = xcalloc(n + 1, sizeof(*img->layers));
	priv->layer_paths = xcalloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(layers, i);
		struct cfs_oci_layer *l = &img->layers[i];

		if (!json_object_is_type(o, json_type_string)) {
			cfs_error("manifest.json: layer %zu is not a path",
				  i + 1);
			return -1;
		}
		priv->layer_paths[i] = xstrdup(json_object_get_string(o));
		l->media_type = xstrdup(DOCKER_MT_LAYER_TAR);
		img->n_layers = i + 1;
		if (oci_source_size(&priv->src, priv->layer_paths[i],
				    &l->size) < 0) {
			cfs_error_prefix("layer %zu", i + 1);
			return -1;
		}
	}
	return 0;
}

static struct json_object *descriptor(const char *mt, uint64_t size,
				      const char *digest)
{
	struct json_object *d = json_object_new_object();

	json_object_object_add(d, "mediaType", json_object_new_string(mt));
	json_object_object_add(d, "size", json_object_new_int64(size));
	if (digest)
		json_object_object_add(d, "digest",
				       json_object_new_string(digest));
	return d;
}

/* A docker schema2 manifest for the image; its layers carry no digest. */
static void synthesize_manifest(struct cfs_oci_image *img)
{
	struct json_object *m = json_object_new_object();
	struct json_object *layers = json_object_new_array();
	const char *s;

	json_object_object_add(m, "schemaVersion", json_object_new_int(2));
	json_object_object_add(m, "mediaType",
			       json_object_new_string(DOCKER_MT_MANIFEST));
	json_object_object_add(m, "config",
			       descriptor(DOCKER_MT_CONFIG, img->config_len,
					  img->config_digest));
	for (size_t i = 0; i < img->n_layers; i++)
		json_object_array_add(layers,
				      descriptor(img->layers[i].media_type,
						 img->layers[i].size, NULL));
	json_object_object_add(m, "layers", layers);
	s = json_object_to_json_string_ext(m, JSON_C_TO_STRING_PLAIN);
	img->manifest_len = strlen(s);
	img->manifest = xmemdup(s, img->manifest_len);
	json_object_put(m);
}

static int load_entry(struct cfs_oci_image *img, struct json_object *entry,
		      const char *platform)
{
	if (!json_object_is_type(entry, json_type_object)) {
		cfs_error("manifest.json: entry is not an object");
		return -1;
	}
	if (load_config(img, cfs_json_str(entry, "Config")) < 0 ||
	    load_layers(img, oci_json_array(entry, "Layers")) < 0 ||
	    oci_config_parse(img, img->config, img->config_len) < 0 ||
	    oci_config_check_platform(img, platform) < 0)
		return -1;
	synthesize_manifest(img);
	return 0;
}

int oci_open_docker(struct cfs_oci_image *img, const char *ref,
		    const char *platform)
{
	struct json_object *list;
	const char *tag;
	uint8_t *data;
	size_t len, pick;
	int r = -1;

	if (oci_source_read_all(&oci_priv(img)->src, "manifest.json",
				OCI_JSON_MAX, &data, &len) < 0)
		return -1;
	if (len > OCI_JSON_MAX) {
		cfs_error("manifest.json: larger than %zu bytes", OCI_JSON_MAX);
		free(data);
		return -1;
	}
	r = oci_json_parse(&list, data, len, "manifest.json");
	free(data);
	if (r < 0)
		return -1;
	r = -1;
	if (!json_object_is_type(list, json_type_array) ||
	    !json_object_array_length(list))
		cfs_error("manifest.json: not a non-empty array");
	else if (select_entry(list, ref, &pick, &tag) == 0) {
		img->ref_name = tag ? xstrdup(tag) : NULL;
		r = load_entry(img, json_object_array_get_idx(list, pick),
			       platform);
	}
	json_object_put(list);
	return r;
}
