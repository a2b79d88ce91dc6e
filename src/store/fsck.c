// SPDX-License-Identifier: MIT
/*
 * cfs-store fsck [--repair]: objects named by their content's fs-verity
 * digest, manifests that validate and whose objects are all present, refs
 * that lead to manifests, layer cache records that are intact and name
 * present objects, podman records that agree (cfs_podman_check, the check
 * cfs-podman check runs), no leftovers of dead converters, a root only
 * its owner can enter. --repair moves damaged objects and manifests aside
 * to STORE/damaged/ (evidence is kept) so that the next conversion writes
 * them again, and removes broken refs, records and dead leftovers; the
 * podman records are repaired as cfs-podman sync does.
 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cfs/escape.h"
#include "cfs/layer.h"
#include "cfs/podman.h"
#include "store-tool.h"
#include "cfs/util.h"

struct finding {
	const char *kind;
	char *path;			 /* as on disk, for --repair */
	char *shown;			 /* path escaped, for output */
	char *detail;			 /* escaped */
	uint8_t digest[CFS_DIGEST_SIZE]; /* of an object finding */
	bool is_object;
	struct json_object *images; /* ids of the images using it */
	const char *action;	    /* what --repair did, or NULL */
};

struct fsck {
	const struct cmd_opts *o;
	struct cfs_inventory inv;
	struct dset used;    /* objects the manifests reference */
	struct dset present; /* objects on disk */
	struct dset bad;     /* damaged or missing: value = finding index+1 */
	struct finding *f;
	size_t n_f;
	struct hashed_object *objs;
	size_t n_objs, cap_objs, measured;
	struct store_progress progress;
};

static struct finding *add_finding(struct fsck *c, const char *kind,
				   const char *path, char *detail)
{
	char shown[1024];
	struct finding *f;

	c->f = xrealloc(c->f, (c->n_f + 1) * sizeof(*c->f));
	f = &c->f[c->n_f++];
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->path = xstrdup(path);
	/* Names come from directory listings and records: one line each. */
	f->shown = cfs_printable_dup(path);
	f->detail = xstrdup(cfs_printable_msg(shown, sizeof(shown), detail));
	free(detail);
	f->images = json_object_new_array();
	return f;
}

static void object_finding(struct fsck *c, const char *kind,
			   const uint8_t *digest, char *detail)
{
	char path[CFS_OBJECT_PATH_LEN + 1];
	struct finding *f;
	bool added;

	cfs_object_path(path, digest);
	f = add_finding(c, kind, path, detail);
	memcpy(f->digest, digest, CFS_DIGEST_SIZE);
	f->is_object = true;
	dset_add(&c->bad, digest, &added)->users = (uint32_t)c->n_f;
}

/* --- objects */

static int collect_object(const struct store_object *ob, void *opaque)
{
	struct fsck *c = opaque;
	bool added;

	if (c->n_objs == c->cap_objs) {
		c->cap_objs = c->cap_objs ? 2 * c->cap_objs : 4096;
		c->objs = xrealloc(c->objs, c->cap_objs * sizeof(*c->objs));
	}
	memset(&c->objs[c->n_objs], 0, sizeof(*c->objs));
	memcpy(c->objs[c->n_objs].digest, ob->digest, CFS_DIGEST_SIZE);
	c->objs[c->n_objs++].size = ob->size;
	dset_add(&c->present, ob->digest, &added);
	return 0;
}

static void stray_file(const char *path, void *opaque)
{
	add_finding(opaque, "stray", path,
		    xstrdup("not an object name, or not a regular file"));
}

static int check_objects(struct fsck *c)
{
	char hex[2 * CFS_DIGEST_SIZE + 1];

	if (store_walk_objects(c->o->store, collect_object, stray_file, c,
			       false) < 0)
		return -1;
	store_progress_start(&c->progress, "fsck: objects", c->n_objs);
	c->measured = hash_objects(c->o->store, c->objs, c->n_objs,
				   c->o->threads, &c->progress);
	store_progress_end(&c->progress);
	for (size_t i = 0; i < c->n_objs; i++) {
		struct hashed_object *h = &c->objs[i];

		if (h->error) {
			object_finding(c, "unreadable", h->digest,
				       xstrdup(strerror(h->error)));
		} else if (memcmp(h->actual, h->digest, CFS_DIGEST_SIZE)) {
			cfs_hex(hex, h->actual, CFS_DIGEST_SIZE);
			object_finding(c, "damaged", h->digest,
				       xasprintf("content's fs-verity digest "
						 "is %s (%s)",
						 hex,
						 h->kernel
							 ? "kernel measurement"
							 : "computed"));
		}
	}
	/* referenced but absent */
	for (size_t i = 0; i < c->used.n; i++) {
		struct dset_entry *e = &c->used.entries[i];

		if (!dset_find(&c->present, e->digest))
			object_finding(c, "missing", e->digest,
				       xstrdup("referenced but not in the "
					       "store"));
	}
	return 0;
}

