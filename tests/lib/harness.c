// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

static int failed;

void harness_plan(unsigned int checks)
{
	printf("PLAN %u\n", checks);
	fflush(stdout);
}

static void vreport(const char *name, bool ok, const char *fmt, va_list ap)
{
	if (ok) {
		printf("PASS %s\n", name);
	} else {
		printf("FAIL %s: ", name);
		vprintf(fmt, ap);
		putchar('\n');
		failed++;
	}
	fflush(stdout);
}

bool report(const char *name, bool ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(name, ok, fmt, ap);
	va_end(ap);
	return ok;
}

int harness_exit_status(void)
{
	return failed ? 1 : 0;
}

void harness_fatal(const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(name, false, fmt, ap);
	va_end(ap);
	exit(1);
}
