/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The --json output, built with json-c and printed in one format:
 * each document on a line of its own, "key": value pairs separated by
 * ", " (JSON_C_TO_STRING_SPACED), '/' unescaped.
 */
#ifndef TSLACK_JSON_H
#define TSLACK_JSON_H

#include <stdbool.h>
#include <json-c/json.h>

/*
 * Print @o on a line of stdout and drop it. 0, or -ENOMEM if it could not
 * be built (a NULL @o, as json-c returns when out of memory).
 */
int json_print(struct json_object *o);

/*
 * A cgroup name or path, which an unprivileged user may choose: a string
 * if it is UTF-8, written in ASCII alone (controls and all beyond '~' as
 * "\uXXXX"), and otherwise an array of its bytes (numbers), as journalctl
 * writes a field that is not UTF-8. Valid JSON either way, and the bytes
 * are the name's.
 */
struct json_object *json_name(const char *s);

/* @v as a JSON number with @decimals digits after the point ("2.0"). */
struct json_object *json_fixed(double v, int decimals);

/*
 * Add @key: @val to the object @o, or @val to the array @o: returns @o,
 * for chaining, or NULL, dropping both, if either is NULL (json-c's
 * answer when out of memory) or it could not be added. A JSON null is
 * added with json_add_null().
 */
struct json_object *json_add(struct json_object *o, const char *key, struct json_object *val);
struct json_object *json_append(struct json_object *o, struct json_object *val);
struct json_object *json_add_null(struct json_object *o, const char *key);

#endif