/* Which images use the objects of the findings. */
struct users_ctx {
	struct fsck *c;
	const char *id;
};

static void note_user(const uint8_t *digest, uint64_t size, void *opaque)
{
	struct users_ctx *u = opaque;
	struct dset_entry *e = dset_find(&u->c->bad, digest);
	struct finding *f;
	size_t n;

	if (!e)
		return;
	f = &u->c->f[e->users - 1];
	n = json_object_array_length(f->images);
	if (n && !strcmp(json_object_get_string(
				 json_object_array_get_idx(f->images, n - 1)),
			 u->id))
		return;
	json_object_array_add(f->images, json_object_new_string(u->id));
}

static void find_users(struct fsck *c)
{
	if (!c->bad.n)
		return;
	for (size_t i = 0; i < c->inv.n_images; i++) {
		struct users_ctx u = {c, c->inv.images[i].id};
		char *path = cfs_layout_image_file(c->o->store, u.id,
						   CFS_IMAGE_MANIFEST);

		if (!c->inv.images[i].bad)
			manifest_objects(path, note_user, &u);
		free(path);
	}
}

/* --- manifests, refs, records, podman, .tmp */

/* The fs-verity digest of the manifest's content (hex), or false. */
static bool manifest_digest(const char *store, const char *id, char *hex)
{
	char *path = cfs_layout_image_file(store, id, CFS_IMAGE_MANIFEST);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	uint8_t d[CFS_DIGEST_SIZE];
	struct stat st;
	bool ok = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		  cfs_verity_digest_fd(fd, st.st_size, d) == 0;

	if (ok)
		cfs_hex(hex, d, CFS_DIGEST_SIZE);
	if (fd >= 0)
		close(fd);
	free(path);
	return ok;
}

/* A sealed image's manifest must still measure its seal (cfs/seal.h). */
static void check_seal(struct fsck *c, const struct cfs_inv_image *img)
{
	char got[2 * CFS_DIGEST_SIZE + 1];
	char *rel = NULL;

	if (img->bad_seal) {
		rel = cfs_layout_image_rel(img->id, CFS_IMAGE_SEAL);
		add_finding(c, "bad-seal", rel,
			    xstrdup("is not a seal: the image cannot be "
				    "mounted"));
	} else if (img->seal[0] && !img->bad &&
		   manifest_digest(c->o->store, img->id, got) &&
		   strcmp(got, img->seal)) {
		rel = cfs_layout_image_rel(img->id, CFS_IMAGE_MANIFEST);
		add_finding(c, "seal-mismatch", rel,
			    xasprintf("measures %s, but the image is sealed "
				      "for %s",
				      got, img->seal));
	}
	free(rel);
}

static void check_images(struct fsck *c)
{
	for (size_t i = 0; i < c->inv.n_images; i++) {
		const struct cfs_inv_image *img = &c->inv.images[i];
		char *rel = cfs_layout_image_rel(img->id, CFS_IMAGE_MANIFEST);
		char *json = cfs_layout_image_file(c->o->store, img->id,
						   CFS_IMAGE_CONFIG);
		char *oci = cfs_layout_image_file(c->o->store, img->id,
						  CFS_IMAGE_OCI_MANIFEST);

		if (img->bad)
			add_finding(c, "bad-manifest", rel,
				    xstrdup("does not validate"));
		else if (access(json, F_OK) || access(oci, F_OK))
			add_finding(c, "side-files", rel,
				    xstrdup("its config or OCI manifest is "
					    "missing"));
		check_seal(c, img);
		free(oci);
		free(json);
		free(rel);
	}
	for (size_t i = 0; i < c->inv.n_dangling; i++) {
		char *rel = xasprintf(CFS_STORE_REFS "/%s",
				      c->inv.dangling[i].name);

		add_finding(c, "dangling-ref", rel,
			    xstrdup(c->inv.dangling[i].why));
		free(rel);
	}
}

