// SPDX-License-Identifier: MIT
/*
 * The storage.conf reader (containers/conf.c): keys in tables, strings and
 * arrays over several lines, comments, the offsets cfs-podman setup edits
 * at, and malformed or hostile text.
 */
#include <stdlib.h>
#include <string.h>

#include "cfs/util.h"
#include "containers/conf.h"
#include "tap.h"

static const char debian[] =
	"# This file is the configuration file for all tools\n"
	"[storage]\n"
	"\n"
	"# Default Storage Driver\n"
	"driver = \"overlay\"\n"
	"runroot = \"/run/containers/storage\"\n"
	"graphroot = \"/var/lib/containers/storage\"\n"
	"\n"
	"[storage.options]\n"
	"# Paths to additional container image stores.\n"
	"additionalimagestores = [\n"
	"  \"/var/lib/cfs/ais\", # the cfs store\n"
	"  '/srv/other',\n"
	"]\n"
	"pull_options = {enable_partial_images = \"false\"}\n"
	"\n"
	"[storage.options.overlay]\n"
	"mountopt = \"nodev,metacopy=on\"\n";

/* Finds table.key in text: the result, with k filled (caller frees). */
static int find(const char *text, const char *table, const char *key,
		struct containers_conf_key *k)
{
	return containers_conf_find(text, strlen(text), table, key, k);
}

/* True if table.key in text is the one string want. */
static bool string_is(const char *text, const char *table, const char *key,
		      const char *want)
{
	struct containers_conf_key k;
	bool good = find(text, table, key, &k) == 1 && !k.is_array &&
		    k.n == 1 && !strcmp(k.values[0], want);

	if (!good && k.n)
		printf("# %s.%s = '%s'\n", table, key, k.values[0]);
	containers_conf_key_free(&k);
	return good;
}

static bool absent(const char *text, const char *table, const char *key)
{
	struct containers_conf_key k;
	int r = find(text, table, key, &k);

	containers_conf_key_free(&k);
	return r == 0;
}

static bool fails(const char *text, const char *key, const char *msg)
{
	struct containers_conf_key k;
	int r = find(text, "storage", key, &k);

	if (r != -1 || !strstr(cfs_strerror(), msg)) {
		printf("# got %d, error '%s'\n", r, cfs_strerror());
		return false;
	}
	return k.n == 0 && k.values == NULL;
}

static void test_debian_file(void)
{
	struct containers_conf_key k;
	int r;

	ok(string_is(debian, "storage", "driver", "overlay"),
	   "[storage] driver");
	ok(string_is(debian, "storage", "graphroot",
		     "/var/lib/containers/storage"),
	   "[storage] graphroot after a blank line and a comment");
	ok(string_is(debian, "storage.options.overlay", "mountopt",
		     "nodev,metacopy=on"),
	   "dotted table name, '=' inside the value");
	ok(absent(debian, "storage.options", "graphroot"),
	   "a key of another table is not found");
	ok(absent(debian, "storage", "additionalimagestores"),
	   "a key of a sub-table is not found in its parent");
	ok(absent(debian, "storage", "graph"), "a key's prefix does not match");
	ok(absent(debian, "storage.options", "enable_partial_images"),
	   "keys inside an inline table are skipped");
	r = find(debian, "storage.options", "additionalimagestores", &k);
	ok(r == 1 && k.is_array && k.n == 2 &&
		   !strcmp(k.values[0], "/var/lib/cfs/ais") &&
		   !strcmp(k.values[1], "/srv/other"),
	   "array over several lines, comment and trailing comma, both quotes");
	ok(r == 1 && debian[k.value_off] == '[' &&
		   !strncmp(debian + k.table_off, "# Paths", 7),
	   "value_off at '[', table_off at the line after the header");
	containers_conf_key_free(&k);
	ok(find(debian, "storage.options.thinpool", "x", &k) == 0 &&
		   k.table_off == -1,
	   "absent table: table_off -1");
	containers_conf_key_free(&k);
}

