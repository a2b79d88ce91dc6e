// SPDX-License-Identifier: MIT
/*
 * containers-registries.d(5) as c/image v5.22.1 reads it
 * (docker/registries_d.go): every *.yaml file of the directory (--registries.d,
 * else $HOME/.config/containers/registries.d if it exists, else
 * /etc/containers/registries.d) merged, a "default-docker" or a "docker"
 * scope defined twice being an error; for an image, the scope of its full
 * identity, then of its repository and parents, its registry and "*.domain"s,
 * then default-docker, give "lookaside" (or the older "sigstore") and
 * "use-sigstore-attachments". Without a lookaside, c/image's built-in one.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "cfs/json.h"
#include "internal.h"
#include "sig.h"
#include "cfs/util.h"

#define SYSTEM_DIR "/etc/containers/registries.d"
#define USER_DIR ".config/containers/registries.d"
#define ROOT_LOOKASIDE "file:///var/lib/containers/sigstore"
#define USER_LOOKASIDE ".local/share/containers/sigstore"

static char *config_dir(const char *given)
{
	const char *home = getenv("HOME");
	struct stat st;
	char *user;

	if (given)
		return xstrdup(given);
	if (home && *home) {
		user = xasprintf("%s/%s", home, USER_DIR);
		if (stat(user, &st) == 0)
			return user;
		free(user);
	}
	return xstrdup(SYSTEM_DIR);
}

static const char *scalar(yaml_document_t *doc, yaml_node_t *n)
{
	(void)doc;
	return n && n->type == YAML_SCALAR_NODE
		       ? (const char *)n->data.scalar.value
		       : NULL;
}

/* An empty value, as "key:" alone leaves it: the key is not set. */
static bool yaml_null(const char *s)
{
	return s && (!*s || !strcmp(s, "~") || !strcmp(s, "null"));
}

static int yaml_bool(const char *s, bool *out)
{
	static const char *const yes[] = {"true", "True", "TRUE", "yes",
					  "Yes",  "YES",  "on",	  "On"};
	static const char *const no[] = {"false", "False", "FALSE", "no",
					 "No",	  "NO",	   "off",   "Off"};

	for (size_t i = 0; s && i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcmp(s, yes[i]) || !strcmp(s, no[i])) {
			*out = !strcmp(s, yes[i]);
			return 0;
		}
	}
	return -1;
}

/* One namespace mapping as a JSON object of the keys c/image knows. */
static int take_namespace(yaml_document_t *doc, yaml_node_t *n,
			  const char *file, struct json_object **out)
{
	static const char *const urls[] = {"lookaside", "sigstore",
					   "lookaside-staging",
					   "sigstore-staging"};
	struct json_object *ns = json_object_new_object();

	if (n->type != YAML_MAPPING_NODE) {
		if (!(n->type == YAML_SCALAR_NODE && !*scalar(doc, n))) {
			cfs_error("%s: a namespace is not a mapping", file);
			json_object_put(ns);
			return -1;
		}
	}
	for (yaml_node_pair_t *p = n->type == YAML_MAPPING_NODE
					   ? n->data.mapping.pairs.start
					   : NULL;
	     p && p < n->data.mapping.pairs.top; p++) {
		const char *k =
			scalar(doc, yaml_document_get_node(doc, p->key));
		const char *v =
			scalar(doc, yaml_document_get_node(doc, p->value));
		bool b;

		for (size_t i = 0; k && i < 4; i++)
			if (!strcmp(k, urls[i]) && v)
				json_object_object_add(
					ns, k, json_object_new_string(v));
		if (k && !strcmp(k, "use-sigstore-attachments") &&
		    !yaml_null(v)) {
			if (yaml_bool(v, &b) < 0) {
				cfs_error("%s: use-sigstore-attachments is "
					  "not a boolean",
					  file);
				json_object_put(ns);
				return -1;
			}
			json_object_object_add(ns, k,
					       json_object_new_boolean(b));
		}
	}
	*out = ns;
	return 0;
}

static int merge_docker(struct json_object *merged, yaml_document_t *doc,
			yaml_node_t *n, const char *file)
{
	struct json_object *docker = json_object_object_get(merged, "docker"),
			   *ns;
	char shown[CFS_SHOWN_MAX];

	if (n->type != YAML_MAPPING_NODE)
		return 0; /* docker: with nothing under it */
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
	     p < n->data.mapping.pairs.top; p++) {
		const char *k =
			scalar(doc, yaml_document_get_node(doc, p->key));

		if (!k)
			continue;
		if (json_object_object_get_ex(docker, k, NULL)) {
			cfs_error("%s: docker namespace '%s' defined twice",
				  file, cfs_printable(shown, sizeof(shown), k));
			return -1;
		}
		if (take_namespace(doc, yaml_document_get_node(doc, p->value),
				   file, &ns) < 0)
			return -1;
		json_object_object_add(docker, k, ns);
	}
	return 0;
}

