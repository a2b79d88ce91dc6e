// SPDX-License-Identifier: MIT
/*
 * Adding and removing composefs images in podman's additional image store.
 * Order of writes on add: mount, layer files, layers.json, big data,
 * images.json (the commit point); remove goes the other way. A crash in
 * between leaves at worst a layer no image uses, which podman ignores and
 * cfs-podman check reports and sync removes.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "cfs/json.h"
#include "internal.h"
#include "source.h"
#include "cfs/store-layout.h"
#include "cfs/store-undo.h"
#include "cfs/util.h"

struct add_ctx {
	const struct cfs_podman_opts *o;
	const struct cfs_podman_add *a;
	struct pstore p;
	struct psrc src;
	char **names;
	size_t n_names;
	struct pmeta meta;
	char layer_id[65], link[PSTORE_LINK_LEN + 1], diff_digest[72];
};

static void now_rfc3339(char out[32])
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/*
 * The synthetic layer: its id and diff digest come from the manifest's
 * digest with a prefix no tar stream hashes to, so it can never equal a
 * real layer's DiffID (podman would reuse the flat tree for that layer).
 */
static void derive_layer(struct add_ctx *c)
{
	static const char b32[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
	char *s = xasprintf("cfs-layer-id:%s", c->src.digest);
	char hex[65];
	uint8_t raw[32];

	psrc_sha256_hex(c->layer_id, s, strlen(s));
	free(s);
	s = xasprintf("cfs-layer:%s", c->src.digest);
	psrc_sha256_hex(hex, s, strlen(s));
	free(s);
	snprintf(c->diff_digest, sizeof(c->diff_digest), "sha256:%s", hex);
	cfs_unhex(raw, c->layer_id, sizeof(raw));
	for (int i = 0; i < PSTORE_LINK_LEN; i++) {
		int bit = i * 5;
		unsigned v = (raw[bit / 8] << 8 | raw[bit / 8 + 1]) >>
			     (11 - bit % 8);

		c->link[i] = b32[v & 31];
	}
	c->link[PSTORE_LINK_LEN] = '\0';
}

static int write_layer_files(struct add_ctx *c)
{
	char *dir = xasprintf("%s/overlay/%s", c->p.root, c->layer_id);
	char *link = xasprintf("%s/link", dir);
	char *diff = xasprintf("%s/diff", dir);
	char *l = xasprintf("%s/overlay/l/%s", c->p.root, c->link);
	char *ltarget = xasprintf("../%s/diff", c->layer_id);
	int r = -1;

	if (cfs_mkdir_p(dir, 0755) == 0 && chmod(dir, 0755) == 0 &&
	    cfs_write_file_atomic(link, c->link, PSTORE_LINK_LEN, 0644, 0) ==
		    0 &&
	    cfs_symlink_replace(c->meta.mountpoint, diff) == 0 &&
	    cfs_symlink_replace(ltarget, l) == 0)
		r = 0;
	free(dir);
	free(link);
	free(diff);
	free(l);
	free(ltarget);
	return r;
}

static int add_layer_record(struct add_ctx *c)
{
	struct json_object *e = json_object_new_object();
	char now[32];

	if (pstore_find_layer(&c->p, c->layer_id)) {
		json_object_put(e);
		return 0;
	}
	now_rfc3339(now);
	json_object_object_add(e, "id", json_object_new_string(c->layer_id));
	json_object_object_add(e, "created", json_object_new_string(now));
	json_object_object_add(e, "diff-digest",
			       json_object_new_string(c->diff_digest));
	/* what podman images shows (ImageSize takes it with a digest) */
	json_object_object_add(e, "diff-size",
			       json_object_new_int64((int64_t)c->src.size));
	json_object_array_add(c->p.layers, e);
	return pstore_save_layers(&c->p);
}

static char *config_key(const struct add_ctx *c)
{
	return xasprintf("sha256:%s", c->src.id);
}

/* containers-storage names a big data file "=" + base64(key). */
static char *big_data_file(const char *key)
{
	size_t n = strlen(key);
	char *out = xmalloc(4 * ((n + 2) / 3) + 2);

	out[0] = '=';
	EVP_EncodeBlock((unsigned char *)out + 1, (const unsigned char *)key,
			n);
	return out;
}

static int write_big_data(struct add_ctx *c)
{
	char *dir = xasprintf("%s/overlay-images/%s", c->p.root, c->src.id);
	char *key = config_key(c);
	char *cfgname = big_data_file(key);
	char *man = xasprintf("%s/manifest", dir);
	char *cfg = xasprintf("%s/%s", dir, cfgname);
	int r = -1;

	if (cfs_mkdir_p(dir, 0755) == 0 && chmod(dir, 0755) == 0 &&
	    cfs_write_file_atomic(man, c->src.oci, c->src.oci_len, 0644, 0) ==
		    0 &&
	    cfs_write_file_atomic(cfg, c->src.config, c->src.config_len, 0644,
				  0) == 0)
		r = 0;
	free(dir);
	free(key);
	free(cfgname);
	free(man);
	free(cfg);
	return r;
}

static struct json_object *string_array(char **v, size_t n)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

static struct json_object *image_record(struct add_ctx *c)
{
	struct json_object *e = json_object_new_object();
	struct json_object *bn = json_object_new_array();
	struct json_object *bs = json_object_new_object();
	struct json_object *bd = json_object_new_object();
	char *key = config_key(c), *meta = pmeta_format(&c->meta);
	char now[32];

	now_rfc3339(now);
	json_object_array_add(bn, json_object_new_string("manifest"));
	json_object_array_add(bn, json_object_new_string(key));
	json_object_object_add(bs, "manifest",
			       json_object_new_int64(c->src.oci_len));
	json_object_object_add(bs, key,
			       json_object_new_int64(c->src.config_len));
	json_object_object_add(bd, "manifest",
			       json_object_new_string(c->src.oci_digest));
	json_object_object_add(bd, key, json_object_new_string(key));
	json_object_object_add(e, "id", json_object_new_string(c->src.id));
	json_object_object_add(e, "digest",
			       json_object_new_string(c->src.oci_digest));
	json_object_object_add(e, "digests",
			       string_array((char *[]){c->src.oci_digest}, 1));
	json_object_object_add(e, "names", string_array(c->names, c->n_names));
	json_object_object_add(e, "layer", json_object_new_string(c->layer_id));
	json_object_object_add(e, "metadata", json_object_new_string(meta));
	json_object_object_add(e, "big-data-names", bn);
	json_object_object_add(e, "big-data-sizes", bs);
	json_object_object_add(e, "big-data-digests", bd);
	json_object_object_add(
		e, "created",
		json_object_new_string(c->src.created ? c->src.created : now));
	free(key);
	free(meta);
	return e;
}

static int check_names_free(struct add_ctx *c, const char *except_id)
{
	for (size_t i = 0; i < c->n_names; i++) {
		char *where = pname_used(&c->p, c->o, c->names[i], except_id);

		if (where) {
			cfs_error("%s: name already used in %s (a duplicate "
				  "name breaks podman; choose another with "
				  "--name)",
				  c->names[i], where);
			free(where);
			return -1;
		}
	}
	return 0;
}

static int choose_mountpoint(struct add_ctx *c)
{
	c->meta.manifest = xstrdup(c->src.manifest);
	c->meta.digest = xstrdup(c->src.digest);
	c->meta.verity = c->src.verity;
	if (!c->a->mountpoint) {
		c->meta.managed = true;
		c->meta.mountpoint =
			xasprintf("%s/mnt/%s", c->p.root, c->src.id);
		return 0;
	}
	c->meta.mountpoint = realpath(c->a->mountpoint, NULL);
	if (!c->meta.mountpoint) {
		cfs_error("%s: %s", c->a->mountpoint, strerror(errno));
		return -1;
	}
	if (pstore_dir_entries(c->meta.mountpoint) <= 0) {
		cfs_error("%s: not a directory holding the image's tree (not "
			  "mounted?)",
			  c->a->mountpoint);
		return -1;
	}
	c->meta.was_mounted = pmount_is_mounted(c->meta.mountpoint) == 1;
	return 0;
}

static int check_not_pulled(struct add_ctx *c)
{
	char *name = pprimary_image_with_id(c->o, c->src.id);

	if (!name)
		return 0;
	cfs_error("image %.12s is also in podman's own store (as %s), which "
		  "would hide this one: podman rmi it first",
		  c->src.id, name);
	free(name);
	return -1;
}

static int register_new(struct add_ctx *c)
{
	bool mounted_here = false, layer_added = false, made_dir = false;

	if (check_not_pulled(c) < 0 || check_names_free(c, NULL) < 0 ||
	    choose_mountpoint(c) < 0)
		return -1;
	if (c->meta.managed) {
		int m = pmount_is_mounted(c->meta.mountpoint);

		made_dir = access(c->meta.mountpoint, F_OK) < 0;
		if (m < 0 || (m == 0 && pmount_ensure(c->o, &c->p, &c->meta)))
			goto undo;
		mounted_here = m == 0;
	}
	derive_layer(c);
	layer_added = !pstore_find_layer(&c->p, c->layer_id);
	if (write_layer_files(c) < 0 || add_layer_record(c) < 0 ||
	    write_big_data(c) < 0)
		goto undo;
	json_object_array_add(c->p.images, image_record(c));
	if (pstore_save_images(&c->p) == 0)
		return 0;
	pjson_array_remove_id(c->p.images, c->src.id);
undo:
	pstore_remove_big_data(&c->p, c->src.id);
	if (c->layer_id[0] && layer_added) {
		if (pjson_array_remove_id(c->p.layers, c->layer_id))
			pstore_save_layers(&c->p);
		pstore_remove_layer_files(&c->p, c->layer_id);
	}
	if (mounted_here)
		pmount_umount(c->meta.mountpoint);
	/* also when the mount failed: no empty mnt/ID is left */
	if (mounted_here || made_dir)
		rmdir(c->meta.mountpoint);
	return -1;
}

/* The image is there already: same manifest gets the new names. */
static int add_names(struct add_ctx *c, struct json_object *img)
{
	struct pmeta m;
	struct json_object *names;
	bool changed = false;
	int r = -1;

	if (pmeta_parse(img, &m) < 0) {
		cfs_error("image %.12s is in %s but not registered by "
			  "cfs-podman",
			  c->src.id, c->p.root);
		return -1;
	}
	if (strcmp(m.digest, c->src.digest)) {
		cfs_error("image %.12s is already registered from %s "
			  "(another manifest)",
			  c->src.id, m.manifest);
		goto out;
	}
	if (check_names_free(c, c->src.id) < 0)
		goto out;
	if (!json_object_object_get_ex(img, "names", &names) ||
	    !json_object_is_type(names, json_type_array)) {
		names = json_object_new_array();
		json_object_object_add(img, "names", names);
	}
	for (size_t i = 0; i < c->n_names; i++) {
		if (pjson_array_has_str(names, c->names[i]))
			continue;
		json_object_array_add(names,
				      json_object_new_string(c->names[i]));
		changed = true;
	}
	if ((changed && pstore_save_images(&c->p) < 0) ||
	    (m.managed && pmount_ensure(c->o, &c->p, &m) < 0))
		goto out;
	r = 0;
out:
	pmeta_free(&m);
	return r;
}

static int normalize_names(struct add_ctx *c)
{
	const char *const *n = c->a->names;

	for (; n && *n; n++) {
		/*
		 * The image as typed, a short name or an id, stands for the
		 * ref it resolved to: an id names nothing.
		 */
		const char *name = strcmp(*n, c->a->image) ? *n : c->src.ref;
		char *norm = name ? pname_normalize(name) : NULL;

		if (!name)
			continue;
		if (!norm)
			return -1;
		c->names = xrealloc(c->names,
				    (c->n_names + 1) * sizeof(*c->names));
		c->names[c->n_names++] = norm;
	}
	return 0;
}

int cfs_podman_add(const struct cfs_podman_opts *o,
		   const struct cfs_podman_add *a,
		   char id_out[CFS_PODMAN_ID_LEN + 1])
{
	struct add_ctx c = {.o = o, .a = a};
	int r = -1;
	/* Shared: cfs-store rm and gc do not run while an image is added. */
	int store_lock = cfs_store_lock(o->store, false);

	c.p.images_lock = c.p.layers_lock = -1;
	if (store_lock < 0)
		return -1;
	if (psrc_load(&c.src, o->store, a->image) < 0 ||
	    normalize_names(&c) < 0 || pstore_open(&c.p, o, true) < 0 ||
	    pstore_lock(&c.p, true, false) < 0)
		goto out;
	struct json_object *img = pstore_find_image(&c.p, c.src.id);

	r = img ? add_names(&c, img) : register_new(&c);
	if (r == 0)
		memcpy(id_out, c.src.id, CFS_PODMAN_ID_LEN + 1);
out:
	pstore_close(&c.p);
	cfs_store_unlock(store_lock);
	psrc_free(&c.src);
	pmeta_free(&c.meta);
	for (size_t i = 0; i < c.n_names; i++)
		free(c.names[i]);
	free(c.names);
	return r;
}

static bool layer_used_by_other(struct pstore *p, const char *layer,
				const char *id)
{
	size_t n = json_object_array_length(p->images);

	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(p->images, i);
		const char *l = cfs_json_str(e, "layer");
		const char *eid = cfs_json_str(e, "id");

		if (l && !strcmp(l, layer) && eid && strcmp(eid, id))
			return true;
	}
	return false;
}

