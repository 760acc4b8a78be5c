// SPDX-License-Identifier: GPL-2.0
/*
 * How tslackctl says what went wrong: "tslackctl: MESSAGE" on stderr,
 * escaped, libbpf's messages with them, and with --json the first of
 * them kept for the error object.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "lib/format.h"
#include "lib/json.h"
#include "tslackctl.h"

static bool verbose;

/*
 * The error object's message, with --json: the first thing said, or else
 * the first line of libbpf's, as bpftool does.
 */
static struct {
	char first[512], libbpf[512];
} kept;

/* Keep the first line of @msg in @to, if @to is empty. */
static void keep(char *to, size_t len, const char *msg)
{
	if (!to[0])
		snprintf(to, len, "%.*s", (int)strcspn(msg, "\n"), msg);
}

/*
 * A message may quote what the user typed or a name from the cgroup tree:
 * no control reaches the terminal, and --json's error object stays UTF-8.
 */
static void vsay(const char *fmt, va_list ap)
{
	char raw[1024], msg[4096];

	vsnprintf(raw, sizeof(raw), fmt, ap);
	escape_text(msg, sizeof(msg), raw);
	fprintf(stderr, "tslackctl: %s\n", msg);
	keep(kept.first, sizeof(kept.first), msg);
}

void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}

int fail(const struct tslack_err *e)
{
	if (e->msg[0])
		say("%s", e->msg);
	return EXIT_RUNTIME;
}

int fail_errno(const char *what, int err)
{
	struct tslack_err e;

	err_errno(&e, 0, what, err);
	return fail(&e);
}

int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
	fputs("Try 'tslackctl --help'.\n", stderr);
	return EXIT_USAGE;
}

int show_json(struct json_object *o)
{
	if (!json_print(o))
		return 0;
	say("out of memory");
	return -1;
}

/* What the library goes on after: a name in bpffs it left alone. */
static void warn(const char *msg)
{
	say("%s", msg);
}

/* libbpf's warnings and errors, prefixed, on stderr; the rest with -v. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char msg[1024];
	va_list aq;
	int ret;

	if ((level == LIBBPF_DEBUG || level == LIBBPF_INFO) && !verbose)
		return 0;
	/* Whole on stderr: a verifier log is longer than what is kept. */
	va_copy(aq, ap);
	snprintf(msg, sizeof(msg), "libbpf: ");
	vsnprintf(msg + 8, sizeof(msg) - 8, fmt, ap);
	keep(kept.libbpf, sizeof(kept.libbpf), msg);
	fputs("tslackctl: libbpf: ", stderr);
	ret = vfprintf(stderr, fmt, aq);
	va_end(aq);
	return ret;
}

void say_json_error(void)
{
	const char *msg = kept.first[0] ? kept.first : kept.libbpf;

	if (msg[0])
		json_print(json_add(json_object_new_object(), "error", json_name(msg)));
}

void say_verbose(void)
{
	verbose = true;
}

void say_setup(void)
{
	libbpf_set_print(libbpf_print);
	tslack_set_warn(warn);
}
