// SPDX-License-Identifier: MIT
/*
 * The one check of an additional image store, for cfs-podman check/sync
 * and cfs-store fsck: do the records, their files and the mounts agree?
 * Each problem goes to the caller's callback as a finding. With repair,
 * what can be fixed safely is (a registered image whose mount is missing
 * is mounted, leftovers of interrupted writes and records whose manifest
 * is gone are removed, a records file that does not parse is moved aside)
 * before the finding is passed on.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfs/json.h"
#include "internal.h"
#include "cfs/store-layout.h"
#include "cfs/util.h"

struct checker {
	const struct cfs_podman_opts *o;
	struct pstore p;
	bool repair;
	size_t remaining;
	cfs_podman_finding_fn fn;
	void *opaque;
};

/*
 * Reports a problem "SUBJECT: PROBLEM" (the problem is formatted). With
 * repair, fix (if any) is tried first.
 */
static void problem(struct checker *k, int (*fix)(struct checker *, void *),
		    void *arg, const char *subject, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void problem(struct checker *k, int (*fix)(struct checker *, void *),
		    void *arg, const char *subject, const char *fmt, ...)
{
	struct cfs_podman_finding f = {.subject = subject,
				       .repairable = fix != NULL};
	char *text;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	f.problem = text ? text : "?";
	if (k->repair && fix) {
		f.repaired = fix(k, arg) == 0 ? 1 : -1;
		if (f.repaired < 0)
			f.why = cfs_strerror();
	}
	if (f.repaired != 1)
		k->remaining++;
	k->fn(&f, k->opaque);
	free(text);
}

/* "image 0123456789ab" */
static void image_subject(char out[24], const char *id)
{
	snprintf(out, 24, "image %.12s", id);
}

static bool temp_name(const char *name)
{
	/* ours being replaced, or containers/storage's own temps */
	return cfs_replacing_pid(name) || !strncmp(name, ".tmp-", 5);
}

static int fix_unlink(struct checker *k, void *path)
{
	if (unlink(path) < 0) {
		cfs_error("%s", strerror(errno));
		return -1;
	}
	return 0;
}

static void check_temp_files_in(struct checker *k, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		if (!temp_name(de->d_name))
			continue;
		char *path = xasprintf("%s/%s", dir, de->d_name);

		problem(k, fix_unlink, path, path,
			"temporary file of an interrupted write");
		free(path);
	}
	if (d)
		closedir(d);
}

/* Temp files in the record directories and one level below them. */
static void check_temp_files(struct checker *k)
{
	static const char *const top[] = {"overlay-images", "overlay-layers",
					  "overlay", "overlay/l"};

	for (size_t i = 0; i < sizeof(top) / sizeof(top[0]); i++) {
		char *dir = pstore_path(&k->p, top[i]);
		DIR *d = opendir(dir);
		struct dirent *de;

		check_temp_files_in(k, dir);
		while (i != 3 && d && (de = readdir(d))) {
			if (!cfs_image_id_ok(de->d_name))
				continue;
			char *sub = xasprintf("%s/%s", dir, de->d_name);

			check_temp_files_in(k, sub);
			free(sub);
		}
		if (d)
			closedir(d);
		free(dir);
	}
}

static int fix_remove_image(struct checker *k, void *id)
{
	struct pmeta m;
	int r = pstore_remove_image(&k->p, k->o, id, &m);

	if (r == 0)
		r = pstore_release_mount(&m);
	pmeta_free(&m);
	return r;
}

static int fix_mount(struct checker *k, void *m)
{
	return pmount_ensure(k->o, &k->p, m);
}

static const char *record_flaw(struct json_object *img, const char *id)
{
	struct json_object *bn;
	char key[72];

	if (!cfs_image_id_ok(id))
		return "id is not 64 hex digits";
	if (!cfs_image_id_ok(cfs_json_str(img, "layer")
				     ? cfs_json_str(img, "layer")
				     : ""))
		return "no valid layer";
	snprintf(key, sizeof(key), "sha256:%s", id);
	if (!json_object_object_get_ex(img, "big-data-names", &bn) ||
	    !pjson_array_has_str(bn, "manifest") ||
	    !pjson_array_has_str(bn, key))
		return "big-data-names lacks the manifest or the config";
	return NULL;
}

static bool big_data_present(struct checker *k, const char *id)
{
	char *man = xasprintf("%s/overlay-images/%s/manifest", k->p.root, id);
	bool ok = access(man, R_OK) == 0;

	free(man);
	return ok;
}

static void check_mount(struct checker *k, const char *subject, struct pmeta *m)
{
	int mounted = pmount_is_mounted(m->mountpoint);

	if (m->managed && mounted != 1)
		problem(k, fix_mount, m, subject, "not mounted at %s",
			m->mountpoint);
	else if (!m->managed && m->was_mounted && mounted != 1)
		problem(k, NULL, NULL, subject,
			"nothing mounted at %s (mount it there, e.g. from "
			"fstab)",
			m->mountpoint);
	else if (pstore_dir_entries(m->mountpoint) <= 0)
		problem(k, NULL, NULL, subject, "%s is empty or missing",
			m->mountpoint);
}

