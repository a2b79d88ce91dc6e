// SPDX-License-Identifier: MIT
/*
 * The OCI image reader on images built here at run time: layout
 * directories, oci-archive and docker-archive tars, nested indexes, ref and
 * platform choice, blob verification and hostile inputs; then on images
 * made by umoci and skopeo when those are installed.
 */
#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <ftw.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cfs/oci.h"
#include "tap.h"
#include "cfs/util.h"

#define OCI_MANIFEST "application/vnd.oci.image.manifest.v1+json"
#define OCI_INDEX "application/vnd.oci.image.index.v1+json"
#define OCI_CONFIG "application/vnd.oci.image.config.v1+json"
#define OCI_TAR "application/vnd.oci.image.layer.v1.tar"
#define OCI_TGZ "application/vnd.oci.image.layer.v1.tar+gzip"
#define REF_KEY "org.opencontainers.image.ref.name"
#define MAX_FILES 32
#define MAX_LAYERS 4

static char tmp[64];

/* ---- a set of files, written out as a directory or a tar ---- */

struct file {
	char *name;
	uint8_t *data;
	size_t len;
	char *symlink; /* or hardlink target when hardlink */
	bool hardlink;
};

struct fileset {
	struct file f[MAX_FILES];
	int n;
};

static void fs_add(struct fileset *fs, const char *name, const void *data,
		   size_t len)
{
	struct file *f = &fs->f[fs->n++];

	f->name = xstrdup(name);
	f->data = xmemdup(data, len ? len : 1);
	f->len = len;
	f->symlink = NULL;
	f->hardlink = false;
}

static void fs_add_str(struct fileset *fs, const char *name, const char *s)
{
	fs_add(fs, name, s, strlen(s));
}

static void fs_add_symlink(struct fileset *fs, const char *name,
			   const char *target)
{
	fs_add(fs, name, "", 0);
	fs->f[fs->n - 1].symlink = xstrdup(target);
}

/* As GNU tar stores a file given twice: a hardlink to its first copy. */
static void fs_add_hardlink(struct fileset *fs, const char *name,
			    const char *target)
{
	fs_add_symlink(fs, name, target);
	fs->f[fs->n - 1].hardlink = true;
}

static void fs_free(struct fileset *fs)
{
	for (int i = 0; i < fs->n; i++) {
		free(fs->f[i].name);
		free(fs->f[i].data);
		free(fs->f[i].symlink);
	}
	fs->n = 0;
}

static void sha_hex(const EVP_MD *md, const void *data, size_t len, char *out)
{
	uint8_t d[64];
	unsigned int n;

	EVP_Digest(data, len, d, &n, md, NULL);
	cfs_hex(out, d, n);
}

/* Stores data as blobs/<alg>/<hex>; writes "alg:hex" into digest. */
static void fs_add_blob_md(struct fileset *fs, const EVP_MD *md,
			   const void *data, size_t len, char *digest)
{
	const char *alg = md == EVP_sha512() ? "sha512" : "sha256";
	char hex[129], *path;

	sha_hex(md, data, len, hex);
	sprintf(digest, "%s:%s", alg, hex);
	path = xasprintf("blobs/%s/%s", alg, hex);
	fs_add(fs, path, data, len);
	free(path);
}

static void fs_add_blob(struct fileset *fs, const void *data, size_t len,
			char *digest)
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

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f;

	mkdirs_for(path);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(2);
	}
}

