// SPDX-License-Identifier: MIT
/* The names of everything in a store but its objects: see store-layout.h. */
#include "cfs/store-layout.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cfs/escape.h"
#include "cfs/util.h"
#include "cfs/verity.h"

bool cfs_ref_name_ok(const char *name)
{
	size_t total = strlen(name);
	const char *p = name;

	if (!total || total > CFS_REF_NAME_MAX || name[0] == '/' ||
	    name[total - 1] == '/')
		return false;
	/* Printable ASCII: a ref is a file name that tools list. */
	for (const char *c = name; *c; c++)
		if (*c < 0x21 || *c > 0x7e)
			return false;
	while (*p) {
		size_t len = strcspn(p, "/");
		char part[CFS_REF_NAME_MAX + 1];

		memcpy(part, p, len);
		part[len] = '\0';
		/* nor a name the store's listing skips as being replaced */
		if (len == 0 || !strcmp(part, ".") || !strcmp(part, "..") ||
		    cfs_replacing_pid(part))
			return false;
		p += len + (p[len] == '/');
	}
	return true;
}

void cfs_object_path(char out[CFS_OBJECT_PATH_LEN + 1],
		     const uint8_t digest[CFS_DIGEST_SIZE])
{
	char hex[2 * CFS_DIGEST_SIZE + 1];

	cfs_hex(hex, digest, CFS_DIGEST_SIZE);
	out[0] = hex[0];
	out[1] = hex[1];
	out[2] = '/';
	memcpy(out + 3, hex + 2, 2 * CFS_DIGEST_SIZE - 2 + 1);
}

/* The 62 digits after xx/ into digest[1..]. */
static bool object_rest(const char *s, size_t len, uint8_t *rest)
{
	size_t n = 2 * CFS_DIGEST_SIZE - 2;

	return len == n && cfs_lower_hex(s, n) &&
	       cfs_unhex(rest, s, CFS_DIGEST_SIZE - 1) == 0;
}

bool cfs_layout_object_digest(const char *path, size_t len, uint8_t *digest)
{
	return len == CFS_OBJECT_PATH_LEN && path[2] == '/' &&
	       cfs_lower_hex(path, 2) && cfs_unhex(digest, path, 1) == 0 &&
	       object_rest(path + 3, len - 3, digest + 1);
}

bool cfs_layout_object_name(uint8_t fanout, const char *name, uint8_t *digest)
{
	digest[0] = fanout;
	return object_rest(name, strnlen(name, 2 * CFS_DIGEST_SIZE),
			   digest + 1);
}

char *cfs_layout_ref_path(const char *store, const char *name)
{
	return xasprintf("%s/" CFS_STORE_REFS "/%s", store, name);
}

char *cfs_layout_refs_dir(const char *store)
{
	return xasprintf("%s/" CFS_STORE_REFS, store);
}

char *cfs_layout_images_dir(const char *store)
{
	return xasprintf("%s/" CFS_STORE_IMAGES, store);
}

char *cfs_layout_record_path(const char *store, const char *hex)
{
	return xasprintf("%s/" CFS_STORE_LAYERS "/%s", store, hex);
}

char *cfs_layout_record_rel(const char *hex)
{
	return xasprintf(CFS_STORE_LAYERS "/%s", hex);
}

char *cfs_layout_records_dir(const char *store)
{
	return xasprintf("%s/" CFS_STORE_LAYERS, store);
}

static const char *const image_suffix[CFS_IMAGE_N_FILES] = {
	[CFS_IMAGE_MANIFEST] = ".cfs",
	[CFS_IMAGE_CONFIG] = ".json",
	[CFS_IMAGE_OCI_MANIFEST] = ".manifest.json",
	[CFS_IMAGE_SEAL] = ".seal",
};

char *cfs_layout_image_file(const char *store, const char *id,
			    enum cfs_image_file f)
{
	return xasprintf("%s/" CFS_STORE_IMAGES "/%s%s", store, id,
			 image_suffix[f]);
}

char *cfs_layout_image_rel(const char *id, enum cfs_image_file f)
{
	return xasprintf(CFS_STORE_IMAGES "/%s%s", id, image_suffix[f]);
}

bool cfs_layout_manifest_name(const char *path)
{
	size_t len = strlen(path), n = strlen(image_suffix[0]);

	return len > n && !strcmp(path + len - n, image_suffix[0]);
}

char *cfs_layout_side_file(const char *manifest, enum cfs_image_file f)
{
	size_t n = strlen(manifest) - strlen(image_suffix[0]);

	if (!cfs_layout_manifest_name(manifest))
		return NULL;
	return xasprintf("%.*s%s", (int)n, manifest, image_suffix[f]);
}

