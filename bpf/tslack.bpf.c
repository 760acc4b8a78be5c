// SPDX-License-Identifier: GPL-2.0
/*
 * tslack: the timer slack cgroup controller proposed in 2011, as a BPF
 * timer_slack_ops policy on cgroup v2. See tslack.h for the rule; the
 * kernel keeps the task's own slack if it is larger and gives realtime
 * and deadline tasks none. The policy keeps each cgroup's answer for at
 * most TSLACK_MAX_CACHE_AGE_MS, or until tslackctl invalidates it.
 *
 * On a kernel without the hook (per-task mode) the same rule is applied
 * to each thread's own slack: the plan programs (tslack_pertask.bpf.h)
 * say what to write, and tslackctl follow writes it through /proc. The
 * object loads on both: nothing here needs more than Linux 6.1's BPF, but
 * the struct_ops.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#ifndef READ_ONCE
#define READ_ONCE(x) (*(volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile typeof(x) *)&(x) = (v))
#endif

#include "tslack.h"

char _license[] SEC("license") = "GPL";

/* uapi values, which BTF does not carry. */
#define PR_SET_TIMERSLACK 29
#define SCHED_FIFO	1
#define SCHED_RR	2
#define SCHED_DEADLINE	6

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TSLACK_DEFAULT_MAX_CGROUPS);
	__type(key, __u64);
	__type(value, struct tslack_setting);
} settings SEC(".maps");

/* Set by the loader: per-task mode (no hook). */
const volatile bool per_task;

/*
 * The rule of tslack.h for @cgrp, capped at TSLACK_MAX_NS: what the policy
 * imposes, once for the kernel and for tslackctl. O(depth), on a cache
 * miss only. Plain loads up the parent pointers (the verifier makes them
 * fault-safe) cost an instruction each, where BPF_CORE_READ() calls a
 * helper per field.
 */
static __always_inline __u64 imposed_on(struct cgroup *cgrp)
{
	__u64 min = 0, cap = TSLACK_MAX_NS, id;
	struct tslack_setting *s;
	int i;

	/* A bounded loop, which Linux 6.1's verifier takes (no bpf_for). */
	for (i = 0; i < TSLACK_MAX_WALK && cgrp; i++) {
		id = cgrp->kn->id;
		s = bpf_map_lookup_elem(&settings, &id);
		if (s) {
			if (s->min_slack_ns > min)
				min = s->min_slack_ns;
			if (s->max_slack_ns && s->max_slack_ns < cap)
				cap = s->max_slack_ns;
		}
		cgrp = cgrp->self.parent ? cgrp->self.parent->cgroup : NULL;
	}
	return min < cap ? min : cap;
}

/* As the kernel does: realtime and deadline tasks sleep with no slack. */
static __always_inline bool rt_or_dl(struct task_struct *p)
{
	return p->policy == SCHED_FIFO || p->policy == SCHED_RR || p->policy == SCHED_DEADLINE;
}

/*
 * The last answer for a cgroup, and what it depends on, in a per-CPU slot
 * chosen by the cgroup id: the answer depends on the cgroup alone (the
 * kernel adds the task's own slack), and a per-CPU array lookup is a few
 * inlined instructions. Two cgroups that share a slot only cost misses.
 * Tasks on the same CPU can preempt each other inside the program: a
 * writer claims the slot by making @seq odd (cmpxchg), clears
 * @cgroup_id, fills the rest and sets @cgroup_id last, so that a reader
 * that finds its id reads a complete answer unless a writer ran in
 * between, which the change of @seq shows.
 */
struct answer {
	__u64 seq;
	__u64 cgroup_id;
	__u64 generation;	/* of the settings, when it was computed */
	__u64 expires;		/* bpf_jiffies64() after which it is not used */
	__u64 slack_ns;
};

#define ANSWER_SLOTS 1024

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, ANSWER_SLOTS);
	__type(key, __u32);
	__type(value, struct answer);
} answers SEC(".maps");

/* Bumped by tslack_invalidate after each write tslackctl makes. */
__u64 generation;

/* TSLACK_MAX_CACHE_AGE_MS in jiffies, set by the loader (1/HZ varies). */
const volatile __u64 max_age_jiffies = 1;

#define compiler_barrier() asm volatile("" ::: "memory")

/*
 * A miss: the walk, and the answer kept for the next sleeps. Out of line,
 * so that a hit, every sleep but the first of a cgroup on a CPU in
 * TSLACK_MAX_CACHE_AGE_MS, saves no registers it does not use.
 */
static __noinline __u64 answer_miss(struct cgroup *cgrp, struct answer *a, __u64 id,
				    __u64 now)
{
	__u64 gen = generation, slack = imposed_on(cgrp);
	__u64 seq;

	if (!a)
		return slack;
	seq = READ_ONCE(a->seq);
	/* Another task on this CPU is writing it: leave it to that one. */
	if ((seq & 1) || !__sync_bool_compare_and_swap(&a->seq, seq, seq + 1))
		return slack;
	WRITE_ONCE(a->cgroup_id, 0);
	compiler_barrier();
	a->generation = gen;
	a->expires = now + max_age_jiffies;
	a->slack_ns = slack;
	compiler_barrier();
	WRITE_ONCE(a->cgroup_id, id);
	compiler_barrier();
	WRITE_ONCE(a->seq, seq + 2);
	return slack;
}

