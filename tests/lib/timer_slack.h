/* SPDX-License-Identifier: GPL-2.0 */
/* A thread's timer slack: its own, and the one its sleeps are armed with. */
#ifndef TSLACK_TIMER_SLACK_H
#define TSLACK_TIMER_SLACK_H

#include <stddef.h>
#include <sys/prctl.h>

static inline long own_slack(void)
{
	return prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
}

/*
 * The slack the calling thread's next sleep is armed with: the hook's
 * answer, or on a kernel without the hook (per-task mode) the thread's
 * own. Seen by the hrtimer_start tracepoint (timer_slack.c): needs
 * tracefs, or TSLACK_HRTIMER_START from hrtimer_start_spec(), and
 * perf_event_paranoid -1 or CAP_PERFMON. -1 after a message if it cannot.
 */
long sleep_slack(void);

/* "ID EXPIRES SOFTEXPIRES" of the hrtimer_start event, for TSLACK_HRTIMER_START. 0 or -1. */
int hrtimer_start_spec(char *buf, size_t len);

#endif
