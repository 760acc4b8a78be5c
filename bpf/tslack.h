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
 * What the query iterators write, one record per cgroup or thread they
 * visit: tslack_query_cgroup (iter/cgroup, by cgroup id) and
 * tslack_query_task (iter/task, by thread id, numbered in the pid
 * namespace of whoever makes the iterator).
 */
struct tslack_query {
	__u64 cgroup_id;	/* the cgroup's, or the thread's */
	__s32 tid;		/* the thread's, in the initial pid namespace; 0 */
	__u32 policy;		/* the thread's scheduling policy */
	__u64 imposed;		/* what the policy imposes on the cgroup */
	__u64 own;		/* the thread's own slack (not what per-task mode wrote) */
	__u64 effective;	/* max(own, imposed), 0 if realtime */
};

/*
 * Per-task mode, for kernels without the hook: tslackctl follow writes
 * each thread's own slack (/proc/TID/timerslack_ns) as the plan programs
 * say, with records of this form, read from the apply and restore
 * iterators. Write @slack to thread @tid if it
 * is still the thread that started at @start_boottime (ns) and its slack
 * is still @expect.
 */
struct tslack_write {
	__s32 tid;		/* in the initial pid namespace */
	__u32 pad;
	__u64 start_boottime;
	__u64 expect;
	__u64 slack;
};

/*
 * What the events ring buffer carries: which threads to plan again, with
 * the apply iterator, at once. Only the iterator plans, and the write
 * follows each plan, so that a plan is never acted on after the thread
 * has moved on.
 */
enum tslack_event_type {
	TSLACK_EV_THREAD = 1,	/* thread @pid of process @tgid */
	TSLACK_EV_PROCESS,	/* every thread of process @tgid */
	TSLACK_EV_ALL,		/* every thread: a setting changed */
	TSLACK_EV_UNRAISE,	/* struct tslack_unraise: make this write now */
};

struct tslack_event {
	__u32 type;
	__s32 pid;		/* in the initial pid namespace */
	__s32 tgid;
	__u32 pad;
};

/*
 * A thread forked with its parent's raised slack and no memory of it
 * (its record could not be made): @w gives it its own slack back, rather
 * than let the raised one count as its own for ever.
 */
struct tslack_unraise {
	struct tslack_event ev;
	struct tslack_write w;
};

/*
 * What tslackctl follow says of itself, in the follower map (key 0), for
 * the policy and for tslackctl status. Zero when no follower runs.
 */
struct tslack_follower {
	__u32 tgid;		/* its process: its own writes need no event */
	__u32 pad;
	__u64 caught_up_ns;	/* CLOCK_MONOTONIC at the end of its last full pass */
};

/* Cgroups with a setting the map holds, unless attach says otherwise. */
#define TSLACK_DEFAULT_MAX_CGROUPS 16384

/*
 * How long the policy may reuse a task's answer: a direct write to the
 * map, which nobody reports, is seen within this many milliseconds.
 */
#define TSLACK_MAX_CACHE_AGE_MS 100

#endif
