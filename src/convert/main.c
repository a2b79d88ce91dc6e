// SPDX-License-Identifier: MIT
/* oci2cfs: OCI image -> object store + composefs manifest. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "convert.h"
#include "cfs/image.h"
#include "cfs/podman.h"
#include "cfs/store-undo.h"
#include "cfs/store-layout.h"
#include "cfs/util.h"

#define TOOL "oci2cfs"
#define MAX_THREADS 256 /* as cfs-store --jobs */

static const char usage_text[] =
	"Usage: oci2cfs [OPTION]... IMAGE\n"
	"Convert an OCI image (oci-archive tar, docker-archive tar or OCI\n"
	"layout directory) into objects in a composefs object store and one\n"
	"manifest. IMAGE may also name a transport, as skopeo does:\n"
	"docker://REF, containers-storage:REF, oci:DIR[:REF],\n"
	"oci-archive:FILE[:REF], docker-archive:FILE[:REF], dir:DIR. Layers\n"
	"the store holds are not fetched. IMAGE - reads an oci-archive or\n"
	"docker-archive from standard input. Options may come anywhere on\n"
	"the line; \"--\" ends them.\n"
	"\n"
	"Options:\n"
	"  -s, --store=DIR        object store (default\n"
	"                         " CFS_STORE_DEFAULT_HELP ")\n"
	"  -r, --ref=NAME         image to pick from a layout or archive;\n"
	"                         also the name recorded under STORE/refs/\n"
	"      --platform=OS/ARCH[/VARIANT]\n"
	"                         platform to pick from an index (default:\n"
	"                         this host's)\n"
	"  -o, --output=FILE      write the manifest to FILE instead of\n"
	"                         STORE/images/ID.cfs (no config, no ref)\n"
	"      --json             print a JSON summary\n"
	"      --sync=POLICY      batch (default), each or none\n"
	"      --require-verity   fail unless fs-verity can be enabled\n"
	"      --no-verity        do not enable fs-verity\n"
	"      --no-cache         neither use nor fill the layer cache\n"
	"      --podman           also register the image with podman, as\n"
	"                         cfs-podman add does (not with --output)\n"
	"      --require-seal     refuse an image whose manifest carries no\n"
	"                         seal (a sealed image must always convert\n"
	"                         to the digest its seal names)\n"
	"      --signature-policy=FILE\n"
	"                         policy.json for transport names (default:\n"
	"                         as podman finds it)\n"
	"      --tls-verify[=BOOL]\n"
	"                         require HTTPS and verify the registry's\n"
	"                         certificate (default: as registries.conf\n"
	"                         says)\n"
	"      --creds=USER:PASSWORD\n"
	"                         log in to the registry with these\n"
	"      --authfile=FILE    credentials file (default:\n"
	"                         $REGISTRY_AUTH_FILE, else the one podman\n"
	"                         login writes)\n"
	"      --cert-dir=DIR     CA certificates (*.crt) and client keys for\n"
	"                         the registry\n"
	"      --registries.d=DIR registries.d files naming where signatures\n"
	"                         are (default: as podman finds them)\n"
	"  -j, --threads=N        layers read in parallel (default: cores;\n"
	"                         one more through skopeo)\n"
	"  -q, --quiet            no progress display\n"
	"  -v, --verbose          report each layer\n"
	"  -h, --help             show this help and exit\n"
	"      --version          print the version and exit\n"
	"\n"
	"Prints the manifest path, then its fs-verity digest (for mount -o\n"
	"digest=).\n"
	"Exit status: 0 ok, 1 failure, 2 usage error, 128+N after signal N.\n";

enum {
	OPT_PLATFORM = 256,
	OPT_JSON,
	OPT_SYNC,
	OPT_REQUIRE_VERITY,
	OPT_NO_VERITY,
	OPT_NO_CACHE,
	OPT_PODMAN,
	OPT_REQUIRE_SEAL,
	OPT_POLICY,
	OPT_VERSION,
};

