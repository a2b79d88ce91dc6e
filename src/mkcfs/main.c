// SPDX-License-Identifier: MIT
/* mkcfs: make a composefs image from a directory or a dump file. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfs/image.h"
#include "cfs/store-layout.h"
#include "mkcfs.h"
#include "cfs/util.h"
#include "cfs/verity.h"

static const char usage_text[] =
	"Usage: mkcfs [OPTIONS] SOURCE IMAGE\n"
	"Make a composefs image from a directory or a composefs-dump(5)\n"
	"file. SOURCE \"-\" reads a dump from standard input; IMAGE \"-\"\n"
	"writes the image to standard output. Options may come anywhere on\n"
	"the line; \"--\" ends them.\n"
	"\n"
	"Options:\n"
	"      --digest-store=DIR  copy regular file contents into the\n"
	"                          object store DIR (of a dump: its inline\n"
	"                          CONTENT)\n"
	"      --from-file         SOURCE is a dump file (the default when\n"
	"                          it is not a directory)\n"
	"      --print-digest      print the fs-verity digest of the image\n"
	"      --use-epoch         set every modification time to 0\n"
	"      --skip-xattrs       record no extended attributes\n"
	"      --sync=MODE         batch (default), each or none: how\n"
	"                          objects and the image are made durable\n"
	"  -h, --help              show this help and exit\n"
	"      --version           print the version and exit\n"
	"\n"
	"Exit status: 0 ok, 1 failure, 2 usage error.\n";

enum {
	OPT_STORE = 256,
	OPT_FROM_FILE,
	OPT_PRINT,
	OPT_EPOCH,
	OPT_SKIP,
	OPT_SYNC,
	OPT_VERSION
};

static int parse_sync(const char *s, enum cfs_sync *out)
{
	if (strcmp(s, "batch") == 0)
		*out = CFS_SYNC_BATCH;
	else if (strcmp(s, "each") == 0)
		*out = CFS_SYNC_EACH;
	else if (strcmp(s, "none") == 0)
		*out = CFS_SYNC_NONE;
	else
		return -1;
	return 0;
}

/* 0 to run, 1 after --help/--version, -1 after a usage error (util.h). */
static int parse_args(int argc, char **argv, struct mkcfs_opts *o)
{
	static const struct option opts[] = {
		{"digest-store", required_argument, NULL, OPT_STORE},
		{"from-file", no_argument, NULL, OPT_FROM_FILE},
		{"print-digest", no_argument, NULL, OPT_PRINT},
		{"use-epoch", no_argument, NULL, OPT_EPOCH},
		{"skip-xattrs", no_argument, NULL, OPT_SKIP},
		{"sync", required_argument, NULL, OPT_SYNC},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, OPT_VERSION},
		{NULL, 0, NULL, 0},
	};
	int c;

	argv[0] = (char *)TOOL; /* getopt_long's messages name the tool */
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_STORE:
			o->store_dir = optarg;
			break;
		case OPT_FROM_FILE:
			o->from_file = true;
			break;
		case OPT_PRINT:
			o->print_digest = true;
			break;
		case OPT_EPOCH:
			o->use_epoch = true;
			break;
		case OPT_SKIP:
			o->skip_xattrs = true;
			break;
		case OPT_SYNC:
			if (parse_sync(optarg, &o->sync) == 0)
				break;
			return cfs_usage_error(
				TOOL, "--sync: unknown mode '%s'", optarg);
		case 'h':
			fputs(usage_text, stdout);
			return 1;
		case OPT_VERSION:
			return cfs_print_version(TOOL);
		default:
			cfs_usage_hint(TOOL);
			return -1;
		}
	}
	if (argc - optind != 2)
		return cfs_usage_error(TOOL, "expected SOURCE and IMAGE");
	o->source = argv[optind];
	o->image = argv[optind + 1];
	return 0;
}

static int write_image(const struct mkcfs_opts *o, const uint8_t *data,
		       size_t len)
{
	int flags = CFS_ATOMIC_VERITY;

	if (strcmp(o->image, "-") == 0) {
		if (fwrite(data, 1, len, stdout) != len || fflush(stdout)) {
			cfs_error("<stdout>: write error");
			return -1;
		}
		return 0;
	}
	if (o->sync == CFS_SYNC_NONE)
		flags |= CFS_ATOMIC_NOSYNC;
	return cfs_write_file_atomic(o->image, data, len, 0644, flags);
}

static int print_digest(const struct mkcfs_opts *o, const uint8_t *data,
			size_t len)
{
	uint8_t digest[CFS_DIGEST_SIZE];
	char hex[2 * CFS_DIGEST_SIZE + 1];

	if (cfs_verity_digest_mem(data, len, digest) < 0)
		return -1;
	cfs_hex(hex, digest, CFS_DIGEST_SIZE);
	/* With the image on stdout, the digest goes to stderr. */
	fprintf(strcmp(o->image, "-") ? stdout : stderr, "%s\n", hex);
	return 0;
}

static int build_and_write(const struct mkcfs_opts *o, struct cfs_tree *t)
{
	uint8_t *data = NULL;
	size_t len = 0;
	int r = cfs_image_build(t, &data, &len);

	if (r < 0)
		cfs_error_prefix("%s", o->source);
	if (r == 0 && o->print_digest)
		r = print_digest(o, data, len);
	if (r == 0)
		r = write_image(o, data, len);
	free(data);
	return r;
}

/*
 * The store, open and locked shared as a conversion locks it (cfs-store(8)):
 * a gc waits until the image is written, so it cannot remove an object
 * this run found already stored and names.
 */
static int open_store(const struct mkcfs_opts *o, struct cfs_store **store,
		      int *lock)
{
	struct cfs_store_opts sopts = {.sync = o->sync};

	if (cfs_store_open(store, o->store_dir, &sopts) < 0)
		return -1;
	*lock = cfs_store_lock(o->store_dir, false);
	if (*lock >= 0)
		return 0;
	cfs_store_close(*store);
	*store = NULL;
	return -1;
}

static int run(const struct mkcfs_opts *o)
{
	struct cfs_store *store = NULL;
	struct cfs_tree *t;
	int r = -1, lock = -1;

	if (o->store_dir && open_store(o, &store, &lock) < 0)
		return -1;
	t = mkcfs_load(o, store);
	/* Objects must be in place before an image names them. */
	if (t && (!store || cfs_store_commit(store) == 0))
		r = build_and_write(o, t);
	cfs_tree_free(t);
	if (store)
		cfs_store_close(store);
	cfs_store_unlock(lock);
	return r;
}

int main(int argc, char **argv)
{
	struct mkcfs_opts o = {.sync = CFS_SYNC_BATCH};
	int r = parse_args(argc, argv, &o);

	if (r)
		return r < 0 ? 2 : 0;
	if (run(&o) < 0) {
		fprintf(stderr, "%s: %s\n", TOOL, cfs_strerror());
		return 1;
	}
	return 0;
}
