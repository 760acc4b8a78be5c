/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What tslackd may spend on what others control: the subtrees users fill
 * (the user@UID.service that systemd delegates to each) and the signals
 * anyone may send on the system bus. Every limit is here, and in
 * tslackd(8), LIMITS.
 */
#ifndef TSLACKD_BUDGET_H
#define TSLACKD_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

#include "watch.h"

/*
 * One walk: below a session's cgroup (the exemptions), or down a rule's
 * glob. At most WALK_MAX_SET cgroups get a setting from it, WALK_MAX_WATCH
 * directories are watched (inotify watches are root's, shared with
 * systemd), WALK_MAX_SEEN directory entries are looked at, and a session's
 * walk goes at most WALK_MAX_DEPTH levels down (units live in slices, a
 * few levels below user@UID.service).
 */
#define WALK_MAX_SET 512
#define WALK_MAX_WATCH 1024
#define WALK_MAX_SEEN 65536
#define WALK_MAX_DEPTH 16

/* Settings from all rules together, after the sessions' (the map's room). */
#define RULES_MAX 2048

/*
 * A refresh (logind's sessions and the power sources read, the subtrees
 * walked) starts at most once each REFRESH_USEC for changes said on the
 * bus, and once each SETTLE_USEC for new cgroups: a burst of signals or of
 * mkdir costs one refresh, and a change waits at most that long. The first
 * change after a quiet second is followed at once; a user flipping her
 * idle hint in a loop costs a refresh a second, not one per call.
 */
#define REFRESH_USEC (1000 * 1000ULL)
#define SETTLE_USEC (1000 * 1000ULL)

/*
 * And at most a WALK_CPU_SHARE_INV-th of a CPU: the next refresh waits at
 * least this many times the CPU the last one's plan and writes took.
 * Walks are bounded (WALK_MAX_SEEN entries), not free: a user making
 * cgroups as fast as she can would otherwise have a 400 ms walk every
 * second (TCG).
 */
#define WALK_CPU_SHARE_INV 10

/*
 * A read of logind's sessions has at most LOGIND_CALLS_MAX calls in flight
 * (to logind and to systemd: three or four a session), the others queued:
 * dbus-daemon refuses a connection more than 128 pending replies on the
 * system bus (max_replies_per_connection), and failed every call past them
 * when all of a machine's were made at once.
 */
#define LOGIND_CALLS_MAX 32

/* What one walk has spent; cut once any limit is reached. */
struct budget {
	int set;
	int watched;
	long seen;
	bool cut;
};

/* Watch @path (from the cgroup2 mount) if the budget allows: false if cut. */
bool budget_watch(struct budget *b, struct watch *w, const char *path);

/* One directory entry more looked at: false if cut. */
bool budget_see(struct budget *b);

/* One cgroup more given a setting: false if cut. */
bool budget_set(struct budget *b);

/*
 * The walks that were cut, by the cgroup id of their top, so that each is
 * logged once: cuts_first() in a round says whether @id was not cut in
 * the round before, cuts_end() ends the round.
 */
struct cuts {
	uint64_t *id, *next;
	int n, n_next;
};

bool cuts_first(struct cuts *c, uint64_t id);
void cuts_end(struct cuts *c);

#endif