static const struct option long_opts[] = {
	{"store", required_argument, NULL, 's'},
	{"ref", required_argument, NULL, 'r'},
	{"platform", required_argument, NULL, OPT_PLATFORM},
	{"output", required_argument, NULL, 'o'},
	{"json", no_argument, NULL, OPT_JSON},
	{"sync", required_argument, NULL, OPT_SYNC},
	{"require-verity", no_argument, NULL, OPT_REQUIRE_VERITY},
	{"no-verity", no_argument, NULL, OPT_NO_VERITY},
	{"no-cache", no_argument, NULL, OPT_NO_CACHE},
	{"podman", no_argument, NULL, OPT_PODMAN},
	{"require-seal", no_argument, NULL, OPT_REQUIRE_SEAL},
	{"signature-policy", required_argument, NULL, OPT_POLICY},
	CFS_REGISTRY_LONG_OPTIONS,
	{"threads", required_argument, NULL, 'j'},
	{"quiet", no_argument, NULL, 'q'},
	{"verbose", no_argument, NULL, 'v'},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, OPT_VERSION},
	{NULL, 0, NULL, 0},
};

static int parse_sync(const char *s, enum cfs_sync *out)
{
	if (!strcmp(s, "batch"))
		*out = CFS_SYNC_BATCH;
	else if (!strcmp(s, "each"))
		*out = CFS_SYNC_EACH;
	else if (!strcmp(s, "none"))
		*out = CFS_SYNC_NONE;
	else
		return -1;
	return 0;
}

/* An option's value is wrong: "oci2cfs: --OPTION: what is wrong". */
static int bad_value(const char *option)
{
	return cfs_usage_error(TOOL, "--%s: %s", option, cfs_strerror());
}

/* 1 if c was a registry option, 0 if not, -1 after saying what is wrong */
static int registry_opt(struct convert_opts *o, int c)
{
	int r = cfs_registry_opt(&o->registry, c, optarg);

	if (r < 0)
		fprintf(stderr, "oci2cfs: %s\n", cfs_strerror());
	return r;
}

/* 0 to run, 1 after --help/--version, -1 after a usage error (util.h). */
static int parse_args(int argc, char **argv, struct convert_opts *o)
{
	int c, r;

	while ((c = getopt_long(argc, argv, "s:r:o:j:qvh", long_opts, NULL)) !=
	       -1) {
		switch (c) {
		case 's':
			o->store = optarg;
			break;
		case 'r':
			o->ref = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'j':
			if (cfs_parse_count(optarg, 1, MAX_THREADS,
					    &o->threads) < 0)
				return bad_value("threads");
			break;
		case 'q':
			o->verbose = -1;
			break;
		case 'v':
			o->verbose = 1;
			break;
		case OPT_PLATFORM:
			o->platform = optarg;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_REQUIRE_VERITY:
			o->store_opts.require_verity = true;
			break;
		case OPT_NO_VERITY:
			o->store_opts.no_verity = true;
			break;
		case OPT_NO_CACHE:
			o->no_cache = true;
			break;
		case OPT_PODMAN:
			o->podman = true;
			break;
		case OPT_REQUIRE_SEAL:
			o->require_seal = true;
			break;
		case OPT_POLICY:
			o->policy = optarg;
			break;
		case OPT_SYNC:
			if (parse_sync(optarg, &o->store_opts.sync) < 0)
				return cfs_usage_error(
					TOOL, "invalid --sync '%s'", optarg);
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 1;
		case OPT_VERSION:
			return cfs_print_version(TOOL);
		default: /* the registry options, else getopt's error */
			r = registry_opt(o, c);
			if (r == 0)
				cfs_usage_hint(TOOL);
			if (r <= 0)
				return -1;
		}
	}
	if (optind != argc - 1)
		return cfs_usage_error(TOOL, "expected one IMAGE argument");
	o->image = argv[optind];
	/* podman needs the config and manifest beside the .cfs */
	if (o->podman && o->output)
		return cfs_usage_error(TOOL,
				       "--podman cannot be used with --output");
	return 0;
}

static int count_node(struct cfs_node *n, void *opaque)
{
	struct convert_stats *st = opaque;

	if (!n->parent)
		return 0;
	st->files++;
	/* Count each inode once: hard links share content. */
	if (S_ISREG(n->inode->mode) && n->inode->priv != st) {
		n->inode->priv = st;
		st->regular_files++;
		st->bytes += n->inode->size;
	}
	return 0;
}

static struct cfs_store *volatile interrupt_store;
static volatile sig_atomic_t interrupted;

/* Stop storing objects; the main thread then cleans up and exits. */
static void on_signal(int sig)
{
	interrupted = sig;
	if (interrupt_store)
		cfs_store_interrupt(interrupt_store);
}

