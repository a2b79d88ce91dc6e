/* SPDX-License-Identifier: MIT */
/* Small shared helpers: error reporting, allocation, hex, atomic files. */
#ifndef CFS_UTIL_H
#define CFS_UTIL_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Return convention of every libcfs function (src/include/cfs/):
 *
 * - A function that can fail returns int: 0 on success, -1 on error after
 *   recording a one-line message with cfs_error() (thread-local) that names
 *   the file or object. A function that makes something returns it (a
 *   pointer, NULL on error; an fd, -1 on error), also after cfs_error().
 *   Tools print "TOOL: SUBJECT: MESSAGE" from cfs_strerror().
 * - A function that cannot fail returns void (allocation aborts: x*()).
 *
 * The exceptions, each said again at its declaration:
 * - Predicates return bool and record no message: cfs_*_ok() (is this a
 *   valid X), cfs_*_has() (is X there), and lookups that cannot fail and
 *   fill an out parameter when they find (cfs_image_dir_lookup,
 *   cfs_layout_manifest_id, cfs_dir_unlink).
 * - Three outcomes: 1 found, 0 not found or unusable, -1 error after
 *   cfs_error() (cfs_layer_cache_load, cfs_layer_cache_read).
 * - An enum when callers act on why (cfs_layout_resolve_ref), no message.
 * - System-call wrappers whose callers add the subject or act on errno:
 *   -1 with errno (cfs_write_all, cfs_verity_measure, cfs_verity_enable),
 *   or -errno where libfsverity's read-callback contract is followed
 *   (cfs_read_exact, cfs_read_fn and its two implementations).
 * - Value parsers without a subject return the value or -1, no message
 *   (cfs_hexval, cfs_unhex): the caller names what it parsed.
 * - read(2)-like streams return bytes read, 0 at the end, -1 after
 *   cfs_error() (cfs_blob_read, cfs_stream_fn).
 * - Comparisons return <0, 0, >0; walkers return what their callback did.
 */
void cfs_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Like cfs_error, but prefixes the current message: "prefix: old message". */
void cfs_error_prefix(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
const char *cfs_strerror(void);
/*
 * cfs_strerror() without a leading "SUBJECT: ", for a tool that prints
 * "TOOL: SUBJECT: MESSAGE" itself: the subject is named once.
 */
const char *cfs_strerror_after(const char *subject);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
void *xmemdup(const void *p, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Value of one hex digit, or -1 (no message). */
int cfs_hexval(char c);
/* Lowercase hex of n bytes into out (2n+1 bytes, NUL-terminated). */
void cfs_hex(char *out, const uint8_t *in, size_t n);
/* Parse exactly 2n hex digits; returns 0 or -1 (no message). */
int cfs_unhex(uint8_t *out, const char *in, size_t n);

/* Growable byte buffer. */
struct cfs_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
};
void cfs_buf_reserve(struct cfs_buf *b, size_t extra);
void cfs_buf_append(struct cfs_buf *b, const void *p, size_t n);
void cfs_buf_zero(struct cfs_buf *b, size_t n);	 /* append n zero bytes */
void cfs_buf_align(struct cfs_buf *b, size_t a); /* zero-pad to multiple */
void cfs_buf_free(struct cfs_buf *b);

/* write(2) until done (EINTR retried); 0, or -1 with errno (no message). */
int cfs_write_all(int fd, const void *data, size_t len);
/*
 * Exactly count bytes from fd: 0, -errno, or -EIO if the file ends first
 * (no message: the cfs_read_fn contract).
 */
int cfs_read_exact(int fd, void *buf, size_t count);

/* A stream of directory path under dirfd; NULL with errno set. */
DIR *cfs_opendir_at(int dirfd, const char *path);

/* Read a whole file (or "-" for stdin) into memory (NUL-terminated). */
int cfs_read_file(const char *path, uint8_t **data, size_t *len);

/* path -> target, replacing whatever path was atomically (via PATH.tmp.PID). */
int cfs_symlink_replace(const char *target, const char *path);
/*
 * Write data to path atomically: temp file in the same directory, fsync,
 * optional fs-verity enable (flags), rename over path, fsync the directory.
 * On error nothing is left behind.
 */
#define CFS_ATOMIC_VERITY 1	    /* try to enable fs-verity on the file */
#define CFS_ATOMIC_REQUIRE_VERITY 2 /* fail if fs-verity cannot be enabled */
#define CFS_ATOMIC_NOSYNC 4	    /* skip fsync (tests, tmpfs) */
int cfs_write_file_atomic(const char *path, const void *data, size_t len,
			  unsigned int mode, int flags);

/* mkdir -p; returns 0 or -1 with cfs_error set. */
int cfs_mkdir_p(const char *path, unsigned int mode);

/*
 * Option parsing, the same in every tool: parse_args() returns 0 to run,
 * 1 after printing --help or --version (the tool exits 0), or -1 after
 * printing a usage error "TOOL: message" (the tool exits 2; mount and
 * umount.composefs: 1, as mount(8) expects of helpers).
 */
/* debian/changelog's version of the package ("0.1.0"). */
const char *cfs_version(void);
/* Prints "TOOL VERSION" on stdout for --version; returns 1 (see above). */
int cfs_print_version(const char *tool);
/*
 * The one usage-error style of every tool, on stderr: "TOOL: MESSAGE", then
 * "Try 'TOOL --help' for more information.". getopt_long's own messages
 * take the place of "TOOL: MESSAGE" when main() sets argv[0] to TOOL first.
 * cfs_usage_error returns -1 (see above).
 */
void cfs_usage_hint(const char *tool);
int cfs_usage_error(const char *tool, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * *store, or the default store (cfs/config.h) when no option set it: 0, or
 * -1 after printing "TOOL: FILE:LINE: PROBLEM" for a bad cfs.conf(5) (the
 * tool exits 1).
 */
int cfs_tool_store(const char *tool, const char **store);
/* The --help line's default, the same in every tool. */
#define CFS_STORE_DEFAULT_HELP "$CFS_STORE, cfs.conf(5), or /var/lib/cfs"
/*
 * A decimal integer option value in [min, max] (all of s: no sign-only,
 * no trailing junk, no leading blank): 0, or -1 after cfs_error() saying
 * "not a number: S" or "out of range (MIN to MAX): S".
 */
int cfs_parse_count(const char *s, int min, int max, int *out);

#endif
