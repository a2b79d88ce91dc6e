// SPDX-License-Identifier: MIT
/* Layer records: freeing. */
#include <stdlib.h>

#include "cfs/layer.h"

static void entry_clear(struct cfs_layer_entry *e)
{
	free(e->path);
	free(e->link);
	for (uint32_t i = 0; i < e->n_xattrs; i++) {
		free(e->xattrs[i].key);
		free(e->xattrs[i].value);
	}
	free(e->xattrs);
}

void cfs_layer_free(struct cfs_layer *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n_entries; i++)
		entry_clear(&l->entries[i]);
	free(l->entries);
	free(l);
}