int cfs_layout_image_name(const char *name, char *id)
{
	if (strlen(name) <= CFS_IMAGE_ID_LEN)
		return -1;
	memcpy(id, name, CFS_IMAGE_ID_LEN);
	id[CFS_IMAGE_ID_LEN] = '\0';
	if (!cfs_image_id_ok(id))
		return -1;
	for (int f = 0; f < CFS_IMAGE_N_FILES; f++)
		if (!strcmp(name + CFS_IMAGE_ID_LEN, image_suffix[f]))
			return f;
	return -1;
}

bool cfs_layout_manifest_id(const char *path, char *id)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return cfs_layout_image_name(base, id) == CFS_IMAGE_MANIFEST;
}

/* Whether the file at path holds exactly data (read in small chunks). */
static bool same_content(const char *path, const uint8_t *data, size_t len)
{
	uint8_t chunk[64 * 1024];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	size_t off = 0;
	bool same;

	if (fd < 0)
		return false;
	same = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	       (uint64_t)st.st_size == len;
	while (same && off < len) {
		size_t want =
			len - off < sizeof(chunk) ? len - off : sizeof(chunk);
		ssize_t n = read(fd, chunk, want);

		same = n > 0 && memcmp(chunk, data + off, (size_t)n) == 0;
		off += n > 0 ? (size_t)n : 0;
	}
	close(fd);
	return same;
}

/*
 * Re-converting an image gives the same bytes: leave an identical file
 * alone rather than rewrite (and fsync) it.
 */
static int write_unless_same(const char *path, const uint8_t *data, size_t len,
			     int flags)
{
	if (same_content(path, data, len))
		return 0;
	return cfs_write_file_atomic(path, data, len, 0644, flags);
}

static int write_image_file(const char *store, const char *id,
			    enum cfs_image_file f, const uint8_t *data,
			    size_t len, int flags)
{
	char *path = cfs_layout_image_file(store, id, f);
	int r = write_unless_same(path, data, len, flags);

	free(path);
	return r;
}

#define SEAL_FILE_LEN (2 * CFS_DIGEST_SIZE + 1)

static int write_seal(const char *store, const char *id, const uint8_t *d,
		      int flags)
{
	char text[SEAL_FILE_LEN + 1];

	cfs_hex(text, d, CFS_DIGEST_SIZE);
	text[SEAL_FILE_LEN - 1] = '\n';
	return write_image_file(store, id, CFS_IMAGE_SEAL,
				(const uint8_t *)text, SEAL_FILE_LEN, flags);
}

int cfs_layout_read_seal(const char *manifest, uint8_t d[CFS_DIGEST_SIZE])
{
	char *path = cfs_layout_side_file(manifest, CFS_IMAGE_SEAL);
	char text[SEAL_FILE_LEN + 1];
	ssize_t n = -1;
	int fd, r = -1;

	if (!path)
		return 0;
	/* no FIFO may block a mount: O_NONBLOCK */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0 && errno == ENOENT) {
		r = 0;
	} else if (fd < 0 || (n = read(fd, text, sizeof(text))) < 0) {
		cfs_error("%s: %s", path, strerror(errno));
	} else if (n != SEAL_FILE_LEN || text[SEAL_FILE_LEN - 1] != '\n' ||
		   !cfs_lower_hex(text, 2 * CFS_DIGEST_SIZE)) {
		cfs_error("%s: not a seal (64 lowercase hex digits and a "
			  "newline)",
			  path);
	} else {
		cfs_unhex(d, text, CFS_DIGEST_SIZE);
		r = 1;
	}
	if (fd >= 0)
		close(fd);
	free(path);
	return r;
}

int cfs_layout_write_image(const char *store,
			   const struct cfs_layout_image *img)
{
	char *images = cfs_layout_images_dir(store);
	int r = cfs_mkdir_p(images, CFS_STORE_DIR_MODE);

	free(images);
	if (r == 0)
		r = write_image_file(store, img->id, CFS_IMAGE_CONFIG,
				     img->config, img->config_len,
				     img->side_flags);
	if (r == 0)
		r = write_image_file(store, img->id, CFS_IMAGE_OCI_MANIFEST,
				     img->oci_manifest, img->oci_manifest_len,
				     img->side_flags);
	if (r == 0 && img->seal)
		r = write_seal(store, img->id, img->seal, img->side_flags);
	/* The manifest last: a manifest always has its side files. */
	if (r == 0)
		r = write_image_file(store, img->id, CFS_IMAGE_MANIFEST,
				     img->manifest, img->manifest_len,
				     img->manifest_flags);
	return r;
}

