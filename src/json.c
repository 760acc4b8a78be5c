// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "json.h"

#define JSON_FORMAT (JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

int json_print(struct json_object *o)
{
	if (!o) {
		fprintf(stderr, "%s: out of memory\n", program_invocation_short_name);
		return -1;
	}
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

/*
 * The error object's message. What tslackctl and the code it shares with
 * tslackd print on stderr goes through a stream that writes it to fd 2
 * unchanged and keeps the first line that starts with "tslackctl: ",
 * libbpf's lines only if there is no other. (When that code returns its
 * errors instead of printing them, they can be taken from there.)
 */
static struct {
	char line[512], first[512], libbpf[512];
	size_t len;
} kept;

static void keep_line(const char *line)
{
	size_t n = strlen(program_invocation_short_name);
	const char *msg = line + n + 2;
	char *to;

	if (strncmp(line, program_invocation_short_name, n) || strncmp(line + n, ": ", 2))
		return;
	if (!strncmp(msg, "libbpf: ", 8))
		to = kept.libbpf;
	else
		to = kept.first;
	if (!to[0])
		snprintf(to, sizeof(kept.first), "%s", msg);
}

static ssize_t tee_write(void *cookie, const char *buf, size_t n)
{
	size_t i, done = 0;
	ssize_t w;

	(void)cookie;
	while (done < n) {
		w = write(STDERR_FILENO, buf + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += w;
	}
	for (i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			kept.line[kept.len] = '\0';
			keep_line(kept.line);
			kept.len = 0;
		} else if (kept.len < sizeof(kept.line) - 1) {
			kept.line[kept.len++] = buf[i];
		}
	}
	return n;
}

int json_errors_start(void)
{
	static const cookie_io_functions_t tee = { .write = tee_write };
	FILE *f;

	fflush(stderr);
	f = fopencookie(NULL, "w", tee);
	if (!f)
		return -1;
	setvbuf(f, NULL, _IONBF, 0);
	stderr = f;
	return 0;
}

bool json_print_error(void)
{
	const char *msg = kept.first[0] ? kept.first : kept.libbpf;

	if (!msg[0])
		return false;
	return !json_print(json_add(json_object_new_object(), "error",
				    json_object_new_string(msg)));
}