int pstore_remove_image(struct pstore *p, const struct cfs_podman_opts *o,
			const char *id_in, struct pmeta *meta_out)
{
	char *id = xstrdup(id_in);
	struct json_object *img = pstore_find_image(p, id);
	const char *l = cfs_json_str(img, "layer");
	char *layer = xstrdup(l ? l : "");
	char *who = pcontainer_using(o, id);
	int r = -1;

	memset(meta_out, 0, sizeof(*meta_out));
	if (who) {
		cfs_error("image %.12s is used by container %s: remove the "
			  "container first (podman rm)",
			  id, who);
		goto out;
	}
	if (cfs_image_id_ok(layer) &&
	    (who = pprimary_image_on_layer(o, layer))) {
		cfs_error("podman's own store has a copy of image %.12s as %s "
			  "(made by podman tag): remove it first (podman rmi)",
			  id, who);
		goto out;
	}
	if (pmeta_parse(img, meta_out) < 0)
		memset(meta_out, 0, sizeof(*meta_out));
	pjson_array_remove_id(p->images, id);
	if (pstore_save_images(p) < 0)
		goto out;
	pstore_remove_big_data(p, id);
	if (cfs_image_id_ok(layer) && !layer_used_by_other(p, layer, id)) {
		if (pjson_array_remove_id(p->layers, layer) &&
		    pstore_save_layers(p) < 0)
			goto out;
		pstore_remove_layer_files(p, layer);
	}
	r = 0;
out:
	free(who);
	free(layer);
	free(id);
	return r;
}

