// SPDX-License-Identifier: MIT
/*
 * The records of a containers-storage additional image store: the JSON
 * arrays overlay-images/images.json and overlay-layers/layers.json and
 * their lock files. The protocol is containers-storage's own: an fcntl lock
 * on the .lock file, the JSON replaced by rename, then a new 64-character
 * random "last writer" id at offset 0 of the lock file so that readers
 * holding the store open reload it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfs/json.h"
#include "internal.h"
#include "cfs/store-layout.h"
#include "cfs/util.h"

#define IMAGES_JSON "overlay-images/images.json"
#define LAYERS_JSON "overlay-layers/layers.json"
#define IMAGES_LOCK "overlay-images/images.lock"
#define LAYERS_LOCK "overlay-layers/layers.lock"

char *pstore_path(const struct pstore *p, const char *rel)
{
	return xasprintf("%s/%s", p->root, rel);
}

static int mkdir_public(const char *path)
{
	if (cfs_mkdir_p(path, 0755) < 0)
		return -1;
	if (chmod(path, 0755) < 0) {
		cfs_error("%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int create_lock_file(const struct pstore *p, const char *rel)
{
	char *path = pstore_path(p, rel);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	int ret = 0;

	if (fd < 0 || fchmod(fd, 0644) < 0) {
		cfs_error("%s: %s", path, strerror(errno));
		ret = -1;
	}
	if (fd >= 0)
		close(fd);
	free(path);
	return ret;
}

static int create_layout(const struct pstore *p)
{
	static const char *const dirs[] = {
		"",	   "overlay-images", "overlay-layers",
		"overlay", "overlay/l",	     "mnt"};

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char *d = pstore_path(p, dirs[i]);
		int r = mkdir_public(d);

		free(d);
		if (r < 0)
			return -1;
	}
	if (create_lock_file(p, IMAGES_LOCK) < 0 ||
	    create_lock_file(p, LAYERS_LOCK) < 0)
		return -1;
	return 0;
}

int pstore_open(struct pstore *p, const struct cfs_podman_opts *o, bool create)
{
	char buf[PATH_MAX];

	memset(p, 0, sizeof(*p));
	p->layers_lock = p->images_lock = -1;
	if (!realpath(o->store, buf)) {
		cfs_error("%s: %s", o->store, strerror(errno));
		return -1;
	}
	p->store = xstrdup(buf);
	if (o->ais) {
		if (create && cfs_mkdir_p(o->ais, 0755) < 0)
			goto fail;
		p->root = realpath(o->ais, NULL);
		if (!p->root && (create || errno != ENOENT)) {
			cfs_error("%s: %s", o->ais, strerror(errno));
			goto fail;
		}
		if (!p->root)
			p->root = xstrdup(o->ais);
	} else {
		p->root = xasprintf("%s/podman", p->store);
	}
	if (create && create_layout(p) < 0)
		goto fail;
	return 0;
fail:
	pstore_close(p);
	return -1;
}

static int lock_fd(const struct pstore *p, const char *rel, bool write,
		   int *out)
{
	char *path = pstore_path(p, rel);
	struct flock fl = {.l_type = write ? F_WRLCK : F_RDLCK,
			   .l_whence = SEEK_SET};
	int fd = open(path, (write ? O_RDWR : O_RDONLY) | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT && !write) {
		free(path);
		return 0; /* nothing was ever written: nothing to lock */
	}
	if (fd < 0 || fcntl(fd, F_SETLKW, &fl) < 0) {
		cfs_error("%s: cannot lock: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(path);
		return -1;
	}
	free(path);
	*out = fd;
	return 0;
}

