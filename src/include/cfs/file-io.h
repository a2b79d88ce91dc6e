/* SPDX-License-Identifier: MIT */
/*
 * Whole files and exact reads and writes, opens beneath a directory,
 * atomic replacement, mkdir -p.
 * Part of the base (file-io.c): includes cfs/error.h, cfs/mem.h and the
 * fs-verity ioctl leaf (cfs/verity-ioctl.h), nothing above them.
 */
#ifndef CFS_FILE_IO_H
#define CFS_FILE_IO_H

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>

/* write(2) until done (EINTR retried); 0, or -1 with errno (no message). */
int cfs_write_all(int fd, const void *data, size_t len);
/*
 * Exactly count bytes from fd: 0, -errno, or -EIO if the file ends first
 * (no message: the cfs_read_fn contract).
 */
int cfs_read_exact(int fd, void *buf, size_t count);

/* A stream of directory path under dirfd; NULL with errno set. */
DIR *cfs_opendir_at(int dirfd, const char *path);

/*
 * Opens the regular file rel beneath the directory dirfd for reading, as
 * a hostile directory's file: never resolving outside it (nor through any
 * symlink where openat2 is missing), never blocking (a FIFO is refused,
 * as a device or a directory is). The fd, else -errno: -EXDEV outside,
 * -ELOOP a symlink, -CFS_ENOTREG not a regular file. No message:
 * cfs_beneath_strerror says what went wrong.
 */
#define CFS_ENOTREG 4096 /* not an errno */
int cfs_open_beneath(int dirfd, const char *rel);
const char *cfs_beneath_strerror(int neg_err);

/* Read a whole file (or "-" for stdin) into memory (NUL-terminated). */
int cfs_read_file(const char *path, uint8_t **data, size_t *len);

/* path -> target, replacing whatever path was atomically (via PATH.tmp.PID). */
int cfs_symlink_replace(const char *target, const char *path);
/*
 * The PID in the name of a file that cfs_symlink_replace (NAME.tmp.PID) or
 * cfs_write_file_atomic (NAME.tmp.PID.XXXXXX) makes while it replaces
 * NAME, or 0 for any other name: the one parser of the names they make.
 */
int cfs_replacing_pid(const char *name);
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

/*
 * The last non-empty line of what fd holds (a child's stderr file), read
 * from its last size - 1 bytes into buf, trailing blanks dropped; "" if
 * none. Not made printable: the message that quotes it does that.
 */
char *cfs_fd_last_line(int fd, char *buf, size_t size);
/*
 * rm -rf of a directory of our own (a temp dir, a layer's files): never
 * follows a symlink nor crosses into a mount; what cannot be removed stays,
 * without a message.
 */
void cfs_remove_tree(const char *path);

/* mkdir -p; returns 0 or -1 with cfs_error set. */
int cfs_mkdir_p(const char *path, unsigned int mode);

#endif
