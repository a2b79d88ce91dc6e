// SPDX-License-Identifier: MIT
/* Parsing OCI/docker JSON documents: descriptors, manifests, configs. */
#include <ctype.h>
#include <string.h>

#include "cfs/json.h"
#include "internal.h"
#include "cfs/util.h"

static const char *const layer_media_types[] = {
	"application/vnd.oci.image.layer.v1.tar",
	"application/vnd.oci.image.layer.v1.tar+gzip",
	"application/vnd.oci.image.layer.v1.tar+zstd",
	"application/vnd.oci.image.layer.nondistributable.v1.tar",
	"application/vnd.oci.image.layer.nondistributable.v1.tar+gzip",
	"application/vnd.oci.image.layer.nondistributable.v1.tar+zstd",
	"application/vnd.docker.image.rootfs.diff.tar.gzip",
	"application/vnd.docker.image.rootfs.foreign.diff.tar.gzip",
	DOCKER_MT_LAYER_TAR, /* what skopeo calls an uncompressed layer */
};

bool oci_layer_media_type_ok(const char *mt)
{
	size_t n = sizeof(layer_media_types) / sizeof(layer_media_types[0]);

	for (size_t i = 0; mt && i < n; i++)
		if (!strcmp(mt, layer_media_types[i]))
			return true;
	return false;
}

static bool only_space(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isspace(p[i]))
			return false;
	return true;
}

int oci_json_parse(struct json_object **out, const uint8_t *data, size_t len,
		   const char *what)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *obj;
	enum json_tokener_error jerr;
	size_t end;

	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	obj = json_tokener_parse_ex(tok, (const char *)data, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!obj || jerr != json_tokener_success) {
		cfs_error("%s: bad JSON: %s", what,
			  jerr == json_tokener_continue
				  ? "unexpected end of input"
				  : json_tokener_error_desc(jerr));
		json_object_put(obj);
		return -1;
	}
	if (end < len && !only_space(data + end, len - end)) {
		cfs_error("%s: bad JSON: trailing data", what);
		json_object_put(obj);
		return -1;
	}
	*out = obj;
	return 0;
}

struct json_object *oci_json_array(struct json_object *obj, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(obj, key, &v) ||
	    !json_object_is_type(v, json_type_array))
		return NULL;
	return v;
}

static void desc_platform(struct oci_desc *d, struct json_object *o)
{
	struct json_object *p, *ann;

	if (json_object_object_get_ex(o, "platform", &p) &&
	    json_object_is_type(p, json_type_object)) {
		d->os = cfs_json_str(p, "os");
		d->arch = cfs_json_str(p, "architecture");
		d->variant = cfs_json_str(p, "variant");
	}
	if (json_object_object_get_ex(o, "annotations", &ann) &&
	    json_object_is_type(ann, json_type_object))
		d->ref = cfs_json_str(ann, "org.opencontainers.image.ref.name");
}

int oci_desc_parse(struct oci_desc *d, struct json_object *o, const char *what)
{
	struct json_object *size;
	int64_t n;

	memset(d, 0, sizeof(*d));
	if (!json_object_is_type(o, json_type_object)) {
		cfs_error("%s: descriptor is not a JSON object", what);
		return -1;
	}
	d->media_type = cfs_json_str(o, "mediaType");
	if (oci_digest_parse(&d->digest, cfs_json_str(o, "digest")) < 0) {
		cfs_error_prefix("%s", what);
		return -1;
	}
	n = json_object_object_get_ex(o, "size", &size) &&
			    json_object_is_type(size, json_type_int)
		    ? json_object_get_int64(size)
		    : -1;
	if (n < 0) {
		cfs_error("%s %s: missing or invalid size", what,
			  d->digest.str);
		return -1;
	}
	d->size = n;
	desc_platform(d, o);
	return 0;
}

static int manifest_layer(struct cfs_oci_layer *l, struct json_object *o,
			  size_t i)
{
	struct oci_desc d;
	char what[64], pbuf[96];

	snprintf(what, sizeof(what), "manifest layer %zu", i + 1);
	if (oci_desc_parse(&d, o, what) < 0)
		return -1;
	if (!oci_layer_media_type_ok(d.media_type)) {
		cfs_error("%s %s: unsupported layer media type %s", what,
			  d.digest.str,
			  d.media_type ? cfs_printable(pbuf, sizeof(pbuf),
						       d.media_type)
				       : "(none)");
		return -1;
	}
	strcpy(l->digest, d.digest.str);
	l->size = d.size;
	l->media_type = xstrdup(d.media_type);
	return 0;
}

