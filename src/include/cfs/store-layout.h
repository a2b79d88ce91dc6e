/* SPDX-License-Identifier: MIT */
/*
 * The one owner of the store's names. A store, drawn as a tree:
 *
 *   STORE/                     0711: others pass through to podman/ only
 *   |-- .cfs-store             the marker: "cfs-store layout N\n"
 *   |-- .lock                  the store lock (flock), see below
 *   |-- xx/yyyy...             an object: content named by its hex fs-verity
 *   |                          digest (xx: the first byte), mode 0644,
 *   |                          fs-verity enabled where the filesystem has it
 *   |-- xx/.obj.PID.H.N        a small object being written beside its name
 *   |-- images/ID.cfs          a manifest (ID: hex sha256 of the config)
 *   |-- images/ID.json         its image config
 *   |-- images/ID.manifest.json  its OCI manifest
 *   |-- images/ID.seal         a sealed image's manifest digest (cfs/seal.h)
 *   |-- refs/NAME              symlink to ../images/ID.cfs (NAME may have /)
 *   |-- layers/DIFFID          a layer cache record: the objects of a layer
 *   |-- podman/                the additional image store cfs-podman fills
 *   |-- .tmp/obj.PID.H.N       a large object being written
 *   |-- .tmp/fanout.PID.H      its writer's marker, held locked (flock)
 *   |-- damaged/               objects and files moved aside, never deleted
 *   `-- FILE.tmp.PID[.XXXXXX]  FILE being replaced (images/, refs/, layers/)
 *
 * Garbage collection (cfs-store gc) keeps every image a root reaches: a
 * ref, a podman registration or a composefs mount; with it its three
 * files, the records of its layers and every object those name. Every
 * other manifest goes first, then records naming an object no kept
 * manifest references, then unreferenced objects, then temps of writers
 * that are gone: a gc stopped at any point leaves every kept image whole.
 * Tools call the functions below instead of composing or parsing paths.
 *
 * The store lock (flock on STORE/.lock): a conversion holds it shared
 * from before it looks for existing objects until its manifest and ref
 * are written, as does registering an image with podman; removing images
 * and collecting garbage hold it exclusive. So gc waits for conversions in
 * flight, and conversions started during a gc wait for its end.
 */
#ifndef CFS_STORE_LAYOUT_H
#define CFS_STORE_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/composefs.h> /* CFS_DIGEST_SIZE */

#include "cfs/image-name.h" /* image ids: cfs_image_id_ok */

#define CFS_REF_NAME_MAX 255 /* bytes of a whole ref name */

/* A ref name: relative, at most 255 bytes, no empty, "." or ".." part. */
bool cfs_ref_name_ok(const char *name);
/* "xx/yyyy..." object path for a digest (66 bytes + NUL). */
#define CFS_OBJECT_PATH_LEN (2 * CFS_DIGEST_SIZE + 1)
void cfs_object_path(char out[CFS_OBJECT_PATH_LEN + 1],
		     const uint8_t digest[CFS_DIGEST_SIZE]);
/*
 * The digest an object path names: "xx/" and 62 lowercase hex digits
 * (len bytes, not NUL-terminated), as cfs_object_path makes it; false for
 * any other string.
 */
bool cfs_layout_object_digest(const char *path, size_t len, uint8_t *digest);
/* The same for an object's name as listed in its directory xx/ (fanout). */
bool cfs_layout_object_name(uint8_t fanout, const char *name, uint8_t *digest);

/* The store's directories, by their names relative to the store. */
#define CFS_STORE_IMAGES "images"
#define CFS_STORE_REFS "refs"
#define CFS_STORE_LAYERS "layers"
#define CFS_STORE_TMP ".tmp"
#define CFS_STORE_DAMAGED "damaged"
#define CFS_STORE_LOCK ".lock"

