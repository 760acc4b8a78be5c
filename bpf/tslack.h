/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tslack settings map, shared by the BPF policy, tslackctl and any
 * script that writes it with bpftool.
 *
 * One entry per cgroup v2 that has a setting, keyed by the cgroup id (the
 * inode number of its cgroupfs directory), holding only what was set for
 * it. The policy computes the rest when the kernel asks, over the path
 * from the task's cgroup up to the root (at most TSLACK_MAX_WALK cgroups):
 *
 *	imposed = min(max of min_slack_ns on the path,
 *		      min of the non-zero max_slack_ns on the path)
 *
 * and the kernel makes the task sleep with max(its own slack, imposed),
 * realtime and deadline tasks with none.
 */
#ifndef TSLACK_H
#define TSLACK_H

struct tslack_setting {
	/* Slack the cgroup and its subtree sleep with at least; 0: none. */
	__u64 min_slack_ns;
	/*
	 * Cap on what minimums impose on the cgroup and its subtree, its
	 * own included; 0: no cap. 1 exempts the subtree: its tasks keep
	 * their own slack.
	 */
	__u64 max_slack_ns;
};

/*
 * The policy looks at the task's cgroup and at most this many levels
 * above it, in all: a deep delegated hierarchy cannot make a sleep walk
 * for long. systemd's hierarchies are about ten deep.
 */
#define TSLACK_MAX_WALK 64

/* Cgroups with a setting the map holds, unless attach says otherwise. */
#define TSLACK_DEFAULT_MAX_CGROUPS 16384

/*
 * How long the kernel may reuse a task's answer: a direct write to the
 * map, which nobody reports, is seen within this many milliseconds.
 */
#define TSLACK_MAX_CACHE_AGE_MS 100

#endif
