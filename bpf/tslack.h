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
 *		      min of the non-zero max_slack_ns on the path,
 *		      TSLACK_MAX_NS)
 *
 * and the kernel makes the task sleep with max(its own slack, imposed),
 * realtime and deadline tasks with none. The rule is coded once, in the
 * policy: tslackctl asks it through the tslack_query program.
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

/*
 * The most the policy imposes: the kernel's own bound on what a policy
 * adds (TIMER_SLACK_BPF_MAX_NS), so that the answer is what applies.
 */
#define TSLACK_MAX_NS 500000000ULL

/* The max_slack_ns that exempts a subtree: its tasks keep their own slack. */
#define TSLACK_EXEMPT_MAX_NS 1ULL

/*
 * The tslack_query program's context: in, a cgroup id or a thread id; out,
 * what the policy imposes on the cgroup (the thread's, with @tid) and, with
 * @tid, what the thread sleeps with. It returns 0, -ENOENT (no such cgroup)
 * or -ESRCH (no such thread, by its id in the initial pid namespace).
 */
struct tslack_query {
	__u64 cgroup_id;	/* in without @tid; out */
	__s32 tid;		/* in: 0, or a thread */
	__u32 policy;		/* out, with @tid: its scheduling policy */
	__u64 imposed;		/* out */
	__u64 own;		/* out, with @tid: its timer_slack_ns */
	__u64 effective;	/* out, with @tid: max(own, imposed), 0 if realtime */
};

/* Cgroups with a setting the map holds, unless attach says otherwise. */
#define TSLACK_DEFAULT_MAX_CGROUPS 16384

/*
 * How long the policy may reuse a task's answer: a direct write to the
 * map, which nobody reports, is seen within this many milliseconds.
 */
#define TSLACK_MAX_CACHE_AGE_MS 100

#endif
