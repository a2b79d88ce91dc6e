/* SPDX-License-Identifier: MIT */
/* What the store's other files need of a handle's state. */
#ifndef CFS_STORE_INTERNAL_H
#define CFS_STORE_INTERNAL_H

#include <stdbool.h>

#include "cfs/store.h"

/* The store directory, open for the handle's lifetime. */
int cfs_store_dirfd(const struct cfs_store *s);
/*
 * Whether an object's name alone proves it: no fs-verity measurement is
 * taken of existing objects (--no-verity, or a filesystem without it, as
 * learnt by an earlier lookup).
 */
bool cfs_store_names_trusted(struct cfs_store *s);

#endif
