// SPDX-License-Identifier: MIT
/* The thread-local one-line error message every libcfs function records. */
#include "cfs/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cfs/escape.h"

static _Thread_local char errbuf[1024];

/*
 * The last guard for one-line messages: a control byte (or any byte
 * outside printable ASCII) that reached a message unescaped becomes \xXY.
 * Escaping again is a no-op, so prefixing keeps the message intact.
 */
static void set_errbuf(const char *msg)
{
	cfs_printable_msg(errbuf, sizeof(errbuf), msg);
}

void cfs_error(const char *fmt, ...)
{
	char msg[sizeof(errbuf)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	set_errbuf(msg);
}

void cfs_error_prefix(const char *fmt, ...)
{
	char prefix[512], old[sizeof(errbuf)],
		msg[sizeof(prefix) + sizeof(old) + 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, errbuf, sizeof(old));
	/* Truncation of an over-long message is acceptable. */
	snprintf(msg, sizeof(msg), "%s: %s", prefix, old);
	set_errbuf(msg);
}

const char *cfs_strerror(void)
{
	return errbuf[0] ? errbuf : "unknown error";
}

const char *cfs_strerror_after(const char *subject)
{
	const char *msg = cfs_strerror();
	size_t n = strlen(subject);

	if (!strncmp(msg, subject, n) && !strncmp(msg + n, ": ", 2))
		return msg + n + 2;
	return msg;
}
