/* SPDX-License-Identifier: GPL-2.0 */
/* The timer slack prctls, including the one kernel-patch/6.12/ adds. */
#ifndef TSLACK_TIMER_SLACK_H
#define TSLACK_TIMER_SLACK_H

#include <errno.h>
#include <sys/prctl.h>

#ifndef PR_GET_EFFECTIVE_TIMERSLACK
#define PR_GET_EFFECTIVE_TIMERSLACK 74	/* the series' prctl.h (v5): in no system header */
#endif

static inline long own_slack(void)
{
	return prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
}

static inline long effective_slack(void)
{
	return prctl(PR_GET_EFFECTIVE_TIMERSLACK, 0, 0, 0, 0);
}

/*
 * The slack this thread's sleeps use: the hook's answer, or on a kernel
 * without the series (per-task mode) the thread's own, which is what its
 * sleeps use there.
 */
static inline long sleep_slack(void)
{
	long ns = effective_slack();

	return ns < 0 && errno == EINVAL ? own_slack() : ns;
}

#endif
