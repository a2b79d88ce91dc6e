// SPDX-License-Identifier: MIT
/*
 * Fixtures for the OCI reader tests: sets of files written out as layout
 * directories or tars, images (layers, config, manifest) built into them,
 * and checks that an opened image is the one built.
 */
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oci-fixture.h"
#include "tar-builder.h"

char oci_tmp[64];

/* ---- a set of files, written out as a directory or a tar ---- */

void fs_add(struct fileset *fs, const char *name, const void *data, size_t len)
{
	struct file *f = &fs->f[fs->n++];

	f->name = xstrdup(name);
	f->data = xmemdup(data, len ? len : 1);
	f->len = len;
	f->symlink = NULL;
	f->hardlink = false;
}

void fs_add_str(struct fileset *fs, const char *name, const char *s)
{
	fs_add(fs, name, s, strlen(s));
}

void fs_add_symlink(struct fileset *fs, const char *name, const char *target)
{
	fs_add(fs, name, "", 0);
	fs->f[fs->n - 1].symlink = xstrdup(target);
}

/* As GNU tar stores a file given twice: a hardlink to its first copy. */
void fs_add_hardlink(struct fileset *fs, const char *name, const char *target)
{
	fs_add_symlink(fs, name, target);
	fs->f[fs->n - 1].hardlink = true;
}

void fs_free(struct fileset *fs)
{
	for (int i = 0; i < fs->n; i++) {
		free(fs->f[i].name);
		free(fs->f[i].data);
		free(fs->f[i].symlink);
	}
	fs->n = 0;
}

void sha_hex(const EVP_MD *md, const void *data, size_t len, char *out)
{
	uint8_t d[64];
	unsigned int n;

	EVP_Digest(data, len, d, &n, md, NULL);
	cfs_hex(out, d, n);
}

/* Stores data as blobs/<alg>/<hex>; writes "alg:hex" into digest. */
void fs_add_blob_md(struct fileset *fs, const EVP_MD *md, const void *data,
		    size_t len, char *digest)
{
	const char *alg = md == EVP_sha512() ? "sha512" : "sha256";
	char hex[129], *path;

	sha_hex(md, data, len, hex);
	sprintf(digest, "%s:%s", alg, hex);
	path = xasprintf("blobs/%s/%s", alg, hex);
	fs_add(fs, path, data, len);
	free(path);
}

void fs_add_blob(struct fileset *fs, const void *data, size_t len, char *digest)
{
	fs_add_blob_md(fs, EVP_sha256(), data, len, digest);
}

static int mkdirs_for(const char *path)
{
	char *dir = xstrdup(path);
	int r;

	*strrchr(dir, '/') = '\0';
	r = cfs_mkdir_p(dir, 0755);
	free(dir);
	return r;
}

void write_file(const char *path, const void *data, size_t len)
{
	FILE *f;

	mkdirs_for(path);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(2);
	}
}

char *fs_write_dir(const struct fileset *fs, const char *name)
{
	char *dir = xasprintf("%s/%s", oci_tmp, name);

	cfs_mkdir_p(dir, 0755);
	for (int i = 0; i < fs->n; i++) {
		char *p = xasprintf("%s/%s", dir, fs->f[i].name);

		if (fs->f[i].symlink) {
			mkdirs_for(p);
			if (symlink(fs->f[i].symlink, p) < 0)
				perror(p);
		} else {
			write_file(p, fs->f[i].data, fs->f[i].len);
		}
		free(p);
	}
	return dir;
}

char *fs_write_tar(const struct fileset *fs, const char *name)
{
	char *path = xasprintf("%s/%s", oci_tmp, name);
	struct tb t;

	tb_begin(&t, TB_NONE);
	for (int i = 0; i < fs->n; i++) {
		const struct file *f = &fs->f[i];

		if (f->hardlink)
			tb_hardlink(&t, f->name, f->symlink);
		else if (f->symlink)
			tb_symlink(&t, f->name, f->symlink);
		else
			tb_file(&t, f->name, 0644, f->data, f->len);
	}
	tb_end_to_file(&t, path);
	return path;
}

/* A layer: a tar holding NAME with CONTENT, optionally gzip'ed. */
static uint8_t *layer_tar(const char *name, const char *content, bool gzip,
			  size_t *len)
{
	struct tb t;

	tb_begin(&t, gzip ? TB_GZIP : TB_NONE);
	tb_file(&t, name, 0644, content, strlen(content));
	tb_end(&t);
	*len = t.out.len;
	return t.out.data;
}

