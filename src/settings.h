/* SPDX-License-Identifier: GPL-2.0 */
/* Keeping the map's effective slacks equal to the hierarchical maximum. */
#ifndef TSLACK_SETTINGS_H
#define TSLACK_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "cgroup.h"

/*
 * Set @cg's min_slack_ns to @min_ns and update the effective slack of it
 * and every cgroup below it, in one system call that also makes tasks use
 * them: a tslackctl killed at any point leaves the old values or the new
 * ones. Checks first that the map has room, and changes nothing when it
 * does not. 0, or -1 after printing why.
 */
int settings_set(int map_fd, const struct cgroup *cg, uint64_t min_ns);

/*
 * Compare the map with the cgroup tree: every entry belongs to a cgroup
 * and every effective slack is the max of the cgroup's minimum and its
 * parent's effective slack. With @fix, correct what differs; otherwise
 * print it. Returns the number of differences, or -1.
 */
long settings_check(int map_fd, bool fix);

/* Number of entries in the map, or -1. */
long settings_count(int map_fd);

#endif
