// SPDX-License-Identifier: MIT
/*
 * OCI image layouts (a directory or an oci-archive tar): index.json, nested
 * indexes, choosing a manifest by ref and platform, then the manifest and
 * config blobs, each checked against its descriptor.
 */
#include <inttypes.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include "cfs/json.h"
#include "internal.h"
#include "cfs/util.h"

#define MAX_INDEX_DEPTH 8
#define MAX_LISTED 12
/*
 * Index entries read in all, over every nested index (a nested index
 * listed again counts again): bounds the walk of an index tree that fans
 * out, which would otherwise grow exponentially with its depth.
 */
#define MAX_INDEX_ENTRIES 10000

/* An image manifest found in the index tree. */
struct cand {
	char *media_type;
	struct oci_digest digest;
	uint64_t size;
	char *os, *arch, *variant;
	char *ref;     /* own or inherited from an enclosing index entry */
	int ref_depth; /* depth of the index entry that gave ref */
	bool keep;
};

/* A nested index already read: the candidates it gave, [start, end). */
struct visited {
	struct oci_digest digest;
	size_t start, end;
	int depth; /* of the entry that listed it when it was read */
};

struct cands {
	struct cand *v;
	size_t n, cap;
	size_t entries;	   /* index entries seen, against MAX_INDEX_ENTRIES */
	void *seen;	   /* tsearch tree of struct visited, by digest */
	char *unsupported; /* first manifest media type we cannot read */
};

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void cands_free(struct cands *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].media_type);
		free(c->v[i].os);
		free(c->v[i].arch);
		free(c->v[i].variant);
		free(c->v[i].ref);
	}
	free(c->v);
	tdestroy(c->seen, free);
	free(c->unsupported);
}

/* blobs/<alg>/<hex>: safe because the digest was validated. */
static char *blob_path(const struct oci_digest *d)
{
	return xasprintf("blobs/%.*s/%s", (int)d->hex_off - 1, d->str,
			 d->str + d->hex_off);
}

static int check_size(uint64_t want, uint64_t got, const char *what,
		      const char *digest)
{
	if (want == got)
		return 0;
	cfs_error("%s %s: size mismatch: descriptor says %" PRIu64
		  ", blob has %s%" PRIu64,
		  what, digest, want, got > want ? "more than " : "",
		  got > want ? want : got);
	return -1;
}

/* Reads a small blob whole, checking its size and digest. */
static int read_blob(const struct oci_source *src, const struct oci_digest *d,
		     uint64_t size, const char *what, uint8_t **data,
		     size_t *len)
{
	char *path;
	int r;

	if (size > OCI_JSON_MAX) {
		cfs_error("%s %s: size %" PRIu64 " exceeds the %zu byte limit",
			  what, d->str, size, OCI_JSON_MAX);
		return -1;
	}
	path = blob_path(d);
	r = oci_source_read_all(src, path, size, data, len);
	free(path);
	if (r < 0) {
		cfs_error_prefix("%s", what);
		return -1;
	}
	if (check_size(size, *len, what, d->str) < 0)
		goto bad;
	if (oci_digest_check_mem(d, *data, *len) < 0) {
		cfs_error_prefix("%s", what);
		goto bad;
	}
	return 0;
bad:
	free(*data);
	*data = NULL;
	return -1;
}

static bool is_index_type(const char *mt)
{
	return mt && (!strcmp(mt, OCI_MT_INDEX) || !strcmp(mt, DOCKER_MT_LIST));
}

static bool is_manifest_type(const char *mt)
{
	return mt && (!strcmp(mt, OCI_MT_MANIFEST) ||
		      !strcmp(mt, DOCKER_MT_MANIFEST));
}

static struct cand *new_cand(struct cands *c)
{
	struct cand *k;

	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->v = xrealloc(c->v, c->cap * sizeof(*c->v));
	}
	k = &c->v[c->n++];
	memset(k, 0, sizeof(*k));
	return k;
}

static void add_cand(struct cands *c, const struct oci_desc *d, const char *ref,
		     int ref_depth)
{
	struct cand *k = new_cand(c);

	k->media_type = xstrdup(d->media_type);
	k->digest = d->digest;
	k->size = d->size;
	k->os = dup_or_null(d->os);
	k->arch = dup_or_null(d->arch);
	k->variant = dup_or_null(d->variant);
	k->ref = dup_or_null(ref);
	k->ref_depth = ref_depth;
}