static int check_ref_name(const char *name)
{
	char pbuf[CFS_SHOWN_MAX];

	if (cfs_ref_name_ok(name))
		return 0;
	cfs_error("invalid image name for a ref: '%s'",
		  cfs_printable(pbuf, sizeof(pbuf), name));
	return -1;
}

int cfs_layout_write_ref(const char *store, const char *name, const char *id)
{
	char *path, *parent, *rel;
	struct cfs_buf target = {0};
	int r = -1;

	if (check_ref_name(name) < 0)
		return -1;
	path = cfs_layout_ref_path(store, name);
	/* ../images/ID.cfs from refs/, one more ../ per directory of name */
	for (const char *p = name; *p; p++)
		if (*p == '/')
			cfs_buf_append(&target, "../", 3);
	rel = cfs_layout_image_rel(id, CFS_IMAGE_MANIFEST);
	cfs_buf_append(&target, "../", 3);
	cfs_buf_append(&target, rel, strlen(rel) + 1);
	free(rel);
	parent = xstrndup(path, (size_t)(strrchr(path, '/') - path));
	if (cfs_mkdir_p(parent, CFS_STORE_DIR_MODE) == 0)
		r = cfs_symlink_replace((char *)target.data, path);
	cfs_buf_free(&target);
	free(parent);
	free(path);
	return r;
}

int cfs_layout_remove_ref(const char *store, const char *name)
{
	char *path, *refs, *slash;

	if (check_ref_name(name) < 0)
		return -1;
	path = cfs_layout_ref_path(store, name);
	if (unlink(path) < 0) {
		cfs_error("%s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	refs = cfs_layout_refs_dir(store);
	while ((slash = strrchr(path, '/')) &&
	       slash - path > (long)strlen(refs)) {
		*slash = '\0';
		if (rmdir(path) < 0)
			break;
	}
	free(refs);
	free(path);
	return 0;
}

enum cfs_ref_status cfs_layout_resolve_ref(const char *store, const char *name,
					   char **out)
{
	char *ref, *real;
	struct stat st;
	int e;

	*out = NULL;
	if (!cfs_ref_name_ok(name))
		return CFS_REF_BAD_NAME;
	ref = cfs_layout_ref_path(store, name);
	if (lstat(ref, &st) < 0) {
		free(ref);
		return CFS_REF_NONE;
	}
	real = realpath(ref, NULL);
	e = errno;
	free(ref);
	if (!real) {
		errno = e;
		return CFS_REF_BROKEN;
	}
	if (stat(real, &st) < 0 || !S_ISREG(st.st_mode)) {
		free(real);
		errno = EISDIR;
		return CFS_REF_BROKEN;
	}
	*out = real;
	return CFS_REF_OK;
}

int cfs_layout_move_aside_at(int dirfd, const char *rel)
{
	char *to = xasprintf(CFS_STORE_DAMAGED "/%s.%ld.%d", rel,
			     (long)time(NULL), (int)getpid());
	int r;

	for (char *p = to + strlen(CFS_STORE_DAMAGED "/"); *p; p++)
		if (*p == '/')
			*p = '-';
	if (mkdirat(dirfd, CFS_STORE_DAMAGED, CFS_STORE_DIR_MODE) < 0 &&
	    errno != EEXIST)
		r = -1;
	else
		r = renameat(dirfd, rel, dirfd, to);
	if (r < 0)
		cfs_error("%s: moving aside: %s", rel, strerror(errno));
	free(to);
	return r;
}

int cfs_layout_make_root(const char *store)
{
	char *parent, *end, *slash;
	int r;

	if (mkdir(store, CFS_STORE_ROOT_MODE) == 0 || errno == EEXIST)
		return 0;
	if (errno != ENOENT) {
		cfs_error("%s: cannot create directory: %s", store,
			  strerror(errno));
		return -1;
	}
	parent = xstrdup(store);
	end = parent + strlen(parent);
	while (end > parent + 1 && end[-1] == '/')
		*--end = '\0';
	slash = strrchr(parent, '/');
	if (slash && slash > parent) {
		*slash = '\0';
		r = cfs_mkdir_p(parent, 0755);
	} else {
		r = 0; /* "/" or a name in the working directory */
	}
	free(parent);
	if (r == 0 && mkdir(store, CFS_STORE_ROOT_MODE) < 0 &&
	    errno != EEXIST) {
		cfs_error("%s: cannot create directory: %s", store,
			  strerror(errno));
		r = -1;
	}
	return r;
}
