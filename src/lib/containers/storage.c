// SPDX-License-Identifier: MIT
/*
 * containers/storage's settings as podman reads them from storage.conf:
 * where the file is, the graph root and driver, the additional image
 * stores.
 */
#include <stdlib.h>
#include <string.h>

#include "cfs/util.h"
#include "containers/conf.h"

const char *containers_storage_conf(const char *given)
{
	const char *env = getenv("CONTAINERS_STORAGE_CONF");

	if (given)
		return given;
	return env && *env ? env : CONTAINERS_STORAGE_CONF;
}

/* A single non-empty string, else def. */
static char *string_or(const uint8_t *text, size_t len, const char *table,
		       const char *key, const char *def)
{
	char *v = containers_conf_string((const char *)text, len, table, key);

	if (v && *v)
		return v;
	free(v);
	return xstrdup(def);
}

void containers_storage_load(const char *path, struct containers_storage *c)
{
	uint8_t *text = NULL;
	size_t len = 0;

	memset(c, 0, sizeof(*c));
	/* an unreadable storage.conf means podman's defaults */
	if (cfs_read_file(path, &text, &len) < 0)
		len = 0;
	c->graphroot = string_or(text, len, "storage", "graphroot",
				 CONTAINERS_DEFAULT_GRAPHROOT);
	c->driver = string_or(text, len, "storage", "driver", "overlay");
	if (containers_conf_find(text ? (const char *)text : "", len,
				 "storage.options", "additionalimagestores",
				 &c->ais) < 0)
		memset(&c->ais, 0, sizeof(c->ais));
	free(text);
}

void containers_storage_free(struct containers_storage *c)
{
	free(c->graphroot);
	free(c->driver);
	containers_conf_key_free(&c->ais);
}