static void test_forms(void)
{
	struct containers_conf_key k;
	const char *t;

	ok(string_is("driver=\"vfs\"", "", "driver", "vfs"),
	   "a key before any table, no spaces, no final newline");
	ok(string_is("[ storage ]   # c\n\tdriver\t=\t'btrfs'  # c\n",
		     "storage", "driver", "btrfs"),
	   "spaces in the header, tabs, literal string, comments after");
	ok(string_is("[storage]\r\ndriver = \"zfs\"\r\n", "storage", "driver",
		     "zfs"),
	   "CRLF line ends");
	ok(string_is("[storage]\ndriver = \"a\\\"b\\\\c\"\n", "storage",
		     "driver", "a\"b\\c"),
	   "escaped quote and backslash in a basic string");
	ok(string_is("[storage]\ndriver = 'a\\b'\n", "storage", "driver",
		     "a\\b"),
	   "no escapes in a literal string");
	ok(string_is("[storage]\ndriver = \"one\"\ndriver = \"two\"\n",
		     "storage", "driver", "one"),
	   "a key given twice: the first wins");
	ok(string_is("[storage]\nx = 1\n[other]\ndriver = \"no\"\n"
		     "[storage]\ndriver = \"yes\"\n",
		     "storage", "driver", "yes"),
	   "a table opened again later");
	ok(string_is("[storage]\nsize = 10\nflag = true\ndriver = \"d\"\n",
		     "storage", "driver", "d"),
	   "numbers and booleans are skipped");
	ok(string_is("[storage]\n# driver = \"commented\"\ndriver = \"real\"\n",
		     "storage", "driver", "real"),
	   "a commented-out key is not read");
	ok(string_is("[storage]\ndriver = \"# not a comment\"\n", "storage",
		     "driver", "# not a comment"),
	   "'#' inside a string");
	ok(absent("[storage]\ndriver\n\"overlay\"\n", "storage", "driver"),
	   "a key without '=' is skipped");
	ok(find("[storage]\ndriver = \"\"\n", "storage", "driver", &k) == 1 &&
		   k.n == 1 && !k.values[0][0],
	   "an empty string is found as empty");
	containers_conf_key_free(&k);
	t = "[storage.options]\nadditionalimagestores = []\n";
	ok(find(t, "storage.options", "additionalimagestores", &k) == 1 &&
		   k.is_array && k.n == 0 && t[k.value_off] == '[' &&
		   t[k.value_off + 1] == ']',
	   "an empty array");
	containers_conf_key_free(&k);
	t = "[storage]";
	ok(find(t, "storage", "driver", &k) == 0 &&
		   k.table_off == (long)strlen(t),
	   "header on the last line: table_off at the end");
	containers_conf_key_free(&k);
	ok(absent("", "storage", "driver"), "empty text");
}

static void test_malformed(void)
{
	const char nul[] = "[storage]\ndri\0ver = \"x\"\ndriver = \"y\"\n";
	struct containers_conf_key k;
	char *big;

	ok(fails("[storage]\ndriver = \"overlay\n", "driver", "'driver'"),
	   "unterminated string: error names the key");
	ok(fails("[storage]\ndriver = \"overlay", "driver", "cannot parse"),
	   "string cut at the end of the text");
	ok(fails("[storage]\nx = [\"a\", \"b\"\n", "driver", "'x'"),
	   "unterminated array of another key fails too");
	ok(fails("[storage]\nx = [\"a\", b]\n", "driver", "'x'"),
	   "bare word in an array");
	ok(fails("[storage]\nx = [\"a\"", "driver", "'x'"),
	   "array cut at the end of the text");
	ok(containers_conf_find(nul, sizeof(nul) - 1, "storage", "driver",
				&k) == 1 &&
		   k.n == 1 && !strcmp(k.values[0], "y"),
	   "a NUL byte in a key: that line skipped, the next read");
	containers_conf_key_free(&k);
	ok(containers_conf_find("[storage]\ndriver = \"x\"", 20, "storage",
				"driver", &k) == -1,
	   "length is honoured: the closing quote beyond it is not read");
	containers_conf_key_free(&k);
	big = xmalloc(100000);
	memset(big, '[', 99999);
	big[99999] = '\0';
	ok(absent(big, "storage", "driver"), "100000 '[' characters");
	memset(big, '"', 99999);
	ok(absent(big, "storage", "driver"), "100000 '\"' characters");
	free(big);
}

int main(void)
{
	test_debian_file();
	test_forms();
	test_malformed();
	return tap_done();
}
