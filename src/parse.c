// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "compiler.h"
#include "parse.h"

static const struct {
	const char *name;
	uint64_t ns;
} units[] = {
	{ "ns", 1 },
	{ "us", 1000 },
	{ "ms", 1000000 },
	{ "s", 1000000000 },
};

/* Leading decimal digits of @s into *@v; the first non-digit in *@end. */
static int parse_u64(const char *s, uint64_t *v, const char **end)
{
	uint64_t x = 0;

	if (!isdigit((unsigned char)*s))
		return -1;
	for (; isdigit((unsigned char)*s); s++) {
		if (__builtin_mul_overflow(x, 10, &x) ||
		    __builtin_add_overflow(x, (uint64_t)(*s - '0'), &x))
			return -2;
	}
	*v = x;
	*end = s;
	return 0;
}

int parse_duration_ns(const char *s, uint64_t *ns, char *err, unsigned long errlen)
{
	const char *unit;
	uint64_t v;
	unsigned int i;
	int ret;

	ret = parse_u64(s, &v, &unit);
	if (ret == -2) {
		snprintf(err, errlen, "'%s' is too large: the maximum is %llu ns",
			 s, (unsigned long long)UINT64_MAX);
		return -1;
	}
	if (ret) {
		snprintf(err, errlen,
			 "'%s' is not a duration: want a whole number of ns, or one with ns, us, ms or s",
			 s);
		return -1;
	}
	if (!*unit) {
		*ns = v;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(unit, units[i].name))
			continue;
		if (__builtin_mul_overflow(v, units[i].ns, ns)) {
			snprintf(err, errlen, "'%s' is too large: the maximum is %llu ns",
				 s, (unsigned long long)UINT64_MAX);
			return -1;
		}
		return 0;
	}
	snprintf(err, errlen, "'%s': unknown unit '%s' (use ns, us, ms or s)", s, unit);
	return -1;
}

/* A whole decimal number from @min to @max, nothing around it. */
static int parse_range(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	const char *end;

	return parse_u64(s, v, &end) || *end || *v < min || *v > max ? -1 : 0;
}

int parse_cgroup_id(const char *s, uint64_t *id, char *err, unsigned long errlen)
{
	if (parse_range(s, 1, UINT64_MAX, id)) {
		snprintf(err, errlen, "'%s' is not a cgroup id: want a positive decimal number",
			 s);
		return -1;
	}
	return 0;
}

int parse_count(const char *s, uint64_t max, uint64_t *n, char *err, unsigned long errlen)
{
	if (parse_range(s, 1, max, n)) {
		snprintf(err, errlen, "'%s' is not a number from 1 to %llu", s,
			 (unsigned long long)max);
		return -1;
	}
	return 0;
}