static char *fs_write_dir(const struct fileset *fs, const char *name)
{
	char *dir = xasprintf("%s/%s", tmp, name);

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

static void tar_entry(struct archive *a, const char *name, const void *data,
		      size_t len, const char *symlink, bool hardlink)
{
	struct archive_entry *e = archive_entry_new();

	archive_entry_set_pathname(e, name);
	if (hardlink) {
		archive_entry_set_hardlink(e, symlink);
		symlink = NULL;
		len = 0;
	}
	archive_entry_set_mode(e, (symlink ? AE_IFLNK : AE_IFREG) | 0644);
	archive_entry_set_size(e, symlink ? 0 : len);
	if (symlink)
		archive_entry_set_symlink(e, symlink);
	archive_entry_set_mtime(e, 1000000000, 0);
	archive_write_header(a, e);
	if (!symlink)
		archive_write_data(a, data, len);
	archive_entry_free(e);
}

static char *fs_write_tar(const struct fileset *fs, const char *name)
{
	char *path = xasprintf("%s/%s", tmp, name);
	struct archive *a = archive_write_new();

	archive_write_set_format_pax_restricted(a);
	if (archive_write_open_filename(a, path) != ARCHIVE_OK) {
		fprintf(stderr, "%s\n", archive_error_string(a));
		exit(2);
	}
	for (int i = 0; i < fs->n; i++)
		tar_entry(a, fs->f[i].name, fs->f[i].data, fs->f[i].len,
			  fs->f[i].symlink, fs->f[i].hardlink);
	archive_write_close(a);
	archive_write_free(a);
	return path;
}

/* A layer: a tar holding NAME with CONTENT, optionally gzip'ed. */
static uint8_t *layer_tar(const char *name, const char *content, bool gzip,
			  size_t *len)
{
	size_t cap = 1 << 20;
	uint8_t *buf = xmalloc(cap);
	struct archive *a = archive_write_new();

	archive_write_set_format_pax_restricted(a);
	if (gzip)
		archive_write_add_filter_gzip(a);
	archive_write_open_memory(a, buf, cap, len);
	tar_entry(a, name, content, strlen(content), NULL, false);
	archive_write_close(a);
	archive_write_free(a);
	return buf;
}

/* ---- images ---- */

struct built {
	int n_layers;
	char layer_digest[MAX_LAYERS][136];
	uint8_t *layer[MAX_LAYERS];
	size_t layer_len[MAX_LAYERS];
	char diff_id[MAX_LAYERS][72];
	char config_digest[136];
	uint8_t *config;
	size_t config_len;
	char manifest_digest[136];
	size_t manifest_size;
};

static void built_free(struct built *b)
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
static void build_image(struct fileset *fs, struct built *b, const char *tag,
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
static char *manifest_desc(const struct built *b, const char *extra)
{
	return xasprintf(
		"{\"mediaType\":\"%s\",\"digest\":\"%s\",\"size\":%zu%s}",
		OCI_MANIFEST, b->manifest_digest, b->manifest_size, extra);
}

static char *ref_extra(const char *ref)
{
	return xasprintf(",\"annotations\":{\"%s\":\"%s\"}", REF_KEY, ref);
}

static char *platform_extra(const char *arch, const char *ref)
{
	return xasprintf(",\"platform\":{\"os\":\"linux\",\"architecture\":"
			 "\"%s\"}%s%s%s",
			 arch,
			 ref ? ",\"annotations\":{\"" REF_KEY "\":\"" : "",
			 ref ? ref : "", ref ? "\"}" : "");
}

/* index.json + oci-layout listing the given descriptors (freed). */
static void add_index(struct fileset *fs, int n, char **descs)
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
static void simple_layout(struct fileset *fs, struct built *b, const char *ref,
			  int n, const char *layer_mt)
{
	char *extra = ref_extra(ref), *desc;

	build_image(fs, b, "simple", n, layer_mt);
	desc = manifest_desc(b, extra);
	add_index(fs, 1, &desc);
	free(extra);
}

/* ---- reading ---- */

static bool error_has(const char *s)
{
	bool has = strstr(cfs_strerror(), s) != NULL;

	if (!has)
		printf("# error was: %s\n", cfs_strerror());
	return has;
}

static int open_fails(const char *path, const char *ref, const char *plat,
		      const char *msg)
{
	struct cfs_oci_image *img = NULL;
	int r = cfs_oci_open(&img, path, ref, plat);

	cfs_oci_close(img);
	return r < 0 && error_has(msg) && error_has(path);
}

/* Reads layer i whole; returns its length, or -1 on error. */
static ssize_t read_layer(struct cfs_oci_image *img, size_t i, uint8_t **out)
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

static bool layers_match(struct cfs_oci_image *img, const struct built *b,
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
static bool opens_as(const char *path, const char *ref, const char *plat,
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

/* ---- tests ---- */

static char *image_file(const char *dir, const char *digest)
{
	const char *colon = strchr(digest, ':');

	return xasprintf("%s/blobs/%.*s/%s", dir, (int)(colon - digest), digest,
			 colon + 1);
}

static void test_layout_and_archive(void)
{
	struct fileset fs = {0};
	struct built b;
	char *dir, *tar, *path;

	simple_layout(&fs, &b, "1.0", 3, NULL);
	dir = fs_write_dir(&fs, "simple");
	tar = fs_write_tar(&fs, "simple.tar");
	ok(opens_as(dir, NULL, NULL, &b, "1.0"), "layout dir: opens, layers "
						 "and config verified");
	ok(opens_as(tar, NULL, NULL, &b, "1.0"), "oci-archive: same image");
	ok(opens_as(tar, "1.0", NULL, &b, "1.0"), "oci-archive: by ref");
	free(tar);
	path = image_file("", b.layer_digest[1]);
	fs_add_hardlink(&fs, path + 1, path + 1);
	free(path);
	tar = fs_write_tar(&fs, "hardlinked.tar");
	ok(opens_as(tar, NULL, NULL, &b, "1.0"),
	   "oci-archive with a blob stored again as a hardlink to itself");
	ok(opens_as(dir, "web:1.0", NULL, &b, "1.0"),
	   "ref name:tag matches a tag-only annotation");
	ok(opens_as(dir, NULL, "linux/amd64", &b, "1.0"),
	   "explicit platform matches the config's");
	ok(open_fails(dir, NULL, "linux/arm64", "image is for linux/amd64"),
	   "explicit platform checked against the config");
	ok(open_fails(dir, "2.0", NULL,
		      "no manifest matching ref '2.0' "
		      "(available: 1.0)"),
	   "unknown ref: error lists the refs");
	free(dir);
	free(tar);
	fs_free(&fs);
	built_free(&b);
}

static void test_docker_archive(void)
{
	struct fileset fs = {0}, fs2 = {0};
	struct built b;
	char cfg_hex[65], *tar, *t, *tar2;

	/* Reuse an OCI build for the bytes, then lay them out docker-style. */
	struct fileset scratch = {0};

	build_image(&scratch, &b, "dock", 2, NULL);
	sha_hex(EVP_sha256(), b.config, b.config_len, cfg_hex);
	t = xasprintf("%s.json", cfg_hex);
	fs_add(&fs, t, b.config, b.config_len);
	free(t);
	fs_add(&fs, "aaa/layer.tar", b.layer[0], b.layer_len[0]);
	fs_add(&fs, "bbb.tar", b.layer[1], b.layer_len[1]);
	fs_add_symlink(&fs, "ccc/layer.tar", "../bbb.tar");
	t = xasprintf("[{\"Config\":\"%s.json\",\"RepoTags\":["
		      "\"docker.io/library/web:1.0\",\"web:latest\"],"
		      "\"Layers\":[\"aaa/layer.tar\",\"ccc/layer.tar\"]}]",
		      cfg_hex);
	fs_add_str(&fs, "manifest.json", t);
	free(t);
	tar = fs_write_tar(&fs, "docker.tar");

	struct cfs_oci_image *img;
	bool good = cfs_oci_open(&img, tar, NULL, NULL) == 0;

	ok(good, "docker-archive opens");
	if (good) {
		ok(!strcmp(img->config_digest, b.config_digest) &&
			   !strcmp(img->ref_name, "docker.io/library/web:1.0"),
		   "docker-archive: config digest computed, first RepoTag");
		ok(layers_match(img, &b, false) && !img->layers[0].digest[0],
		   "docker-archive: layers (one via symlink) stream, no "
		   "blob digest");
		ok(img->manifest_len &&
			   strstr((char *)img->manifest, b.config_digest),
		   "docker-archive: synthesised manifest names the config");
		cfs_oci_close(img);
	}
	ok(cfs_oci_open(&img, tar, "web:latest", NULL) == 0 &&
		   !strcmp(img->ref_name, "web:latest"),
	   "docker-archive: exact RepoTag");
	cfs_oci_close(img);
	ok(cfs_oci_open(&img, tar, "web:1.0", NULL) == 0 &&
		   !strcmp(img->ref_name, "docker.io/library/web:1.0"),
	   "docker-archive: short name matches full RepoTag");
	cfs_oci_close(img);
	ok(open_fails(tar, "db:1.0", NULL,
		      "available: docker.io/library/web:"
		      "1.0, web:latest"),
	   "docker-archive: unknown ref lists the tags");
	ok(open_fails(tar, NULL, "linux/arm64", "not linux/arm64"),
	   "docker-archive: platform checked against the config");

	/* a config whose name claims another digest */
	fs_add(&fs2,
	       "000000000000000000000000000000000000000000000000000000000000000"
	       "0.json",
	       b.config, b.config_len);
	fs_add(&fs2, "l.tar", b.layer[0], b.layer_len[0]);
	fs_add_str(&fs2, "manifest.json",
		   "[{\"Config\":\"000000000000000000000000000000000000000000"
		   "0000000000000000000000.json\",\"RepoTags\":null,"
		   "\"Layers\":[\"l.tar\"]}]");
	tar2 = fs_write_tar(&fs2, "docker-bad.tar");
	ok(open_fails(tar2, NULL, NULL, "digest mismatch"),
	   "docker-archive: config named by a wrong digest");
	free(tar);
	free(tar2);
	fs_free(&fs);
	fs_free(&fs2);
	fs_free(&scratch);
	built_free(&b);
}

static const char *host_arch(void)
{
	static struct utsname u;

	uname(&u);
	if (!strcmp(u.machine, "x86_64"))
		return "amd64";
	if (!strcmp(u.machine, "aarch64"))
		return "arm64";
	return NULL;
}

static void test_nested_and_platform(void)
{
	struct fileset fs = {0};
	struct built amd, arm;
	char *descs[2], *ext, *nested, *dir, nested_digest[136];
	size_t nested_len;

	build_image(&fs, &amd, "amd", 1, NULL);
	build_image(&fs, &arm, "arm", 2, NULL);
	ext = platform_extra("amd64", NULL);
	descs[0] = manifest_desc(&amd, ext);
	free(ext);
	ext = platform_extra("arm64", NULL);
	descs[1] = manifest_desc(&arm, ext);
	free(ext);
	nested = xasprintf("{\"schemaVersion\":2,\"mediaType\":\"%s\","
			   "\"manifests\":[%s,%s]}",
			   OCI_INDEX, descs[0], descs[1]);
	free(descs[0]);
	free(descs[1]);
	nested_len = strlen(nested);
	fs_add_blob(&fs, nested, nested_len, nested_digest);
	free(nested);
	descs[0] = xasprintf("{\"mediaType\":\"%s\",\"digest\":\"%s\",\"size\":"
			     "%zu,\"annotations\":{\"%s\":\"multi\"}}",
			     OCI_INDEX, nested_digest, nested_len, REF_KEY);
	add_index(&fs, 1, descs);
	dir = fs_write_dir(&fs, "nested");

	ok(opens_as(dir, "multi", "linux/arm64", &arm, "multi"),
	   "nested index: explicit platform arm64, ref inherited");
	ok(opens_as(dir, NULL, "linux/amd64", &amd, "multi"),
	   "nested index: explicit platform amd64");
	ok(opens_as(dir, NULL, "linux/arm64/v8", &arm, "multi"),
	   "arm64/v8 matches arm64 without variant");
	ok(open_fails(dir, NULL, "linux/s390x",
		      "no manifest for platform "
		      "linux/s390x"),
	   "no such platform: error");
	ok(open_fails(dir, NULL, "linux", "invalid platform"),
	   "malformed platform string");
	if (host_arch())
		ok(opens_as(dir, NULL, NULL,
			    strcmp(host_arch(), "arm64") ? &amd : &arm,
			    "multi"),
		   "host platform picked without arguments");
	free(dir);
	fs_free(&fs);
	built_free(&amd);
	built_free(&arm);
}

static void test_ambiguity_and_refs(void)
{
	struct fileset fs = {0};
	struct built one, two;
	char *descs[2], *ext, *dir;

	/* two amd64 manifests: the platform cannot decide */
	build_image(&fs, &one, "one", 1, NULL);
	build_image(&fs, &two, "two", 1, NULL);
	ext = platform_extra("amd64", "docker.io/library/web:1.0");
	descs[0] = manifest_desc(&one, ext);
	free(ext);
	ext = platform_extra("amd64", "2.0");
	descs[1] = manifest_desc(&two, ext);
	free(ext);
	add_index(&fs, 2, descs);
	dir = fs_write_dir(&fs, "ambiguous");
	ok(open_fails(dir, NULL, "linux/amd64", "several manifests") &&
		   error_has("docker.io/library/web:1.0 (linux/amd64), 2.0"),
	   "ambiguous platform: error lists the choices");
	ok(open_fails(dir, NULL, NULL, "several manifests"),
	   "ambiguous without ref or platform");
	ok(opens_as(dir, "2.0", NULL, &two, "2.0"), "ref picks one");
	ok(opens_as(dir, "web:2.0", NULL, &two, "2.0"),
	   "name:tag ref picks a tag-only annotation");
	ok(opens_as(dir, "1.0", NULL, &one, "docker.io/library/web:1.0"),
	   "tag-only ref picks a full name annotation");
	ok(opens_as(dir, "web:1.0", NULL, &one, "docker.io/library/web:1.0"),
	   "short name:tag picks a full name annotation");
	ok(open_fails(dir, "other:1.0", NULL, "no manifest matching"),
	   "different repository with the same tag does not match");
	free(dir);
	fs_free(&fs);
	built_free(&one);
	built_free(&two);
}

static void flip_byte(const char *path, off_t off)
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

static void resize(const char *path, off_t size)
{
	if (truncate(path, size) < 0) {
		perror(path);
		exit(2);
	}
}

/* Opens dir, then damages layer 0 with fn and reads it: error expected. */
static bool damaged_read_fails(const char *dir, const struct built *b, int how,
			       const char *msg)
{
	struct cfs_oci_image *img;
	char *blob = image_file(dir, b->layer_digest[0]);
	uint8_t *data = NULL;
	bool failed;

	if (cfs_oci_open(&img, dir, NULL, NULL) < 0) {
		free(blob);
		return false;
	}
	if (how == 0)
		flip_byte(blob, b->layer_len[0] / 2);
	else
		resize(blob, b->layer_len[0] + (how == 1 ? -1 : 10));
	failed = read_layer(img, 0, &data) < 0 && error_has(msg) &&
		 error_has(b->layer_digest[0]) && error_has(dir);
	free(data);
	cfs_oci_close(img);
	free(blob);
	return failed;
}

static void test_blob_verification(void)
{
	struct fileset fs = {0};
	struct built b;
	char *dir, *blob;

	simple_layout(&fs, &b, "v", 1, NULL);
	dir = fs_write_dir(&fs, "verify0");
	ok(damaged_read_fails(dir, &b, 0, "digest mismatch"),
	   "corrupted byte: stream ends with a digest error");
	free(dir);
	dir = fs_write_dir(&fs, "verify1");
	ok(damaged_read_fails(dir, &b, 1, "size mismatch"),
	   "truncated while open: stream ends with a size error");
	free(dir);
	dir = fs_write_dir(&fs, "verify2");
	ok(damaged_read_fails(dir, &b, 2, "longer"),
	   "grown while open: stream fails with a size error");
	blob = image_file(dir, b.layer_digest[0]);
	ok(open_fails(dir, NULL, NULL, "size mismatch"),
	   "blob size differs from descriptor: open fails");
	unlink(blob);
	ok(open_fails(dir, NULL, NULL, "missing"), "missing layer blob");
	free(blob);
	blob = image_file(dir, b.config_digest);
	unlink(blob);
	ok(open_fails(dir, NULL, NULL, "missing"), "missing config blob");
	free(blob);
	blob = image_file(dir, b.manifest_digest);
	flip_byte(blob, 5);
	ok(open_fails(dir, NULL, NULL, "digest mismatch"),
	   "manifest with a wrong digest");
	free(blob);
	free(dir);
	fs_free(&fs);
	built_free(&b);
}

struct reader {
	struct cfs_oci_image *img;
	const struct built *b;
	int layer;
	bool good;
};

static void *reader_thread(void *arg)
{
	struct reader *r = arg;

	for (int k = 0; k < 20; k++) {
		uint8_t *data = NULL;
		ssize_t n = read_layer(r->img, r->layer, &data);

		r->good = n == (ssize_t)r->b->layer_len[r->layer] &&
			  !memcmp(data, r->b->layer[r->layer], n);
		free(data);
		if (!r->good)
			break;
	}
	return NULL;
}

static void test_concurrent_reads(void)
{
	struct fileset fs = {0};
	struct built b;
	struct cfs_oci_image *img = NULL;
	struct reader r[3];
	pthread_t t[3];
	char *tar;
	bool good;

	simple_layout(&fs, &b, "c", 3, NULL);
	tar = fs_write_tar(&fs, "concurrent.tar");
	good = cfs_oci_open(&img, tar, NULL, NULL) == 0;
	for (int i = 0; good && i < 3; i++) {
		r[i] = (struct reader){img, &b, i, false};
		pthread_create(&t[i], NULL, reader_thread, &r[i]);
	}
	for (int i = 0; good && i < 3; i++) {
		pthread_join(t[i], NULL);
		good = good && r[i].good;
	}
	ok(good, "three layers of one oci-archive read in parallel threads");
	cfs_oci_close(img);
	free(tar);
	fs_free(&fs);
	built_free(&b);
}

/* A layout whose index has one entry with the given descriptor fields. */
static char *layout_with_entry(const char *name, const char *mt,
			       const char *digest, const char *size)
{
	struct fileset fs = {0};
	char *d = xasprintf(
		"{\"mediaType\":\"%s\",\"digest\":\"%s\",\"size\":%s}", mt,
		digest, size);
	char *dir;

	add_index(&fs, 1, &d);
	dir = fs_write_dir(&fs, name);
	fs_free(&fs);
	return dir;
}

static void test_hostile(void)
{
	struct fileset fs = {0};
	struct built b;
	char *dir, *tar, *path, *evil;
	const char *zeros =
		"0000000000000000000000000000000000000000000000000000000000";

	simple_layout(&fs, &b, "h", 1, "application/vnd.example.layer");
	dir = fs_write_dir(&fs, "badmt");
	ok(open_fails(dir, NULL, NULL,
		      "unsupported layer media type "
		      "application/vnd.example.layer"),
	   "unsupported layer media type");
	free(dir);
	fs_free(&fs);
	built_free(&b);

	evil = xasprintf("sha256:../../../../../../etc/passwd%s", zeros);
	evil[71] = '\0'; /* 64 characters after "sha256:" */
	dir = layout_with_entry("evil1", OCI_MANIFEST, evil, "10");
	ok(open_fails(dir, NULL, NULL, "invalid digest"),
	   "digest with ../ is refused");
	free(dir);
	free(evil);
	dir = layout_with_entry("evil2", OCI_MANIFEST,
				"sha256:ABCDEF0000000000000000000000000000000"
				"000000000000000000000000000",
				"10");
	ok(open_fails(dir, NULL, NULL, "invalid digest"),
	   "uppercase hex digest is refused");
	free(dir);
	dir = layout_with_entry("evil3", OCI_MANIFEST,
				"md5:d41d8cd98f00b204e9800998ecf8427e", "10");
	ok(open_fails(dir, NULL, NULL, "unsupported digest algorithm"),
	   "md5 digest is refused");
	free(dir);
	dir = layout_with_entry("evil4", OCI_MANIFEST,
				"sha256:0000000000000000000000000000000000000"
				"000000000000000000000000000",
				"999999999999");
	ok(open_fails(dir, NULL, NULL, "exceeds"),
	   "oversize manifest descriptor is refused before reading");
	free(dir);
	dir = layout_with_entry("evil5", "application/vnd.example.manifest",
				"sha256:0000000000000000000000000000000000000"
				"000000000000000000000000000",
				"10");
	ok(open_fails(dir, NULL, NULL,
		      "unsupported manifest media type "
		      "application/vnd.example.manifest"),
	   "unsupported manifest media type");
	free(dir);

	fs_add_str(&fs, "index.json", "{\"schemaVersion\":2,\"manifests\":[");
	fs_add_str(&fs, "oci-layout", "{\"imageLayoutVersion\":\"1.0.0\"}");
	dir = fs_write_dir(&fs, "badjson");
	ok(open_fails(dir, NULL, NULL, "index.json: bad JSON"),
	   "truncated index.json");
	free(dir);
	fs_free(&fs);

	fs_add_str(&fs, "index.json", "{}");
	fs_add_str(&fs, "oci-layout", "{\"imageLayoutVersion\":\"1.0.0\"}");
	dir = fs_write_dir(&fs, "hugejson");
	path = xasprintf("%s/index.json", dir);
	resize(path, ((off_t)64 << 20) + 1);
	ok(open_fails(dir, NULL, NULL, "index.json: larger than"),
	   "index.json over the 64 MiB cap");
	free(path);
	free(dir);
	fs_free(&fs);

	path = xasprintf("%s/notatar", tmp);
	write_file(path, "this is not a tar file at all\n", 30);
	ok(open_fails(path, NULL, NULL, "not an OCI or docker archive"),
	   "random file");
	free(path);
	path = xasprintf("%s/nonexistent", tmp);
	ok(open_fails(path, NULL, NULL, "No such file"), "missing path");
	free(path);
	ok(open_fails("/dev/null", NULL, NULL, "not a file or directory"),
	   "character device");

	simple_layout(&fs, &b, "t", 2, NULL);
	tar = fs_write_tar(&fs, "truncated.tar");
	resize(tar, 3000);
	ok(open_fails(tar, NULL, NULL, "truncated"), "truncated oci-archive");
	free(tar);
	fs_free(&fs);
	built_free(&b);
}

static void test_sha512_blobs(void)
{
	struct fileset fs = {0};
	struct built b;
	char d512[136], *m, *desc, *dir;
	struct cfs_oci_image *img;
	uint8_t *data = NULL;

	build_image(&fs, &b, "s", 1, NULL);
	fs_add_blob_md(&fs, EVP_sha512(), b.layer[0], b.layer_len[0], d512);
	m = xasprintf("{\"schemaVersion\":2,\"config\":{\"mediaType\":\"%s\","
		      "\"digest\":\"%s\",\"size\":%zu},\"layers\":[{"
		      "\"mediaType\":\"%s\",\"digest\":\"%s\",\"size\":%zu}]}",
		      OCI_CONFIG, b.config_digest, b.config_len, OCI_TAR, d512,
		      b.layer_len[0]);
	fs_add_blob_md(&fs, EVP_sha512(), m, strlen(m), b.manifest_digest);
	b.manifest_size = strlen(m);
	free(m);
	desc = manifest_desc(&b, "");
	add_index(&fs, 1, &desc);
	dir = fs_write_dir(&fs, "sha512");
	ok(cfs_oci_open(&img, dir, NULL, NULL) == 0 &&
		   !strcmp(img->layers[0].digest, d512) &&
		   read_layer(img, 0, &data) == (ssize_t)b.layer_len[0],
	   "sha512 manifest and layer blobs verify");
	cfs_oci_close(img);
	free(data);
	free(dir);
	fs_free(&fs);
	built_free(&b);
}

/* ---- images made by umoci and skopeo ---- */

static int run(const char *cmd)
{
	char *c = xasprintf("{ %s; } >/dev/null 2>&1", cmd);
	int r = system(c);

	free(c);
	return r;
}

/* sha256 of a whole layer stream equals its diff_id? */
static bool docker_layer_is_diff_id(struct cfs_oci_image *img, size_t i)
{
	uint8_t *data = NULL;
	ssize_t n = read_layer(img, i, &data);
	char hex[65], want[65];

	if (n < 0)
		return false;
	sha_hex(EVP_sha256(), data, n, hex);
	cfs_hex(want, img->layers[i].diff_id, 32);
	free(data);
	return !strcmp(hex, want);
}

static void test_real_tools(void)
{
	struct cfs_oci_image *oci = NULL, *arch = NULL, *dock = NULL;
	char *cmd;
	uint8_t *data = NULL;
	bool good;

	if (run("command -v umoci && command -v skopeo")) {
		ok(1, "umoci/skopeo images # SKIP umoci or skopeo missing");
		return;
	}
	cmd = xasprintf("cd %s && umoci init --layout real && "
			"umoci new --image real:t1 && echo hello > f && "
			"umoci insert --image real:t1 f /hello.txt && "
			"skopeo --insecure-policy copy oci:real:t1 "
			"oci-archive:real-oci.tar && "
			"skopeo --insecure-policy copy oci:real:t1 "
			"docker-archive:real-docker.tar:web:t1",
			tmp);
	good = run(cmd) == 0;
	free(cmd);
	if (!good) {
		ok(1, "umoci/skopeo images # SKIP the tools failed");
		return;
	}
	cmd = xasprintf("%s/real", tmp);
	ok(cfs_oci_open(&oci, cmd, "t1", NULL) == 0 && oci->n_layers == 1 &&
		   read_layer(oci, 0, &data) == (ssize_t)oci->layers[0].size,
	   "umoci layout: opens, layer verifies");
	free(data);
	data = NULL;
	free(cmd);
	cmd = xasprintf("%s/real-oci.tar", tmp);
	ok(cfs_oci_open(&arch, cmd, NULL, NULL) == 0 && oci &&
		   arch->n_layers == 1 &&
		   !strcmp(arch->layers[0].digest, oci->layers[0].digest) &&
		   read_layer(arch, 0, &data) == (ssize_t)arch->layers[0].size,
	   "skopeo oci-archive: same layer, verifies");
	free(data);
	free(cmd);
	cmd = xasprintf("%s/real-docker.tar", tmp);
	ok(cfs_oci_open(&dock, cmd, "web:t1", NULL) == 0 && oci &&
		   dock->n_layers == 1 &&
		   !memcmp(dock->layers[0].diff_id, oci->layers[0].diff_id,
			   32) &&
		   docker_layer_is_diff_id(dock, 0),
	   "skopeo docker-archive: same diff_id, layer is the plain tar");
	free(cmd);
	cfs_oci_close(oci);
	cfs_oci_close(arch);
	cfs_oci_close(dock);
}

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	return remove(path);
}

int main(void)
{
	strcpy(tmp, "/tmp/test-oci.XXXXXX");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 2;
	}
	test_layout_and_archive();
	test_docker_archive();
	test_nested_and_platform();
	test_ambiguity_and_refs();
	test_blob_verification();
	test_concurrent_reads();
	test_hostile();
	test_sha512_blobs();
	test_real_tools();
	nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return tap_done();
}
