// SPDX-License-Identifier: MIT
/*
 * An oci:DIR[:REF] SOURCE read where it is, instead of skopeo's copy of
 * it: the same dir: view in TMP/src (seal.h), made of the manifests, each
 * checked against its descriptor, and of hard links to the blobs (copies
 * where no link can be made). skopeo's copy of every layer into TMP was a
 * third of cfs-seal's time on the bench image. The blobs are checked by
 * what reads them: oci2cfs (config, layers) and skopeo's push (each one
 * against its digest). The image is picked from index.json as skopeo
 * picks it: by REF, else the only entry there is. Every file is opened
 * beneath DIR as oci2cfs opens a layout's: nothing outside it (a symlink
 * out of it, with the right bytes even), no FIFO.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "seal.h"
#include "cfs/escape.h"
#include "cfs/json.h"
#include "cfs/oci.h"
#include "cfs/sha256.h"
#include "cfs/util.h"

#define COPY_CHUNK ((size_t)1 << 20)

struct local {
	struct seal_job *j;
	char *dir; /* the layout */
	int dfd;   /* the layout, opened: its files are opened beneath it */
	char *ref; /* the image's ref.name, or NULL */
};

bool seal_source_local(const char *source)
{
	return !strncmp(source, "oci:", 4);
}

static char *blob_rel(const char *digest)
{
	return xasprintf("blobs/sha256/%s", digest + 7);
}

/* A file of the layout, opened as a hostile directory's (cfs/file-io.h). */
static int open_file(const struct local *l, const char *rel)
{
	int fd = cfs_open_beneath(l->dfd, rel);

	if (fd < 0)
		cfs_error("%s/%s: %s", l->dir, rel, cfs_beneath_strerror(fd));
	return fd;
}

/* JSON of the layout (index.json, a manifest), whole, NUL-free, parsed. */
static struct json_object *parse_json(const uint8_t *data, size_t len,
				      const char *what)
{
	struct json_object *o = NULL;

	if (!memchr(data, '\0', len))
		o = json_tokener_parse((const char *)data);
	if (!json_object_is_type(o, json_type_object)) {
		cfs_error("%s: not a JSON object", what);
		json_object_put(o);
		return NULL;
	}
	return o;
}

/*
 * The layout's file rel, read once (NUL-terminated), unless it is larger
 * than max: -1 then, after "rel: what".
 */
static int read_small(const struct local *l, const char *rel, size_t max,
		      const char *what, uint8_t **data, size_t *len)
{
	int fd = open_file(l, rel), r = -1;
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		cfs_error("%s/%s: %s", l->dir, rel, strerror(errno));
	} else if ((uint64_t)st.st_size > max) {
		cfs_error("%s/%s: %s", l->dir, rel, what);
	} else {
		*len = (size_t)st.st_size;
		*data = xmalloc(*len + 1);
		(*data)[*len] = '\0';
		r = cfs_read_exact(fd, *data, *len);
		if (r < 0) {
			cfs_error("%s/%s: %s", l->dir, rel, strerror(-r));
			free(*data);
		}
	}
	close(fd);
	return r < 0 ? -1 : 0;
}

/* A manifest blob, read once: its size and digest as the descriptor says. */
static int read_blob(const struct local *l, const char *digest, int64_t size,
		     uint8_t **data, size_t *len)
{
	char *rel = blob_rel(digest);
	char hex[65];
	int r;

	if ((uint64_t)size > SEAL_JSON_MAX) {
		cfs_error("%s: a manifest of %lld bytes", digest,
			  (long long)size);
		free(rel);
		return -1;
	}
	r = read_small(l, rel, size, "larger than its descriptor says", data,
		       len);
	free(rel);
	if (r < 0)
		return -1;
	if ((int64_t)*len != size || cfs_sha256_hex(*data, *len, hex) < 0 ||
	    strcmp(hex, digest + 7)) {
		cfs_error("%s: does not match its descriptor", digest);
		free(*data);
		return -1;
	}
	return 0;
}

static int write_src(const struct local *l, const char *name,
		     const uint8_t *data, size_t len)
{
	char *path = xasprintf("%s/%s", l->j->src, name);
	int r = cfs_write_file_atomic(path, data, len, 0644, CFS_ATOMIC_NOSYNC);

	free(path);
	return r;
}

/* In-kernel copy (a reflink where the filesystem has them), else read. */
static int copy_fd(int in, int out)
{
	static char buf[COPY_CHUNK];
	ssize_t n;

	while ((n = copy_file_range(in, NULL, out, NULL, COPY_CHUNK, 0)) > 0)
		;
	if (n == 0)
		return 0;
	if (errno != EXDEV && errno != EINVAL && errno != ENOSYS &&
	    errno != EOPNOTSUPP)
		return -1;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (cfs_write_all(out, buf, n) < 0)
			return -1;
	return n < 0 ? -1 : 0;
}

static int copy_blob(int in, const char *to)
{
	int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	int r = out < 0 ? -1 : copy_fd(in, out);

	if (out >= 0 && close(out) < 0)
		r = -1;
	if (r < 0)
		cfs_error("%s: %s", to, strerror(errno));
	return r;
}

/*
 * The blob as TMP/src/HEX: a hard link to the very file opened (through
 * /proc, as linkat cannot take an fd without CAP_DAC_READ_SEARCH), else
 * a copy of it (another filesystem, protected_hardlinks).
 */
static int link_blob(const struct local *l, const char *digest)
{
	char *rel = blob_rel(digest);
	char *to = xasprintf("%s/%s", l->j->src, digest + 7);
	char proc[32];
	int fd = open_file(l, rel), r = 0;

	if (fd >= 0) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		if (linkat(AT_FDCWD, proc, AT_FDCWD, to, AT_SYMLINK_FOLLOW) <
			    0 &&
		    errno != EEXIST)
			r = copy_blob(fd, to);
		close(fd);
	}
	free(rel);
	free(to);
	return fd < 0 ? -1 : r;
}

