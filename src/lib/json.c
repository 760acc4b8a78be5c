// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "json.h"

#define JSON_FORMAT (JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

int json_print(struct json_object *o)
{
	if (!o)
		return -ENOMEM;
	puts(json_object_to_json_string_ext(o, JSON_FORMAT));
	json_object_put(o);
	return 0;
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