/* ---- images ---- */

void built_free(struct built *b)
{
	for (int i = 0; i < b->n_layers; i++)
		free(b->layer[i]);
	free(b->config);
	memset(b, 0, sizeof(*b));
}

/*
 * Adds layers, config and manifest of an image to fs. Layer i holds
 * "f<i>" with "<tag> <i>"; odd layers are gzip'ed. layer_mt, if given,
 * replaces the media type of layer 0.
 */
void build_image(struct fileset *fs, struct built *b, const char *tag,
		 int n_layers, const char *layer_mt)
{
	char *layers = xstrdup(""), *ids = xstrdup(""), *t, *m;

	memset(b, 0, sizeof(*b));
	b->n_layers = n_layers;
	for (int i = 0; i < n_layers; i++) {
		char name[16], content[64], hex[65];
		size_t plen;
		uint8_t *plain;

		snprintf(name, sizeof(name), "f%d", i);
		snprintf(content, sizeof(content), "%s %d", tag, i);
		plain = layer_tar(name, content, false, &plen);
		sha_hex(EVP_sha256(), plain, plen, hex);
		sprintf(b->diff_id[i], "sha256:%s", hex);
		b->layer[i] =
			i % 2 ? layer_tar(name, content, true, &b->layer_len[i])
			      : plain;
		if (i % 2)
			free(plain);
		else
			b->layer_len[i] = plen;
		fs_add_blob(fs, b->layer[i], b->layer_len[i],
			    b->layer_digest[i]);
		t = xasprintf("%s%s{\"mediaType\":\"%s\",\"digest\":\"%s\","
			      "\"size\":%zu}",
			      layers, i ? "," : "",
			      i == 0 && layer_mt ? layer_mt
			      : i % 2		 ? OCI_TGZ
						 : OCI_TAR,
			      b->layer_digest[i], b->layer_len[i]);
		free(layers);
		layers = t;
		t = xasprintf("%s%s\"%s\"", ids, i ? "," : "", b->diff_id[i]);
		free(ids);
		ids = t;
	}
	b->config = (uint8_t *)xasprintf(
		"{\"architecture\":\"amd64\",\"os\":\"linux\",\"config\":{},"
		"\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[%s]}}",
		ids);
	b->config_len = strlen((char *)b->config);
	fs_add_blob(fs, b->config, b->config_len, b->config_digest);
	m = xasprintf("{\"schemaVersion\":2,\"mediaType\":\"%s\","
		      "\"config\":{\"mediaType\":\"%s\",\"digest\":\"%s\","
		      "\"size\":%zu},\"layers\":[%s]}",
		      OCI_MANIFEST, OCI_CONFIG, b->config_digest, b->config_len,
		      layers);
	b->manifest_size = strlen(m);
	fs_add_blob(fs, m, b->manifest_size, b->manifest_digest);
	free(m);
	free(layers);
	free(ids);
}

/* A descriptor of b's manifest; extra is appended inside the object. */
char *manifest_desc(const struct built *b, const char *extra)
{
	return xasprintf(
		"{\"mediaType\":\"%s\",\"digest\":\"%s\",\"size\":%zu%s}",
		OCI_MANIFEST, b->manifest_digest, b->manifest_size, extra);
}

char *ref_extra(const char *ref)
{
	return xasprintf(",\"annotations\":{\"%s\":\"%s\"}", REF_KEY, ref);
}

char *platform_extra(const char *arch, const char *ref)
{
	return xasprintf(",\"platform\":{\"os\":\"linux\",\"architecture\":"
			 "\"%s\"}%s%s%s",
			 arch,
			 ref ? ",\"annotations\":{\"" REF_KEY "\":\"" : "",
			 ref ? ref : "", ref ? "\"}" : "");
}

/* index.json + oci-layout listing the given descriptors (freed). */
void add_index(struct fileset *fs, int n, char **descs)
{
	char *list = xstrdup(""), *t;

	for (int i = 0; i < n; i++) {
		t = xasprintf("%s%s%s", list, i ? "," : "", descs[i]);
		free(list);
		free(descs[i]);
		list = t;
	}
	t = xasprintf("{\"schemaVersion\":2,\"manifests\":[%s]}", list);
	fs_add_str(fs, "index.json", t);
	fs_add_str(fs, "oci-layout", "{\"imageLayoutVersion\":\"1.0.0\"}");
	free(t);
	free(list);
}