/* A manifest named ID.cfs (a store's images/) must be this image's. */
static bool other_image(const char *manifest, const char *id, char *other)
{
	return cfs_layout_manifest_id(manifest, other) && strcmp(other, id);
}

static void check_cfs_image(struct checker *k, struct json_object *img,
			    const char *id, const char *subject,
			    struct pmeta *m)
{
	char other[CFS_IMAGE_ID_LEN + 1];

	if (access(m->manifest, R_OK) < 0)
		problem(k, fix_remove_image, (void *)id, subject,
			"manifest %s is gone", m->manifest);
	else if (other_image(m->manifest, id, other))
		problem(k, NULL, NULL, subject, "manifest %s is image %.12s",
			m->manifest, other);
	else if (!k->p.layers_bad &&
		 !pstore_find_layer(&k->p, cfs_json_str(img, "layer")))
		problem(k, fix_remove_image, (void *)id, subject,
			"its layer has no record");
	else if (!big_data_present(k, id))
		problem(k, fix_remove_image, (void *)id, subject,
			"its manifest copy is missing");
	else
		check_mount(k, subject, m);
}

static void check_image(struct checker *k, struct json_object *img)
{
	const char *idp = cfs_json_str(img, "id");
	char *id = xstrdup(idp ? idp : "?");
	const char *flaw = record_flaw(img, id);
	char subject[24];
	struct pmeta m;

	image_subject(subject, id);
	if (flaw) {
		problem(k, NULL, NULL, subject, "malformed record: %s", flaw);
	} else if (pmeta_parse(img, &m) < 0) {
		problem(k, NULL, NULL, subject,
			"not registered by cfs-podman (%s)", cfs_strerror());
	} else {
		check_cfs_image(k, img, id, subject, &m);
		pmeta_free(&m);
	}
	free(id);
}

static bool layer_in_use(struct checker *k, const char *lid)
{
	size_t n = json_object_array_length(k->p.images);

	for (size_t i = 0; i < n; i++) {
		const char *l = cfs_json_str(
			json_object_array_get_idx(k->p.images, i), "layer");

		if (l && !strcmp(l, lid))
			return true;
	}
	return false;
}

static int fix_remove_layer(struct checker *k, void *lid)
{
	if (pjson_array_remove_id(k->p.layers, lid) &&
	    pstore_save_layers(&k->p) < 0)
		return -1;
	pstore_remove_layer_files(&k->p, lid);
	return 0;
}

/* overlay/ID/link, overlay/l/LINK -> ../ID/diff, diff -> a directory. */
static const char *layer_files_flaw(struct checker *k, const char *lid)
{
	char *linkf = xasprintf("%s/overlay/%s/link", k->p.root, lid);
	char *diff = xasprintf("%s/overlay/%s/diff", k->p.root, lid);
	char target[PATH_MAX], want[80], *l = NULL;
	uint8_t *name = NULL;
	size_t len = 0;
	const char *flaw = NULL;
	struct stat st;
	ssize_t n;

	if (cfs_read_file(linkf, &name, &len) < 0 || len != PSTORE_LINK_LEN ||
	    strspn((char *)name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") <
		    PSTORE_LINK_LEN) {
		flaw = "link file missing or malformed";
		goto out;
	}
	l = xasprintf("%s/overlay/l/%.26s", k->p.root, (char *)name);
	n = readlink(l, target, sizeof(target) - 1);
	snprintf(want, sizeof(want), "../%s/diff", lid);
	if (n < 0 || (target[n] = '\0', strcmp(target, want)))
		flaw = "overlay/l/ symlink missing or wrong";
	else if (stat(diff, &st) < 0 || !S_ISDIR(st.st_mode))
		flaw = "diff is missing or dangling";
out:
	free(name);
	free(l);
	free(linkf);
	free(diff);
	return flaw;
}

static void check_layer(struct checker *k, struct json_object *layer)
{
	const char *lp = cfs_json_str(layer, "id");
	const char *dd = cfs_json_str(layer, "diff-digest");
	char *lid = xstrdup(lp ? lp : "?");
	const char *flaw;
	char subject[24];

	snprintf(subject, sizeof(subject), "layer %.12s", lid);
	if (!cfs_image_id_ok(lid) || !dd || !*dd)
		problem(k, NULL, NULL, subject,
			"malformed record (id or diff-digest)");
	else if (!k->p.images_bad && !layer_in_use(k, lid))
		problem(k, fix_remove_layer, lid, subject,
			"used by no image (interrupted add?)");
	else if ((flaw = layer_files_flaw(k, lid)))
		problem(k, NULL, NULL, subject, "%s", flaw);
	free(lid);
}

static int fix_remove_layer_dir(struct checker *k, void *lid)
{
	pstore_remove_layer_files(&k->p, lid);
	return 0;
}

static int fix_remove_big_data(struct checker *k, void *id)
{
	pstore_remove_big_data(&k->p, id);
	return 0;
}

static int fix_release_mnt(struct checker *k, void *path)
{
	struct pmeta m = {.managed = true, .mountpoint = path};

	return pstore_release_mount(&m);
}

static bool registered_mountpoint(struct checker *k, const char *id)
{
	return pstore_find_image(&k->p, id) != NULL;
}

/* Directories under overlay/, overlay-images/ and mnt/ with no record. */
static void check_orphans(struct checker *k, const char *sub)
{
	char *dir = pstore_path(&k->p, sub);
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		const char *name = de->d_name;
		char subject[40];

		if (!cfs_image_id_ok(name))
			continue;
		snprintf(subject, sizeof(subject), "%s/%.12s", sub, name);
		if (!strcmp(sub, "overlay") && !pstore_find_layer(&k->p, name))
			problem(k, fix_remove_layer_dir, (void *)name, subject,
				"layer files with no record");
		else if (!strcmp(sub, "overlay-images") &&
			 !pstore_find_image(&k->p, name))
			problem(k, fix_remove_big_data, (void *)name, subject,
				"image data with no record");
		else if (!strcmp(sub, "mnt") &&
			 !registered_mountpoint(k, name)) {
			char *mp = xasprintf("%s/%s", dir, name);

			problem(k, fix_release_mnt, mp, mp,
				"mountpoint of no registered image");
			free(mp);
		}
	}
	if (d)
		closedir(d);
	free(dir);
}

