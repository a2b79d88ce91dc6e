// SPDX-License-Identifier: MIT
/*
 * D of each image: oci2cfs run on our layout, as every host will run it on
 * the sealed image (the same program, so the same manifest bytes: the
 * one installed beside cfs-seal, else from PATH). --output keeps refs and
 * records out of a --store the user named; only objects go there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "seal.h"
#include "cfs/json.h"
#include "cfs/util.h"

/* oci2cfs --json's "digest": 64 lowercase hex digits. */
static int read_digest(const char *file, char out[65])
{
	struct json_object *o;
	const char *d;
	uint8_t *data;
	size_t len;
	int r = -1;

	if (cfs_read_file(file, &data, &len) < 0)
		return -1;
	o = json_tokener_parse((const char *)data);
	free(data);
	d = cfs_json_str(o, "digest");
	if (d && strlen(d) == 64 && cfs_lower_hex(d, 64)) {
		memcpy(out, d, 65);
		r = 0;
	} else {
		cfs_error("oci2cfs printed no digest");
	}
	json_object_put(o);
	return r;
}

/* "oci2cfs: TMP/layout: MESSAGE" names our layout: keep MESSAGE. */
static void name_image(const struct seal_job *j, const struct seal_image *img)
{
	char *prefix = xasprintf("oci2cfs: %s: ", j->layout);
	char *msg = xstrdup(cfs_strerror());
	const char *m = msg;

	if (!strncmp(m, prefix, strlen(prefix)))
		m += strlen(prefix);
	if (img->platform)
		cfs_error("converting %s: %s", img->platform, m);
	else
		cfs_error("converting: %s", m);
	free(msg);
	free(prefix);
}

static int convert_one(const struct seal_job *j, const char *prog,
		       const char *store, size_t i)
{
	char ref[32];
	char *output, *out, *err;
	const char *argv[16];
	int n = 0, r;

	snprintf(ref, sizeof(ref), "cfs-seal-%zu", i);
	output = xasprintf("%s/%s.cfs", j->tmp, ref);
	out = xasprintf("%s/oci2cfs.out", j->tmp);
	err = xasprintf("%s/oci2cfs.err", j->tmp);
	argv[n++] = prog;
	argv[n++] = "--store";
	argv[n++] = store;
	argv[n++] = "--output";
	argv[n++] = output;
	argv[n++] = "--ref";
	argv[n++] = ref;
	argv[n++] = "--json";
	argv[n++] = "-q";
	argv[n++] = "--sync=none";
	if (!j->o->store) /* a scratch store: nobody mounts from it */
		argv[n++] = "--no-verity";
	argv[n++] = "--";
	argv[n++] = j->layout;
	argv[n] = NULL;
	r = seal_run(argv, out, err);
	if (r == 0)
		r = read_digest(out, j->img[i].seal);
	if (r < 0)
		name_image(j, &j->img[i]);
	unlink(output);
	free(output);
	free(out);
	free(err);
	return r;
}

int seal_convert(struct seal_job *j)
{
	char *prog = cfs_tool_beside("oci2cfs");
	char *store = j->o->store ? xstrdup(j->o->store)
				  : xasprintf("%s/store", j->tmp);
	int r = 0;

	for (size_t i = 0; r == 0 && i < j->n; i++)
		if (!j->img[i].skip)
			r = convert_one(j, prog, store, i);
	free(store);
	free(prog);
	return r;
}