/*
 * Set by the loader: whether futex_waitv() and futex2's futex_wait() take
 * the policy's slack (tslackctl attach --no-futex2 leaves them their own).
 */
const volatile bool futex2_waits = true;

/*
 * A cgroup's answer is reused while the settings' generation stays the
 * same, for at most TSLACK_MAX_CACHE_AGE_MS: a direct map write, which
 * nobody reports, is seen within that bound. The hit is what every sleep
 * pays: the clock is read first, so that no value but the cgroup has to
 * outlive a helper call. The kernel keeps the task's own slack
 * (sleep->slack_ns) if it is larger.
 */
SEC("struct_ops/effective_slack")
__u64 BPF_PROG(tslack_effective_slack, struct task_struct *p,
	       const struct timer_slack_ctx *sleep)
{
	__u64 now = bpf_jiffies64(), slack;
	struct cgroup *cgrp = p->cgroups->dfl_cgrp;
	__u64 id = cgrp->kn->id, seq;
	__u32 slot = id & (ANSWER_SLOTS - 1);
	struct answer *a;

	if (!futex2_waits &&
	    bpf_core_enum_value_exists(enum timer_slack_site, TIMER_SLACK_FUTEX2) &&
	    sleep->site == bpf_core_enum_value(enum timer_slack_site, TIMER_SLACK_FUTEX2))
		return sleep->slack_ns;
	a = bpf_map_lookup_elem(&answers, &slot);
	if (!a)
		return answer_miss(cgrp, a, id, now);
	seq = READ_ONCE(a->seq);
	compiler_barrier();
	if (READ_ONCE(a->cgroup_id) != id || a->generation != generation ||
	    now >= a->expires)
		return answer_miss(cgrp, a, id, now);
	slack = a->slack_ns;
	compiler_barrier();
	if (READ_ONCE(a->seq) != seq)
		return answer_miss(cgrp, a, id, now);
	return slack;
}

/* The default hierarchy, cgroup v2, is the first one set up: id 0. */
static bool on_cgroup2(struct cgroup *cgrp)
{
	return BPF_CORE_READ(cgrp, root, hierarchy_id) == 0;
}

SEC("tp_btf/cgroup_rmdir")
int BPF_PROG(tslack_cgroup_rmdir, struct cgroup *cgrp, const char *path)
{
	__u64 id;

	if (!on_cgroup2(cgrp))
		return 0;
	id = BPF_CORE_READ(cgrp, kn, id);
	bpf_map_delete_elem(&settings, &id);
	return 0;
}

/*
 * Per-task mode's memory of a thread whose slack it raised: the thread's
 * own slack, and what was written over it. The thread's slack is neither
 * when the thread (or someone else) set it since: that is its own then.
 * It goes with the thread; a child gets a copy at fork (plan_fork).
 */
struct raised {
	__u64 own;
	__u64 written;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct raised);
} raised SEC(".maps");

/* The thread's own slack: what it would sleep with without tslack. */
static __always_inline __u64 own_slack(struct task_struct *p, struct raised *r)
{
	__u64 cur = p->timer_slack_ns;

	return r && cur == r->written ? r->own : cur;
}

/*
 * The same rule as the hook's: what the policy imposes on a cgroup, and
 * on a thread what it sleeps with. The iterators write one struct
 * tslack_query per cgroup or thread, for tslackctl get, list and top.
 */
SEC("iter/cgroup")
int tslack_query_cgroup(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cgrp = ctx->cgroup;
	struct tslack_query q = {};

	if (!cgrp)
		return 0;
	q.cgroup_id = cgrp->kn->id;
	q.imposed = imposed_on(cgrp);
	bpf_seq_write(ctx->meta->seq, &q, sizeof(q));
	return 0;
}

SEC("iter/task")
int tslack_query_task(struct bpf_iter__task *ctx)
{
	struct task_struct *p = ctx->task;
	struct tslack_query q = {};
	struct cgroup *cgrp;

	if (!p)
		return 0;
	cgrp = p->cgroups->dfl_cgrp;
	q.cgroup_id = cgrp->kn->id;
	q.tid = p->pid;
	q.policy = p->policy;
	q.imposed = imposed_on(cgrp);
	q.own = own_slack(p, bpf_task_storage_get(&raised, p, NULL, 0));
	q.effective = rt_or_dl(p) ? 0 : q.own > q.imposed ? q.own : q.imposed;
	bpf_seq_write(ctx->meta->seq, &q, sizeof(q));
	return 0;
}

/* Per-task mode's programs: one object, so that they share the maps. */
#include "tslack_pertask.bpf.h"

/*
 * Run by tslackctl after it writes the map, so that a setting is used from
 * each task's next sleep rather than within TSLACK_MAX_CACHE_AGE_MS.
 */
SEC("syscall")
int tslack_invalidate(void *ctx)
{
	__sync_fetch_and_add(&generation, 1);
	/* Per-task mode: tslackctl follow makes a full pass. */
	if (per_task)
		emit(TSLACK_EV_ALL, NULL);
	return 0;
}

SEC(".struct_ops.link")
struct timer_slack_ops tslack = {
	.effective_slack = (void *)tslack_effective_slack,
};
