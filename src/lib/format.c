// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdio.h>

#include "compiler.h"
#include "format.h"

const char *format_ns(char *buf, size_t len, uint64_t ns)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = {
		{ "s", 1000000000 }, { "ms", 1000000 }, { "us", 1000 },
	};
	unsigned int i;
	uint64_t whole, frac;

	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (ns < units[i].ns)
			continue;
		whole = ns / units[i].ns;
		/* Hundredths, truncated: never shows more than there is. */
		frac = ns % units[i].ns / (units[i].ns / 100);
		if (!frac || whole >= 100)
			snprintf(buf, len, "%" PRIu64 "%s", whole, units[i].name);
		else if (frac % 10 == 0)
			snprintf(buf, len, "%" PRIu64 ".%" PRIu64 "%s", whole, frac / 10,
				 units[i].name);
		else
			snprintf(buf, len, "%" PRIu64 ".%02" PRIu64 "%s", whole, frac,
				 units[i].name);
		return buf;
	}
	snprintf(buf, len, ns ? "%" PRIu64 "ns" : "0", ns);
	return buf;
}