static int count_entries(struct cands *c, size_t n)
{
	c->entries += n;
	if (c->entries <= MAX_INDEX_ENTRIES)
		return 0;
	cfs_error("index: more than %d entries in all, counting nested "
		  "indexes",
		  MAX_INDEX_ENTRIES);
	return -1;
}

/*
 * A nested index listed again is not read again: its candidates are
 * copied, with the ref of this listing where theirs came from outside it.
 */
static int copy_visited(struct cands *c, const struct visited *v,
			const char *ref, int ref_depth, int depth)
{
	if (count_entries(c, v->end - v->start) < 0)
		return -1;
	for (size_t i = v->start; i < v->end; i++) {
		struct cand *k = new_cand(c), *from = &c->v[i];
		bool outer = from->ref_depth <= v->depth;

		k->media_type = xstrdup(from->media_type);
		k->digest = from->digest;
		k->size = from->size;
		k->os = dup_or_null(from->os);
		k->arch = dup_or_null(from->arch);
		k->variant = dup_or_null(from->variant);
		k->ref = dup_or_null(outer ? ref : from->ref);
		k->ref_depth =
			outer ? ref_depth : from->ref_depth - v->depth + depth;
	}
	return 0;
}

static int visited_cmp(const void *a, const void *b)
{
	const struct visited *x = a, *y = b;

	return strcmp(x->digest.str, y->digest.str);
}

static const struct visited *find_visited(struct cands *c,
					  const struct oci_digest *d)
{
	struct visited key = {.digest = *d};
	void *hit = tfind(&key, &c->seen, visited_cmp);

	return hit ? *(struct visited **)hit : NULL;
}

static void add_visited(struct cands *c, const struct oci_digest *d,
			size_t start, int depth)
{
	struct visited *v = xmalloc(sizeof(*v));

	*v = (struct visited){*d, start, c->n, depth};
	if (!tsearch(v, &c->seen, visited_cmp))
		free(v); /* out of memory: only costs a second read */
}

static int flatten(const struct oci_source *src, const uint8_t *data,
		   size_t len, const char *what, const char *ref, int ref_depth,
		   int depth, struct cands *c);

static int flatten_nested(const struct oci_source *src,
			  const struct oci_desc *d, const char *ref,
			  int ref_depth, int depth, struct cands *c)
{
	const struct visited *v = find_visited(c, &d->digest);
	uint8_t *data;
	size_t len, start = c->n;
	int r;

	if (v)
		return copy_visited(c, v, ref, ref_depth, depth);
	if (depth >= MAX_INDEX_DEPTH) {
		cfs_error("index %s: indexes nested too deeply", d->digest.str);
		return -1;
	}
	if (read_blob(src, &d->digest, d->size, "index", &data, &len) < 0)
		return -1;
	r = flatten(src, data, len, "index", ref, ref_depth, depth + 1, c);
	free(data);
	if (r == 0)
		add_visited(c, &d->digest, start, depth);
	return r;
}

static int flatten_entry(const struct oci_source *src, struct json_object *o,
			 const char *ref, int ref_depth, int depth,
			 struct cands *c)
{
	struct oci_desc d;
	char pbuf[96];

	if (oci_desc_parse(&d, o, "index entry") < 0)
		return -1;
	if (d.ref) {
		ref = d.ref;
		ref_depth = depth;
	}
	if (is_index_type(d.media_type))
		return flatten_nested(src, &d, ref, ref_depth, depth, c);
	if (is_manifest_type(d.media_type))
		add_cand(c, &d, ref, ref_depth);
	else if (!c->unsupported)
		c->unsupported =
			xstrdup(d.media_type ? cfs_printable(pbuf, sizeof(pbuf),
							     d.media_type)
					     : "(none)");
	return 0;
}

/* Collects every image manifest reachable from an index document. */
static int flatten(const struct oci_source *src, const uint8_t *data,
		   size_t len, const char *what, const char *ref, int ref_depth,
		   int depth, struct cands *c)
{
	struct json_object *idx, *list;
	int r = 0;

	if (oci_json_parse(&idx, data, len, what) < 0)
		return -1;
	list = json_object_is_type(idx, json_type_object)
		       ? oci_json_array(idx, "manifests")
		       : NULL;
	if (!list) {
		cfs_error("%s: no manifests array", what);
		r = -1;
	}
	if (!r)
		r = count_entries(c, json_object_array_length(list));
	for (size_t i = 0; !r && list && i < json_object_array_length(list);
	     i++)
		r = flatten_entry(src, json_object_array_get_idx(list, i), ref,
				  ref_depth, depth, c);
	json_object_put(idx);
	return r;
}

