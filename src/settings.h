/* SPDX-License-Identifier: GPL-2.0 */
/* Keeping the map's effective slacks equal to the hierarchical maximum. */
#ifndef TSLACK_SETTINGS_H
#define TSLACK_SETTINGS_H

#include <stdint.h>

#include "cgroup.h"

/*
 * Set @cg's min_slack_ns to @min_ns and update the effective slack of it
 * and every cgroup below it. Checks first that the map has room, and
 * changes nothing when it does not. 0, or -1 after printing why.
 */
int settings_set(int map_fd, const struct cgroup *cg, uint64_t min_ns);

/* Number of entries in the map, or -1. */
long settings_count(int map_fd);

#endif
