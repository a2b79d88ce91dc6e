// SPDX-License-Identifier: MIT
/*
 * cfs-seal's OCI layout, made from skopeo's dir: copy of the source: the
 * blobs move over as they are; image manifests become OCI ones (docker.c
 * for docker schema2); each gets the seal annotation, and the index (a
 * docker list becomes an OCI index) points at the sealed manifests. Everything read here came from a
 * registry: digests, sizes and types are checked before use.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "seal.h"
#include "cfs/escape.h"
#include "cfs/json.h"
#include "cfs/seal.h"
#include "cfs/sha256.h"
#include "cfs/util.h"

#define MAX_IMAGES 1000
/* buildkit's attestation manifests in an index: not images */
#define REFTYPE_ANNOTATION "vnd.docker.reference.type"

static const char *serialize(struct json_object *o)
{
	return json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

static int sha256_digest(const void *data, size_t len,
			 char out[SEAL_DIGEST_MAX + 1])
{
	memcpy(out, "sha256:", 7);
	return cfs_sha256_hex(data, len, out + 7);
}

/* Into our temp layout: skopeo reads it back at once, nothing to sync. */
static int write_file(const char *path, const void *data, size_t len)
{
	return cfs_write_file_atomic(path, data, len, 0644, CFS_ATOMIC_NOSYNC);
}

static int write_blob(const struct seal_job *j, const char *data, size_t len,
		      char digest[SEAL_DIGEST_MAX + 1])
{
	char *path;
	int r;

	if (sha256_digest(data, len, digest) < 0)
		return -1;
	path = xasprintf("%s/blobs/sha256/%s", j->layout, digest + 7);
	r = write_file(path, data, len);
	free(path);
	return r;
}

/* skopeo's dir: names blobs by their hex digest: they become our blobs. */
static int move_blobs(const struct seal_job *j)
{
	DIR *d = opendir(j->src);
	struct dirent *e;
	int r = 0;

	if (!d) {
		cfs_error("%s: %s", j->src, strerror(errno));
		return -1;
	}
	while (r == 0 && (e = readdir(d))) {
		char *from, *to;

		if (strlen(e->d_name) != 64 || !cfs_lower_hex(e->d_name, 64))
			continue;
		from = xasprintf("%s/%s", j->src, e->d_name);
		to = xasprintf("%s/blobs/sha256/%s", j->layout, e->d_name);
		if (rename(from, to) < 0) {
			cfs_error("%s: %s", from, strerror(errno));
			r = -1;
		}
		free(from);
		free(to);
	}
	closedir(d);
	return r;
}

/*
 * A manifest file of the dir: copy, checked against its descriptor when
 * there is one (digest non-NULL), parsed as a JSON object.
 */
static int read_manifest(const struct seal_job *j, const char *name,
			 const char *digest, int64_t size, uint8_t **data,
			 size_t *len, struct json_object **obj)
{
	char *path = xasprintf("%s/%s", j->src, name);
	char got[SEAL_DIGEST_MAX + 1];
	const char *what = digest ? digest : "manifest";
	int r = cfs_read_file(path, data, len);

	free(path);
	if (r < 0)
		return -1;
	if (*len > SEAL_JSON_MAX) {
		cfs_error("%s: larger than %zu bytes", what, SEAL_JSON_MAX);
		r = -1;
	} else if (digest && ((int64_t)*len != size ||
			      sha256_digest(*data, *len, got) < 0 ||
			      strcmp(got, digest))) {
		cfs_error("%s: does not match its descriptor", what);
		r = -1;
	} else if (memchr(*data, '\0', *len)) {
		cfs_error("%s: a NUL byte in JSON", what);
		r = -1;
	} else {
		*obj = json_tokener_parse((const char *)*data);
		if (!json_object_is_type(*obj, json_type_object)) {
			cfs_error("%s: not a JSON object", what);
			json_object_put(*obj);
			r = -1;
		}
	}
	if (r < 0)
		free(*data);
	return r;
}

/* The media type a manifest says, else the one its fields imply. */
static const char *media_type(struct json_object *m)
{
	const char *mt = cfs_json_str(m, "mediaType");

	if (mt)
		return mt;
	if (json_object_object_get_ex(m, "manifests", NULL))
		return OCI_INDEX;
	return json_object_object_get_ex(m, "config", NULL) ? OCI_MANIFEST
							    : "(none)";
}

/* One image manifest: kept as it is (OCI) or converted (docker). */
static int load_image(const struct seal_job *j, struct seal_image *img,
		      uint8_t *data, size_t len, struct json_object *m)
{
	const char *mt = media_type(m), *cd;
	struct json_object *c;
	char pbuf[96];
	int64_t cs;

	if (!strcmp(mt, OCI_MANIFEST)) {
		img->manifest = m;
		img->orig = data;
		img->orig_len = len;
	} else if (!strcmp(mt, DOCKER_MANIFEST)) {
		img->manifest = seal_docker_to_oci(j, m);
		json_object_put(m);
		free(data);
		if (!img->manifest)
			return -1;
	} else {
		cfs_error("manifest type %s cannot carry a seal",
			  cfs_printable(pbuf, sizeof(pbuf), mt));
		json_object_put(m);
		free(data);
		return -1;
	}
	if (!json_object_object_get_ex(img->manifest, "config", &c) ||
	    seal_desc_get(c, "config", &cd, &cs) < 0)
		return -1;
	strcpy(img->config, cd);
	return 0;
}

static char *platform_of(struct json_object *entry)
{
	struct json_object *p;
	const char *os, *arch, *variant;
	char *s, *out;

	if (!json_object_object_get_ex(entry, "platform", &p))
		return NULL;
	os = cfs_json_str(p, "os");
	arch = cfs_json_str(p, "architecture");
	variant = cfs_json_str(p, "variant");
	if (!os || !arch)
		return NULL;
	s = variant ? xasprintf("%s/%s/%s", os, arch, variant)
		    : xasprintf("%s/%s", os, arch);
	out = cfs_printable_dup(s);
	free(s);
	return out;
}

static bool is_attestation(struct json_object *entry)
{
	struct json_object *a;

	return json_object_object_get_ex(entry, "annotations", &a) &&
	       json_object_object_get_ex(a, REFTYPE_ANNOTATION, NULL);
}

static int load_entry(struct seal_job *j, struct json_object *entry,
		      struct seal_image *img)
{
	const char *digest, *mt = cfs_json_str(entry, "mediaType");
	struct json_object *m;
	uint8_t *data;
	size_t len;
	int64_t size;
	char *name;
	int r;

	if (seal_desc_get(entry, "index entry", &digest, &size) < 0)
		return -1;
	if (mt && (!strcmp(mt, OCI_INDEX) || !strcmp(mt, DOCKER_LIST))) {
		cfs_error("index entry %s: a nested index (not supported)",
			  digest);
		return -1;
	}
	name = xasprintf("%s.manifest.json", digest + 7);
	r = read_manifest(j, name, digest, size, &data, &len, &m);
	free(name);
	if (r < 0)
		return -1;
	img->platform = platform_of(entry);
	if (is_attestation(entry)) {
		img->skip = true;
		img->size = len;
		json_object_put(m);
		r = write_blob(j, (const char *)data, len, img->digest);
		free(data);
		return r;
	}
	if (load_image(j, img, data, len, m) < 0) {
		cfs_error_prefix("index entry %s", digest);
		return -1;
	}
	json_object_object_add(entry, "mediaType",
			       json_object_new_string(OCI_MANIFEST));
	return 0;
}

static int load_index(struct seal_job *j, struct json_object *idx)
{
	struct json_object *list;
	size_t n;

	j->index = idx;
	json_object_object_add(idx, "mediaType",
			       json_object_new_string(OCI_INDEX));
	if (!json_object_object_get_ex(idx, "manifests", &list) ||
	    !json_object_is_type(list, json_type_array) ||
	    !(n = json_object_array_length(list)) || n > MAX_IMAGES) {
		cfs_error("index: no manifests (or more than %d)", MAX_IMAGES);
		return -1;
	}
	j->img = xcalloc(n, sizeof(*j->img));
	j->cap = n;
	for (j->n = 0; j->n < n; j->n++)
		if (load_entry(j, json_object_array_get_idx(list, j->n),
			       &j->img[j->n]) < 0)
			return -1;
	return 0;
}

int seal_layout_read(struct seal_job *j)
{
	static const char layout_file[] = "{\"imageLayoutVersion\":\"1.0.0\"}";
	char *blobs = xasprintf("%s/blobs/sha256", j->layout);
	char *file = xasprintf("%s/oci-layout", j->layout);
	struct json_object *m;
	uint8_t *data;
	size_t len;
	int r = cfs_mkdir_p(blobs, 0700);
	const char *mt;

	if (r == 0)
		r = write_file(file, layout_file, strlen(layout_file));
	free(blobs);
	free(file);
	if (r < 0 || move_blobs(j) < 0 ||
	    read_manifest(j, "manifest.json", NULL, 0, &data, &len, &m) < 0)
		return -1;
	mt = media_type(m);
	if (!strcmp(mt, OCI_INDEX)) {
		j->index_orig = data;
		j->index_orig_len = len;
		return load_index(j, m);
	}
	if (!strcmp(mt, DOCKER_LIST)) {
		free(data);
		return load_index(j, m);
	}
	j->img = xcalloc(1, sizeof(*j->img));
	j->n = j->cap = 1;
	return load_image(j, j->img, data, len, m);
}

static int write_index_json(const struct seal_job *j, struct json_object *list)
{
	struct json_object *idx = json_object_new_object();
	char *path = xasprintf("%s/index.json", j->layout);
	const char *s;
	int r;

	json_object_object_add(idx, "schemaVersion", json_object_new_int(2));
	json_object_object_add(idx, "manifests", list);
	s = serialize(idx);
	r = write_file(path, s, strlen(s));
	json_object_put(idx);
	free(path);
	return r;
}

static struct json_object *ref_entry(const char *mt, const char *digest,
				     int64_t size, const char *ref)
{
	struct json_object *e = seal_desc_new(mt, digest, size);
	struct json_object *a = json_object_new_object();

	json_object_object_add(a, SEAL_REF_ANNOTATION,
			       json_object_new_string(ref));
	json_object_object_add(e, "annotations", a);
	return e;
}

/* Writes a manifest's bytes as a blob; the image's digest and size. */
static int put_image(const struct seal_job *j, struct seal_image *img,
		     const char *data, size_t len)
{
	img->size = len;
	return write_blob(j, data, len, img->digest);
}

/*
 * oci2cfs refuses a manifest whose seal it does not convert to: a seal the
 * source has (checked after the conversion, by old_seal) is taken out of
 * what is converted. The seal is no input of D.
 */
static bool drop_old_seal(struct seal_image *img)
{
	struct json_object *ann;

	if (!json_object_object_get_ex(img->manifest, "annotations", &ann) ||
	    !json_object_object_get_ex(ann, CFS_SEAL_ANNOTATION, NULL))
		return false;
	json_object_object_del(ann, CFS_SEAL_ANNOTATION);
	return true;
}

int seal_layout_unsealed(struct seal_job *j)
{
	struct json_object *list = json_object_new_array();

	for (size_t i = 0; i < j->n; i++) {
		struct seal_image *img = &j->img[i];
		bool dropped = drop_old_seal(img);
		const char *s = img->orig && !dropped
					? (const char *)img->orig
					: serialize(img->manifest);
		char ref[32];

		if (img->skip)
			continue;
		if (put_image(j, img, s,
			      img->orig && !dropped ? img->orig_len
						    : strlen(s)) < 0) {
			json_object_put(list);
			return -1;
		}
		snprintf(ref, sizeof(ref), "cfs-seal-%zu", i);
		json_object_array_add(list, ref_entry(OCI_MANIFEST, img->digest,
						      (int64_t)img->size, ref));
	}
	return write_index_json(j, list);
}

/*
 * The manifest's seal as the source has it: none, or the same D (the
 * bytes stay, and so does the digest), or another D or a malformed one,
 * which only --reseal replaces.
 */
static int old_seal(const struct seal_job *j, const struct seal_image *img,
		    const char *what)
{
	uint8_t d[CFS_DIGEST_SIZE];
	char hex[2 * CFS_DIGEST_SIZE + 1];
	int r;

	if (!img->orig)
		return 0;
	r = cfs_seal_read(img->orig, img->orig_len, what, d);
	if (r == 1)
		cfs_hex(hex, d, CFS_DIGEST_SIZE);
	if (r == 1 && !strcmp(hex, img->seal))
		return 1;
	if (r == 0 || j->o->reseal)
		return 0;
	if (r == 1)
		cfs_error("%s: sealed with %s, but converts to %s (--reseal "
			  "replaces the seal)",
			  what, hex, img->seal);
	else
		cfs_error_prefix("--reseal replaces it");
	return -1;
}

static int seal_one(const struct seal_job *j, struct seal_image *img)
{
	struct json_object *ann;
	char what[SEAL_DIGEST_MAX + 64];
	const char *s;
	int r;

	snprintf(what, sizeof(what), "manifest %s", img->digest);
	r = old_seal(j, img, what);
	if (r < 0)
		return -1;
	if (r == 1)
		return put_image(j, img, (const char *)img->orig,
				 img->orig_len);
	if (!json_object_object_get_ex(img->manifest, "annotations", &ann)) {
		ann = json_object_new_object();
		json_object_object_add(img->manifest, "annotations", ann);
	}
	if (!json_object_is_type(ann, json_type_object)) {
		cfs_error("%s: annotations is not an object", what);
		return -1;
	}
	json_object_object_add(ann, CFS_SEAL_ANNOTATION,
			       json_object_new_string(img->seal));
	s = serialize(img->manifest);
	return put_image(j, img, s, strlen(s));
}

/*
 * The index with each entry pointing at its sealed manifest. When every
 * entry already did (an OCI index sealed before), its bytes stay, and so
 * does its digest.
 */
static int seal_index(struct seal_job *j, int64_t *size)
{
	struct json_object *list;
	const char *s;
	bool changed = !j->index_orig;

	json_object_object_get_ex(j->index, "manifests", &list);
	for (size_t i = 0; i < j->n; i++) {
		struct json_object *e = json_object_array_get_idx(list, i);
		const char *old = cfs_json_str(e, "digest");

		changed = changed || !old || strcmp(old, j->img[i].digest);
		json_object_object_add(
			e, "digest", json_object_new_string(j->img[i].digest));
		json_object_object_add(
			e, "size",
			json_object_new_int64((int64_t)j->img[i].size));
	}
	if (!changed) {
		*size = (int64_t)j->index_orig_len;
		return write_blob(j, (const char *)j->index_orig,
				  j->index_orig_len, j->top);
	}
	s = serialize(j->index);
	*size = (int64_t)strlen(s);
	return write_blob(j, s, strlen(s), j->top);
}

int seal_layout_sealed(struct seal_job *j)
{
	struct json_object *list;
	int64_t size;

	for (size_t i = 0; i < j->n; i++)
		if (!j->img[i].skip && seal_one(j, &j->img[i]) < 0)
			return -1;
	if (j->index) {
		if (seal_index(j, &size) < 0)
			return -1;
	} else {
		strcpy(j->top, j->img[0].digest);
		size = (int64_t)j->img[0].size;
	}
	list = json_object_new_array();
	json_object_array_add(list,
			      ref_entry(j->index ? OCI_INDEX : OCI_MANIFEST,
					j->top, size, "cfs-seal"));
	return write_index_json(j, list);
}
