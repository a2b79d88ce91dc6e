// SPDX-License-Identifier: MIT
/*
 * cfs_default_store(): $CFS_STORE, else cfs.conf's store, else the
 * built-in /var/lib/cfs; a bad file is an error naming file and line.
 * The answer is kept for the process, so each case runs in a child.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "cfs/config.h"
#include "cfs/util.h"

static char conf[64];

/* Writes the config file (NULL: none), runs the lookup in a child. */
static int lookup(const char *env, const char *text, const char *want)
{
	pid_t pid;
	int st;

	unlink(conf);
	if (text) {
		FILE *f = fopen(conf, "w");

		fputs(text, f);
		fclose(f);
	}
	pid = fork();
	if (pid == 0) {
		const char *got;

		if (env)
			setenv("CFS_STORE", env, 1);
		else
			unsetenv("CFS_STORE");
		setenv("CFS_CONFIG", conf, 1);
		got = cfs_default_store();
		if (!got)
			got = cfs_strerror();
		if (strcmp(got, want))
			fprintf(stderr, "#   got '%s'\n", got);
		_exit(strcmp(got, want) != 0);
	}
	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	       WEXITSTATUS(st) == 0;
}

int main(void)
{
	char msg[128];

	snprintf(conf, sizeof(conf), "/tmp/cfs-test-config.%d", (int)getpid());
	ok(lookup(NULL, NULL, "/var/lib/cfs"),
	   "no file, no environment: /var/lib/cfs");
	ok(lookup(NULL, "# a comment\n\n  store =  /srv/cfs \n", "/srv/cfs"),
	   "the file's store, spaces around = and the value trimmed");
	ok(lookup("/env/cfs", "store = /srv/cfs\n", "/env/cfs"),
	   "CFS_STORE before the file");
	ok(lookup("", "store=/srv/cfs\n", "/srv/cfs"),
	   "an empty CFS_STORE counts as unset");
	ok(lookup(NULL, "store = /a\nstore = /b\n", "/b"),
	   "the last store line wins");
	snprintf(msg, sizeof(msg), "%s:2: unknown key 'stroe'", conf);
	ok(lookup(NULL, "store = /a\nstroe = /b\n", msg),
	   "a misspelt key is an error naming file and line");
	snprintf(msg, sizeof(msg), "%s:1: not KEY = VALUE: /srv/cfs", conf);
	ok(lookup(NULL, "/srv/cfs\n", msg), "a line without = is an error");
	snprintf(msg, sizeof(msg), "%s:1: store must be an absolute path",
		 conf);
	ok(lookup(NULL, "store = cfs\n", msg), "a relative store is an error");
	unlink(conf);
	return tap_done();
}
