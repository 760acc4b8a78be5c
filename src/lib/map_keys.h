/* SPDX-License-Identifier: GPL-2.0 */
/* The keys of a BPF hash map keyed by a cgroup id (u64). */
#ifndef TSLACK_MAP_KEYS_H
#define TSLACK_MAP_KEYS_H

#include <linux/types.h>

/*
 * The keys of @map_fd in ascending order, in *@keys (free() it): how many,
 * or -errno. Entries added or removed meanwhile may or may not be in it.
 */
long map_keys(int map_fd, __u64 **keys);

#endif