static int merge_doc(struct json_object *merged, yaml_document_t *doc,
		     const char *file)
{
	yaml_node_t *root = yaml_document_get_root_node(doc);
	struct json_object *ns;

	if (!root || root->type != YAML_MAPPING_NODE)
		return 0; /* an empty file */
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
	     p < root->data.mapping.pairs.top; p++) {
		const char *k =
			scalar(doc, yaml_document_get_node(doc, p->key));
		yaml_node_t *v = yaml_document_get_node(doc, p->value);

		if (k && !strcmp(k, "docker") &&
		    merge_docker(merged, doc, v, file) < 0)
			return -1;
		if (!k || strcmp(k, "default-docker"))
			continue;
		if (json_object_object_get_ex(merged, "default-docker", NULL)) {
			cfs_error("%s: default-docker defined twice", file);
			return -1;
		}
		if (take_namespace(doc, v, file, &ns) < 0)
			return -1;
		json_object_object_add(merged, "default-docker", ns);
	}
	return 0;
}

static int load_file(struct json_object *merged, const char *file)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	uint8_t *data;
	size_t len;
	int r = -1;

	if (cfs_read_file(file, &data, &len) < 0)
		return -1;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, data, len);
	if (!yaml_parser_load(&parser, &doc)) {
		cfs_error("%s: bad YAML (line %zu): %s", file,
			  parser.problem_mark.line + 1,
			  parser.problem ? parser.problem : "?");
	} else {
		r = merge_doc(merged, &doc, file);
		yaml_document_delete(&doc);
	}
	yaml_parser_delete(&parser);
	free(data);
	return r;
}

static int yaml_name(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 5 && !strcmp(d->d_name + n - 5, ".yaml");
}

static int load_dir(struct json_object *merged, const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, yaml_name, alphasort), r = 0;

	if (n < 0) {
		if (errno == ENOENT)
			return 0;
		cfs_error("%s: %s", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char *file = xasprintf("%s/%s", dir, names[i]->d_name);

		if (r == 0)
			r = load_file(merged, file);
		free(file);
		free(names[i]);
	}
	free(names);
	return r;
}

/*
 * The namespaces to look in, most specific first (c/image's
 * PolicyConfigurationIdentity, then DockerReferenceNamespaces).
 */
static struct json_object *namespaces(const struct oci_dref *r)
{
	struct json_object *list = json_object_new_array();
	char *id = oci_dref_string(r), *name = xstrdup(r->name), *slash;
	char *colon;
	const char *dot;

	json_object_array_add(list, json_object_new_string(id));
	free(id);
	for (;;) {
		json_object_array_add(list, json_object_new_string(name));
		slash = strrchr(name, '/');
		if (!slash)
			break;
		*slash = '\0';
	}
	colon = strchr(name, ':');
	if (colon)
		*colon = '\0';
	for (dot = strchr(name, '.'); dot; dot = strchr(dot + 1, '.')) {
		id = xasprintf("*%s", dot);
		json_object_array_add(list, json_object_new_string(id));
		free(id);
	}
	free(name);
	return list;
}

static const char *ns_lookaside(struct json_object *ns)
{
	const char *u = cfs_json_str(ns, "lookaside");

	if (u && *u)
		return u;
	u = cfs_json_str(ns, "sigstore");
	return u && *u ? u : NULL;
}

static void pick(struct oci_sig_config *c, struct json_object *merged,
		 struct json_object *list)
{
	struct json_object *docker = json_object_object_get(merged, "docker");
	struct json_object *def =
		json_object_object_get(merged, "default-docker");
	size_t n = json_object_array_length(list);
	const char *url = NULL;
	struct json_object *v, *att = NULL, *ns;

	for (size_t i = 0; i <= n; i++) {
		ns = i < n ? json_object_object_get(
				     docker, json_object_get_string(
						     json_object_array_get_idx(
							     list, i)))
			   : def;
		if (!ns)
			continue;
		if (!url)
			url = ns_lookaside(ns);
		if (!att && json_object_object_get_ex(
				    ns, "use-sigstore-attachments", &v))
			att = v;
	}
	c->attachments = att && json_object_get_boolean(att);
	if (url) {
		c->lookaside = xstrdup(url);
	} else if (geteuid() == 0 || !getenv("HOME")) {
		c->lookaside = xstrdup(ROOT_LOOKASIDE);
	} else {
		c->lookaside = xasprintf("file://%s/%s", getenv("HOME"),
					 USER_LOOKASIDE);
	}
}

int oci_registries_d(struct oci_sig_config *c, const char *dir,
		     const char *image_ref)
{
	struct json_object *merged = json_object_new_object(), *list;
	struct oci_dref r;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	c->config_path = config_dir(dir);
	json_object_object_add(merged, "docker", json_object_new_object());
	if (oci_dref_parse(&r, image_ref) == 0) {
		if (load_dir(merged, c->config_path) == 0) {
			list = namespaces(&r);
			pick(c, merged, list);
			json_object_put(list);
			ret = 0;
		}
		oci_dref_free(&r);
	}
	json_object_put(merged);
	if (ret < 0)
		oci_sig_config_free(c);
	return ret;
}

void oci_sig_config_free(struct oci_sig_config *c)
{
	free(c->lookaside);
	free(c->config_path);
	memset(c, 0, sizeof(*c));
}
