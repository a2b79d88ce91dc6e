/* SPDX-License-Identifier: MIT */
/*
 * The one error channel of libcfs: a thread-local one-line message.
 * Part of the base (error.c): includes only cfs/escape.h, whose messages
 * it keeps on one line.
 */
#ifndef CFS_ERROR_H
#define CFS_ERROR_H

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
 *   -1 with errno (cfs_write_all, cfs_verity_measure,
 *   cfs_verity_enable_errno),
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

#endif