static int load_array(const struct pstore *p, const char *rel,
		      bool tolerate_bad, struct json_object **out, bool *bad)
{
	char *path = pstore_path(p, rel);
	uint8_t *data = NULL;
	size_t len = 0;
	struct json_object *arr = NULL;
	struct stat st;

	*bad = false;
	if (stat(path, &st) < 0 && errno == ENOENT) {
		*out = json_object_new_array();
		free(path);
		return 0;
	}
	if (cfs_read_file(path, &data, &len) < 0) {
		free(path);
		return -1;
	}
	if (len) {
		enum json_tokener_error jerr;

		arr = json_tokener_parse_verbose((const char *)data, &jerr);
		/* json-c accepts trailing garbage only up to the NUL */
		if (arr && strlen((const char *)data) != len) {
			json_object_put(arr);
			arr = NULL;
		}
	}
	free(data);
	if (!arr || !json_object_is_type(arr, json_type_array)) {
		json_object_put(arr);
		if (!tolerate_bad) {
			cfs_error("%s: not a valid JSON array (half-written? "
				  "see cfs-podman check)",
				  path);
			free(path);
			return -1;
		}
		*bad = true;
		arr = json_object_new_array();
	}
	free(path);
	*out = arr;
	return 0;
}

int pstore_lock(struct pstore *p, bool write, bool tolerate_bad)
{
	if (lock_fd(p, LAYERS_LOCK, write, &p->layers_lock) < 0 ||
	    lock_fd(p, IMAGES_LOCK, write, &p->images_lock) < 0)
		return -1;
	if (load_array(p, LAYERS_JSON, tolerate_bad, &p->layers,
		       &p->layers_bad) < 0 ||
	    load_array(p, IMAGES_JSON, tolerate_bad, &p->images,
		       &p->images_bad) < 0)
		return -1;
	return 0;
}

/* A new "last writer" id, as containers-storage's lockfile.Touch() does. */
static int touch_lock(int fd, const char *what)
{
	uint8_t rnd[32];
	char hex[65];

	if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd))
		goto fail;
	cfs_hex(hex, rnd, sizeof(rnd));
	if (pwrite(fd, hex, 64, 0) != 64)
		goto fail;
	return 0;
fail:
	cfs_error("%s: cannot update the lock file: %s", what, strerror(errno));
	return -1;
}

static int save_array(struct pstore *p, const char *rel,
		      struct json_object *arr, int lock)
{
	char *path = pstore_path(p, rel);
	const char *s = json_object_to_json_string_ext(
		arr, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	int r = cfs_write_file_atomic(path, s, strlen(s), 0644, 0);

	if (r == 0 && lock >= 0)
		r = touch_lock(lock, path);
	free(path);
	return r;
}

int pstore_save_images(struct pstore *p)
{
	return save_array(p, IMAGES_JSON, p->images, p->images_lock);
}

int pstore_save_layers(struct pstore *p)
{
	return save_array(p, LAYERS_JSON, p->layers, p->layers_lock);
}

void pstore_close(struct pstore *p)
{
	/* closing the descriptors releases the fcntl locks */
	if (p->images_lock >= 0)
		close(p->images_lock);
	if (p->layers_lock >= 0)
		close(p->layers_lock);
	json_object_put(p->images);
	json_object_put(p->layers);
	free(p->store);
	free(p->root);
	memset(p, 0, sizeof(*p));
	p->layers_lock = p->images_lock = -1;
}

static struct json_object *find_by_id(struct json_object *arr, const char *id)
{
	size_t n = json_object_array_length(arr);

	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(arr, i);
		const char *eid = cfs_json_str(e, "id");

		if (eid && !strcmp(eid, id))
			return e;
	}
	return NULL;
}

struct json_object *pstore_find_image(struct pstore *p, const char *id)
{
	return find_by_id(p->images, id);
}

struct json_object *pstore_find_layer(struct pstore *p, const char *id)
{
	return find_by_id(p->layers, id);
}

bool pjson_array_remove_id(struct json_object *arr, const char *id)
{
	size_t n = json_object_array_length(arr);

	for (size_t i = 0; i < n; i++) {
		const char *eid =
			cfs_json_str(json_object_array_get_idx(arr, i), "id");

		if (eid && !strcmp(eid, id)) {
			json_object_array_del_idx(arr, i, 1);
			return true;
		}
	}
	return false;
}

