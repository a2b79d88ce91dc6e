/* SPDX-License-Identifier: MIT */
/* Reading containers' storage.conf (a small subset of TOML). */
#ifndef CFS_PODMAN_CONF_H
#define CFS_PODMAN_CONF_H

#include <stdbool.h>
#include <stddef.h>

struct pconf_key {
	char **values; /* the string, or the array's strings */
	size_t n;
	bool is_array;
	long value_off; /* offset of the value ('[' or the quote) */
	long table_off; /* offset just after the table's header line, or -1 */
};

/*
 * Finds KEY in [TABLE] of a storage.conf text: 1 found, 0 absent, -1 on a
 * value that cannot be parsed (cfs_error set). out->table_off is set
 * whether or not the key is found. Free with pconf_key_free.
 */
int pconf_find(const char *text, size_t len, const char *table, const char *key,
	       struct pconf_key *out);
void pconf_key_free(struct pconf_key *k);

#endif
