// SPDX-License-Identifier: MIT
/* The layer cache as cfs-store sees it: records and the objects they name. */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfs/layer.h"
#include "store-tool.h"
#include "cfs/util.h"

void store_walk_records(const char *store, record_fn fn, void *opaque)
{
	char *dir = xasprintf("%s/layers", store);
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		uint8_t diff_id[CFS_SHA256_SIZE];
		struct cfs_layer *l = NULL;
		char *name, *path;

		if (e->d_name[0] == '.' || strstr(e->d_name, ".tmp."))
			continue;
		name = xasprintf("layers/%s", e->d_name);
		path = xasprintf("%s/%s", store, name);
		if (strlen(e->d_name) == 64 &&
		    strspn(e->d_name, "0123456789abcdef") == 64 &&
		    cfs_unhex(diff_id, e->d_name, 32) == 0)
			cfs_layer_cache_read(path, diff_id, &l);
		fn(name, l, opaque);
		cfs_layer_free(l);
		free(path);
		free(name);
	}
	if (d)
		closedir(d);
	free(dir);
}

bool record_objects_in(const char *store, const struct cfs_layer *l,
		       const struct dset *set)
{
	char path[CFS_OBJECT_PATH_LEN + 1];
	int fd = set ? -1 : open(store, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool ok = true;

	for (size_t i = 0; ok && i < l->n_entries; i++) {
		const struct cfs_layer_entry *e = &l->entries[i];
		struct stat st;

		if (!e->has_digest)
			continue;
		if (set) {
			ok = dset_find(set, e->digest) != NULL;
			continue;
		}
		cfs_object_path(path, e->digest);
		ok = fstatat(fd, path, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		     S_ISREG(st.st_mode);
	}
	if (fd >= 0)
		close(fd);
	return ok;
}
