/* SPDX-License-Identifier: MIT */
/*
 * containers/: the configuration of the containers stack that both oci/
 * (the containers-storage: transport) and podman/ (the additional image
 * store) read: storage.conf, a small subset of TOML. Included by oci/ and
 * podman/ (and the unit tests); it includes only the base (cfs/util.h),
 * never a header of oci/ or podman/.
 */
#ifndef CFS_CONTAINERS_CONF_H
#define CFS_CONTAINERS_CONF_H

#include <stdbool.h>
#include <stddef.h>

/* --- conf.c: the TOML subset */
struct containers_conf_key {
	char **values; /* the string, or the array's strings */
	size_t n;
	bool is_array;
	long value_off; /* offset of the value ('[' or the quote) */
	long table_off; /* offset just after the table's header line, or -1 */
};

/*
 * Finds KEY in [TABLE] of a storage.conf text: 1 found, 0 absent, -1 on a
 * value that cannot be parsed (cfs_error set). out->table_off is set
 * whether or not the key is found. Free with containers_conf_key_free.
 */
int containers_conf_find(const char *text, size_t len, const char *table,
			 const char *key, struct containers_conf_key *out);
void containers_conf_key_free(struct containers_conf_key *k);
/* KEY in [TABLE] when it is one string (maybe empty): malloc'ed, or NULL. */
char *containers_conf_string(const char *text, size_t len, const char *table,
			     const char *key);

/* --- storage.c: containers/storage's settings */
#define CONTAINERS_STORAGE_CONF "/etc/containers/storage.conf"
#define CONTAINERS_DEFAULT_GRAPHROOT "/var/lib/containers/storage"

/*
 * The storage.conf containers/storage reads: given if not NULL, else
 * $CONTAINERS_STORAGE_CONF if set and not empty, else the default.
 */
const char *containers_storage_conf(const char *given);

/* podman's storage settings: graphroot, driver, additional image stores. */
struct containers_storage {
	char *graphroot, *driver;
	struct containers_conf_key ais;
};
/*
 * Reads them from the storage.conf at path; an unreadable file, or a key
 * that is absent or empty, means podman's defaults (no additional stores).
 */
void containers_storage_load(const char *path, struct containers_storage *c);
void containers_storage_free(struct containers_storage *c);

#endif
