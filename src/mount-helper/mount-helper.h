/* SPDX-License-Identifier: MIT */
/*
 * mount.composefs / umount.composefs: the mount(8) helper. Every step
 * returns 0 to go on or a mount(8) exit status (MNT_EX_*) after printing
 * one line "mount.composefs: SUBJECT: problem".
 */
#ifndef CFS_MOUNT_HELPER_H
#define CFS_MOUNT_HELPER_H

#include <stdbool.h>

#include <libmount/libmount.h>

/* Where upperdir= mounts keep the composefs mount below the overlay. */
#define MH_PRIVATE_ROOT "/run/cfs"

/* The -sfnv flags of the helper syntax (and -l/-r for umount). */
struct mh_flags {
	bool fake, nomtab, sloppy, verbose;
	bool lazy, force, rdonly_umount;
};

/* What -o asked for, split into its kinds (libmount's option maps). */
struct mh_opts {
	char *basedir;	  /* as given, DIR[:DIR...] */
	char *digest;	  /* 64 hex digits */
	int verity_check; /* -1: not given */
	char *store;
	char *upperdir, *workdir;
	bool verity;
	bool any_backing_paths; /* backing_paths=any */
	bool read_only; /* ro given (matters for an upperdir= overlay) */
	char *vfs;	/* VFS options other than ro/rw (nosuid, ...) */
	char *user;	/* userspace options (_netdev, x-..., ...) */
};

/* A mount request after validation: absolute, canonical paths. */
struct mh_request {
	const char *source_arg; /* as given on the command line */
	char *image;		/* the manifest file */
	char *refs_dir;		/* <store>/refs when SOURCE is a NAME */
	char *target;
	char *basedirs; /* colon-joined, or NULL */
	char *digest;	/* what goes to the kernel as digest=, or NULL */
	int verity_check;
	struct mh_opts *opts;
	struct mh_flags *flags;
};

/* Messages: "mount.composefs: SUBJECT: ...". Returns code. */
extern const char *mh_prog;
int mh_fail(int code, const char *subject, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void mh_verbose(const struct mh_flags *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* options.c */
int mh_parse_options(const char *optstr, const struct mh_flags *f,
		     const char *subject, struct mh_opts *o);
void mh_free_options(struct mh_opts *o);

/*
 * privs.c: needs CAP_SYS_ADMIN, keeps only what mounting needs effective;
 * for_overlay keeps the permitted set for the overlay's mount(2), around
 * which mh_overlay_privileges raises (then drops for good) the effective
 * set.
 */
int mh_drop_privileges(const char *subject, const char *what, bool for_overlay);
int mh_overlay_privileges(const char *subject, bool raise);

/* source.c: SOURCE -> image path, image and digest checks. */
int mh_resolve_source(struct mh_request *r);
int mh_check_image(struct mh_request *r);

/* paths.c: basedirs, target, upperdir/workdir. */
int mh_check_basedirs(struct mh_request *r);
int mh_check_target(struct mh_request *r);
int mh_check_overlay_dirs(struct mh_request *r);

/* kernel.c */
int mh_mount_error(struct libmnt_context *cxt, int rc, const char *subject,
		   const char *target);

/* context.c: libmount contexts configured as a helper. */
struct libmnt_context *mh_new_context(int action, const struct mh_flags *f);
char *mh_join_options(const char *a, const char *b);

/* mount.c */
int mh_check_not_busy(struct mh_request *r);
int mh_do_mount(struct mh_request *r);

/* umount.c */
int mh_umount_main(int argc, char **argv);
/* Unmounts path with libmount (no helper); 0 or an exit status. */
int mh_umount_path(const char *path, const struct mh_flags *f,
		   const char *subject);

/* private.c: the private mount point of an upperdir= mount. */
char *mh_private_dir(const char *target);
bool mh_is_private_dir(const char *path);
/* The private lowerdir of an overlay made by an upperdir= mount, or NULL. */
char *mh_private_lower(struct libmnt_fs *fs);
/* A composefs mount, or the overlay of an upperdir= mount. */
bool mh_is_composefs_mount(struct libmnt_fs *fs);

#endif
