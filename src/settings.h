/* SPDX-License-Identifier: GPL-2.0 */
/* Reading and writing the settings map, and what it imposes on a cgroup. */
#ifndef TSLACK_SETTINGS_H
#define TSLACK_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>

#include "../bpf/tslack.h"
#include "cgroup.h"

/* The most slack the kernel lets a policy impose, in ns. */
#define TSLACK_KERNEL_MAX_NS 500000000ULL

/* The max_slack_ns that exempts a subtree: its tasks keep their own slack. */
#define TSLACK_EXEMPT_MAX_NS 1ULL

/* @id's setting, zeros if it has none. True if it has an entry. */
bool settings_read(int map_fd, uint64_t id, struct tslack_setting *val);

/* Store @val as @id's setting, or remove the entry if it is all zeros. 0 or -errno. */
int settings_write(int map_fd, uint64_t id, const struct tslack_setting *val);

/*
 * settings_write() for the cgroup at @path, which has @id. If it is found
 * removed after the write, the write is undone and -ENOENT returned: the
 * policy deletes the entry of a cgroup it sees removed, but that may have
 * been just before the write.
 */
int settings_write_cgroup(int map_fd, uint64_t id, const char *path,
			  const struct tslack_setting *val);

/*
 * Set @cg's min_slack_ns, or with @max its max_slack_ns, to @ns, under the
 * lock that attach and detach take, and make every task use it from its
 * next sleep. 0, or -1 after printing why.
 */
int settings_apply(const struct cgroup *cg, bool max, uint64_t ns);

/*
 * The slack the map imposes on the tasks of @cg, as the policy computes it
 * (tslack.h) and the kernel caps it. 0, or -errno.
 */
int settings_effective(int map_fd, const struct cgroup *cg, uint64_t *ns);

struct settings_entry {
	uint64_t id;
	struct tslack_setting val;
	char path[PATH_MAX];	/* "" when no cgroup has the id */
};

/*
 * Every entry of the map, with its cgroup's path, sorted by path (entries
 * of no cgroup first). The number of entries in *@entries, to free(), or
 * -errno.
 */
long settings_list(int map_fd, struct settings_entry **entries);

/* Number of entries in the map, or -errno. */
long settings_count(int map_fd);

#endif
