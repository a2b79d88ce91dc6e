// SPDX-License-Identifier: MIT
/*
 * cfs-podman check and sync: do the store records and the mounts agree?
 * check prints one line per problem and exits 1 if there is any. sync
 * repairs what it safely can (mounts a registered image whose mount is
 * missing, removes leftovers of interrupted writes and records whose
 * manifest is gone) and exits 1 if a problem remains.
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

#include "cfs/escape.h"
#include "../lib/podman/internal.h"
#include "cfs-podman.h"
#include "cfs/util.h"

struct checker {
	const struct cfs_podman_opts *o;
	struct pstore p;
	bool repair;
	int remaining;
};

/*
 * Reports a problem. In sync mode fix (if any) is tried: the line ends in
 * "repaired" or with why it could not be.
 */
static void problem(struct checker *k, int (*fix)(struct checker *, void *),
		    void *arg, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void problem(struct checker *k, int (*fix)(struct checker *, void *),
		    void *arg, const char *fmt, ...)
{
	char *line, *shown;
	va_list ap;

	/* Lines name files and images from the stores: escaped, one line. */
	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0)
		line = NULL;
	va_end(ap);
	shown = cfs_printable_dup(line ? line : "?");
	fputs(shown, stdout);
	free(shown);
	free(line);
	if (k->repair && fix) {
		if (fix(k, arg) == 0) {
			puts(": repaired");
			return;
		}
		printf(": not repaired: %s\n", cfs_strerror());
	} else {
		putchar('\n');
	}
	k->remaining++;
}

static bool temp_name(const char *name)
{
	return strstr(name, ".tmp.") || !strncmp(name, ".tmp-", 5);
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

		problem(k, fix_unlink, path,
			"%s: temporary file of an interrupted write", path);
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
			if (!pstore_is_id(de->d_name))
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

	if (!pstore_is_id(id))
		return "id is not 64 hex digits";
	if (!pstore_is_id(pjson_str(img, "layer") ? pjson_str(img, "layer")
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

static void check_mount(struct checker *k, const char *id, struct pmeta *m)
{
	int mounted = pmount_is_mounted(m->mountpoint);

	if (m->managed && mounted != 1)
		problem(k, fix_mount, m, "image %.12s: not mounted at %s", id,
			m->mountpoint);
	else if (!m->managed && m->was_mounted && mounted != 1)
		problem(k, NULL, NULL,
			"image %.12s: nothing mounted at %s (mount it there, "
			"e.g. from fstab)",
			id, m->mountpoint);
	else if (pstore_dir_entries(m->mountpoint) <= 0)
		problem(k, NULL, NULL, "image %.12s: %s is empty or missing",
			id, m->mountpoint);
}

static void check_image(struct checker *k, struct json_object *img)
{
	const char *idp = pjson_str(img, "id");
	char *id = xstrdup(idp ? idp : "?");
	const char *flaw = record_flaw(img, id);
	struct pmeta m;

	if (flaw) {
		problem(k, NULL, NULL, "image %.12s: malformed record: %s", id,
			flaw);
	} else if (pmeta_parse(img, &m) < 0) {
		problem(k, NULL, NULL,
			"image %.12s: not registered by cfs-podman (%s)", id,
			cfs_strerror());
	} else {
		if (access(m.manifest, R_OK) < 0)
			problem(k, fix_remove_image, id,
				"image %.12s: manifest %s is gone", id,
				m.manifest);
		else if (!pstore_find_layer(&k->p, pjson_str(img, "layer")))
			problem(k, fix_remove_image, id,
				"image %.12s: its layer has no record", id);
		else if (!big_data_present(k, id))
			problem(k, fix_remove_image, id,
				"image %.12s: its manifest copy is missing",
				id);
		else
			check_mount(k, id, &m);
		pmeta_free(&m);
	}
	free(id);
}

static bool layer_in_use(struct checker *k, const char *lid)
{
	size_t n = json_object_array_length(k->p.images);

	for (size_t i = 0; i < n; i++) {
		const char *l = pjson_str(
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
	const char *lp = pjson_str(layer, "id");
	const char *dd = pjson_str(layer, "diff-digest");
	char *lid = xstrdup(lp ? lp : "?");
	const char *flaw;

	if (!pstore_is_id(lid) || !dd || !*dd)
		problem(k, NULL, NULL,
			"layer %.12s: malformed record (id or diff-digest)",
			lid);
	else if (!layer_in_use(k, lid))
		problem(k, fix_remove_layer, lid,
			"layer %.12s: used by no image (interrupted add?)",
			lid);
	else if ((flaw = layer_files_flaw(k, lid)))
		problem(k, NULL, NULL, "layer %.12s: %s", lid, flaw);
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

		if (!pstore_is_id(name))
			continue;
		if (!strcmp(sub, "overlay") && !pstore_find_layer(&k->p, name))
			problem(k, fix_remove_layer_dir, (void *)name,
				"overlay/%.12s: layer files with no record",
				name);
		else if (!strcmp(sub, "overlay-images") &&
			 !pstore_find_image(&k->p, name))
			problem(k, fix_remove_big_data, (void *)name,
				"overlay-images/%.12s: image data with no "
				"record",
				name);
		else if (!strcmp(sub, "mnt") &&
			 !registered_mountpoint(k, name)) {
			char *mp = xasprintf("%s/%s", dir, name);

			problem(k, fix_release_mnt, mp,
				"%s: mountpoint of no registered image", mp);
			free(mp);
		}
	}
	if (d)
		closedir(d);
	free(dir);
}

static void check_records(struct checker *k)
{
	size_t n;

	if (k->p.images_bad)
		problem(k, NULL, NULL,
			"%s/overlay-images/images.json: not a valid JSON "
			"array",
			k->p.root);
	if (k->p.layers_bad)
		problem(k, NULL, NULL,
			"%s/overlay-layers/layers.json: not a valid JSON "
			"array",
			k->p.root);
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

int cmd_check(const struct cfs_podman_opts *o, bool repair)
{
	struct checker k = {.o = o, .repair = repair};

	if (pstore_open(&k.p, o, false) < 0) {
		fprintf(stderr, TOOL ": %s\n", cfs_strerror());
		return 1;
	}
	if (access(k.p.root, F_OK) < 0) {
		pstore_close(&k.p);
		return 0; /* nothing registered yet */
	}
	if (pstore_lock(&k.p, repair, true) < 0) {
		fprintf(stderr, TOOL ": %s\n", cfs_strerror());
		pstore_close(&k.p);
		return 1;
	}
	check_temp_files(&k);
	check_records(&k);
	pstore_close(&k.p);
	return k.remaining ? 1 : 0;
}
