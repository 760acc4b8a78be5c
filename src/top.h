/* SPDX-License-Identifier: GPL-2.0 */
/* tslackctl top and stats: timed-sleep wakeups by cgroup, live. */
#ifndef TSLACK_TOP_H
#define TSLACK_TOP_H

#include <stdbool.h>
#include <stdint.h>

#include "cgroup.h"

enum top_sort { TOP_SORT_WAKEUPS, TOP_SORT_PATH, TOP_SORT_SLACK };

struct top_config {
	uint64_t delay_ns;	/* between refreshes */
	long iterations;	/* refreshes to show; 0: until q */
	int depth;		/* deeper cgroups fold into their ancestor */
	enum top_sort sort;
	bool batch, json;
};

/* Run top; an exit status. */
int top_run(const struct top_config *cfg);

/*
 * Count @cg's subtree's wakeups for @ns; with @slack, then as long again
 * with @slack as its min_slack_ns, restored after. An exit status.
 */
int stats_run(const struct cgroup *cg, uint64_t ns, const uint64_t *slack, bool json);

#endif
