// SPDX-License-Identifier: MIT
/* Output helpers shared by the subcommands. */
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>

#include "store-tool.h"

void print_json(struct json_object *j)
{
	printf("%s\n", json_object_to_json_string_ext(
			       j, JSON_C_TO_STRING_PRETTY |
					  JSON_C_TO_STRING_NOSLASHESCAPE));
}

const char *human_bytes(char buf[32], uint64_t n)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	double v = (double)n;
	size_t u = 0;

	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, 32, "%" PRIu64 " B", n);
	else
		snprintf(buf, 32, "%.1f %s", v, units[u]);
	return buf;
}
