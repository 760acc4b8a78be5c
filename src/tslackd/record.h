/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lines of tslackd's state file. Every string in them (a cgroup path,
 * a user or session name) is escaped: a cgroup name is chosen by whoever
 * made the cgroup, a user in a delegated subtree too, and may hold a
 * newline or a space. Escaped, a string is one token of printable ASCII
 * and no name can make or split a line.
 *
 *	tslackd-state 2 PID
 *	session ID UID USER IDLE LOCKED ACTIVE SLACK SCOPE_CGROUP
 *	applied min|max CGROUP_ID PREV VALUE NEXT CGROUP_PATH SOURCE
 *
 * Tokens are separated by one space; numbers are decimal, with no sign and
 * no leading zero; an empty string (or "-") is "-". The first line says the format:
 * a file without it (written by an older tslackd, with raw paths) or of
 * another version is not read at all. SOURCE says who asked for the value
 * ("rule:FILE:LINE", "session:ID:STATE", "user:NAME:STATE",
 * "exempt:GLOB", several joined by commas), for tslackd --status. NEXT is
 * the value tslackd is about to write (VALUE when none): the file says so
 * before the map is written, so that after a kill either value found in
 * the map is known to be tslackd's own, never taken for someone else's.
 */
#ifndef TSLACKD_RECORD_H
#define TSLACKD_RECORD_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define RECORD_MAGIC "tslackd-state"
#define RECORD_VERSION 4

/* The longest source of a setting kept, with its NUL; longer ones are cut. */
#define SOURCE_MAX 256

/* Each entry owns one field of a cgroup's setting; the other is not touched. */
enum field { FIELD_MIN, FIELD_MAX };

/* A field tslackd set, and what to put back. */
struct applied {
	uint64_t id;
	enum field field;
	uint64_t prev;		/* the field before tslackd set it */
	uint64_t value;		/* what tslackd set */
	uint64_t next;		/* being written instead of @value; @value if not */
	char path[PATH_MAX];	/* where the cgroup was, from the cgroup2 mount */
	char source[SOURCE_MAX];	/* who asked for @value */
};

/* A session as the last refresh saw it, for tslackd --status. */
struct session_record {
	char id[64];
	char user[64];
	uint32_t uid;
	bool idle, locked, active;
	uint64_t slack;
	char scope[PATH_MAX];	/* "" if none */
};

enum record_type { RECORD_HEADER, RECORD_SESSION, RECORD_APPLIED };

struct record {
	enum record_type type;
	int pid;		/* RECORD_HEADER */
	struct session_record s;	/* RECORD_SESSION */
	struct applied a;	/* RECORD_APPLIED */
};

/* The longest record_escape() of a string of PATH_MAX bytes, with its NUL. */
#define RECORD_ESCAPED_MAX (4 * PATH_MAX)

/*
 * @s escaped into @buf as a token of the state file: a backslash as "\\",
 * a byte outside '!'..'~' as "\xHH" (lowercase). Cut short with "..." if
 * @len is too small. Returns @buf. The file's format, apart from
 * escape_name() (lib/format.h), which logs and --status print names with:
 * that one may change, this one not without a new RECORD_VERSION.
 */
const char *record_escape(char *buf, size_t len, const char *s);

/*
 * The string that @n bytes of @in escape, into @out of @len bytes: 0, or
 * -1 if @in is not exactly what record_escape() writes or does not fit.
 */
int record_unescape(char *out, size_t len, const char *in, size_t n);

/*
 * Parse the @len bytes of @line (without its newline) into @r; 0, or -1
 * if they are not a record as record_write() writes them. A path must also
 * be absolute and canonical: no ".", "..", empty component or trailing
 * slash.
 */
int record_parse(const char *line, size_t len, struct record *r);

/* Write @r as one line; 0, or -1 if @f has an error. */
int record_write(FILE *f, const struct record *r);

/*
 * "/" or "/a/b": what cgroup paths from the cgroup2 mount look like (no
 * empty, "." or ".." component, no trailing '/').
 */
bool record_path_canonical(const char *p);

#endif
