// SPDX-License-Identifier: MIT
/*
 * The signed payloads, parsed as c/image's simple.go and
 * internal/sigstore_payload.go do (ParanoidUnmarshalJSONObject): every
 * object exactly its fields, no key twice, so that no two readers of one
 * signed payload can see different digests or references. json-c keeps
 * the last of repeated keys, so repeats are found on the raw bytes first.
 */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "sig.h"
#include "cfs/util.h"

#define KEYS_DEPTH_MAX 64

/* The end of the string starting at data[i] (a '"'), past its last '"'. */
static size_t string_end(const uint8_t *data, size_t len, size_t i)
{
	for (i++; i < len && data[i] != '"'; i++)
		if (data[i] == '\\')
			i++;
	return i + 1;
}

/* A key as json-c decodes it (escapes resolved), compared to the others. */
static struct json_object *decode_key(const uint8_t *p, size_t n)
{
	struct json_object *k;

	return oci_json_parse(&k, p, n, "signature payload key") < 0 ? NULL : k;
}

static bool key_seen(struct json_object *seen, struct json_object *k)
{
	size_t n = json_object_array_length(seen);
	int len = json_object_get_string_len(k);

	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(seen, i);

		if (json_object_get_string_len(o) == len &&
		    !memcmp(json_object_get_string(o),
			    json_object_get_string(k), (size_t)len))
			return true;
	}
	return false;
}

/*
 * data must already be valid JSON (oci_json_parse). Walks it keeping,
 * for each open object, the keys seen: a string right after '{' or after
 * ',' inside an object is a key.
 */
int oci_json_unique_keys(const uint8_t *data, size_t len)
{
	struct json_object *seen[KEYS_DEPTH_MAX]; /* NULL for an array */
	int depth = 0, r = 0;
	bool want_key = false;

	for (size_t i = 0; i < len && r == 0; i++) {
		uint8_t c = data[i];

		if (c == '"') {
			size_t end = string_end(data, len, i);
			struct json_object *k;

			if (want_key && depth > 0 && seen[depth - 1]) {
				k = decode_key(data + i, end - i);
				if (!k || key_seen(seen[depth - 1], k)) {
					cfs_error("signature payload: a key "
						  "appears twice");
					json_object_put(k);
					r = -1;
					break;
				}
				json_object_array_add(seen[depth - 1], k);
			}
			want_key = false;
			i = end - 1;
		} else if (c == '{' || c == '[') {
			if (depth == KEYS_DEPTH_MAX) {
				cfs_error("signature payload: nested too deep");
				r = -1;
				break;
			}
			seen[depth++] =
				c == '{' ? json_object_new_array() : NULL;
			want_key = c == '{';
		} else if ((c == '}' || c == ']') && depth > 0) {
			json_object_put(seen[--depth]);
			want_key = false;
		} else if (c == ',') {
			want_key = depth > 0 && seen[depth - 1];
		}
	}
	while (depth > 0)
		json_object_put(seen[--depth]);
	return r;
}

/* obj is an object with exactly the n keys named (any order). */
static int exact_fields(struct json_object *obj, const char *what,
			const char *const *keys, size_t n)
{
	size_t have = 0;

	if (!json_object_is_type(obj, json_type_object)) {
		cfs_error("signature payload: %s is not an object", what);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (!json_object_object_get_ex(obj, keys[i], NULL)) {
			cfs_error("signature payload: %s.%s missing", what,
				  keys[i]);
			return -1;
		}
		have++;
	}
	if ((size_t)json_object_object_length(obj) != have) {
		cfs_error("signature payload: %s has unknown fields", what);
		return -1;
	}
	return 0;
}

/* The string field key of obj (exact_fields checked it is there). */
static const char *string_field(struct json_object *obj, const char *what,
				const char *key)
{
	struct json_object *v = json_object_object_get(obj, key);

	if (!json_object_is_type(v, json_type_string) ||
	    strlen(json_object_get_string(v)) !=
		    (size_t)json_object_get_string_len(v)) {
		cfs_error("signature payload: %s.%s is not a string", what,
			  key);
		return NULL;
	}
	return json_object_get_string(v);
}

static int check_optional(struct json_object *opt, bool null_ok)
{
	struct json_object *v;
	double t;

	if (!opt && null_ok)
		return 0;
	if (!json_object_is_type(opt, json_type_object)) {
		cfs_error("signature payload: optional is not an object");
		return -1;
	}
	if (json_object_object_get_ex(opt, "creator", &v) &&
	    !json_object_is_type(v, json_type_string)) {
		cfs_error("signature payload: optional.creator is not a "
			  "string");
		return -1;
	}
	if (!json_object_object_get_ex(opt, "timestamp", &v))
		return 0;
	t = json_object_get_double(v);
	if ((!json_object_is_type(v, json_type_int) &&
	     !json_object_is_type(v, json_type_double)) ||
	    !isfinite(t) || fabs(t) >= 0x1p63 || t != (double)(int64_t)t) {
		cfs_error("signature payload: optional.timestamp is not an "
			  "integer");
		return -1;
	}
	return 0;
}

static int parse_critical(struct oci_sig_payload *p, struct json_object *crit,
			  const char *type)
{
	static const char *const crit_keys[] = {"type", "image", "identity"};
	static const char *const image_keys[] = {"docker-manifest-digest"};
	static const char *const ident_keys[] = {"docker-reference"};
	struct json_object *image, *ident;
	const char *t, *digest, *ref;
	char shown[64];

	if (exact_fields(crit, "critical", crit_keys, 3) < 0 ||
	    !(t = string_field(crit, "critical", "type")))
		return -1;
	if (strcmp(t, type)) {
		cfs_error("signature payload: type '%s', not '%s'",
			  cfs_printable(shown, sizeof(shown), t), type);
		return -1;
	}
	image = json_object_object_get(crit, "image");
	ident = json_object_object_get(crit, "identity");
	if (exact_fields(image, "critical.image", image_keys, 1) < 0 ||
	    exact_fields(ident, "critical.identity", ident_keys, 1) < 0 ||
	    !(digest = string_field(image, "critical.image",
				    "docker-manifest-digest")) ||
	    !(ref = string_field(ident, "critical.identity",
				 "docker-reference")))
		return -1;
	p->digest = xstrdup(digest);
	p->reference = xstrdup(ref);
	return 0;
}

int oci_sig_payload_parse(struct oci_sig_payload *p, const uint8_t *data,
			  size_t len, const char *type, bool null_optional)
{
	static const char *const top_keys[] = {"critical", "optional"};
	struct json_object *obj;
	int r = -1;

	memset(p, 0, sizeof(*p));
	if (oci_json_parse(&obj, data, len, "signature payload") < 0)
		return -1;
	if (oci_json_unique_keys(data, len) == 0 &&
	    exact_fields(obj, "payload", top_keys, 2) == 0 &&
	    check_optional(json_object_object_get(obj, "optional"),
			   null_optional) == 0)
		r = parse_critical(p, json_object_object_get(obj, "critical"),
				   type);
	json_object_put(obj);
	return r;
}

void oci_sig_payload_free(struct oci_sig_payload *p)
{
	free(p->digest);
	free(p->reference);
	memset(p, 0, sizeof(*p));
}