bool pjson_array_has_str(struct json_object *arr, const char *s)
{
	size_t n;

	if (!arr || !json_object_is_type(arr, json_type_array))
		return false;
	n = json_object_array_length(arr);
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(arr, i);

		if (json_object_is_type(e, json_type_string) &&
		    !strcmp(json_object_get_string(e), s))
			return true;
	}
	return false;
}

int pstore_dir_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

void pstore_remove_layer_files(struct pstore *p, const char *layer_id)
{
	char *dir = xasprintf("%s/overlay/%s", p->root, layer_id);
	char *linkf = xasprintf("%s/link", dir);
	char *want = xasprintf("../%s/diff", layer_id);
	uint8_t *name = NULL;
	size_t len = 0;

	if (cfs_read_file(linkf, &name, &len) == 0 && len &&
	    len <= PSTORE_LINK_LEN && !memchr(name, '/', len)) {
		char *l = xasprintf("%s/overlay/l/%.*s", p->root, (int)len,
				    (const char *)name);
		char target[PATH_MAX];
		ssize_t n = readlink(l, target, sizeof(target) - 1);

		if (n > 0) {
			target[n] = '\0';
			if (!strcmp(target, want))
				unlink(l);
		}
		free(l);
	}
	free(name);
	cfs_remove_tree(dir);
	free(want);
	free(linkf);
	free(dir);
}

void pstore_remove_big_data(struct pstore *p, const char *id)
{
	char *dir = xasprintf("%s/overlay-images/%s", p->root, id);

	cfs_remove_tree(dir);
	free(dir);
}

/* --- metadata */

static char *meta_str(struct json_object *cfs, const char *key)
{
	const char *s = cfs_json_str(cfs, key);

	return s ? xstrdup(s) : NULL;
}

static bool meta_bool(struct json_object *cfs, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(cfs, key, &v) &&
	       json_object_get_boolean(v);
}

int pmeta_parse(struct json_object *image, struct pmeta *m)
{
	const char *s = cfs_json_str(image, "metadata");
	struct json_object *root, *cfs;

	memset(m, 0, sizeof(*m));
	root = s ? json_tokener_parse(s) : NULL;
	if (!root || !json_object_object_get_ex(root, "cfs", &cfs)) {
		json_object_put(root);
		cfs_error("no cfs metadata");
		return -1;
	}
	m->manifest = meta_str(cfs, "manifest");
	m->digest = meta_str(cfs, "digest");
	m->mountpoint = meta_str(cfs, "mountpoint");
	m->managed = meta_bool(cfs, "managed");
	m->verity = meta_bool(cfs, "verity");
	m->was_mounted = meta_bool(cfs, "mounted");
	json_object_put(root);
	if (!m->manifest || !m->digest || !m->mountpoint ||
	    m->mountpoint[0] != '/') {
		pmeta_free(m);
		cfs_error("incomplete cfs metadata");
		return -1;
	}
	return 0;
}

char *pmeta_format(const struct pmeta *m)
{
	struct json_object *root = json_object_new_object();
	struct json_object *cfs = json_object_new_object();
	char *s;

	json_object_object_add(cfs, "manifest",
			       json_object_new_string(m->manifest));
	json_object_object_add(cfs, "digest",
			       json_object_new_string(m->digest));
	json_object_object_add(cfs, "mountpoint",
			       json_object_new_string(m->mountpoint));
	json_object_object_add(cfs, "managed",
			       json_object_new_boolean(m->managed));
	json_object_object_add(cfs, "verity",
			       json_object_new_boolean(m->verity));
	json_object_object_add(cfs, "mounted",
			       json_object_new_boolean(m->was_mounted));
	json_object_object_add(root, "cfs", cfs);
	s = xstrdup(json_object_to_json_string_ext(
		root, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
	return s;
}

void pmeta_free(struct pmeta *m)
{
	free(m->manifest);
	free(m->digest);
	free(m->mountpoint);
	memset(m, 0, sizeof(*m));
}