char *cfs_layout_ref_path(const char *store, const char *name);
char *cfs_layout_refs_dir(const char *store);
char *cfs_layout_images_dir(const char *store);
/* An image's files in images/, the manifest first (removed first). */
enum cfs_image_file {
	CFS_IMAGE_MANIFEST,	/* ID.cfs */
	CFS_IMAGE_CONFIG,	/* ID.json */
	CFS_IMAGE_OCI_MANIFEST, /* ID.manifest.json */
	CFS_IMAGE_SEAL,		/* ID.seal, a sealed image's only */
	CFS_IMAGE_N_FILES,
};
/* STORE/images/ID.cfs and its side files. */
char *cfs_layout_image_file(const char *store, const char *id,
			    enum cfs_image_file f);
/* The same, relative to the store: "images/ID.cfs". */
char *cfs_layout_image_rel(const char *id, enum cfs_image_file f);
/* Whether path names a manifest file: it ends in ".cfs". */
bool cfs_layout_manifest_name(const char *path);
/*
 * File f beside the manifest path X.cfs (X.json, X.manifest.json), as
 * oci2cfs writes them; NULL if path does not end in ".cfs".
 */
char *cfs_layout_side_file(const char *manifest, enum cfs_image_file f);
/*
 * Which of an image's files name (a name in images/) is, with its id in
 * id (65 bytes); -1 for any other name.
 */
int cfs_layout_image_name(const char *name, char *id);

/*
 * The id of a manifest path ".../images/ID.cfs" (id: 65 bytes), or false
 * for any other path.
 */
bool cfs_layout_manifest_id(const char *path, char *id);

struct cfs_layout_image {
	const char *id;
	const uint8_t *config, *oci_manifest, *manifest;
	const uint8_t *seal; /* CFS_DIGEST_SIZE bytes, or NULL: not sealed */
	size_t config_len, oci_manifest_len, manifest_len;
	int side_flags, manifest_flags; /* CFS_ATOMIC_* */
};

/*
 * The layer cache record of the layer whose DiffID is sha256:HEX:
 * STORE/layers/HEX, and the same relative to the store.
 */
char *cfs_layout_record_path(const char *store, const char *hex);
char *cfs_layout_record_rel(const char *hex);
char *cfs_layout_records_dir(const char *store);

/*
 * What the store holds beside its objects (listing.c): fn for the id of
 * each manifest in images/, or for each ref under refs/ but files being
 * replaced, with the id of the image it leads to, or NULL and why not (a
 * ref counts only if it leads to this store's own images/ID.cfs). Both
 * return -1 after a message if a directory cannot be read (a missing
 * images/ or refs/ is empty), having still listed what they could.
 */
/*
 * Whether ref name is live: it leads to this store's own images/ID.cfs
 * (id filled); else *why says why not.
 */
bool cfs_layout_ref_image(const char *store, const char *name, char *id,
			  const char **why);
typedef void (*cfs_image_fn)(const char *id, void *opaque);
int cfs_layout_each_image(const char *store, cfs_image_fn fn, void *opaque);
typedef void (*cfs_ref_fn)(const char *name, const char *id, const char *why,
			   void *opaque);
int cfs_layout_each_ref(const char *store, cfs_ref_fn fn, void *opaque);

/*
 * Writes images/ID.{json,manifest.json,seal,cfs}; identical files are
 * kept. A seal once written stays: the image's content, not the manifest
 * it came with, decides the digest, so an unsealed pull of the same image
 * does not unseal it.
 */
int cfs_layout_write_image(const char *store,
			   const struct cfs_layout_image *img);
/*
 * The seal recorded beside the manifest path X.cfs (X.seal: 64 lowercase
 * hex digits and a newline): 1 and the digest in d, 0 when the image is
 * not sealed (or the path names no manifest), -1 after a message naming
 * the file when it cannot be read or is malformed.
 */
