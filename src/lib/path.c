// SPDX-License-Identifier: MIT
/* Checking and cleaning paths inside an image (path.h). */
#include "path.h"

#include <stdlib.h>
#include <string.h>

#include "cfs/util.h"

static bool is_dot_or_dotdot(const char *c, size_t n)
{
	return c[0] == '.' && (n == 1 || (n == 2 && c[1] == '.'));
}

bool cfs_name_ok(const void *name, size_t len)
{
	const char *p = name;

	return len >= 1 && len <= CFS_MAX_NAME && !memchr(p, '/', len) &&
	       !memchr(p, 0, len) && !is_dot_or_dotdot(p, len);
}

bool cfs_backing_path_ok(const void *path, size_t len)
{
	const char *p = path;
	size_t start = 0;

	if (len < 1 || len > CFS_MAX_PATH || p[0] == '/' || memchr(p, 0, len))
		return false;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && p[i] != '/')
			continue;
		if (i - start == 2 && p[start] == '.' && p[start + 1] == '.')
			return false;
		start = i + 1;
	}
	return true;
}

enum cfs_path_fault cfs_path_check(const char *p, size_t len)
{
	size_t i = 0;

	while (i < len) {
		const char *c = p + i, *slash = memchr(c, '/', len - i);
		size_t clen = slash ? (size_t)(slash - c) : len - i;

		if (clen == 0 || is_dot_or_dotdot(c, clen))
			return CFS_PATH_NOT_NORMAL;
		if (clen > CFS_MAX_NAME)
			return CFS_PATH_NAME_TOO_LONG;
		i += clen;
		if (slash && ++i == len)
			return CFS_PATH_NOT_NORMAL; /* trailing slash */
	}
	return CFS_PATH_CLEAN;
}

bool cfs_path_is_clean(const char *p, size_t len)
{
	return len <= CFS_MAX_PATH && !memchr(p, '\0', len) &&
	       cfs_path_check(p, len) == CFS_PATH_CLEAN;
}

/* Drops the last component of buf[0..*len); false if there is none. */
static bool pop_component(const char *buf, size_t *len)
{
	if (*len == 0)
		return false;
	while (*len > 0 && buf[*len - 1] != '/')
		(*len)--;
	if (*len > 0)
		(*len)--;
	return true;
}

/* The one lexical walk; *longest: the longest component of in. */
static char *normalize(const char *in, bool *above, size_t *longest)
{
	size_t n = strlen(in), len = 0;
	const char *p = in, *end = in + n;
	char *buf = xmalloc(n + 1);

	*above = false;
	*longest = 0;
	while (p < end) {
		const char *slash = memchr(p, '/', end - p);
		size_t clen = (slash ? slash : end) - p;

		if (clen > *longest)
			*longest = clen;
		if (clen == 2 && p[0] == '.' && p[1] == '.') {
			if (!pop_component(buf, &len))
				*above = true;
		} else if (clen > 0 && !(clen == 1 && p[0] == '.')) {
			if (len > 0)
				buf[len++] = '/';
			memcpy(buf + len, p, clen);
			len += clen;
		}
		p += clen + 1;
	}
	buf[len] = '\0';
	return buf;
}

char *cfs_path_normalize(const char *in, bool *above)
{
	bool dummy;
	size_t longest;

	return normalize(in, above ? above : &dummy, &longest);
}

int cfs_path_clean(const char *in, char **out)
{
	size_t longest;
	bool above;
	char *buf;

	if (strlen(in) > CFS_MAX_PATH) {
		cfs_error("name longer than %d bytes", CFS_MAX_PATH);
		return -1;
	}
	buf = normalize(in, &above, &longest);
	if (longest > CFS_MAX_NAME) {
		free(buf);
		cfs_error("name component longer than %d bytes", CFS_MAX_NAME);
		return -1;
	}
	*out = buf;
	return 0;
}
