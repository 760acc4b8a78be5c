/* SPDX-License-Identifier: GPL-2.0 */
/* The timer slack prctls, including the one kernel-patch/ adds. */
#ifndef TSLACK_TIMER_SLACK_H
#define TSLACK_TIMER_SLACK_H

#include <sys/prctl.h>

#ifndef PR_GET_EFFECTIVE_TIMERSLACK
#define PR_GET_EFFECTIVE_TIMERSLACK 0x54534c45
#endif

static inline long own_slack(void)
{
	return prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
}

static inline long effective_slack(void)
{
	return prctl(PR_GET_EFFECTIVE_TIMERSLACK, 0, 0, 0, 0);
}

#endif