static void describe(struct cfs_buf *b, const struct cand *k)
{
	char pbuf[96];
	const char *s = k->ref ? cfs_printable(pbuf, sizeof(pbuf), k->ref)
			       : k->digest.str;

	if (b->len)
		cfs_buf_append(b, ", ", 2);
	cfs_buf_append(b, s, strlen(s));
	if (k->os && k->arch) {
		char o[40], a[40], v[40];

		s = xasprintf(" (%s/%s%s%s)",
			      cfs_printable(o, sizeof(o), k->os),
			      cfs_printable(a, sizeof(a), k->arch),
			      k->variant ? "/" : "",
			      cfs_printable(v, sizeof(v),
					    k->variant ? k->variant : ""));
		cfs_buf_append(b, s, strlen(s));
		free((char *)s);
	}
}

/* "a (linux/amd64), b (linux/arm64)" of the kept (or all) candidates. */
static char *list_cands(const struct cands *c, bool kept_only)
{
	struct cfs_buf b = {0};
	size_t listed = 0;

	for (size_t i = 0; i < c->n; i++) {
		if (kept_only && !c->v[i].keep)
			continue;
		if (listed++ == MAX_LISTED) {
			cfs_buf_append(&b, ", ...", 5);
			break;
		}
		describe(&b, &c->v[i]);
	}
	if (!listed)
		cfs_buf_append(&b, "none", 4);
	cfs_buf_append(&b, "", 1);
	return (char *)b.data;
}

static int keep_by_ref(struct cands *c, const char *ref)
{
	int best = 0;
	char *list, pbuf[96];

	for (size_t i = 0; i < c->n; i++) {
		int l = c->v[i].ref ? oci_ref_match(ref, c->v[i].ref) : 0;

		best = l > best ? l : best;
	}
	for (size_t i = 0; i < c->n; i++)
		c->v[i].keep =
			c->v[i].ref && oci_ref_match(ref, c->v[i].ref) == best;
	if (best)
		return 0;
	list = list_cands(c, false);
	cfs_error("no manifest matching ref '%s' (available: %s)",
		  cfs_printable(pbuf, sizeof(pbuf), ref), list);
	free(list);
	return -1;
}

/* Number of distinct manifests among the kept candidates; *first gets one. */
static size_t count_kept(const struct cands *c, const struct cand **first)
{
	size_t n = 0;

	*first = NULL;
	for (size_t i = 0; i < c->n; i++) {
		if (!c->v[i].keep)
			continue;
		if (!*first)
			*first = &c->v[i];
		if (strcmp((*first)->digest.str, c->v[i].digest.str))
			n++;
	}
	return *first ? n + 1 : 0;
}

static void keep_by_platform(struct cands *c, const struct oci_platform *p)
{
	for (size_t i = 0; i < c->n; i++)
		c->v[i].keep = c->v[i].keep &&
			       oci_platform_match(p, c->v[i].os, c->v[i].arch,
						  c->v[i].variant);
}

static int select_by_platform(struct cands *c, const char *platform,
			      const struct cand **out)
{
	struct oci_platform p;
	bool *before = xcalloc(c->n + 1, sizeof(bool));
	size_t n;
	char *list;

	if (oci_platform_parse(&p, platform) < 0) {
		free(before);
		return -1;
	}
	for (size_t i = 0; i < c->n; i++)
		before[i] = c->v[i].keep;
	keep_by_platform(c, &p);
	n = count_kept(c, out);
	if (!n && !platform && p.variant[0]) {
		/* the host's variant is a preference, not a requirement */
		p.variant[0] = '\0';
		for (size_t i = 0; i < c->n; i++)
			c->v[i].keep = before[i];
		keep_by_platform(c, &p);
		n = count_kept(c, out);
	}
	for (size_t i = 0; n != 1 && i < c->n; i++)
		c->v[i].keep = before[i];
	free(before);
	if (n == 1)
		return 0;
	list = list_cands(c, true);
	cfs_error("%s for platform %s/%s%s%s; choose with a ref or platform "
		  "(available: %s)",
		  n ? "several manifests" : "no manifest", p.os, p.arch,
		  p.variant[0] ? "/" : "", p.variant, list);
	free(list);
	return -1;
}

/*
 * With a ref, only manifests whose ref name matches (oci_ref_match) remain.
 * A single remaining manifest is taken unless an explicit platform says
 * otherwise (its index entry's, else its config's); several are narrowed
 * by platform (given, else the host's).
 */
