// SPDX-License-Identifier: MIT
/*
 * Image names, and what podman's other stores hold: a name used twice
 * anywhere in podman's stores breaks every podman command, and an image
 * used by a container must not disappear.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfs/json.h"
#include "cfs/image-name.h"
#include "containers/conf.h"
#include "internal.h"
#include "cfs/store-layout.h"
#include "cfs/util.h"

char *pname_normalize(const char *name)
{
	struct cfs_name_ref ref;
	char *out;

	if (cfs_name_parse(name, &ref) < 0)
		return NULL;
	out = cfs_name_format(&ref, "localhost");
	cfs_name_ref_free(&ref);
	return out;
}

static void add_record_names(struct cfs_name_set *set, struct json_object *e)
{
	const char *id = cfs_json_str(e, "id");
	struct json_object *names;
	size_t n;

	if (!id || !cfs_image_id_ok(id))
		return;
	cfs_name_set_add(set, NULL, id);
	if (!json_object_object_get_ex(e, "names", &names) ||
	    !json_object_is_type(names, json_type_array))
		return;
	n = json_object_array_length(names);
	for (size_t i = 0; i < n; i++) {
		struct json_object *name = json_object_array_get_idx(names, i);

		if (json_object_is_type(name, json_type_string))
			cfs_name_set_add(set, json_object_get_string(name), id);
	}
}

/* podman's names and ids, then the cfs refs of registered images. */
static void lookup_names(struct pstore *p, struct cfs_name_set *set)
{
	size_t n = json_object_array_length(p->images);
	struct cfs_name_set refs;

	memset(set, 0, sizeof(*set));
	for (size_t i = 0; i < n; i++)
		add_record_names(set, json_object_array_get_idx(p->images, i));
	cfs_layout_names(p->store, &refs);
	for (size_t i = 0; i < refs.n; i++)
		if (refs.entries[i].name &&
		    pstore_find_image(p, refs.entries[i].id))
			cfs_name_set_add(set, refs.entries[i].name,
					 refs.entries[i].id);
	cfs_name_set_free(&refs);
}

int pstore_lookup_image(struct pstore *p, const char *name,
			struct json_object **image)
{
	struct cfs_name_set set;
	struct cfs_name_match m;
	int r;

	*image = NULL;
	lookup_names(p, &set);
	r = cfs_name_resolve(&set, name, &m);
	if (r == 1)
		*image = pstore_find_image(p, m.id);
	cfs_name_set_free(&set);
	return r;
}

/* Loads a JSON array under a read lock of its store, or NULL. */
static struct json_object *load_locked(const char *root, const char *dir,
				       const char *base)
{
	char *lock = xasprintf("%s/%s/%s.lock", root, dir, base);
	char *path = xasprintf("%s/%s/%s.json", root, dir, base);
	struct flock fl = {.l_type = F_RDLCK, .l_whence = SEEK_SET};
	int fd = open(lock, O_RDONLY | O_CLOEXEC);
	struct json_object *arr;

	if (fd >= 0 && fcntl(fd, F_SETLKW, &fl) < 0) {
		close(fd);
		fd = -1;
	}
	arr = json_object_from_file(path);
	if (fd >= 0)
		close(fd);
	free(lock);
	free(path);
	if (arr && !json_object_is_type(arr, json_type_array)) {
		json_object_put(arr);
		arr = NULL;
	}
	return arr;
}

/* Id of the image in arr carrying name (other than except_id), or NULL. */
static const char *image_with_name(struct json_object *arr, const char *name,
				   const char *except_id)
{
	size_t n = arr ? json_object_array_length(arr) : 0;

	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(arr, i);
		struct json_object *names;
		const char *id = cfs_json_str(e, "id");

		if (except_id && id && !strcmp(id, except_id))
			continue;
		if (json_object_object_get_ex(e, "names", &names) &&
		    pjson_array_has_str(names, name))
			return id ? id : "?";
	}
	return NULL;
}

static char *used_in(const char *root, const char *driver, const char *name)
{
	char *dir = xasprintf("%s-images", driver);
	struct json_object *arr = load_locked(root, dir, "images");
	const char *id = image_with_name(arr, name, NULL);
	char *where = NULL;

	if (id)
		where = xasprintf("podman's store %s (image %.12s)", root, id);
	json_object_put(arr);
	free(dir);
	return where;
}

char *pname_used(struct pstore *p, const struct cfs_podman_opts *o,
		 const char *name, const char *except_id)
{
	const char *id = image_with_name(p->images, name, except_id);
	struct containers_storage c;
	char *where = NULL;

	if (id)
		return xasprintf("this store %s (image %.12s)", p->root, id);
	containers_storage_load(cfs_podman_storage_conf(o), &c);
	where = used_in(c.graphroot, c.driver, name);
	for (size_t i = 0; i < c.ais.n && !where; i++) {
		char *real = realpath(c.ais.values[i], NULL);

		if (!real || strcmp(real, p->root))
			where = used_in(c.ais.values[i], c.driver, name);
		free(real);
	}
	containers_storage_free(&c);
	return where;
}

/* The first string of a record's "names", or NULL. */
static const char *first_name(struct json_object *e)
{
	struct json_object *names, *n0;

	if (!json_object_object_get_ex(e, "names", &names) ||
	    !json_object_is_type(names, json_type_array) ||
	    !json_object_array_length(names))
		return NULL;
	n0 = json_object_array_get_idx(names, 0);
	return json_object_is_type(n0, json_type_string)
		       ? json_object_get_string(n0)
		       : NULL;
}

/*
 * The first record of the primary store's KIND ("images", "containers")
 * whose FIELD is VALUE, as describe() puts it; NULL if there is none.
 */
static char *primary_find(const struct cfs_podman_opts *o, const char *kind,
			  const char *field, const char *value,
			  char *(*describe)(struct json_object *e))
{
	struct containers_storage c;
	char *dir, *who = NULL;
	struct json_object *arr;
	size_t n;

	containers_storage_load(cfs_podman_storage_conf(o), &c);
	dir = xasprintf("%s-%s", c.driver, kind);
	arr = load_locked(c.graphroot, dir, kind);
	n = arr ? json_object_array_length(arr) : 0;
	for (size_t i = 0; i < n && !who; i++) {
		struct json_object *e = json_object_array_get_idx(arr, i);
		const char *v = cfs_json_str(e, field);

		if (v && !strcmp(v, value))
			who = describe(e);
	}
	json_object_put(arr);
	free(dir);
	containers_storage_free(&c);
	return who;
}

static char *describe_container(struct json_object *e)
{
	const char *cid = cfs_json_str(e, "id"), *name = first_name(e);

	return xasprintf("%.12s%s%s%s", cid ? cid : "?", name ? " (" : "",
			 name ? name : "", name ? ")" : "");
}

static char *describe_image(struct json_object *e)
{
	const char *name = first_name(e);

	return xstrdup(name ? name : "<none>");
}

char *pcontainer_using(const struct cfs_podman_opts *o, const char *id)
{
	return primary_find(o, "containers", "image", id, describe_container);
}

char *pprimary_image_on_layer(const struct cfs_podman_opts *o,
			      const char *layer)
{
	return primary_find(o, "images", "layer", layer, describe_image);
}

char *pprimary_image_with_id(const struct cfs_podman_opts *o, const char *id)
{
	return primary_find(o, "images", "id", id, describe_image);
}
