// SPDX-License-Identifier: MIT
/*
 * cfs-seal's two skopeo copies. In: SOURCE to dir:, which takes every
 * manifest as it is (skopeo 1.9.3 would convert a docker schema2 manifest
 * for oci: and rewrite its config, changing the image id), under the
 * user's signature policy. Out: our layout to DEST with
 * --preserve-digests, so skopeo fails rather than change a manifest it
 * signs, and --digestfile, checked against the sealed top manifest.
 */
#include <stdlib.h>
#include <string.h>

#include "seal.h"
#include "cfs/util.h"

#define ARGS_MAX 40

struct args {
	const char *v[ARGS_MAX + 1];
	int n;
	char *owned[CFS_REGISTRY_MAX_ARGS];
	int n_owned;
};

static void add(struct args *a, const char *s)
{
	a->v[a->n++] = s;
}

static void add2(struct args *a, const char *opt, const char *val)
{
	if (val) {
		add(a, opt);
		add(a, val);
	}
}

/*
 * skopeo's global options, then "copy -q --all". policy: the user's
 * (--policy FILE, or NULL for skopeo's default), unless insecure: copying
 * from our own layout, skopeo would check the policy on that.
 */
static void start(struct args *a, const struct seal_job *j, bool insecure)
{
	add(a, "skopeo");
	/* where signatures go: skopeo's, not a side's (add_registry) */
	add2(a, "--registries.d", j->o->reg.registries_d);
	add2(a, "--tmpdir", j->skopeo_tmp);
	if (insecure)
		add(a, "--insecure-policy");
	else
		add2(a, "--policy", j->o->policy);
	add(a, "copy");
	add(a, "-q");
	add(a, "--all");
}

/* The registry options, spelled --src-OPTION or --dest-OPTION. */
static void add_registry(struct args *a, const struct seal_job *j,
			 const char *side)
{
	const char *reg[CFS_REGISTRY_MAX_ARGS];
	int n = 0;

	cfs_registry_args(&j->o->reg, reg, &n);
	for (int i = 0; i < n; i++) {
		if (!strcmp(reg[i], "--registries.d")) {
			i++; /* and its value: a global option, see start */
			continue;
		}
		if (strncmp(reg[i], "--", 2)) {
			add(a, reg[i]);
			continue;
		}
		a->owned[a->n_owned] = xasprintf("--%s-%s", side, reg[i] + 2);
		add(a, a->owned[a->n_owned++]);
	}
}

static void args_free(struct args *a)
{
	for (int i = 0; i < a->n_owned; i++)
		free(a->owned[i]);
}

static int run_skopeo(struct args *a, const struct seal_job *j)
{
	char *out = xasprintf("%s/skopeo.out", j->tmp);
	char *err = xasprintf("%s/skopeo.err", j->tmp);
	int r;

	a->v[a->n] = NULL;
	r = seal_run(a->v, out, err);
	free(out);
	free(err);
	args_free(a);
	return r;
}

int seal_fetch(struct seal_job *j)
{
	struct args a = {0};
	char *dest = xasprintf("dir:%s", j->src);
	int r;

	start(&a, j, false);
	/* the policy checks them all the same; they cannot stay valid */
	add(&a, "--remove-signatures");
	add_registry(&a, j, "src");
	add(&a, "--");
	add(&a, j->o->source);
	add(&a, dest);
	r = run_skopeo(&a, j);
	free(dest);
	return r;
}

static int check_pushed(struct seal_job *j, const char *file)
{
	uint8_t *data;
	size_t len;

	if (cfs_read_file(file, &data, &len) < 0) {
		cfs_error("skopeo wrote no digest file");
		return -1;
	}
	while (len && (data[len - 1] == '\n' || data[len - 1] == ' '))
		len--;
	if (len > SEAL_DIGEST_MAX)
		len = SEAL_DIGEST_MAX;
	memcpy(j->pushed, data, len);
	j->pushed[len] = '\0';
	free(data);
	if (strcmp(j->pushed, j->top)) {
		cfs_error("skopeo wrote manifest %s, not the sealed %s",
			  j->pushed, j->top);
		return -1;
	}
	return 0;
}

int seal_push(struct seal_job *j)
{
	struct args a = {0};
	char *src = xasprintf("oci:%s:cfs-seal", j->layout);
	char *digestfile = xasprintf("%s/pushed", j->tmp);
	int r;

	start(&a, j, true);
	add(&a, "--preserve-digests");
	add2(&a, "--digestfile", digestfile);
	add2(&a, "--sign-by", j->o->sign_by);
	add2(&a, "--sign-by-sigstore-private-key", j->o->sign_key);
	add2(&a, "--sign-passphrase-file", j->o->sign_passphrase);
	add2(&a, "--sign-identity", j->o->sign_identity);
	add_registry(&a, j, "dest");
	add(&a, "--");
	add(&a, src);
	add(&a, j->o->dest);
	r = run_skopeo(&a, j);
	if (r == 0)
		r = check_pushed(j, digestfile);
	free(digestfile);
	free(src);
	return r;
}