static int select_cand(struct cands *c, const char *ref, const char *platform,
		       const struct cand **out)
{
	const struct cand *one;

	if (!c->n) {
		cfs_error("index: no image manifest%s%s",
			  c->unsupported ? "; unsupported manifest media type "
					 : "",
			  c->unsupported ? c->unsupported : "");
		return -1;
	}
	for (size_t i = 0; i < c->n; i++)
		c->v[i].keep = true;
	if (ref && keep_by_ref(c, ref) < 0)
		return -1;
	if (count_kept(c, &one) == 1 && (!platform || !one->os || !one->arch)) {
		*out = one;
		return 0;
	}
	return select_by_platform(c, platform, out);
}

static int check_layer_blobs(struct cfs_oci_image *img)
{
	struct oci_priv *priv = oci_priv(img);
	uint64_t size;
	char what[48];

	priv->layer_paths = xcalloc(img->n_layers + 1, sizeof(char *));
	for (size_t i = 0; i < img->n_layers; i++) {
		struct oci_digest d;

		snprintf(what, sizeof(what), "layer %zu", i + 1);
		oci_digest_parse(&d, img->layers[i].digest);
		priv->layer_paths[i] = blob_path(&d);
		if (oci_source_size(&priv->src, priv->layer_paths[i], &size) <
		    0) {
			cfs_error_prefix("%s", what);
			return -1;
		}
		if (check_size(img->layers[i].size, size, what, d.str) < 0)
			return -1;
	}
	return 0;
}

static int load_config(struct cfs_oci_image *img, const struct oci_desc *cfg)
{
	size_t len;

	if (read_blob(&oci_priv(img)->src, &cfg->digest, cfg->size, "config",
		      &img->config, &len) < 0)
		return -1;
	img->config_len = len;
	strcpy(img->config_digest, cfg->digest.str);
	if (oci_config_parse(img, img->config, img->config_len) < 0)
		return -1;
	return check_layer_blobs(img);
}

static int manifest_type_ok(struct json_object *m, const struct cand *k)
{
	const char *mt = json_object_is_type(m, json_type_object)
				 ? cfs_json_str(m, "mediaType")
				 : NULL;
	char pbuf[96];

	if (mt && strcmp(mt, k->media_type)) {
		cfs_error("manifest %s: media type %s differs from the index's",
			  k->digest.str, cfs_printable(pbuf, sizeof(pbuf), mt));
		return -1;
	}
	return 0;
}

static int load_manifest(struct cfs_oci_image *img, const struct cand *k)
{
	struct json_object *m;
	struct oci_desc cfg;
	size_t len;
	int r = -1;

	if (read_blob(&oci_priv(img)->src, &k->digest, k->size, "manifest",
		      &img->manifest, &len) < 0)
		return -1;
	img->manifest_len = len;
	if (oci_json_parse(&m, img->manifest, len, "manifest") < 0)
		return -1;
	if (manifest_type_ok(m, k) == 0 &&
	    oci_manifest_parse(img, m, &cfg) == 0)
		r = load_config(img, &cfg);
	json_object_put(m);
	return r;
}

static int check_layout_file(const struct oci_source *src)
{
	struct json_object *o;
	uint8_t *data;
	size_t len;
	int r;

	if (oci_source_read_all(src, "oci-layout", 4096, &data, &len) < 0)
		return -1;
	r = oci_json_parse(&o, data, len, "oci-layout");
	free(data);
	if (r < 0)
		return -1;
	if (!json_object_is_type(o, json_type_object) ||
	    !cfs_json_str(o, "imageLayoutVersion")) {
		cfs_error("oci-layout: no imageLayoutVersion");
		r = -1;
	}
	json_object_put(o);
	return r;
}

int oci_open_layout(struct cfs_oci_image *img, const char *ref,
		    const char *platform)
{
	const struct oci_source *src = &oci_priv(img)->src;
	struct cands c = {0};
	const struct cand *k;
	uint8_t *data;
	size_t len;
	int r;

	if (check_layout_file(src) < 0 ||
	    oci_source_read_all(src, "index.json", OCI_JSON_MAX, &data, &len) <
		    0)
		return -1;
	if (len > OCI_JSON_MAX) {
		cfs_error("index.json: larger than %zu bytes", OCI_JSON_MAX);
		free(data);
		return -1;
	}
	r = flatten(src, data, len, "index.json", NULL, -1, 0, &c);
	free(data);
	if (!r)
		r = select_cand(&c, ref, platform, &k);
	if (!r) {
		img->ref_name = dup_or_null(k->ref);
		r = load_manifest(img, k);
	}
	if (!r && (!k->os || !k->arch))
		r = oci_config_check_platform(img, platform);
	cands_free(&c);
	return r;
}
