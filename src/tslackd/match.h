/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cgroups a rule's glob names, found by walking down only the
 * directories its components can match, and watched there for new ones.
 */
#ifndef TSLACKD_MATCH_H
#define TSLACKD_MATCH_H

#include "budget.h"
#include "watch.h"

/* Called with each matching cgroup's path (from the cgroup2 mount). */
typedef void (*match_fn)(const char *path, void *data);

/*
 * Call @fn for each cgroup whose path matches @glob, component by
 * component as fnmatch(FNM_PATHNAME) would, and give watch_dir() every
 * directory above the last component where a match may appear, within
 * @b (a match is a setting): stops when it is spent, with b->cut set. The
 * number of matches, or -1 when out of memory.
 */
int match_cgroups(const char *glob, struct watch *w, struct budget *b, match_fn fn, void *data);

#endif
