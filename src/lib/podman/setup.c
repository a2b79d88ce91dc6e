// SPDX-License-Identifier: MIT
/*
 * The storage.conf setting that makes podman read the additional image
 * store (cfs-podman setup). cfs_podman_install edits the file in place,
 * touching nothing but the additionalimagestores array: the path is added
 * to an existing array (podman reads every store listed), or a new line is
 * put under [storage.options].
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "containers/conf.h"
#include "internal.h"
#include "cfs/util.h"

#define VENDOR_CONF "/usr/share/containers/storage.conf"

const char *cfs_podman_storage_conf(const struct cfs_podman_opts *o)
{
	return containers_storage_conf(o->storage_conf);
}

char *cfs_podman_ais_dir(const struct cfs_podman_opts *o)
{
	char *store = realpath(o->store, NULL);
	char *root;

	if (o->ais)
		root = xstrdup(o->ais);
	else
		root = xasprintf("%s/podman", store ? store : o->store);
	free(store);
	if (strpbrk(root, "\"\\\n")) {
		cfs_error("%s: cannot be written in storage.conf", root);
		free(root);
		return NULL;
	}
	return root;
}

static int read_conf(const char *file, struct cfs_buf *text, mode_t *mode)
{
	uint8_t *data = NULL;
	size_t len = 0;
	struct stat st;
	const char *from = file;

	*mode = 0644;
	if (stat(file, &st) == 0)
		*mode = st.st_mode & 07777;
	else if (errno == ENOENT)
		from = access(VENDOR_CONF, R_OK) == 0 ? VENDOR_CONF : NULL;
	if (!from) {
		const char *def = "[storage]\ndriver = \"overlay\"\n";

		cfs_buf_append(text, def, strlen(def));
		return 0;
	}
	if (cfs_read_file(from, &data, &len) < 0)
		return -1;
	cfs_buf_append(text, data, len);
	free(data);
	return 0;
}

static void insert(struct cfs_buf *b, size_t at, const char *s)
{
	size_t n = strlen(s);

	cfs_buf_reserve(b, n);
	memmove(b->data + at + n, b->data + at, b->len - at);
	memcpy(b->data + at, s, n);
	b->len += n;
}

static int check_driver(const char *file, struct cfs_buf *b)
{
	struct containers_conf_key k;
	int f = containers_conf_find((const char *)b->data, b->len, "storage",
				     "driver", &k);
	int r = 0;

	if (f == 1 && k.n == 1 && k.values[0][0] &&
	    strcmp(k.values[0], "overlay")) {
		cfs_error("%s: storage driver is '%s'; the cfs image store "
			  "needs \"overlay\"",
			  file, k.values[0]);
		r = -1;
	}
	containers_conf_key_free(&k);
	return r;
}

/* Edits the text; returns 1 if changed, 0 if already there, -1 refused. */
static int add_store(const char *file, struct cfs_buf *b, const char *root)
{
	struct containers_conf_key k;
	int f = containers_conf_find((const char *)b->data, b->len,
				     "storage.options", "additionalimagestores",
				     &k);
	char *s;

	if (f < 0) {
		cfs_error("%s: %s; not editing it", file, cfs_strerror());
		return -1;
	}
	for (size_t i = 0; i < k.n; i++) {
		char *real = realpath(k.values[i], NULL);
		bool same = !strcmp(k.values[i], root) ||
			    (real && !strcmp(real, root));

		free(real);
		if (same) {
			containers_conf_key_free(&k);
			return 0;
		}
	}
	if (f == 1 && !k.is_array) {
		cfs_error("%s: additionalimagestores is not an array; not "
			  "editing it",
			  file);
		containers_conf_key_free(&k);
		return -1;
	}
	if (f == 1) {
		s = xasprintf(k.n ? "\"%s\", " : "\"%s\"", root);
		insert(b, k.value_off + 1, s);
	} else if (k.table_off >= 0) {
		s = xasprintf("additionalimagestores = [\"%s\"]\n", root);
		insert(b, k.table_off, s);
	} else {
		s = xasprintf("%s\n[storage.options]\n"
			      "additionalimagestores = [\"%s\"]\n",
			      b->len && b->data[b->len - 1] != '\n' ? "\n" : "",
			      root);
		cfs_buf_append(b, s, strlen(s));
	}
	free(s);
	containers_conf_key_free(&k);
	return 1;
}

int cfs_podman_install(const struct cfs_podman_opts *o, const char *file,
		       bool *changed)
{
	char *root = cfs_podman_ais_dir(o);
	struct cfs_buf b = {0};
	mode_t mode;
	int r = -1;

	*changed = false;
	/* podman refuses to start while a listed store is missing. */
	if (!root || cfs_mkdir_p(root, 0755) < 0 ||
	    read_conf(file, &b, &mode) < 0)
		goto out;
	r = check_driver(file, &b);
	if (r == 0)
		r = add_store(file, &b, root);
	if (r == 1) {
		*changed = true;
		r = cfs_write_file_atomic(file, b.data, b.len, mode, 0);
	}
out:
	cfs_buf_free(&b);
	free(root);
	return r < 0 ? -1 : 0;
}
