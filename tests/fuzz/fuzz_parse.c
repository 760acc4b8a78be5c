// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for tslackctl's parsers (make fuzz). Beyond not
 * crashing under ASan/UBSan: every accepted duration prints back to the
 * same number of ns, also split in two terms, what tables print of it
 * parses back to within 1% below it, and every rejection explains itself.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/compiler.h"
#include "lib/format.h"
#include "lib/parse.h"

static const struct {
	const char *unit;
	uint64_t ns;
} units[] = { { "", 1 }, { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 } };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[64], back[96], err[512];
	uint64_t v, again, hi;
	unsigned int i;

	if (size >= sizeof(s))
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';

	err[0] = '\0';
	if (parse_duration_ns(s, &v, err, sizeof(err))) {
		if (!err[0])
			abort();	/* a rejection must say why */
	} else {
		/* The same number of ns, written without a unit, parses back. */
		snprintf(back, sizeof(back), "%" PRIu64, v);
		if (parse_duration_ns(back, &again, err, sizeof(err)) || again != v)
			abort();
		/* As microseconds and the nanoseconds left: the same sum. */
		if (v >= 1000) {
			snprintf(back, sizeof(back), "%" PRIu64 "us %" PRIu64 "ns", v / 1000,
				 v % 1000);
			if (parse_duration_ns(back, &again, err, sizeof(err)) || again != v)
				abort();
		}
		/* A table's human form never shows more, nor 1% less. */
		format_ns(back, sizeof(back), v);
		if (parse_duration_ns(back, &again, err, sizeof(err)) || again > v)
			abort();
		hi = again + again / 99 + 1;
		if (hi > again && hi < v)
			abort();
		/* And the value is the digits times the unit that was given. */
		for (i = 0; i < ARRAY_SIZE(units); i++) {
			size_t ul = strlen(units[i].unit), dl = strlen(s) - ul;

			if (strlen(s) <= ul || strcmp(s + dl, units[i].unit) ||
			    strspn(s, "0123456789") != dl)
				continue;
			if (strtoull(s, NULL, 10) * units[i].ns != v)
				abort();
		}
	}

	err[0] = '\0';
	if (parse_cgroup_id(s, &v, err, sizeof(err))) {
		if (!err[0])
			abort();
	} else if (v == 0 || strspn(s, "0123456789") != strlen(s) ||
		   strtoull(s, NULL, 10) != v) {
		abort();
	}

	/* A count is the same, bounded: --max-cgroups. */
	err[0] = '\0';
	if (parse_count(s, 1 << 24, &v, err, sizeof(err))) {
		if (!err[0])
			abort();
	} else if (v == 0 || v > 1 << 24 || strspn(s, "0123456789") != strlen(s) ||
		   strtoull(s, NULL, 10) != v) {
		abort();
	}
	return 0;
}
