/* SPDX-License-Identifier: MIT */
/*
 * Fixtures for the OCI reader tests (test-oci-*.c): images built at run
 * time into layout directories and oci-archive/docker-archive tars under
 * oci_tmp, and checks on what cfs_oci_open() makes of them.
 */
#ifndef CFS_OCI_FIXTURE_H
#define CFS_OCI_FIXTURE_H

#include <openssl/evp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cfs/oci.h"
#include "cfs/util.h"

#define OCI_MANIFEST "application/vnd.oci.image.manifest.v1+json"
#define OCI_INDEX "application/vnd.oci.image.index.v1+json"
#define OCI_CONFIG "application/vnd.oci.image.config.v1+json"
#define OCI_TAR "application/vnd.oci.image.layer.v1.tar"
#define OCI_TGZ "application/vnd.oci.image.layer.v1.tar+gzip"
#define REF_KEY "org.opencontainers.image.ref.name"
#define MAX_FILES 32
#define MAX_LAYERS 4

/* A scratch directory, made by oci_fixture_start(), removed by _end(). */
extern char oci_tmp[64];
void oci_fixture_start(void);
void oci_fixture_end(void);

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

void fs_add(struct fileset *fs, const char *name, const void *data, size_t len);
void fs_add_str(struct fileset *fs, const char *name, const char *s);
void fs_add_symlink(struct fileset *fs, const char *name, const char *target);
/* As GNU tar stores a file given twice: a hardlink to its first copy. */
void fs_add_hardlink(struct fileset *fs, const char *name, const char *target);
void fs_free(struct fileset *fs);
void sha_hex(const EVP_MD *md, const void *data, size_t len, char *out);
/* Stores data as blobs/<alg>/<hex>; writes "alg:hex" into digest. */
void fs_add_blob_md(struct fileset *fs, const EVP_MD *md, const void *data,
		    size_t len, char *digest);
void fs_add_blob(struct fileset *fs, const void *data, size_t len,
		 char *digest);
/* Writes fs under oci_tmp/name as a directory or a tar; returns the path. */
char *fs_write_dir(const struct fileset *fs, const char *name);
char *fs_write_tar(const struct fileset *fs, const char *name);
void write_file(const char *path, const void *data, size_t len);

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

void built_free(struct built *b);
/*
 * Adds layers, config and manifest of an image to fs. Layer i holds
 * "f<i>" with "<tag> <i>"; odd layers are gzip'ed. layer_mt, if given,
 * replaces the media type of layer 0.
 */
void build_image(struct fileset *fs, struct built *b, const char *tag,
		 int n_layers, const char *layer_mt);
/* A descriptor of b's manifest; extra is appended inside the object. */
char *manifest_desc(const struct built *b, const char *extra);
char *ref_extra(const char *ref);
char *platform_extra(const char *arch, const char *ref);
/* index.json + oci-layout listing the given descriptors (freed). */
void add_index(struct fileset *fs, int n, char **descs);
/* A layout with one tagged image of n layers. */
void simple_layout(struct fileset *fs, struct built *b, const char *ref, int n,
		   const char *layer_mt);
/* The path of the blob digest in layout dir. */
char *image_file(const char *dir, const char *digest);

/* ---- reading ---- */

/* True if the last error has s (else prints it as a TAP comment). */
bool error_has(const char *s);
/* Opening path fails with an error naming msg and path. */
int open_fails(const char *path, const char *ref, const char *plat,
	       const char *msg);
/* Reads layer i whole; returns its length, or -1 on error. */
ssize_t read_layer(struct cfs_oci_image *img, size_t i, uint8_t **out);
bool layers_match(struct cfs_oci_image *img, const struct built *b,
		  bool check_digest);
/* Opens path with ref/platform; true if it is image b named ref_name. */
bool opens_as(const char *path, const char *ref, const char *plat,
	      const struct built *b, const char *ref_name);

/* ---- damage ---- */

void flip_byte(const char *path, off_t off);
void resize(const char *path, off_t size);

#endif