#define IMAGES_REL "overlay-images/images.json"
#define LAYERS_REL "overlay-layers/layers.json"

/* path -> path.damaged (or .damaged.N: earlier evidence is kept too). */
static int keep_aside(const char *path)
{
	for (int n = 0;; n++) {
		char *aside = n ? xasprintf("%s.damaged.%d", path, n)
				: xasprintf("%s.damaged", path);
		int r = link(path, aside), e = errno;

		free(aside);
		if (r == 0)
			break;
		if (e != EEXIST) {
			cfs_error("%s: %s", path, strerror(e));
			return -1;
		}
	}
	if (unlink(path) < 0) {
		cfs_error("%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * A records file that does not parse cannot be mended: it is moved aside
 * (kept as evidence) and the records start empty, so the images it held
 * are unregistered (their data, layers and mounts are then orphans that
 * the same run removes); add them again.
 */
static int fix_move_aside(struct checker *k, void *rel)
{
	bool images = !strcmp(rel, IMAGES_REL);
	char *path = pstore_path(&k->p, rel);
	int r = keep_aside(path);

	free(path);
	if (r == 0)
		r = images ? pstore_save_images(&k->p)
			   : pstore_save_layers(&k->p);
	if (r == 0 && images)
		k->p.images_bad = false;
	else if (r == 0)
		k->p.layers_bad = false;
	return r;
}

static void check_records_file(struct checker *k, const char *rel)
{
	char *path = pstore_path(&k->p, rel);

	problem(k, fix_move_aside, (void *)rel, path, "not a valid JSON array");
	free(path);
}

static void check_records(struct checker *k)
{
	size_t n;

	if (k->p.images_bad)
		check_records_file(k, IMAGES_REL);
	if (k->p.layers_bad)
		check_records_file(k, LAYERS_REL);
	/* repairs may remove elements: walk copies of the ids */
	n = json_object_array_length(k->p.images);
	for (size_t i = n; i-- > 0;) {
		if (i < json_object_array_length(k->p.images))
			check_image(k,
				    json_object_array_get_idx(k->p.images, i));
	}
	n = json_object_array_length(k->p.layers);
	for (size_t i = n; i-- > 0;) {
		if (i < json_object_array_length(k->p.layers))
			check_layer(k,
				    json_object_array_get_idx(k->p.layers, i));
	}
	if (k->p.images_bad || k->p.layers_bad)
		return; /* with records unknown, nothing is an orphan */
	check_orphans(k, "overlay");
	check_orphans(k, "overlay-images");
	check_orphans(k, "mnt");
}

int cfs_podman_check(const struct cfs_podman_opts *o, bool repair,
		     cfs_podman_finding_fn fn, void *opaque, size_t *remaining)
{
	struct checker k = {
		.o = o, .repair = repair, .fn = fn, .opaque = opaque};

	*remaining = 0;
	if (pstore_open(&k.p, o, false) < 0)
		return -1;
	if (access(k.p.root, F_OK) < 0) {
		pstore_close(&k.p);
		return 0; /* nothing registered yet */
	}
	if (pstore_lock(&k.p, repair, true) < 0) {
		pstore_close(&k.p);
		return -1;
	}
	check_temp_files(&k);
	check_records(&k);
	pstore_close(&k.p);
	*remaining = k.remaining;
	return 0;
}
