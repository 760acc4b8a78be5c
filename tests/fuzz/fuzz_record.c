// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for tslackd's state file lines (make fuzz). A cgroup
 * name is anyone's choice, so beyond not crashing under ASan/UBSan:
 * - a line is read only in the one form tslackd writes it: what is
 *   accepted, written again, is the same bytes;
 * - any string (a cgroup name with a newline, a space, a backslash, UTF-8)
 *   escapes to one token of printable ASCII that unescapes to itself;
 * - a record holding such a string (as a path, a name, a source) is
 *   written as exactly one line, and
 *   reads back as the same record: no name can make or split a record.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "tslackd/record.h"

static struct record r, back;

/* What record.c calls canonical, said again another way. */
static bool canonical(const char *p)
{
	size_t n = strlen(p);

	return p[0] == '/' && (n == 1 || p[n - 1] != '/') && !strstr(p, "//") &&
	       !strstr(p, "/./") && !strstr(p, "/../") &&
	       !(n >= 2 && !strcmp(p + n - 2, "/.")) && !(n >= 3 && !strcmp(p + n - 3, "/.."));
}

/* Write @rec, check it is one line, read it back into @back. 0 if it read. */
static int round_trip(const struct record *rec)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	f = open_memstream(&buf, &len);
	if (!f || record_write(f, rec) || fclose(f))
		abort();
	if (!len || buf[len - 1] != '\n' || memchr(buf, '\n', len - 1))
		abort();	/* a name made a line */
	ret = record_parse(buf, len - 1, &back);
	free(buf);
	return ret;
}

/* Any line: accepted only as record_write() would write it. */
static void check_parse(const uint8_t *data, size_t size)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (record_parse((const char *)data, size, &r))
		return;
	f = open_memstream(&buf, &len);
	if (!f || record_write(f, &r) || fclose(f))
		abort();
	if (len != size + 1 || memcmp(buf, data, size) || buf[size] != '\n')
		abort();
	free(buf);
}

/* The bytes as a string: escaped, one token that unescapes to them. */
static void check_escape(const char *s)
{
	static char esc[RECORD_ESCAPED_MAX], out[PATH_MAX];
	const char *p;

	record_escape(esc, sizeof(esc), s);
	for (p = esc; *p; p++)
		if (*p <= ' ' || *p >= 0x7f)
			abort();
	if (record_unescape(out, sizeof(out), esc, strlen(esc)) || strcmp(out, s))
		abort();
}

/* The bytes as a cgroup path and a user's name, in records. */
static void check_records(const char *s)
{
	memset(&r, 0, sizeof(r));
	r.type = RECORD_APPLIED;
	r.a.id = 42;
	r.a.value = 50000000;
	snprintf(r.a.path, sizeof(r.a.path), "%s", s);
	/* The name as a source too ("-" reads back as none). */
	if (strcmp(s, "-"))
		snprintf(r.a.source, sizeof(r.a.source), "%s", s);
	if (round_trip(&r) != (canonical(s) ? 0 : -1))
		abort();
	if (canonical(s) && memcmp(&r.a, &back.a, sizeof(r.a)))
		abort();

	memset(&r, 0, sizeof(r));
	r.type = RECORD_SESSION;
	snprintf(r.s.id, sizeof(r.s.id), "%s", s);
	snprintf(r.s.user, sizeof(r.s.user), "%s", s);
	r.s.uid = 1000;
	r.s.idle = true;
	if (round_trip(&r))
		abort();
	/* "-" stands for an empty string: the one name that reads back as another. */
	if (strcmp(r.s.id, "-") && strcmp(back.s.id, r.s.id))
		abort();
	if (strcmp(r.s.user, "-") && strcmp(back.s.user, r.s.user))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char s[PATH_MAX];

	check_parse(data, size);
	if (size >= sizeof(s))
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	check_escape(s);
	check_records(s);
	return 0;
}
