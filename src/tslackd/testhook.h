/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Points where a test build (-DTSLACK_TEST, make's tslackd-test) can be
 * made to kill itself, as the watchdog or the OOM killer would: with
 * TSLACKD_TEST_CRASH_AT=POINT or POINT:N in its environment, it sends
 * itself SIGKILL the first (or the Nth) time it reaches POINT. The points
 * are those of a reconcile (state.c): "intent" (the state file says what
 * is about to be written; the map not yet), "write" (after each write of
 * the map) and "confirm" (every write made, the state file not yet told).
 * In the tslackd that is installed it is nothing at all.
 */
#ifndef TSLACKD_TESTHOOK_H
#define TSLACKD_TESTHOOK_H

#ifdef TSLACK_TEST
void test_crash_point(const char *point);
#else
static inline void test_crash_point(const char *point)
{
	(void)point;
}
#endif

#endif
