/* SPDX-License-Identifier: GPL-2.0 */
/* What tslackctl and tslackd print: durations and names for people. */
#ifndef TSLACK_FORMAT_H
#define TSLACK_FORMAT_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

/*
 * @ns in the largest unit that keeps three significant digits: "0",
 * "50us", "1.5ms", "20ms", "1.25s". Returns @buf.
 */
const char *format_ns(char *buf, size_t len, uint64_t ns);

/*
 * format_ns() where that reads back as @ns exactly, else "@ns" + "ns": for
 * what tslackd prints in its own configuration's syntax.
 */
const char *format_ns_exact(char *buf, size_t len, uint64_t ns);

/* The longest escape_name() of a path of PATH_MAX bytes, with its NUL. */
#define ESCAPED_NAME_MAX (4 * PATH_MAX)

/*
 * A cgroup name or path, which an unprivileged user may choose in a
 * delegated subtree, for a terminal or a log line: a backslash as "\\",
 * each byte outside '!'..'~' (controls, space, DEL and every byte of
 * UTF-8) as "\xhh", as systemd's cescape() writes bytes. It is one word,
 * holds no escape sequence and reads back to the same bytes. Cut short
 * with "..." if @len is too small. Returns @buf.
 */
const char *escape_name(char *buf, size_t len, const char *s);

/*
 * A message, which may quote a name unescaped: only what a terminal or
 * the journal would act on and what is not UTF-8 as "\xhh" (C0 controls
 * with LF and ESC, DEL, the C1 controls, bytes outside a valid UTF-8
 * sequence); the rest, backslashes too, as it is. Same contract.
 */
const char *escape_text(char *buf, size_t len, const char *s);

/*
 * The length (1 to 4) of the valid UTF-8 sequence at @s, not at its NUL,
 * with its code point in *@cp; 0 if none starts there (an overlong form,
 * a surrogate or beyond U+10FFFF is none).
 */
int utf8_char(const char *s, uint32_t *cp);

#endif
