// SPDX-License-Identifier: GPL-2.0
/* testhook.h: linked into the test build (make's tslackd-test) only. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "testhook.h"

void test_crash_point(const char *point)
{
	static unsigned long reached;
	const char *at = getenv("TSLACKD_TEST_CRASH_AT");
	size_t len = strlen(point);
	unsigned long nth = 1;

	if (!at || strncmp(at, point, len) || (at[len] && at[len] != ':'))
		return;
	if (at[len] == ':')
		nth = strtoul(at + len + 1, NULL, 10);
	if (++reached != nth)
		return;
	log_warn("test: SIGKILL at %s (%lu)", point, nth);
	raise(SIGKILL);
}
