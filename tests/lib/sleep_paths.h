/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One short timed sleep through each syscall path that the kernel series
 * touches, and through paths that must stay untouched, so that tests can
 * measure how late each wakes up.
 */
#ifndef TSLACK_SLEEP_PATHS_H
#define TSLACK_SLEEP_PATHS_H

#include <stdbool.h>
#include <stdint.h>

/* Which slack a path's timer is armed with. */
enum path_slack {
	SLACK_NONE,	/* none, policy or not (timerfd) */
	SLACK_TASK,	/* the task's effective slack */
	SLACK_POLICY,	/* a policy's answer if it asks for them, else the task's own (futex2) */
};

struct sleep_path {
	const char *name;
	/* Sleep for @ns through this path; 0 once it timed out, or -errno. */
	int (*sleep)(uint64_t ns);
	enum path_slack slack;
};

extern const struct sleep_path sleep_paths[];
extern const unsigned int nr_sleep_paths;

uint64_t monotonic_ns(void);

/*
 * Sleep @samples times for @req_ns through @path and store the median
 * lateness, in ns, in *@median. Sets *@early when any sample woke before
 * @req_ns had passed. Returns 0, or -errno when a sleep failed.
 */
int measure_lateness(const struct sleep_path *path, uint64_t req_ns,
		     unsigned int samples, int64_t *median, bool *early);

/*
 * Whether the policy of the checks below asks for the SLACK_POLICY paths
 * (TIMER_SLACK_FUTEX2), as tslack does by default: true unless a test
 * says otherwise (tslackctl attach --no-futex2).
 */
extern bool policy_futex2;

/*
 * Report, for every path, whether a 1 ms sleep oversleeps as @slack_ns,
 * a policy's answer, says: by at least half of it for the paths that use
 * the slack, the task's or a policy's (slack lets a timer fire anywhere up
 * to its hard expiry, and an idle VM wakes close to it), and by well under
 * a quarter of @scale_ns for the others and when @slack_ns is 0. Never
 * early. Names are "@phase/path".
 */
void check_sleep_paths(const char *phase, uint64_t slack_ns, uint64_t scale_ns);

/*
 * Sleep @period_ns at a time through every path in turn for @ns. Returns
 * 0, or -1 after printing a "# path: why" line when a sleep failed or
 * woke early.
 */
int churn_sleeps(uint64_t ns, uint64_t period_ns);

/* If set, churn_sleeps() also stops, early and without error, once this file exists. */
extern const char *churn_stop_file;

#endif