static int link_desc(const struct local *l, struct json_object *d,
		     const char *what)
{
	const char *digest;
	int64_t size;

	return seal_desc_get(d, what, &digest, &size) < 0
		       ? -1
		       : link_blob(l, digest);
}

/* An image manifest's config and layers (of an attestation too). */
static int link_blobs(const struct local *l, struct json_object *m)
{
	struct json_object *c, *layers;
	size_t n;

	if (json_object_object_get_ex(m, "config", &c) &&
	    link_desc(l, c, "config") < 0)
		return -1;
	if (!json_object_object_get_ex(m, "layers", &layers))
		return 0;
	if (!json_object_is_type(layers, json_type_array)) {
		cfs_error("layers: not an array");
		return -1;
	}
	n = json_object_array_length(layers);
	for (size_t i = 0; i < n; i++)
		if (link_desc(l, json_object_array_get_idx(layers, i),
			      "layer") < 0)
			return -1;
	return 0;
}

/*
 * The manifest a descriptor names, as the file name says in TMP/src, and
 * the blobs of its images; *out its parsed JSON.
 */
static int take_manifest(const struct local *l, struct json_object *d,
			 const char *name, struct json_object **out)
{
	const char *digest;
	int64_t size;
	uint8_t *data;
	size_t len;
	char *file;
	int r;

	*out = NULL;
	if (seal_desc_get(d, "manifest", &digest, &size) < 0 ||
	    read_blob(l, digest, size, &data, &len) < 0)
		return -1;
	file = name ? xstrdup(name) : xasprintf("%s.manifest.json", digest + 7);
	r = write_src(l, file, data, len);
	free(file);
	if (r == 0 && !(*out = parse_json(data, len, digest)))
		r = -1;
	free(data);
	if (r == 0 && !json_object_object_get_ex(*out, "manifests", NULL))
		r = link_blobs(l, *out);
	return r;
}

/* Each image of an index, its manifest and blobs. */
static int take_entries(const struct local *l, struct json_object *idx)
{
	struct json_object *list, *m;
	size_t n;

	if (!json_object_object_get_ex(idx, "manifests", &list) ||
	    !json_object_is_type(list, json_type_array))
		return 0; /* seal_layout_read says what is wrong */
	n = json_object_array_length(list);
	for (size_t i = 0; i < n; i++) {
		int r = take_manifest(l, json_object_array_get_idx(list, i),
				      NULL, &m);

		json_object_put(m);
		if (r < 0)
			return -1;
	}
	return 0;
}

static bool has_ref(struct json_object *d, const char *ref)
{
	struct json_object *a;
	const char *name;

	if (!json_object_object_get_ex(d, "annotations", &a))
		return false;
	name = cfs_json_str(a, SEAL_REF_ANNOTATION);
	return name && !strcmp(name, ref);
}

/* index.json's entry for the image: by ref, else its only one. */
static struct json_object *pick(const struct local *l, struct json_object *idx)
{
	struct json_object *list;
	char pbuf[96];
	size_t n;

	if (!json_object_object_get_ex(idx, "manifests", &list) ||
	    !json_object_is_type(list, json_type_array)) {
		cfs_error("%s/index.json: no manifests", l->dir);
		return NULL;
	}
	n = json_object_array_length(list);
	for (size_t i = 0; l->ref && i < n; i++)
		if (has_ref(json_object_array_get_idx(list, i), l->ref))
			return json_object_array_get_idx(list, i);
	if (l->ref)
		cfs_error("no image named '%s' in %s/index.json",
			  cfs_printable(pbuf, sizeof(pbuf), l->ref), l->dir);
	else if (n != 1)
		cfs_error("%s/index.json has %zu images: name one, "
			  "oci:DIR:REF",
			  l->dir, n);
	return l->ref || n != 1 ? NULL : json_object_array_get_idx(list, 0);
}

static int take_layout(const struct local *l)
{
	struct json_object *idx = NULL, *top = NULL, *d;
	uint8_t *data;
	size_t len;
	int r = read_small(l, "index.json", SEAL_JSON_MAX, "larger than 64 MiB",
			   &data, &len);

	if (r == 0) {
		idx = parse_json(data, len, "index.json");
		free(data);
	}
	if (!idx)
		return -1;
	d = pick(l, idx);
	r = d ? take_manifest(l, d, "manifest.json", &top) : -1;
	if (r == 0 && json_object_object_get_ex(top, "manifests", NULL))
		r = take_entries(l, top);
	json_object_put(top);
	json_object_put(idx);
	return r;
}

int seal_fetch_local(struct seal_job *j)
{
	const char *rest = j->o->source + 4, *colon = strchr(rest, ':');
	struct local l = {.j = j};
	int r;

	if (cfs_oci_check_policy(j->o->source, j->o->policy) < 0)
		return -1;
	/* skopeo splits DIR:REF at the first colon */
	l.dir = colon ? xstrndup(rest, colon - rest) : xstrdup(rest);
	l.ref = colon && colon[1] ? xstrdup(colon + 1) : NULL;
	l.dfd = open(l.dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (l.dfd < 0)
		cfs_error("%s: %s", l.dir, strerror(errno));
	r = l.dfd < 0 ? -1 : cfs_mkdir_p(j->src, 0700);
	if (r == 0)
		r = take_layout(&l);
	if (l.dfd >= 0)
		close(l.dfd);
	free(l.dir);
	free(l.ref);
	return r;
}
