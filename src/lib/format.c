// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "compiler.h"
#include "format.h"
#include "parse.h"

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

const char *format_ns_exact(char *buf, size_t len, uint64_t ns)
{
	uint64_t back;

	format_ns(buf, len, ns);
	if (parse_duration_ns(buf, &back, NULL, 0) || back != ns)
		snprintf(buf, len, "%" PRIu64 "ns", ns);
	return buf;
}

int utf8_char(const char *str, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	uint32_t c, min;
	int n, i;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2, c = s[0] & 0x1f, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3, c = s[0] & 0x0f, min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4, c = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	/* A NUL is no continuation byte: never reads past the string. */
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

static const char *escape(char *buf, size_t len, const char *s, bool name)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char c;
	size_t o = 0, w;
	uint32_t cp;
	bool raw;
	int n, i;

	if (len < 4) {
		if (len)
			buf[0] = '\0';
		return buf;
	}
	for (; *s; s += n) {
		if (name) {
			n = 1;
			cp = (unsigned char)*s;
			raw = cp > ' ' && cp < 0x7f && cp != '\\';
		} else {
			n = utf8_char(s, &cp);
			raw = n && cp >= ' ' && cp != 0x7f && (cp < 0x80 || cp >= 0xa0);
			n = n ? n : 1;
		}
		w = raw ? (size_t)n : name && cp == '\\' ? 2 : 4 * (size_t)n;
		/* Each step leaves room for "..." and the NUL: o + 4 <= len. */
		if (o + w + (s[n] ? 4 : 1) > len) {
			strcpy(buf + o, "...");
			return buf;
		}
		if (raw) {
			memcpy(buf + o, s, n);
			o += n;
			continue;
		}
		if (w == 2) {
			buf[o++] = '\\';
			buf[o++] = '\\';
			continue;
		}
		for (i = 0; i < n; i++) {
			c = s[i];
			buf[o++] = '\\';
			buf[o++] = 'x';
			buf[o++] = hex[c >> 4];
			buf[o++] = hex[c & 15];
		}
	}
	buf[o] = '\0';
	return buf;
}

const char *escape_name(char *buf, size_t len, const char *s)
{
	return escape(buf, len, s, true);
}

const char *escape_text(char *buf, size_t len, const char *s)
{
	return escape(buf, len, s, false);
}