static void visit_record(const char *name, const struct cfs_layer *l,
			 void *opaque)
{
	struct fsck *c = opaque;

	if (!l) {
		add_finding(c, "bad-record", name,
			    xstrdup("corrupt layer cache record"));
		return;
	}
	for (size_t i = 0; i < l->n_entries; i++) {
		const struct cfs_layer_entry *e = &l->entries[i];

		if (e->has_digest && (!dset_find(&c->present, e->digest) ||
				      dset_find(&c->bad, e->digest))) {
			char path[CFS_OBJECT_PATH_LEN + 1];

			cfs_object_path(path, e->digest);
			add_finding(c, "bad-record", name,
				    xasprintf("names object %s, missing or "
					      "damaged",
					      path));
			return;
		}
	}
}

/* Escaped by add_finding, as cfs-podman check prints it. */
static void podman_finding(const struct cfs_podman_finding *pf, void *opaque)
{
	struct fsck *c = opaque;
	struct finding *f = add_finding(
		c, "podman", pf->subject,
		pf->repaired < 0 ? xasprintf("%s (not repaired: %s)",
					     pf->problem, pf->why)
				 : xstrdup(pf->problem));

	if (pf->repaired == 1)
		f->action = "repaired";
}

/* The AIS's own check (as cfs-podman check; --repair: as its sync). */
static int check_podman(struct fsck *c)
{
	struct cfs_podman_opts po = {.store = c->o->store};
	size_t remaining;

	return cfs_podman_check(&po, c->o->repair, podman_finding, c,
				&remaining);
}

/*
 * The directories that keep other users out (cfs-store(8), PERMISSIONS):
 * fn(store-relative name, mode bits it must not have) for the root, then
 * each private directory that exists.
 */
static void each_private_dir(const char *store,
			     void (*fn)(const char *store, const char *rel,
					mode_t banned, void *opaque),
			     void *opaque)
{
	static const char *const named[] = {CFS_STORE_TMP, CFS_STORE_IMAGES,
					    CFS_STORE_REFS, CFS_STORE_LAYERS};
	char xx[3];

	/*
	 * A root others can list shows only the names of what is in it (a
	 * store on a filesystem's own root is 0755); one they can write to
	 * lets them put things in the way.
	 */
	fn(store, ".", 022, opaque);
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		fn(store, named[i], 077, opaque);
	for (int i = 0; i < 256; i++) {
		snprintf(xx, sizeof(xx), "%02x", i);
		fn(store, xx, 077, opaque);
	}
}

struct loose {
	int n;
	char first[8];
	mode_t first_mode;
	bool repair, failed;
};

/* The directory is opened, not named twice: what is checked is changed. */
static void check_dir(const char *store, const char *rel, mode_t banned,
		      void *opaque)
{
	struct loose *l = opaque;
	char *path = xasprintf("%s/%s", store, rel);
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd >= 0 && fstat(fd, &st) == 0 && (st.st_mode & banned)) {
		if (!l->n++) {
			snprintf(l->first, sizeof(l->first), "%s", rel);
			l->first_mode = st.st_mode & 07777;
		}
		if (l->repair && fchmod(fd, st.st_mode & 07777 & ~banned) < 0)
			l->failed = true;
	}
	if (fd >= 0)
		close(fd);
	free(path);
}

/* Objects are 0644: only the directories keep other users out. */
static void check_private(struct fsck *c)
{
	struct loose l = {0};
	char more[48] = "";

	each_private_dir(c->o->store, check_dir, &l);
	if (!l.n)
		return;
	if (l.n > 1)
		snprintf(more, sizeof(more), ", and %d more directories",
			 l.n - 1);
	add_finding(c, "loose", ".",
		    xasprintf("%s is mode %04o%s: other users can read or "
			      "change objects or manifests",
			      l.first, (unsigned int)l.first_mode, more));
}

static void visit_leftover(const char *rel, void *opaque)
{
	add_finding(opaque, "leftover", rel,
		    xstrdup("left by a process that is gone"));
}

/* --- repair */

