// SPDX-License-Identifier: MIT
/* Choosing one image: platform strings, the host's platform, ref matching. */
#include <string.h>
#include <sys/utsname.h>

#include "internal.h"
#include "cfs/util.h"

/* uname machine -> GOARCH and variant, as in OCI platform objects. */
static const struct {
	const char *machine, *arch, *variant;
} host_arches[] = {
	{"x86_64", "amd64", ""},
	{"i386", "386", ""},
	{"i486", "386", ""},
	{"i586", "386", ""},
	{"i686", "386", ""},
	{"aarch64", "arm64", "v8"},
	{"arm64", "arm64", "v8"},
	{"armv8l", "arm", "v8"},
	{"armv7l", "arm", "v7"},
	{"armv6l", "arm", "v6"},
	{"armv5tel", "arm", "v5"},
	{"ppc64le", "ppc64le", ""},
	{"ppc64", "ppc64", ""},
	{"s390x", "s390x", ""},
	{"riscv64", "riscv64", ""},
	{"mips64", "mips64le", ""},
	{"loongarch64", "loong64", ""},
};

static void host_platform(struct oci_platform *p)
{
	struct utsname u;
	size_t n = sizeof(host_arches) / sizeof(host_arches[0]);

	uname(&u);
	snprintf(p->os, sizeof(p->os), "linux");
	snprintf(p->arch, sizeof(p->arch), "%.31s", u.machine);
	p->variant[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(u.machine, host_arches[i].machine)) {
			snprintf(p->arch, sizeof(p->arch), "%s",
				 host_arches[i].arch);
			snprintf(p->variant, sizeof(p->variant), "%s",
				 host_arches[i].variant);
		}
	}
}

static bool copy_part(char *dst, size_t size, const char *s, size_t n)
{
	if (!n || n >= size || memchr(s, ' ', n))
		return false;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return true;
}

int oci_platform_parse(struct oci_platform *p, const char *s)
{
	const char *a, *v;
	bool good;

	memset(p, 0, sizeof(*p));
	if (!s) {
		host_platform(p);
		return 0;
	}
	a = strchr(s, '/');
	v = a ? strchr(a + 1, '/') : NULL;
	good = a && copy_part(p->os, sizeof(p->os), s, a - s) &&
	       copy_part(p->arch, sizeof(p->arch), a + 1,
			 v ? (size_t)(v - a - 1) : strlen(a + 1)) &&
	       (!v || copy_part(p->variant, sizeof(p->variant), v + 1,
				strlen(v + 1)));
	if (!good || (v && strchr(v + 1, '/'))) {
		cfs_error("invalid platform '%.64s' (want os/arch[/variant])",
			  s);
		return -1;
	}
	return 0;
}

/* arm64 images usually leave out the variant; it means v8. */
static const char *normal_variant(const char *arch, const char *variant)
{
	if ((!variant || !*variant) && !strcmp(arch, "arm64"))
		return "v8";
	return variant ? variant : "";
}

bool oci_platform_match(const struct oci_platform *want, const char *os,
			const char *arch, const char *variant)
{
	if (!os || !arch || strcmp(os, want->os) || strcmp(arch, want->arch))
		return false;
	if (!want->variant[0])
		return true;
	return !strcmp(normal_variant(arch, variant),
		       normal_variant(arch, want->variant));
}

/* Splits "repo/name:tag" at the tag's colon (not a registry port's). */
static void ref_split(const char *s, size_t *name_len, const char **tag)
{
	const char *slash = strrchr(s, '/');
	const char *colon = strrchr(slash ? slash : s, ':');

	*name_len = colon ? (size_t)(colon - s) : strlen(s);
	*tag = colon ? colon + 1 : NULL;
}

/* Is a (length an) the trailing path of b (length bn), at a '/'? */
static bool path_suffix(const char *a, size_t an, const char *b, size_t bn)
{
	return an <= bn && !memcmp(a, b + bn - an, an) &&
	       (an == bn || b[bn - an - 1] == '/');
}

/*
 * The ref rule: an exact match wins; else "web:1.2" matches
 * "docker.io/library/web:1.2" (same tag, one repository name the trailing
 * path of the other); else a bare tag matches on the tag alone, both ways:
 * "--ref 1.2" picks "web:1.2", and "--ref web:1.2" picks an index entry
 * annotated just "1.2" (the usual form of org.opencontainers.image.ref.name
 * written by skopeo and umoci). Callers keep only the best level found.
 */
int oci_ref_match(const char *want, const char *have)
{
	size_t wn, hn;
	const char *wt, *ht;

	if (!strcmp(want, have))
		return 3;
	ref_split(want, &wn, &wt);
	ref_split(have, &hn, &ht);
	if (wt && ht && !strcmp(wt, ht) &&
	    (path_suffix(want, wn, have, hn) ||
	     path_suffix(have, hn, want, wn)))
		return 2;
	if (!wt && ht && !strcmp(want, ht))
		return 1;
	if (wt && !ht && !strcmp(wt, have))
		return 1;
	return 0;
}
