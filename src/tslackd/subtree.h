/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cgroups below a session's, for its exemptions, found and watched
 * for new ones within a walk's budget: the subtree of user@UID.service is
 * the user's to fill.
 */
#ifndef TSLACKD_SUBTREE_H
#define TSLACKD_SUBTREE_H

#include "budget.h"
#include "match.h"
#include "watch.h"

/*
 * Give watch_dir() @top (a path from the cgroup2 mount) and each directory
 * below it, and call @fn with the path of each cgroup below it, depth
 * first, at most WALK_MAX_DEPTH levels down; within @b: stops when it is
 * spent, or at that depth, with b->cut set. @fn spends b's settings.
 */
void subtree_walk(const char *top, struct watch *w, struct budget *b, match_fn fn, void *data);

#endif
