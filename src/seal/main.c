// SPDX-License-Identifier: MIT
/* cfs-seal: copy an image with the seal of its composefs manifest. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "seal.h"
#include "cfs/json.h"
#include "cfs/seal.h"
#include "cfs/util.h"

static const char usage_text[] =
	"Usage: cfs-seal [OPTION]... SOURCE DEST\n"
	"Copy the image SOURCE to DEST with the annotation\n"
	"" CFS_SEAL_ANNOTATION "\n"
	"on its manifest: the fs-verity digest D of the composefs manifest\n"
	"oci2cfs makes of it, which every host converting the image must\n"
	"get. Config and layers stay as they are (so does the image id); an\n"
	"index gets each of its images sealed. SOURCE and DEST are skopeo\n"
	"names: docker://REF, oci:DIR[:REF], oci-archive:FILE[:REF],\n"
	"dir:DIR, containers-storage:REF...; DEST must carry OCI manifests\n"
	"(not docker-archive:). Options may come anywhere on the line; \"--\"\n"
	"ends them.\n"
	"\n"
	"Options:\n"
	"  -s, --store=DIR        convert into this object store (default: a\n"
	"                         scratch store, removed afterwards)\n"
	"      --reseal           replace a seal SOURCE has that differs from\n"
	"                         D (default: refuse)\n"
	"      --json             print a JSON summary\n"
	"      --sign-by=FINGERPRINT\n"
	"                         sign DEST with this GPG key\n"
	"      --sign-by-sigstore-private-key=FILE\n"
	"                         sign DEST with this sigstore private key\n"
	"      --sign-passphrase-file=FILE\n"
	"                         the signing key's passphrase\n"
	"      --sign-identity=REF\n"
	"                         the docker reference signed (default:\n"
	"                         DEST's; oci:, oci-archive: and dir: need\n"
	"                         one)\n"
	"      --registries.d=DIR registries.d for skopeo: where signatures\n"
	"                         are read (lookaside) and written\n"
	"                         (lookaside-staging)\n"
	"      --signature-policy=FILE\n"
	"                         policy.json SOURCE must satisfy (default:\n"
	"                         skopeo's)\n"
	"      --tls-verify[=BOOL]\n"
	"                         require HTTPS and verify the registries'\n"
	"                         certificates (default: as registries.conf\n"
	"                         says); for SOURCE and DEST alike\n"
	"      --creds=USER:PASSWORD\n"
	"                         log in to the registries with these (sent\n"
	"                         to SOURCE's and DEST's)\n"
	"      --authfile=FILE    credentials file (default:\n"
	"                         $REGISTRY_AUTH_FILE, else the one podman\n"
	"                         login writes)\n"
	"      --cert-dir=DIR     CA certificates (*.crt) and client keys for\n"
	"                         the registries\n"
	"  -h, --help             show this help and exit\n"
	"      --version          print the version and exit\n"
	"\n"
	"Prints D for an image, or \"PLATFORM D\" for each image of an index\n"
	"(the last word of each line is a D). Temporary files go to $TMPDIR,\n"
	"else /var/tmp.\n"
	"Exit status: 0 ok, 1 failure, 2 usage error, 128+N after signal N.\n";

enum {
	OPT_RESEAL = 256,
	OPT_JSON,
	OPT_SIGN_BY,
	OPT_SIGN_KEY,
	OPT_SIGN_PASSPHRASE,
	OPT_SIGN_IDENTITY,
	OPT_POLICY,
	OPT_VERSION,
};

static const struct option long_opts[] = {
	{"store", required_argument, NULL, 's'},
	{"reseal", no_argument, NULL, OPT_RESEAL},
	{"json", no_argument, NULL, OPT_JSON},
	{"sign-by", required_argument, NULL, OPT_SIGN_BY},
	{"sign-by-sigstore-private-key", required_argument, NULL, OPT_SIGN_KEY},
	{"sign-passphrase-file", required_argument, NULL, OPT_SIGN_PASSPHRASE},
	{"sign-identity", required_argument, NULL, OPT_SIGN_IDENTITY},
	{"signature-policy", required_argument, NULL, OPT_POLICY},
	CFS_REGISTRY_LONG_OPTIONS,
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, OPT_VERSION},
	{NULL, 0, NULL, 0},
};

static int set_value(const char **field, const char *option)
{
	if (!*optarg)
		return cfs_usage_error(TOOL, "--%s: empty value", option);
	*field = optarg;
	return 0;
}

static int other_opt(struct seal_opts *o, int c)
{
	switch (c) {
	case 's':
		return set_value(&o->store, "store");
	case OPT_SIGN_BY:
		return set_value(&o->sign_by, "sign-by");
	case OPT_SIGN_KEY:
		return set_value(&o->sign_key, "sign-by-sigstore-private-key");
	case OPT_SIGN_PASSPHRASE:
		return set_value(&o->sign_passphrase, "sign-passphrase-file");
	case OPT_SIGN_IDENTITY:
		return set_value(&o->sign_identity, "sign-identity");
	case OPT_POLICY:
		return set_value(&o->policy, "signature-policy");
	}
	/* the registry options, else getopt's error */
	switch (cfs_registry_opt(&o->reg, c, optarg)) {
	case 1:
		return 0;
	case 0:
		cfs_usage_hint(TOOL);
		return -1;
	default:
		return cfs_usage_error(TOOL, "%s", cfs_strerror());
	}
}