static const char *move_aside(struct fsck *c, const char *rel)
{
	int fd = open(c->o->store, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r = fd < 0 ? -1 : cfs_layout_move_aside_at(fd, rel);

	if (fd >= 0)
		close(fd);
	return r == 0 ? "moved to damaged/" : NULL;
}

/*
 * A seal that cannot be read goes aside with its manifest: the image must
 * not mount as if it had never been sealed. Converting it again from its
 * sealed manifest writes both again.
 */
static const char *move_seal_aside(struct fsck *c, const char *rel)
{
	char id[CFS_IMAGE_ID_LEN + 1], *manifest;
	const char *done = NULL;

	if (cfs_layout_image_name(strrchr(rel, '/') + 1, id) != CFS_IMAGE_SEAL)
		return NULL;
	manifest = cfs_layout_image_rel(id, CFS_IMAGE_MANIFEST);
	if (move_aside(c, manifest) && move_aside(c, rel))
		done = "moved to damaged/ with its manifest";
	free(manifest);
	return done;
}

static const char *remove_file(struct fsck *c, const char *rel)
{
	char *path = xasprintf("%s/%s", c->o->store, rel);
	int r = unlink(path);

	free(path);
	return r == 0 ? "removed" : NULL;
}

static const char *make_private(struct fsck *c)
{
	struct loose l = {.repair = true};

	each_private_dir(c->o->store, check_dir, &l);
	return l.failed ? NULL : "made private";
}

static void repair(struct fsck *c)
{
	for (size_t i = 0; i < c->n_f; i++) {
		struct finding *f = &c->f[i];
		const char *k = f->kind;

		if (!strcmp(k, "damaged") || !strcmp(k, "unreadable") ||
		    !strcmp(k, "stray") || !strcmp(k, "bad-manifest") ||
		    !strcmp(k, "seal-mismatch"))
			f->action = move_aside(c, f->path);
		else if (!strcmp(k, "bad-seal"))
			f->action = move_seal_aside(c, f->path);
		else if (!strcmp(k, "dangling-ref") ||
			 !strcmp(k, "bad-record") || !strcmp(k, "leftover"))
			f->action = remove_file(c, f->path);
		else if (!strcmp(k, "loose"))
			f->action = make_private(c);
	}
}

/* --- output */

static void print_text(const struct fsck *c)
{
	for (size_t i = 0; i < c->n_f; i++) {
		const struct finding *f = &c->f[i];
		size_t n = json_object_array_length(f->images);

		printf("%s: %s: %s", f->kind, f->shown, f->detail);
		for (size_t k = 0; k < n; k++)
			printf("%s%s", k ? ", " : "; used by ",
			       json_object_get_string(json_object_array_get_idx(
				       f->images, k)));
		if (f->action)
			printf(" [repair: %s]", f->action);
		putchar('\n');
	}
	printf("%zu objects checked (%zu by kernel measurement), %zu "
	       "images, %zu problems\n",
	       c->n_objs, c->measured, c->inv.n_images, c->n_f);
}

static void print_json_report(const struct fsck *c)
{
	struct json_object *j = json_object_new_object();
	struct json_object *arr = json_object_new_array();

	for (size_t i = 0; i < c->n_f; i++) {
		const struct finding *f = &c->f[i];
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "kind",
				       json_object_new_string(f->kind));
		json_object_object_add(e, "path",
				       json_object_new_string(f->shown));
		json_object_object_add(e, "detail",
				       json_object_new_string(f->detail));
		json_object_object_add(e, "images", json_object_get(f->images));
		json_object_object_add(
			e, "repair",
			f->action ? json_object_new_string(f->action) : NULL);
		json_object_array_add(arr, e);
	}
	json_object_object_add(j, "objects",
			       json_object_new_int64((int64_t)c->n_objs));
	json_object_object_add(j, "kernel_measured",
			       json_object_new_int64((int64_t)c->measured));
	json_object_object_add(j, "images",
			       json_object_new_int64((int64_t)c->inv.n_images));
	json_object_object_add(j, "problems", arr);
	print_json(j);
	json_object_put(j);
}

static void free_fsck(struct fsck *c)
{
	for (size_t i = 0; i < c->n_f; i++) {
		free(c->f[i].path);
		free(c->f[i].shown);
		free(c->f[i].detail);
		json_object_put(c->f[i].images);
	}
	free(c->f);
	free(c->objs);
	dset_free(&c->used);
	dset_free(&c->present);
	dset_free(&c->bad);
	cfs_inventory_free(&c->inv);
}

int cmd_fsck(const struct cmd_opts *o)
{
	struct fsck c = {.o = o};
	/* shared: conversions go on; exclusive to move things aside */
	int lock = cfs_store_lock(o->store, o->repair), r = -1;

	if (lock >= 0 && cfs_inventory_load_all(&c.inv, o->store, true) == 0 &&
	    mark_images(&c.inv, &c.used, false) == 0 &&
	    check_objects(&c) == 0) {
		check_private(&c);
		check_images(&c);
		store_walk_records(o->store, visit_record, &c);
		r = check_podman(&c);
		store_dead_leftovers(o->store, visit_leftover, &c);
		find_users(&c);
		if (o->repair)
			repair(&c);
	}
	cfs_store_unlock(lock);
	if (r < 0)
		fprintf(stderr, TOOL ": fsck: %s\n", cfs_strerror());
	else if (o->json)
		print_json_report(&c);
	else
		print_text(&c);
	r = r < 0 || c.n_f ? 1 : 0;
	free_fsck(&c);
	return r;
}
