/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test reporting for programs run inside the VM: one "PASS name" or
 * "FAIL name: why" line per check, counted by vmtest/run-tests.
 */
#ifndef TSLACK_TEST_HARNESS_H
#define TSLACK_TEST_HARNESS_H

#include <stdbool.h>

#include "lib/compiler.h"

/* Declare the number of checks; tests/run-in-vm fails a program short of it. */
void harness_plan(unsigned int checks);

/* Print PASS or FAIL for @name; @fmt explains a failure. Returns @ok. */
__printf(3, 4) bool report(const char *name, bool ok, const char *fmt, ...);

/* Exit status for main(): non-zero when any report() failed. */
int harness_exit_status(void);

/* Abort the whole program with a FAIL line when setup fails. */
__printf(2, 3) __noreturn void harness_fatal(const char *name, const char *fmt, ...);

#endif
