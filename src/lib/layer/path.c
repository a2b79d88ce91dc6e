// SPDX-License-Identifier: MIT
/* Cleaning and checking layer entry paths. */
#include <stdlib.h>
#include <string.h>

#include "path.h"
#include "cfs/util.h"

/* Drops the last component of buf[0..*len), if any. */
static void pop_component(const char *buf, size_t *len)
{
	while (*len > 0 && buf[*len - 1] != '/')
		(*len)--;
	if (*len > 0)
		(*len)--;
}

int cfs_layer_path_clean(const char *in, char **out)
{
	size_t n = strlen(in), len = 0;
	const char *p = in, *end = in + n;
	char *buf;

	if (n > CFS_PATH_MAX) {
		cfs_error("name longer than %d bytes", CFS_PATH_MAX);
		return -1;
	}
	buf = xmalloc(n + 1);
	while (p < end) {
		const char *slash = memchr(p, '/', end - p);
		size_t clen = (slash ? slash : end) - p;

		if (clen == 2 && p[0] == '.' && p[1] == '.') {
			pop_component(buf, &len);
		} else if (clen > CFS_NAME_MAX) {
			free(buf);
			cfs_error("name component longer than %d bytes",
				  CFS_NAME_MAX);
			return -1;
		} else if (clen > 0 && !(clen == 1 && p[0] == '.')) {
			if (len > 0)
				buf[len++] = '/';
			memcpy(buf + len, p, clen);
			len += clen;
		}
		p += clen + 1;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

bool cfs_layer_path_is_clean(const char *p, size_t len)
{
	size_t i = 0;

	if (len > CFS_PATH_MAX || memchr(p, '\0', len))
		return false;
	while (i < len) {
		const char *c = p + i, *slash = memchr(c, '/', len - i);
		size_t clen = (slash ? (size_t)(slash - c) : len - i);

		if (clen == 0 || clen > CFS_NAME_MAX)
			return false;
		if (c[0] == '.' && (clen == 1 || (clen == 2 && c[1] == '.')))
			return false;
		i += clen;
		if (slash && ++i == len)
			return false; /* trailing slash */
	}
	return true;
}
