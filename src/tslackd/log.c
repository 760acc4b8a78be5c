// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "../lib/format.h"
#include "log.h"

/*
 * Is stderr the journal's stream? systemd says which stream it gave us in
 * $JOURNAL_STREAM ("DEV:INODE"), for a child to check it still has it.
 */
static bool to_journal(void)
{
	static int known = -1;
	unsigned long long dev, ino;
	const char *e = getenv("JOURNAL_STREAM");
	struct stat st;

	if (known < 0)
		known = e && sscanf(e, "%llu:%llu", &dev, &ino) == 2 &&
			!fstat(2, &st) && st.st_dev == dev && st.st_ino == ino;
	return known;
}

void log_at(const char *prio, const char *fmt, ...)
{
	char *msg = NULL, *shown = NULL;
	size_t len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	/*
	 * Names are escaped where they are quoted; what else a user may have
	 * chosen (a unit, a D-Bus string) could still hold a newline, which
	 * would make a journal line of its own, or an escape sequence.
	 */
	len = n >= 0 ? 4 * (size_t)n + 4 : 0;
	shown = len ? malloc(len) : NULL;
	if (shown)
		escape_text(shown, len, msg);
	/* One write per line, so that nothing interleaves with it. */
	fprintf(stderr, "%stslackd: %s\n", to_journal() ? prio : "",
		shown ? shown : "(out of memory for a message)");
	free(shown);
	free(msg);
}