static int manifest_config(struct oci_desc *config, struct json_object *m)
{
	struct json_object *o;
	char pbuf[96];

	if (!json_object_object_get_ex(m, "config", &o)) {
		cfs_error("manifest: no config descriptor");
		return -1;
	}
	if (oci_desc_parse(config, o, "manifest config") < 0)
		return -1;
	if (!config->media_type ||
	    (strcmp(config->media_type, OCI_MT_CONFIG) &&
	     strcmp(config->media_type, DOCKER_MT_CONFIG))) {
		cfs_error("manifest: unsupported config media type %s",
			  config->media_type ? cfs_printable(pbuf, sizeof(pbuf),
							     config->media_type)
					     : "(none)");
		return -1;
	}
	return 0;
}

int oci_manifest_parse(struct cfs_oci_image *img, struct json_object *m,
		       struct oci_desc *config)
{
	struct json_object *layers, *v;
	size_t n;

	if (!json_object_is_type(m, json_type_object) ||
	    !json_object_object_get_ex(m, "schemaVersion", &v) ||
	    json_object_get_int(v) != 2) {
		cfs_error("manifest: not a schemaVersion 2 image manifest");
		return -1;
	}
	if (manifest_config(config, m) < 0)
		return -1;
	layers = oci_json_array(m, "layers");
	if (!layers) {
		cfs_error("manifest: no layers array");
		return -1;
	}
	n = json_object_array_length(layers);
	img->layers = xcalloc(n ? n : 1, sizeof(*img->layers));
	for (size_t i = 0; i < n; i++) {
		if (manifest_layer(&img->layers[i],
				   json_object_array_get_idx(layers, i), i) < 0)
			return -1;
		img->n_layers = i + 1;
	}
	return 0;
}

static int config_diff_ids(struct cfs_oci_image *img, struct json_object *ids)
{
	size_t n = ids ? json_object_array_length(ids) : 0;
	struct oci_digest d;
	const char *s;

	if (n != img->n_layers) {
		cfs_error("config: %zu diff_ids but %zu layers", n,
			  img->n_layers);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		s = json_object_get_string(json_object_array_get_idx(ids, i));
		if (oci_digest_parse(&d, s) < 0) {
			cfs_error_prefix("config: diff_id %zu", i);
			return -1;
		}
		if (d.len != 32 || strncmp(d.str, "sha256:", 7)) {
			cfs_error("config: diff_id %zu: %s is not sha256", i,
				  d.str);
			return -1;
		}
		memcpy(img->layers[i].diff_id, d.bytes, 32);
	}
	return 0;
}

int oci_config_parse(struct cfs_oci_image *img, const uint8_t *data, size_t len)
{
	struct json_object *cfg, *rootfs, *ids;
	const char *type;
	int ret = -1;

	if (oci_json_parse(&cfg, data, len, "config") < 0)
		return -1;
	if (!json_object_is_type(cfg, json_type_object) ||
	    !json_object_object_get_ex(cfg, "rootfs", &rootfs) ||
	    !json_object_is_type(rootfs, json_type_object)) {
		cfs_error("config: no rootfs object");
		goto out;
	}
	type = cfs_json_str(rootfs, "type");
	if (!type || strcmp(type, "layers")) {
		cfs_error("config: rootfs.type is not \"layers\"");
		goto out;
	}
	/* An image without layers may have "diff_ids": null or none. */
	ids = oci_json_array(rootfs, "diff_ids");
	ret = config_diff_ids(img, ids);
out:
	json_object_put(cfg);
	return ret;
}

int oci_config_check_platform(const struct cfs_oci_image *img,
			      const char *platform)
{
	struct oci_platform p;
	struct json_object *cfg;
	const char *os, *arch, *variant;
	bool match;

	if (!platform)
		return 0;
	if (oci_platform_parse(&p, platform) < 0 ||
	    oci_json_parse(&cfg, img->config, img->config_len, "config") < 0)
		return -1;
	os = cfs_json_str(cfg, "os");
	arch = cfs_json_str(cfg, "architecture");
	variant = cfs_json_str(cfg, "variant");
	match = oci_platform_match(&p, os, arch, variant);
	if (!match) {
		char o[40], a[40], v[40], pl[CFS_SHOWN_MAX];

		cfs_error("image is for %s/%s%s%s, not %s",
			  cfs_printable(o, sizeof(o), os ? os : "?"),
			  cfs_printable(a, sizeof(a), arch ? arch : "?"),
			  variant ? "/" : "",
			  cfs_printable(v, sizeof(v), variant ? variant : ""),
			  cfs_printable(pl, sizeof(pl), platform));
	}
	json_object_put(cfg);
	return match ? 0 : -1;
}
