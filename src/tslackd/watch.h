/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Watching the subtrees tslackd holds a minimum on for new cgroups: a unit
 * started in an idle session (an audio server a notification activates,
 * say) is exempted when it appears, not at the next change in logind.
 */
#ifndef TSLACKD_WATCH_H
#define TSLACKD_WATCH_H

#include <stdbool.h>

struct watch {
	int fd;		/* inotify; readable when a watched cgroup has a new child */
	int *wd;
	int n;
	int *next;	/* being collected until watch_end() */
	int n_next;
};

/* 0, or -errno. */
int watch_init(struct watch *w);

/* Watch the cgroup at @path (from the cgroup2 mount) from watch_end() on. */
void watch_dir(struct watch *w, const char *path);

/* Watch what watch_dir() was given since the last call, and nothing else. */
void watch_end(struct watch *w);

/* Read the pending events; true if one says a cgroup was made, or may have been. */
bool watch_drain(struct watch *w);

void watch_free(struct watch *w);

#endif
