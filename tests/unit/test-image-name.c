// SPDX-License-Identifier: MIT
/*
 * cfs_name_resolve: names and id prefixes resolved in podman 4.3's order
 * (full id, the name as given, localhost/ and docker.io completion, id
 * prefix, repository suffix), and the ambiguous ones refused by name.
 */
#include <stdlib.h>
#include <string.h>

#include "cfs/image-name.h"
#include "cfs/util.h"
#include "tap.h"

#define ID_A                                                                   \
	"abc1"                                                                 \
	"5f0e8a1c3d2b4e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d"
#define ID_B                                                                   \
	"abc2"                                                                 \
	"0000000000000000000000000000000000000000000000000000000000ff"
#define ID_C                                                                   \
	"def0"                                                                 \
	"1111111111111111111111111111111111111111111111111111111111ee"
#define ID_D                                                                   \
	"9990"                                                                 \
	"2222222222222222222222222222222222222222222222222222222222dd"

static struct cfs_name_set set;

/* query resolves to id, by the name want_name (NULL: by id). */
static bool resolves(const char *query, const char *id, const char *want_name)
{
	struct cfs_name_match m;
	int r = cfs_name_resolve(&set, query, &m);
	bool good =
		r == 1 && !strcmp(m.id, id) &&
		(want_name ? m.name && !strcmp(m.name, want_name) : !m.name);

	if (!good)
		printf("# '%s': %d %.12s %s (%s)\n", query, r,
		       r == 1 ? m.id : "-", r == 1 && m.name ? m.name : "-",
		       r < 0 ? cfs_strerror() : "");
	return good;
}

static bool not_found(const char *query)
{
	struct cfs_name_match m;
	int r = cfs_name_resolve(&set, query, &m);

	if (r != 0)
		printf("# '%s': %d %.12s\n", query, r, r == 1 ? m.id : "-");
	return r == 0;
}

/* Refused with a message that names every one of the ids. */
static bool ambiguous(const char *query, const char *id1, const char *id2)
{
	struct cfs_name_match m;
	int r = cfs_name_resolve(&set, query, &m);
	char a[13], b[13];

	snprintf(a, sizeof(a), "%.12s", id1);
	snprintf(b, sizeof(b), "%.12s", id2);
	if (r != -1) {
		printf("# '%s': %d, not refused\n", query, r);
		return false;
	}
	printf("# %s\n", cfs_strerror());
	return strstr(cfs_strerror(), query) && strstr(cfs_strerror(), a) &&
	       strstr(cfs_strerror(), b) && strstr(cfs_strerror(), "ambiguous");
}

static void fill(void)
{
	cfs_name_set_add(&set, "docker.io/cfs/realistic:latest", ID_A);
	cfs_name_set_add(&set, NULL, ID_A);
	cfs_name_set_add(&set, "docker.io/library/alpine:3.19", ID_B);
	cfs_name_set_add(&set, NULL, ID_B);
	cfs_name_set_add(&set, "localhost/web:1", ID_C);
	cfs_name_set_add(&set, "web:1.2", ID_C);
	cfs_name_set_add(&set, NULL, ID_C);
	cfs_name_set_add(&set, NULL, ID_D);
}

static void test_names(void)
{
	const char *full = "docker.io/cfs/realistic:latest";

	ok(resolves(full, ID_A, full), "the full name");
	ok(resolves("cfs/realistic", ID_A, full), "REPO: docker.io and latest");
	ok(resolves("cfs/realistic:latest", ID_A, full), "REPO:TAG");
	ok(resolves("docker.io/cfs/realistic", ID_A, full),
	   "REGISTRY/REPO: latest");
	ok(resolves("realistic", ID_A, full),
	   "the last path component: a repository ending in /NAME");
	ok(resolves("alpine:3.19", ID_B, "docker.io/library/alpine:3.19"),
	   "single component: docker.io/library/");
	ok(resolves("docker.io/alpine:3.19", ID_B,
		    "docker.io/library/alpine:3.19"),
	   "docker.io/NAME: library/ added");
	ok(not_found("alpine"), "the tag defaults to latest: no alpine:latest");
	ok(resolves("web:1", ID_C, "localhost/web:1"), "localhost/ first");
	ok(resolves("web:1.2", ID_C, "web:1.2"), "a name as it is");
	ok(not_found("istic"), "a suffix that is not a path component");
	ok(not_found("quay.io/cfs/realistic"), "another registry");
	ok(not_found("Realistic"), "not a name podman accepts, not an id");
}

static void test_ids(void)
{
	char up[sizeof(ID_A)];

	ok(resolves(ID_A, ID_A, NULL), "full id");
	ok(resolves("sha256:" ID_A, ID_A, NULL), "sha256:ID");
	ok(not_found("sha256:abc1"), "sha256: takes only a full id");
	ok(resolves("abc1", ID_A, NULL), "unique 4-digit prefix");
	ok(resolves("999", ID_D, NULL), "3 digits: an image without a name");
	ok(not_found("99"), "2 digits are too few");
	ok(ambiguous("abc", ID_A, ID_B), "ambiguous prefix names both images");
	ok(not_found("abcd"), "a prefix of no id");
	ok(not_found("ABC1"), "an upper-case prefix is none");
	ok(cfs_image_id_ok(ID_A), "an id is 64 lowercase hex digits");
	ok(!cfs_image_id_ok(ID_A "0") && !cfs_image_id_ok(ID_A + 1),
	   "65 or 63 digits are no id");
	memcpy(up, ID_A, sizeof(up));
	up[0] = 'A';
	ok(!cfs_image_id_ok(up), "upper case is no id");
}

static void test_ambiguous_name(void)
{
	cfs_name_set_add(&set, "quay.io/other/realistic:latest", ID_D);
	ok(ambiguous("realistic", ID_A, ID_D),
	   "a short name two repositories end in: refused, both named");
	ok(resolves("cfs/realistic", ID_A, "docker.io/cfs/realistic:latest"),
	   "the longer name still resolves");
}

int main(void)
{
	fill();
	test_names();
	test_ids();
	test_ambiguous_name();
	cfs_name_set_free(&set);
	return tap_done();
}