int cfs_layout_read_seal(const char *manifest, uint8_t d[CFS_DIGEST_SIZE]);
/* refs/NAME -> ../images/ID.cfs, replaced atomically. */
int cfs_layout_write_ref(const char *store, const char *name, const char *id);
/* Removes refs/NAME and the directories it leaves empty under refs/. */
int cfs_layout_remove_ref(const char *store, const char *name);

enum cfs_ref_status {
	CFS_REF_OK = 0,
	CFS_REF_BAD_NAME = -1, /* not a valid ref name */
	CFS_REF_NONE = -2,     /* no such ref */
	CFS_REF_BROKEN = -3,   /* leads nowhere or not to a file; errno set */
};

/* refs/NAME to the canonical path of its manifest; no message. */
enum cfs_ref_status cfs_layout_resolve_ref(const char *store, const char *name,
					   char **path);

/*
 * The path of a manifest file (containing '/' or ending in .cfs), or an
 * image name or id as cfs_layout_lookup() resolves it, to the manifest's
 * canonical path (*ref: the ref that matched, or NULL); NULL after a
 * message.
 */
char *cfs_layout_resolve(const char *store, const char *name_or_path,
			 char **ref);

/*
 * Moves STORE/rel (dirfd: the store) aside to STORE/damaged/, named after
 * rel, the time and the pid: damaged content is kept, not deleted.
 */
int cfs_layout_move_aside_at(int dirfd, const char *rel);

/* Whether no process pid exists (kill(pid, 0) says ESRCH). */
bool cfs_pid_dead(int pid);
/* The writer's PID if name is a temp object in a fanout dir, else 0. */
int cfs_fanout_temp_pid(const char *name);
typedef void (*cfs_temp_fn)(int storefd, const char *rel, void *opaque);
/*
 * Calls fn with the store-relative path of each temp of a writer that is
 * gone (.tmp/obj.PID.H.N, xx/.obj.PID.H.N), then with its marker: a live
 * writer holds its marker locked (store/temps.c).
 */
void cfs_gone_temps(int storefd, cfs_temp_fn fn, void *opaque);

/*
 * The store is private to its owner: objects keep no mode of their own
 * (0644 whatever the image says), so the directories are what keep an
 * image's 0600 files from other local users (cfs-store(8), PERMISSIONS).
 * Others may only pass through the root to podman/, the additional image
 * store rootless podman reads (a root it could not enter would fail every
 * podman command of every user); what holds objects, manifests, refs and
 * records is its owner's alone.
 */
#define CFS_STORE_ROOT_MODE 0711
#define CFS_STORE_DIR_MODE 0700
/* Makes STORE (mode CFS_STORE_ROOT_MODE) and its parents if missing. */
int cfs_layout_make_root(const char *store);

#define CFS_STORE_MARKER ".cfs-store"
#define CFS_STORE_LAYOUT_VERSION 1 /* the layout this file describes */

/*
 * STORE/.cfs-store: 1 if it marks a store of a layout this version reads,
 * 0 if there is none, -1 after a message (unreadable, not a marker, or a
 * newer layout) (store/marker.c).
 */
int cfs_store_marker(const char *store);
/* Checks the marker as above, writing it if there is none: 0 or -1. */
int cfs_store_mark(const char *store);
/*
 * Whether an unmarked directory has the shape every store made before the
 * marker has: an images/ directory and a .lock file. No message.
 */
bool cfs_store_shaped(const char *store);

/*
 * The store lock; returns an fd to pass to cfs_store_unlock, or -1. Before
 * waiting for another process it prints "PROGRAM: waiting for the store
 * lock STORE/.lock" on stderr. A read-only store (mount or permissions) is
 * locked through its existing .lock opened for reading, or not at all
 * when it has none. A store whose marker names a newer layout, or is not
 * a marker, is refused (cfs_store_marker's message).
 */
int cfs_store_lock(const char *store, bool exclusive);
void cfs_store_unlock(int fd);

#endif