int pstore_release_mount(const struct pmeta *m)
{
	if (!m->managed || !m->mountpoint)
		return 0;
	if (pmount_umount(m->mountpoint) < 0)
		return -1;
	if (rmdir(m->mountpoint) < 0 && errno != ENOENT) {
		cfs_error("%s: %s", m->mountpoint, strerror(errno));
		return -1;
	}
	return 0;
}

int cfs_podman_remove(const struct cfs_podman_opts *o, const char *name)
{
	struct pstore p;
	struct json_object *img;
	struct pmeta m = {0};
	int r = -1;

	if (pstore_open(&p, o, false) < 0)
		return -1;
	if (access(p.root, F_OK) < 0) {
		cfs_error("%s: no such image (%s does not exist)", name,
			  p.root);
		goto out;
	}
	if (pstore_lock(&p, true, false) < 0)
		goto out;
	if (pstore_lookup_image(&p, name, &img) < 0)
		goto out;
	if (!img || !cfs_json_str(img, "id")) {
		cfs_error("%s: no such image in %s", name, p.root);
		goto out;
	}
	r = pstore_remove_image(&p, o, cfs_json_str(img, "id"), &m);
	pstore_close(&p);
	if (r == 0 && (r = pstore_release_mount(&m)) < 0)
		cfs_error_prefix("unregistered, but its mount is left");
	pmeta_free(&m);
	return r;
out:
	pstore_close(&p);
	return r;
}
