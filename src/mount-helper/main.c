// SPDX-License-Identifier: MIT
/*
 * mount.composefs: the mount(8) helper for composefs images. Installed as
 * /sbin/mount.composefs; the same binary run as umount.composefs is the
 * unmount helper (see umount.c).
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mount-helper.h"
#include "cfs/util.h"

const char *mh_prog = "mount.composefs";

static const char usage_text[] =
	"Usage: mount.composefs [-sfnv] [-o OPTIONS] SOURCE TARGET\n"
	"Mount the composefs image SOURCE on the directory TARGET (the helper\n"
	"behind 'mount -t composefs'). SOURCE is an image (manifest) file, or\n"
	"with store=DIR the NAME of an image recorded in DIR/refs/.\n"
	"\n"
	"Options:\n"
	"  -o OPTIONS   comma-separated mount options (below)\n"
	"  -f           fake: validate everything, do not mount\n"
	"  -n           do not write the mount to utab\n"
	"  -s           sloppy: ignore unknown mount options\n"
	"  -v           verbose: print what is mounted and how\n"
	"  -h, --help   show this help and exit\n"
	"  -V, --version  print the version and exit\n"
	"\n"
	"Mount options (-o):\n"
	"  basedir=DIR[:DIR...]  where the image's file contents are looked\n"
	"                        up, in order (default with store=: the\n"
	"                        store)\n"
	"  digest=HEX            the image file's expected fs-verity digest\n"
	"                        (64 hex digits; the image needs fs-verity)\n"
	"  verity_check=0|1|2    0 never check file contents; 1 check files\n"
	"                        that carry a digest; 2 require every file to\n"
	"                        carry one and its object to match it\n"
	"  backing_paths=any     accept backing files that are not named as\n"
	"                        store objects (xx/ and 62 hex digits)\n"
	"  verity                require fs-verity everywhere: measure the\n"
	"                        image's digest, pass it as digest=, and set\n"
	"                        verity_check=2\n"
	"  store=DIR             object store: SOURCE may be a NAME from\n"
	"                        DIR/refs/, and basedir defaults to DIR\n"
	"  upperdir=DIR,workdir=DIR\n"
	"                        writable mount: the image is mounted under\n"
	"                        " MH_PRIVATE_ROOT "/ and an overlayfs\n"
	"                        with this upper directory is mounted on\n"
	"                        TARGET; umount TARGET unmounts both\n"
	"  ro                    the image is always mounted read-only; rw,\n"
	"                        which mount(8) passes unless ro is given, is\n"
	"                        accepted and still mounts read-only\n"
	"  other VFS options (nosuid, nodev, noexec, noatime, ...) and\n"
	"  userspace options (_netdev, x-*, ...) as in mount(8)\n"
	"  X-mount.* options other than X-mount.mkdir are refused\n"
	"\n"
	"Exit status (as mount(8)): 0 mounted, 1 incorrect invocation or\n"
	"permissions, 2 system error, 4 internal error, 32 mount failure.\n"
	"\n"
	"fstab example:\n"
	"  /var/lib/cfs/images/ID.cfs /mnt/app composefs \\\n"
	"    ro,basedir=/var/lib/cfs,digest=HEX 0 0\n"
	"  app /mnt/app composefs ro,store=/var/lib/cfs,verity 0 0\n"
	"See mount.composefs(8).\n";

int mh_fail(int code, const char *subject, const char *fmt, ...)
{
	va_list ap;

	if (subject)
		fprintf(stderr, "%s: %s: ", mh_prog, subject);
	else
		fprintf(stderr, "%s: ", mh_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

void mh_verbose(const struct mh_flags *f, const char *fmt, ...)
{
	va_list ap;

	if (!f->verbose)
		return;
	printf("%s: ", mh_prog);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

struct mh_args {
	struct mh_flags flags;
	char *optstr; /* every -o, -r and -w joined */
	const char *source, *target;
};

static void add_options(struct mh_args *a, const char *more)
{
	char *joined = mh_join_options(a->optstr, more);

	free(a->optstr);
	a->optstr = joined;
}

static const char no_namespaces[] = "-N (mount namespaces) is not supported";

/* 0 to run, 1 after --help/--version, -1 after a usage error (util.h). */
static int parse_args(int argc, char **argv, struct mh_args *a)
{
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "sfnvo:t:N:rwhV", longopts,
				NULL)) != -1) {
		switch (c) {
		case 's':
			a->flags.sloppy = true;
			break;
		case 'f':
			a->flags.fake = true;
			break;
		case 'n':
			a->flags.nomtab = true;
			break;
		case 'v':
			a->flags.verbose = true;
			break;
		case 'o':
			add_options(a, optarg);
			break;
		case 't':
			if (strcmp(optarg, "composefs") != 0)
				return cfs_usage_error(mh_prog,
						       "unsupported type '%s'",
						       optarg);
			break;
		case 'N':
			return cfs_usage_error(mh_prog, "%s", no_namespaces);
		case 'r':
			add_options(a, "ro");
			break;
		case 'w':
			add_options(a, "rw");
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 1;
		case 'V':
			return cfs_print_version(mh_prog);
		default:
			cfs_usage_hint(mh_prog);
			return -1;
		}
	}
	if (argc - optind != 2)
		return cfs_usage_error(mh_prog, "%s",
				       argc - optind < 2
					       ? "expected SOURCE and TARGET"
					       : "too many arguments");
	a->source = argv[optind];
	a->target = argv[optind + 1];
	return 0;
}

static int validate(struct mh_request *r)
{
	int rc = mh_resolve_source(r);

	if (!rc)
		rc = mh_check_image(r);
	if (!rc)
		rc = mh_check_basedirs(r);
	if (!rc)
		rc = mh_check_target(r);
	if (!rc)
		rc = mh_check_overlay_dirs(r);
	if (!rc)
		rc = mh_check_not_busy(r);
	return rc;
}

static void free_request(struct mh_request *r)
{
	free(r->image);
	free(r->refs_dir);
	free(r->target);
	free(r->basedirs);
	free(r->digest);
}

static int mount_main(int argc, char **argv)
{
	struct mh_args a = {0};
	struct mh_opts o = {.verity_check = -1};
	struct mh_request r = {0};
	int rc = parse_args(argc, argv, &a);

	if (rc) {
		free(a.optstr);
		return rc < 0 ? MNT_EX_USAGE : MNT_EX_SUCCESS;
	}
	rc = mh_parse_options(a.optstr, &a.flags, a.source, &o);
	if (!rc)
		rc = mh_drop_privileges(a.source, "mount composefs",
					o.upperdir != NULL);
	r.source_arg = a.source;
	r.opts = &o;
	r.flags = &a.flags;
	r.verity_check = -1;
	if (!rc)
		r.target = xstrdup(a.target);
	if (!rc)
		rc = validate(&r);
	if (!rc)
		rc = mh_do_mount(&r);
	free_request(&r);
	mh_free_options(&o);
	free(a.optstr);
	return rc;
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');

	base = base ? base + 1 : argv[0];
	if (strncmp(base, "umount.", 7) == 0)
		mh_prog = "umount.composefs";
	argv[0] = (char *)mh_prog; /* getopt_long's messages name the tool */
	if (strcmp(mh_prog, "umount.composefs") == 0)
		return mh_umount_main(argc, argv);
	return mount_main(argc, argv);
}