/* A transport whose images have no docker reference to sign. */
static bool anonymous(const char *name)
{
	static const char *const prefixes[] = {"oci:", "oci-archive:", "dir:"};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* skopeo would fail on these only after writing DEST's blobs. */
static int check_signing(const struct seal_opts *o)
{
	bool sign = o->sign_by || o->sign_key;

	if (!sign && (o->sign_passphrase || o->sign_identity))
		return cfs_usage_error(TOOL, "--sign-passphrase-file and "
					     "--sign-identity need a key to "
					     "sign with");
	if (sign && !o->sign_identity && anonymous(o->dest))
		return cfs_usage_error(TOOL, "signing %s needs --sign-identity",
				       o->dest);
	return 0;
}

/* 0 to run, 1 after --help/--version, -1 after a usage error. */
static int parse_args(int argc, char **argv, struct seal_opts *o)
{
	int c;

	while ((c = getopt_long(argc, argv, "s:h", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_RESEAL:
			o->reseal = true;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 1;
		case OPT_VERSION:
			return cfs_print_version(TOOL);
		default:
			if (other_opt(o, c) < 0)
				return -1;
		}
	}
	if (optind != argc - 2)
		return cfs_usage_error(TOOL, "expected SOURCE and DEST");
	o->source = argv[optind];
	o->dest = argv[optind + 1];
	return check_signing(o);
}

/* Files the options name, checked before anything is copied. */
static int check_files(const struct seal_opts *o)
{
	const char *const files[][2] = {
		{"--sign-by-sigstore-private-key", o->sign_key},
		{"--sign-passphrase-file", o->sign_passphrase},
		{"--signature-policy", o->policy},
	};

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (files[i][1] && access(files[i][1], R_OK) < 0) {
			fprintf(stderr, TOOL ": %s %s: %s\n", files[i][0],
				files[i][1], strerror(errno));
			return -1;
		}
	}
	if (cfs_registry_check(&o->reg) < 0) {
		fprintf(stderr, TOOL ": %s\n", cfs_strerror());
		return -1;
	}
	return 0;
}

static void on_signal(int sig)
{
	seal_interrupted = sig;
}

static void catch_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* The private temp dir: $TMPDIR, else /var/tmp (images are big). */
static int make_tmp(struct seal_job *j)
{
	const char *base = getenv("TMPDIR");

	if (!base || !*base)
		base = "/var/tmp";
	j->tmp = xasprintf("%s/cfs-seal.XXXXXX", base);
	if (!mkdtemp(j->tmp)) {
		fprintf(stderr, TOOL ": %s: %s\n", j->tmp, strerror(errno));
		free(j->tmp);
		j->tmp = NULL;
		return -1;
	}
	/* skopeo would read oci:A:B as layout A, image B */
	if (strchr(j->tmp, ':')) {
		fprintf(stderr, TOOL ": %s: a temp dir with ':' in its name\n",
			j->tmp);
		return -1;
	}
	j->src = xasprintf("%s/src", j->tmp);
	j->layout = xasprintf("%s/layout", j->tmp);
	/* skopeo's own temp files (an oci-archive: unpacked): it must exist */
	j->skopeo_tmp = xasprintf("%s/skopeo", j->tmp);
	if (mkdir(j->skopeo_tmp, 0700) < 0) {
		fprintf(stderr, TOOL ": %s: %s\n", j->skopeo_tmp,
			strerror(errno));
		return -1;
	}
	return 0;
}

static void print_json(const struct seal_job *j)
{
	struct json_object *o = json_object_new_object();
	struct json_object *list = json_object_new_array();

	json_object_object_add(o, "source",
			       json_object_new_string(j->o->source));
	json_object_object_add(o, "dest", json_object_new_string(j->o->dest));
	json_object_object_add(o, "digest", json_object_new_string(j->top));
	json_object_object_add(o, "index", json_object_new_boolean(!!j->index));
	for (size_t i = 0; i < j->n; i++) {
		const struct seal_image *img = &j->img[i];
		struct json_object *e = json_object_new_object();

		if (img->skip)
			continue;
		json_object_object_add(
			e, "platform",
			img->platform ? json_object_new_string(img->platform)
				      : NULL);
		json_object_object_add(e, "manifest",
				       json_object_new_string(img->digest));
		json_object_object_add(e, "config",
				       json_object_new_string(img->config));
		json_object_object_add(e, "seal",
				       json_object_new_string(img->seal));
		json_object_array_add(list, e);
	}
	json_object_object_add(o, "images", list);
	puts(json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
			   JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

static void print_result(const struct seal_job *j)
{
	if (j->o->json) {
		print_json(j);
		return;
	}
	for (size_t i = 0; i < j->n; i++) {
		const struct seal_image *img = &j->img[i];

		if (img->skip)
			continue;
		if (j->index)
			printf("%s ", img->platform ? img->platform : "-");
		printf("%s\n", img->seal);
	}
}

/* Every step of one seal; -1 after saying which of SOURCE or DEST failed. */
static int seal(struct seal_job *j)
{
	const char *subject = j->o->source;
	int r = seal_source_local(subject) ? seal_fetch_local(j)
					   : seal_fetch(j);

	if (r == 0)
		r = seal_layout_read(j);
	if (r == 0)
		r = seal_layout_unsealed(j);
	if (r == 0)
		r = seal_convert(j);
	if (r == 0)
		r = seal_layout_sealed(j);
	if (r == 0) {
		subject = j->o->dest;
		r = seal_push(j);
	}
	if (r < 0 && seal_interrupted)
		cfs_error("interrupted by signal %d", (int)seal_interrupted);
	if (r < 0) {
		fprintf(stderr, TOOL ": %s: %s\n", subject,
			cfs_strerror_after(subject));
		return -1;
	}
	print_result(j);
	return 0;
}

static void job_free(struct seal_job *j)
{
	for (size_t i = 0; i < j->cap; i++) {
		json_object_put(j->img[i].manifest);
		free(j->img[i].orig);
		free(j->img[i].platform);
	}
	free(j->img);
	json_object_put(j->index);
	free(j->index_orig);
	if (j->tmp)
		cfs_remove_tree(j->tmp);
	free(j->tmp);
	free(j->src);
	free(j->layout);
	free(j->skopeo_tmp);
}

int main(int argc, char **argv)
{
	struct seal_opts o = {0};
	struct seal_job j = {.o = &o};
	int r;

	argv[0] = (char *)TOOL; /* getopt_long's messages name the tool */
	r = parse_args(argc, argv, &o);
	if (r)
		return r < 0 ? 2 : 0;
	if (check_files(&o) < 0)
		return 1;
	catch_signals();
	r = make_tmp(&j) == 0 ? seal(&j) : -1;
	job_free(&j);
	if (r < 0)
		return seal_interrupted ? 128 + seal_interrupted : 1;
	return 0;
}