static void catch_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static int register_podman(const struct convert_opts *o,
			   const struct convert_result *res)
{
	const char *names[] = {res->ref_name, NULL};
	struct cfs_podman_opts po = {.store = o->store};
	struct cfs_podman_add pa = {
		.image = res->manifest_path,
		.names = res->ref_name ? names : NULL,
	};
	char id[CFS_PODMAN_ID_LEN + 1];

	if (cfs_podman_add(&po, &pa, id) < 0) {
		cfs_error_prefix("registering with podman");
		return -1;
	}
	return 0;
}

/* "oci2cfs: IMAGE: MESSAGE", without IMAGE twice when the reader named it */
static void print_error(const char *image)
{
	fprintf(stderr, "oci2cfs: %s: %s\n", image, cfs_strerror_after(image));
}

static int convert(const struct convert_opts *o)
{
	struct cfs_oci_image *img = NULL;
	struct cfs_store *store = NULL;
	struct cfs_tree *t = NULL;
	struct convert_stats st = {0};
	struct convert_result res = {0};
	struct convert_seal seal;
	struct cfs_store_stats sst;
	struct convert_commit *commit = NULL;
	struct cfs_layout_undo undo = {0};
	uint8_t *manifest = NULL;
	size_t len;
	int r = -1, lock = -1, built;

	if (cfs_oci_open_name(&img, o->image, o->ref, o->platform, o->policy,
			      &o->registry) < 0 ||
	    convert_seal_read(o, img, &seal) < 0)
		goto out;
	if (cfs_store_open(&store, o->store, &o->store_opts) < 0)
		goto out;
	/* Shared until the manifest and ref are written: see cfs-store(8). */
	lock = cfs_store_lock(o->store, false);
	if (lock < 0)
		goto out;
	interrupt_store = store;
	t = cfs_tree_new();
	progress_start(o->verbose >= 0 && isatty(2), img);
	r = convert_layers(o, img, store, t, &st, &commit);
	progress_end();
	if (r == 0) {
		/* built while the commit waits for the disk */
		cfs_tree_walk(t, count_node, &st);
		built = cfs_image_build(t, &manifest, &len);
		r = convert_commit_finish(commit);
		if (built < 0)
			r = -1;
	}
	/* the digest once: for the seal, the output and what is printed */
	if (interrupted ||
	    (r == 0 && (cfs_verity_digest_mem(manifest, len, res.digest) < 0 ||
			convert_seal_check(&seal, res.digest) < 0)))
		r = -1;
	if (r < 0)
		goto out;
	r = -1;
	/* a failed registration leaves the store as it was */
	if (o->podman)
		cfs_layout_undo_save(&undo, o->store, img->config_digest,
				     o->ref ? o->ref : img->ref_name);
	if (convert_write_outputs(o, img, store, manifest, len, &seal, &res) <
	    0)
		goto out;
	if (o->podman && register_podman(o, &res) < 0) {
		cfs_layout_undo_apply(&undo);
		goto out;
	}
	cfs_store_get_stats(store, &sst);
	if (o->json)
		convert_print_json(o, img, &res, &st, &sst);
	else
		printf("%s\n%s\n", res.manifest_path, res.digest_hex);
	fflush(stdout);
	convert_warn_no_verity(o, &res);
	r = 0;
out:
	interrupt_store = NULL;
	if (r < 0 && interrupted)
		cfs_error("interrupted by signal %d", (int)interrupted);
	if (r < 0)
		print_error(o->image);
	free(manifest);
	free(res.manifest_path);
	free(res.ref_name);
	cfs_layout_undo_free(&undo);
	cfs_tree_free(t);
	cfs_store_close(store);
	cfs_store_unlock(lock);
	cfs_oci_close(img);
	return r;
}

int main(int argc, char **argv)
{
	struct convert_opts o = {0};
	int r;

	argv[0] = (char *)TOOL; /* getopt_long's messages name the tool */
	r = parse_args(argc, argv, &o);
	if (r)
		return r < 0 ? 2 : 0;
	if (cfs_tool_store(TOOL, &o.store) < 0)
		return 1;
	catch_signals();
	if (convert(&o) < 0)
		return interrupted ? 128 + interrupted : 1;
	return 0;
}
