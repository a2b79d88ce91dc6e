/* SPDX-License-Identifier: MIT */
/*
 * Reading fields of JSON from images and stores (json.c, above json-c).
 * Part of the base: included by oci/ and podman/ alike; it includes
 * nothing of ours.
 */
#ifndef CFS_JSON_H
#define CFS_JSON_H

#include <json-c/json.h>

/* The string value of obj's key, or NULL (absent, not a string, no obj). */
const char *cfs_json_str(struct json_object *obj, const char *key);

#endif
