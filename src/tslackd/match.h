/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cgroups a rule's glob names, found by walking down only the
 * directories its components can match, and watched there for new ones.
 */
#ifndef TSLACKD_MATCH_H
#define TSLACKD_MATCH_H

#include <stdbool.h>

#include "watch.h"

/*
 * At most this many cgroups per rule, directories watched for it, and
 * entries looked at to find them, per walk.
 */
#define MATCH_MAX 512
#define MATCH_MAX_WATCH 1024
#define MATCH_MAX_SEEN 65536

/* Called with each matching cgroup's path (from the cgroup2 mount). */
typedef void (*match_fn)(const char *path, void *data);

/*
 * Call @fn for each cgroup whose path matches @glob, component by
 * component as fnmatch(FNM_PATHNAME) would, and give watch_dir() every
 * directory above the last component where a match may appear. Stops at
 * MATCH_MAX matches, MATCH_MAX_WATCH directories watched or MATCH_MAX_SEEN
 * directory entries: then *@cut is set. The number of matches, or -1
 * when out of memory.
 */
int match_cgroups(const char *glob, struct watch *w, match_fn fn, void *data, bool *cut);

#endif
