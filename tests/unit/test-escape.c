// SPDX-License-Identifier: MIT
/*
 * The one printable-string helper (cfs/escape.h): names escaped for
 * messages, and cfs_error's messages through the same loop.
 */
#include <string.h>

#include "tap.h"
#include "cfs/escape.h"
#include "cfs/util.h"

static void test_printable(void)
{
	char buf[64], twice[64];

	ok(!strcmp(cfs_printable(buf, sizeof(buf), "a\\b\nc\x7f\xff"),
		   "a\\\\b\\x0ac\\x7f\\xff"),
	   "a name: backslash doubled, control and high bytes as \\xXY: %s",
	   buf);
	ok(!strcmp(cfs_printable_n(buf, sizeof(buf), "a\0b", 3), "a\\x00b"),
	   "a NUL inside a length-bounded name");
	ok(!strcmp(cfs_printable(buf, 12, "abcdefghijklmnop"), "abcdefgh..."),
	   "cut with ... to fit the buffer: %s", buf);
	ok(!strcmp(cfs_printable(buf, 12, "\n\n\n\n"), "\\x0a\\x0a..."),
	   "an escape is never cut in half: %s", buf);
	ok(!strcmp(cfs_printable_msg(buf, sizeof(buf), "x \\x0a\ty"),
		   "x \\x0a\\x09y"),
	   "a message: escapes in it kept, the tab escaped: %s", buf);
	cfs_printable_msg(twice, sizeof(twice), buf);
	ok(!strcmp(twice, buf), "escaping a message twice changes nothing");
}

static void test_error(void)
{
	cfs_error("file %s: bad", "evil\nname");
	ok(!strcmp(cfs_strerror(), "file evil\\x0aname: bad"),
	   "cfs_error keeps a message on one line: %s", cfs_strerror());
	cfs_error_prefix("ctx\r");
	ok(!strcmp(cfs_strerror(), "ctx\\x0d: file evil\\x0aname: bad"),
	   "a prefix does not escape the message again: %s", cfs_strerror());
}

int main(void)
{
	test_printable();
	test_error();
	return tap_done();
}
