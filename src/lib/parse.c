// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "compiler.h"
#include "parse.h"

/* The units of systemd's parse_nsec(), up to hours. */
static const struct {
	const char *name;
	uint64_t ns;
} units[] = {
	{ "ns", 1 }, { "nsec", 1 },
	{ "us", 1000 }, { "usec", 1000 }, { "\xc2\xb5s", 1000 }, { "\xce\xbcs", 1000 },
	{ "ms", 1000000 }, { "msec", 1000000 },
	{ "s", 1000000000 }, { "sec", 1000000000 },
	{ "second", 1000000000 }, { "seconds", 1000000000 },
	{ "m", 60000000000 }, { "min", 60000000000 },
	{ "minute", 60000000000 }, { "minutes", 60000000000 },
	{ "h", 3600000000000 }, { "hr", 3600000000000 },
	{ "hour", 3600000000000 }, { "hours", 3600000000000 },
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

/* The unit at @s, ending at a space, digit or the end, into *@ns. */
static int parse_unit(const char *s, const char **end, uint64_t *ns, char *name, size_t len)
{
	size_t n = 0;
	unsigned int i;

	while (s[n] && s[n] != ' ' && !isdigit((unsigned char)s[n]))
		n++;
	*end = s + n;
	snprintf(name, len, "%.*s", (int)n, s);
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strlen(units[i].name) == n && !strncmp(s, units[i].name, n)) {
			*ns = units[i].ns;
			return 0;
		}
	}
	return -1;
}

static const char not_duration[] =
	"'%s' is not a duration: want nanoseconds, or numbers with units (1.5ms, 1s 500ms)";

/*
 * One term, "1.5ms", at *@p: its value added to *@total. -1 for bad
 * syntax, -2 for an unknown unit (named in @unit), -3 on overflow.
 */
static int parse_term(const char **p, bool alone, uint64_t *total, char *unit, size_t len)
{
	uint64_t whole, frac = 0, scale = 1, per, v;
	const char *s = *p, *end;
	int ret;

	ret = parse_u64(s, &whole, &end);
	if (ret)
		return ret == -2 ? -3 : -1;
	s = end;
	if (*s == '.') {
		for (s++; isdigit((unsigned char)*s); s++) {
			/* Digits past a nanosecond of any unit are dropped. */
			if (scale < 1000000000) {
				frac = frac * 10 + (uint64_t)(*s - '0');
				scale *= 10;
			}
		}
		if (s[-1] == '.')
			return -1;
	}
	while (*s == ' ')
		s++;
	if (!*s && alone && scale == 1) {
		per = 1;	/* a bare number is nanoseconds */
	} else if (!*s || isdigit((unsigned char)*s)) {
		return -1;
	} else if (parse_unit(s, &end, &per, unit, len)) {
		return -2;
	} else {
		s = end;
	}
	if (__builtin_mul_overflow(whole, per, &v) ||
	    __builtin_add_overflow(v, per / scale * frac + per % scale * frac / scale, &v) ||
	    __builtin_add_overflow(*total, v, total))
		return -3;
	while (*s == ' ')
		s++;
	*p = s;
	return 0;
}

int parse_duration_ns(const char *s, uint64_t *ns, char *err, unsigned long errlen)
{
	const char *p = s;
	uint64_t total = 0;
	bool first = true;
	char unit[32];
	int ret;

	while (*p == ' ')
		p++;
	if (!*p) {
		snprintf(err, errlen, not_duration, s);
		return -1;
	}
	while (*p) {
		ret = parse_term(&p, first, &total, unit, sizeof(unit));
		first = false;
		if (ret == -1)
			snprintf(err, errlen, not_duration, s);
		else if (ret == -2)
			snprintf(err, errlen, "'%s': unknown unit '%s' (use ns, us, ms, s or min)",
				 s, unit);
		else if (ret == -3)
			snprintf(err, errlen, "'%s' is too large: the maximum is %llu ns", s,
				 (unsigned long long)UINT64_MAX);
		if (ret)
			return -1;
	}
	*ns = total;
	return 0;
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
