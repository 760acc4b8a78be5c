/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Watching the subtrees tslackd holds a minimum on for new cgroups: a unit
 * started in an idle session (an audio server a notification activates,
 * say) is exempted when it appears, not at the next change in logind.
 */
#ifndef TSLACKD_WATCH_H
#define TSLACKD_WATCH_H

#include "state.h"

struct watch {
	int fd;		/* inotify; readable when a watched cgroup has a new child */
	int *wd;
	int n;
};

/* 0, or -errno. */
int watch_init(struct watch *w);

/* Watch every cgroup in the subtrees of @want's minimums, and no other. */
void watch_subtrees(struct watch *w, const struct want *want, int n);

/* Read the pending events; true if one says a cgroup was made. */
bool watch_drain(struct watch *w);

void watch_free(struct watch *w);

#endif
