// SPDX-License-Identifier: MIT
/* Reading the seal of an OCI image manifest (see cfs/seal.h). */
#include <limits.h>
#include <string.h>

#include "cfs/error.h"
#include "cfs/json.h"
#include "cfs/mem.h"
#include "cfs/seal.h"

int cfs_seal_read(const uint8_t *manifest, size_t len, const char *label,
		  uint8_t d[CFS_DIGEST_SIZE])
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *m, *ann = NULL, *v;
	const char *hex;
	int ret = -1;

	if (len > INT_MAX) {
		json_tokener_free(tok);
		cfs_error("%s: manifest too large", label);
		return -1;
	}
	m = json_tokener_parse_ex(tok, (const char *)manifest, (int)len);
	json_tokener_free(tok);
	if (!m || !json_object_is_type(m, json_type_object)) {
		cfs_error("%s: manifest is not a JSON object", label);
		goto out;
	}
	ret = 0;
	if (!json_object_object_get_ex(m, "annotations", &ann) ||
	    !json_object_object_get_ex(ann, CFS_SEAL_ANNOTATION, &v))
		goto out;
	hex = json_object_is_type(v, json_type_string)
		      ? json_object_get_string(v)
		      : NULL;
	if (!hex || strlen(hex) != 2 * CFS_DIGEST_SIZE ||
	    !cfs_lower_hex(hex, 2 * CFS_DIGEST_SIZE)) {
		cfs_error("%s: seal %s is not 64 lowercase hex digits", label,
			  CFS_SEAL_ANNOTATION);
		ret = -1;
		goto out;
	}
	cfs_unhex(d, hex, CFS_DIGEST_SIZE);
	ret = 1;
out:
	json_object_put(m);
	return ret;
}