/* A layout with one tagged image of n layers. */
void simple_layout(struct fileset *fs, struct built *b, const char *ref, int n,
		   const char *layer_mt)
{
	char *extra = ref_extra(ref), *desc;

	build_image(fs, b, "simple", n, layer_mt);
	desc = manifest_desc(b, extra);
	add_index(fs, 1, &desc);
	free(extra);
}

/* ---- reading ---- */

bool error_has(const char *s)
{
	bool has = strstr(cfs_strerror(), s) != NULL;

	if (!has)
		printf("# error was: %s\n", cfs_strerror());
	return has;
}

int open_fails(const char *path, const char *ref, const char *plat,
	       const char *msg)
{
	struct cfs_oci_image *img = NULL;
	int r = cfs_oci_open(&img, path, ref, plat);

	cfs_oci_close(img);
	return r < 0 && error_has(msg) && error_has(path);
}

/* Reads layer i whole; returns its length, or -1 on error. */
ssize_t read_layer(struct cfs_oci_image *img, size_t i, uint8_t **out)
{
	struct cfs_buf buf = {0};
	struct cfs_blob *b;
	ssize_t r;

	if (cfs_oci_open_layer(img, i, &b) < 0)
		return -1;
	do {
		cfs_buf_reserve(&buf, 1000);
		r = cfs_blob_read(b, buf.data + buf.len, 1000);
		if (r > 0)
			buf.len += r;
	} while (r > 0);
	cfs_blob_close(b);
	if (r < 0) {
		cfs_buf_free(&buf);
		return -1;
	}
	*out = buf.data;
	return buf.len;
}

bool layers_match(struct cfs_oci_image *img, const struct built *b,
		  bool check_digest)
{
	bool good = img->n_layers == (size_t)b->n_layers;

	for (int i = 0; good && i < b->n_layers; i++) {
		uint8_t *data = NULL;
		ssize_t n = read_layer(img, i, &data);
		char hex[65];

		cfs_hex(hex, img->layers[i].diff_id, 32);
		good = n == (ssize_t)b->layer_len[i] &&
		       !memcmp(data, b->layer[i], n) &&
		       !strcmp(hex, b->diff_id[i] + 7) &&
		       img->layers[i].size == b->layer_len[i] &&
		       (!check_digest ||
			!strcmp(img->layers[i].digest, b->layer_digest[i]));
		free(data);
	}
	return good;
}

static bool image_is(struct cfs_oci_image *img, const struct built *b)
{
	return !strcmp(img->config_digest, b->config_digest) &&
	       img->config_len == b->config_len &&
	       !memcmp(img->config, b->config, b->config_len) &&
	       img->manifest_len == b->manifest_size &&
	       layers_match(img, b, true);
}

/* Opens path with ref/platform; true if it is image b named ref_name. */
bool opens_as(const char *path, const char *ref, const char *plat,
	      const struct built *b, const char *ref_name)
{
	struct cfs_oci_image *img;
	bool good;

	if (cfs_oci_open(&img, path, ref, plat) < 0) {
		printf("# %s\n", cfs_strerror());
		return false;
	}
	good = image_is(img, b) &&
	       (ref_name ? img->ref_name && !strcmp(img->ref_name, ref_name)
			 : !img->ref_name);
	cfs_oci_close(img);
	return good;
}

char *image_file(const char *dir, const char *digest)
{
	const char *colon = strchr(digest, ':');

	return xasprintf("%s/blobs/%.*s/%s", dir, (int)(colon - digest), digest,
			 colon + 1);
}

void flip_byte(const char *path, off_t off)
{
	int fd = open(path, O_RDWR);
	uint8_t c;

	if (pread(fd, &c, 1, off) != 1)
		exit(2);
	c ^= 0x20;
	if (pwrite(fd, &c, 1, off) != 1)
		exit(2);
	close(fd);
}

void resize(const char *path, off_t size)
{
	if (truncate(path, size) < 0) {
		perror(path);
		exit(2);
	}
}

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	return remove(path);
}

void oci_fixture_start(void)
{
	strcpy(oci_tmp, "/tmp/test-oci.XXXXXX");
	if (!mkdtemp(oci_tmp)) {
		perror("mkdtemp");
		exit(2);
	}
}

void oci_fixture_end(void)
{
	nftw(oci_tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}
