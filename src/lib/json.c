// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <json-c/printbuf.h>

#include "compiler.h"
#include "format.h"
#include "json.h"

#define JSON_FORMAT (JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

int json_print(struct json_object *o)
{
	const char *s = o ? json_object_to_json_string_ext(o, JSON_FORMAT) : NULL;

	if (s)
		puts(s);
	json_object_put(o);
	return s ? 0 : -ENOMEM;
}

/*
 * json_name()'s string: a JSON string in ASCII alone, "\uXXXX" for every
 * control and every character beyond '~', so that no terminal acts on it;
 * "\t", "\n"... as json-c writes them.
 */
static int ascii_string(struct json_object *o, struct printbuf *pb,
			int level __always_unused, int flags __always_unused)
{
	static const char short_form[] = "\bb\tt\nn\ff\rr";
	const char *s = json_object_get_string(o), *c;
	char u[16];
	uint32_t cp;
	int n;

	if (printbuf_strappend(pb, "\"") < 0)
		return -1;
	for (; *s; s += n) {
		/* Valid: json_name() checked. */
		n = utf8_char(s, &cp);
		/* short_form: each control, then its letter */
		c = cp && cp < ' ' ? memchr(short_form, cp, sizeof(short_form) - 1) : NULL;
		if (c && (c - short_form) % 2 == 0)
			snprintf(u, sizeof(u), "\\%c", c[1]);
		else if (cp == '"' || cp == '\\')
			snprintf(u, sizeof(u), "\\%c", cp);
		else if (cp >= ' ' && cp < 0x7f)
			snprintf(u, sizeof(u), "%c", cp);
		else if (cp < 0x10000)
			snprintf(u, sizeof(u), "\\u%04x", cp);
		else	/* a UTF-16 surrogate pair, as JSON spells it */
			snprintf(u, sizeof(u), "\\u%04x\\u%04x", 0xd800 + ((cp - 0x10000) >> 10),
				 0xdc00 + ((cp - 0x10000) & 0x3ff));
		if (printbuf_memappend(pb, u, strlen(u)) < 0)
			return -1;
	}
	return printbuf_strappend(pb, "\"") < 0 ? -1 : 0;
}

struct json_object *json_name(const char *s)
{
	struct json_object *o;
	const char *p;
	uint32_t cp;
	int n;

	for (p = s; *p && (n = utf8_char(p, &cp)); p += n)
		;
	if (!*p) {
		o = json_object_new_string(s);
		if (o)
			json_object_set_serializer(o, ascii_string, NULL, NULL);
		return o;
	}
	/* Not UTF-8: its bytes, as journalctl -o json writes such a field. */
	o = json_object_new_array();
	for (p = s; *p && o; p++)
		o = json_append(o, json_object_new_int((unsigned char)*p));
	return o;
}

struct json_object *json_fixed(double v, int decimals)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	return json_object_new_double_s(v, buf);
}

struct json_object *json_add(struct json_object *o, const char *key, struct json_object *val)
{
	if (o && val && !json_object_object_add(o, key, val))
		return o;
	json_object_put(val);
	json_object_put(o);
	return NULL;
}

struct json_object *json_append(struct json_object *o, struct json_object *val)
{
	if (o && val && !json_object_array_add(o, val))
		return o;
	json_object_put(val);
	json_object_put(o);
	return NULL;
}

struct json_object *json_add_null(struct json_object *o, const char *key)
{
	if (o && !json_object_object_add(o, key, NULL))
		return o;
	json_object_put(o);
	return NULL;
}
