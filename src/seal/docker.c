// SPDX-License-Identifier: MIT
/*
 * A docker schema2 manifest as an OCI one, as containers/image converts it
 * (convertToManifestOCI1) but for the config, which keeps its bytes and so
 * the image id: skopeo 1.9.3 re-marshals it. Docker configs are OCI
 * configs with more fields.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "seal.h"
#include "cfs/escape.h"
#include "cfs/json.h"
#include "cfs/util.h"

#define OCI_CONFIG "application/vnd.oci.image.config.v1+json"
#define OCI_LAYER "application/vnd.oci.image.layer.v1.tar"
#define OCI_FOREIGN "application/vnd.oci.image.layer.nondistributable.v1.tar"
#define DOCKER_LAYER "application/vnd.docker.image.rootfs.diff.tar"
#define DOCKER_FOREIGN "application/vnd.docker.image.rootfs.foreign.diff.tar"

/* "sha256:" and 64 lowercase hex digits: the only digests taken. */
static int check_digest(const char *d, const char *what)
{
	char pbuf[96];

	if (d && strlen(d) == SEAL_DIGEST_MAX && !strncmp(d, "sha256:", 7) &&
	    cfs_lower_hex(d + 7, 64))
		return 0;
	cfs_error("%s: digest %s is not sha256:<64 hex digits>", what,
		  d ? cfs_printable(pbuf, sizeof(pbuf), d) : "(none)");
	return -1;
}

/* OCI's type for a docker layer: compression from the blob's magic. */
static const char *oci_layer_type(const struct seal_job *j, const char *mt,
				  const char *digest)
{
	unsigned char m[4] = {0};
	char *path = xasprintf("%s/blobs/sha256/%s", j->layout, digest + 7);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool foreign = !strncmp(mt, DOCKER_FOREIGN, strlen(DOCKER_FOREIGN));

	free(path);
	/* docker-archive calls every layer gzip, compressed or not */
	if (fd >= 0 && read(fd, m, 4) == 4) {
		close(fd);
		if (m[0] == 0x1f && m[1] == 0x8b)
			return foreign ? OCI_FOREIGN "+gzip"
				       : OCI_LAYER "+gzip";
		if (m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f &&
		    m[3] == 0xfd)
			return foreign ? NULL : OCI_LAYER "+zstd";
		return foreign ? OCI_FOREIGN : OCI_LAYER;
	}
	if (fd >= 0)
		close(fd);
	/* a foreign layer need not be here: its type says it */
	if (foreign)
		return strstr(mt, ".gzip") ? OCI_FOREIGN "+gzip" : OCI_FOREIGN;
	return NULL;
}

struct json_object *seal_desc_new(const char *mt, const char *digest,
				  int64_t size)
{
	struct json_object *d = json_object_new_object();

	json_object_object_add(d, "mediaType", json_object_new_string(mt));
	json_object_object_add(d, "digest", json_object_new_string(digest));
	json_object_object_add(d, "size", json_object_new_int64(size));
	return d;
}

/* A descriptor's digest and size, checked. */
int seal_desc_get(struct json_object *d, const char *what, const char **digest,
		  int64_t *size)
{
	struct json_object *s;

	*digest = cfs_json_str(d, "digest");
	if (check_digest(*digest, what) < 0)
		return -1;
	if (!json_object_object_get_ex(d, "size", &s) ||
	    !json_object_is_type(s, json_type_int) ||
	    (*size = json_object_get_int64(s)) < 0) {
		cfs_error("%s %s: no valid size", what, *digest);
		return -1;
	}
	return 0;
}

static int convert_layer(const struct seal_job *j, struct json_object *l,
			 struct json_object *layers)
{
	const char *digest, *mt = cfs_json_str(l, "mediaType"), *type = NULL;
	struct json_object *d, *urls;
	int64_t size;
	char pbuf[96];

	if (seal_desc_get(l, "layer", &digest, &size) < 0)
		return -1;
	if (mt &&
	    (!strcmp(mt, DOCKER_LAYER) || !strcmp(mt, DOCKER_LAYER ".gzip") ||
	     !strcmp(mt, DOCKER_FOREIGN) ||
	     !strcmp(mt, DOCKER_FOREIGN ".gzip")))
		type = oci_layer_type(j, mt, digest);
	if (!type) {
		cfs_error(
			"layer %s: media type %s has no OCI equivalent", digest,
			mt ? cfs_printable(pbuf, sizeof(pbuf), mt) : "(none)");
		return -1;
	}
	d = seal_desc_new(type, digest, size);
	if (json_object_object_get_ex(l, "urls", &urls))
		json_object_object_add(d, "urls", json_object_get(urls));
	json_object_array_add(layers, d);
	return 0;
}

/* A docker schema2 manifest as OCI, its config descriptor unchanged. */
struct json_object *seal_docker_to_oci(const struct seal_job *j,
				       struct json_object *m)
{
	struct json_object *o = json_object_new_object(), *c, *ls, *layers;
	const char *cd;
	int64_t cs;

	if (!json_object_object_get_ex(m, "config", &c) ||
	    seal_desc_get(c, "config", &cd, &cs) < 0 ||
	    !json_object_object_get_ex(m, "layers", &ls) ||
	    !json_object_is_type(ls, json_type_array)) {
		cfs_error("docker manifest: no valid config or layers");
		json_object_put(o);
		return NULL;
	}
	layers = json_object_new_array();
	json_object_object_add(o, "schemaVersion", json_object_new_int(2));
	json_object_object_add(o, "mediaType",
			       json_object_new_string(OCI_MANIFEST));
	json_object_object_add(o, "config", seal_desc_new(OCI_CONFIG, cd, cs));
	json_object_object_add(o, "layers", layers);
	for (size_t i = 0; i < json_object_array_length(ls); i++) {
		if (convert_layer(j, json_object_array_get_idx(ls, i), layers) <
		    0) {
			json_object_put(o);
			return NULL;
		}
	}
	return o;
}
