/* SPDX-License-Identifier: MIT */
/* Minimal TAP output for the C unit tests (run under prove). */
#ifndef CFS_TAP_H
#define CFS_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_n, tap_failed;

__attribute__((format(printf, 2, 3))) static inline int
tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!cond)
		tap_failed++;
	return cond;
}

#define ok(cond, ...)                                                          \
	(tap_ok((cond), __VA_ARGS__) ||                                        \
	 (fprintf(stderr, "#   failed at %s:%d: %s\n", __FILE__, __LINE__,     \
		  #cond),                                                      \
	  0))

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
