/* SPDX-License-Identifier: GPL-2.0 */
/* Reading and writing the settings map, and what it imposes on a cgroup. */
#ifndef TSLACK_SETTINGS_H
#define TSLACK_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>

#include "../../bpf/tslack.h"
#include "cgroup.h"
#include "err.h"

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
 * next sleep. A minimum set this way ends a trial of @cg's (trial.h).
 * 0, or -1 with why in @e.
 */
int settings_apply(const struct cgroup *cg, bool max, uint64_t ns, struct tslack_err *e);

/*
 * Set @trial as @cg's min_slack_ns for a while (trial.h): as
 * settings_apply(), calling @before with the old value under the lock and
 * recording the trial before the write. A non-zero return from @before,
 * or a record that cannot be written, writes nothing and returns -1 (why
 * in @e).
 */
int settings_apply_trial(const struct cgroup *cg, uint64_t trial,
			 int (*before)(uint64_t old, void *data, struct tslack_err *e),
			 void *data, struct tslack_err *e);

/*
 * Ask the policy, through its query iterators (in @query_fd, from
 * settings_query_fd()), what it imposes on cgroup q->cgroup_id or, if
 * q->tid, on that thread (numbered in our pid namespace), and fill @q
 * (tslack.h). 0, or -errno: -ENOENT no such cgroup, -ESRCH no such thread.
 */
int settings_query(int query_fd, struct tslack_query *q);

/* What settings_query() needs (the checked pin directory), or -1 with why in @e. */
int settings_query_fd(struct tslack_err *e);

struct settings_entry {
	uint64_t id;
	struct tslack_setting val;
	char *path;	/* NULL when no cgroup has the id */
};

/*
 * Every entry of the map, with its cgroup's path, sorted by path (entries
 * of no cgroup first). The number of entries in *@entries, to free with
 * settings_list_free(), or -errno.
 */
long settings_list(int map_fd, struct settings_entry **entries);
void settings_list_free(struct settings_entry *entries, long n);

/* Number of entries in the map, or -errno. */
long settings_count(int map_fd);

#endif
