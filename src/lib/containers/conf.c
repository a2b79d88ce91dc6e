// SPDX-License-Identifier: MIT
/*
 * Just enough TOML to read containers' storage.conf: tables, keys whose
 * value is a string or an array of strings (possibly over several lines),
 * comments. Other values are skipped. Offsets are kept so that cfs-podman
 * setup can edit the file in place.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfs/util.h"
#include "containers/conf.h"

struct scan {
	const char *s;
	size_t i, len;
};

static void skip_blank(struct scan *sc, bool newlines)
{
	while (sc->i < sc->len) {
		char c = sc->s[sc->i];

		if (c == '#') {
			while (sc->i < sc->len && sc->s[sc->i] != '\n')
				sc->i++;
		} else if (c == ' ' || c == '\t' || c == '\r' ||
			   (newlines && c == '\n')) {
			sc->i++;
		} else {
			return;
		}
	}
}

static void skip_line(struct scan *sc)
{
	while (sc->i < sc->len && sc->s[sc->i] != '\n')
		sc->i++;
}

/* A quoted string at sc->i; returns it malloc'ed, or NULL if malformed. */
static char *read_string(struct scan *sc)
{
	char q = sc->s[sc->i++];
	struct cfs_buf b = {0};
	char nul = '\0';

	while (sc->i < sc->len && sc->s[sc->i] != q && sc->s[sc->i] != '\n') {
		char c = sc->s[sc->i++];

		if (c == '\\' && q == '"' && sc->i < sc->len)
			c = sc->s[sc->i++];
		cfs_buf_append(&b, &c, 1);
	}
	if (sc->i >= sc->len || sc->s[sc->i] != q) {
		cfs_buf_free(&b);
		return NULL;
	}
	sc->i++;
	cfs_buf_append(&b, &nul, 1);
	return (char *)b.data;
}

static void add_value(struct containers_conf_key *k, char *v)
{
	k->values = xrealloc(k->values, (k->n + 1) * sizeof(*k->values));
	k->values[k->n++] = v;
}

/* A string into k, or read past when k is NULL: 0, or -1 if malformed. */
static int take_string(struct scan *sc, struct containers_conf_key *k)
{
	char *v = read_string(sc);

	if (!v)
		return -1;
	if (k)
		add_value(k, v);
	else
		free(v);
	return 0;
}

static int read_array(struct scan *sc, struct containers_conf_key *k)
{
	sc->i++; /* '[' */
	for (;;) {
		skip_blank(sc, true);
		if (sc->i >= sc->len)
			return -1;
		char c = sc->s[sc->i];

		if (c == ']') {
			sc->i++;
			return 0;
		}
		if (c == ',') {
			sc->i++;
			continue;
		}
		if (c != '"' && c != '\'')
			return -1;
		if (take_string(sc, k) < 0)
			return -1;
	}
}

static int read_value(struct scan *sc, struct containers_conf_key *k)
{
	char c = sc->i < sc->len ? sc->s[sc->i] : '\n';

	if (k)
		k->value_off = sc->i;
	if (c == '[') {
		if (k)
			k->is_array = true;
		return read_array(sc, k);
	}
	if (c == '"' || c == '\'')
		return take_string(sc, k);
	skip_line(sc); /* numbers, booleans, inline tables: not needed */
	return 0;
}

static void read_table(struct scan *sc, char *table, size_t size)
{
	size_t start, end;

	while (sc->i < sc->len && sc->s[sc->i] == '[')
		sc->i++;
	start = sc->i;
	while (sc->i < sc->len && sc->s[sc->i] != ']' && sc->s[sc->i] != '\n')
		sc->i++;
	end = sc->i;
	while (end > start && isspace((unsigned char)sc->s[end - 1]))
		end--;
	while (start < end && isspace((unsigned char)sc->s[start]))
		start++;
	snprintf(table, size, "%.*s", (int)(end - start), sc->s + start);
	skip_line(sc);
}

int containers_conf_find(const char *text, size_t len, const char *table,
			 const char *key, struct containers_conf_key *out)
{
	struct scan sc = {text, 0, len};
	char cur[256] = "";
	bool found = false;

	memset(out, 0, sizeof(*out));
	out->table_off = -1;
	for (;;) {
		skip_blank(&sc, true);
		if (sc.i >= sc.len)
			break;
		if (sc.s[sc.i] == '[') {
			read_table(&sc, cur, sizeof(cur));
			if (!strcmp(cur, table) && out->table_off < 0)
				out->table_off =
					(long)(sc.i < sc.len ? sc.i + 1 : sc.i);
			continue;
		}
		size_t ks = sc.i;

		while (sc.i < sc.len && !strchr(" \t=\n", sc.s[sc.i]))
			sc.i++;
		size_t kl = sc.i - ks;

		skip_blank(&sc, false);
		if (sc.i >= sc.len || sc.s[sc.i] != '=') {
			skip_line(&sc);
			continue;
		}
		sc.i++;
		skip_blank(&sc, false);
		bool want = !found && !strcmp(cur, table) &&
			    kl == strlen(key) && !strncmp(sc.s + ks, key, kl);

		if (read_value(&sc, want ? out : NULL) < 0) {
			cfs_error("cannot parse the value of '%.*s'", (int)kl,
				  sc.s + ks);
			containers_conf_key_free(out);
			return -1;
		}
		found = found || want;
	}
	return found ? 1 : 0;
}

void containers_conf_key_free(struct containers_conf_key *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->values[i]);
	free(k->values);
	k->values = NULL;
	k->n = 0;
}

char *containers_conf_string(const char *text, size_t len, const char *table,
			     const char *key)
{
	struct containers_conf_key k = {0};
	char *v = NULL;

	if (containers_conf_find(text, len, table, key, &k) == 1 &&
	    !k.is_array && k.n == 1)
		v = xstrdup(k.values[0]);
	containers_conf_key_free(&k);
	return v;
}
