// SPDX-License-Identifier: MIT
/* Fields of untrusted JSON, read without trusting their types. */
#include "cfs/json.h"

const char *cfs_json_str(struct json_object *obj, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(obj, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}
