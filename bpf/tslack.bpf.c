// SPDX-License-Identifier: GPL-2.0
/*
 * tslack: the timer slack cgroup controller proposed in 2011, as a BPF
 * timer_slack_ops policy on cgroup v2. See tslack.h for the rule; the
 * kernel keeps the task's own slack if it is larger and gives realtime
 * and deadline tasks none. The policy keeps each cgroup's answer for at
 * most TSLACK_MAX_CACHE_AGE_MS, or until tslackctl invalidates it.
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
#define ESRCH		3
#define ENOENT		2
#define SCHED_FIFO	1
#define SCHED_RR	2
#define SCHED_DEADLINE	6

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TSLACK_DEFAULT_MAX_CGROUPS);
	__type(key, __u64);
	__type(value, struct tslack_setting);
} settings SEC(".maps");

struct task_struct *bpf_task_from_pid(s32 pid) __ksym;
void bpf_task_release(struct task_struct *p) __ksym;
struct cgroup *bpf_cgroup_from_id(u64 cgid) __ksym;
struct cgroup *bpf_cgroup_acquire(struct cgroup *cgrp) __ksym;
void bpf_cgroup_release(struct cgroup *cgrp) __ksym;
void bpf_rcu_read_lock(void) __ksym;
void bpf_rcu_read_unlock(void) __ksym;

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
	int i, depth = cgrp->level + 1;

	if (depth > TSLACK_MAX_WALK)
		depth = TSLACK_MAX_WALK;

	/* bpf_for() evaluates its end at every step: not from cgrp. */
	bpf_for(i, 0, depth) {
		id = cgrp->kn->id;
		s = bpf_map_lookup_elem(&settings, &id);
		if (s) {
			if (s->min_slack_ns > min)
				min = s->min_slack_ns;
			if (s->max_slack_ns && s->max_slack_ns < cap)
				cap = s->max_slack_ns;
		}
		cgrp = cgrp->self.parent->cgroup;
		if (!cgrp)
			break;
	}
	return min < cap ? min : cap;
}

/*
 * The last answer for a cgroup, and what it depends on, in a per-CPU slot
 * chosen by the cgroup id: the answer depends on the cgroup alone (the
 * kernel adds the task's own slack), and a per-CPU array lookup is a few
 * inlined instructions. Two cgroups that share a slot only cost misses.
 * Tasks on the same CPU can preempt each other inside the program: @seq
 * is odd while a writer that claimed it (cmpxchg) fills the slot, and a
 * reader that sees it odd or changed does not trust what it read.
 */
struct answer {
	__u64 seq;
	__u64 cgroup_id;
	__u64 generation;	/* of the settings, when it was computed */
	__u64 stamp;		/* bpf_jiffies64() then */
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

static __always_inline bool cached(struct answer *a, __u64 id, __u64 gen, __u64 now,
				   __u64 *slack)
{
	__u64 seq = READ_ONCE(a->seq);
	bool hit;

	compiler_barrier();
	hit = !(seq & 1) && a->cgroup_id == id && a->generation == gen &&
	      now - a->stamp < max_age_jiffies;
	*slack = a->slack_ns;
	compiler_barrier();
	return hit && READ_ONCE(a->seq) == seq;
}

static __always_inline void remember(struct answer *a, __u64 id, __u64 gen, __u64 now,
				     __u64 slack)
{
	__u64 seq = READ_ONCE(a->seq);

	/* Another task on this CPU is writing it: leave it to that one. */
	if ((seq & 1) || !__sync_bool_compare_and_swap(&a->seq, seq, seq + 1))
		return;
	compiler_barrier();
	a->cgroup_id = id;
	a->generation = gen;
	a->stamp = now;
	a->slack_ns = slack;
	compiler_barrier();
	WRITE_ONCE(a->seq, seq + 2);
}

/*
 * A cgroup's answer is reused while the settings' generation stays the
 * same, for at most TSLACK_MAX_CACHE_AGE_MS: a direct map write, which
 * nobody reports, is seen within that bound.
 */
SEC("struct_ops/effective_slack")
__u64 BPF_PROG(tslack_effective_slack, struct task_struct *p, __u64 slack)
{
	struct cgroup *cgrp = p->cgroups->dfl_cgrp;
	__u64 id = cgrp->kn->id, gen = generation;
	__u64 now = bpf_jiffies64();
	__u32 slot = id & (ANSWER_SLOTS - 1);
	struct answer *a;

	a = bpf_map_lookup_elem(&answers, &slot);
	if (a && cached(a, id, gen, now, &slack))
		return slack;
	slack = imposed_on(cgrp);
	if (a)
		remember(a, id, gen, now, slack);
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
 * What the policy imposes on a cgroup, or on a thread and what the thread
 * sleeps with, for tslackctl get, list and top: the same code the kernel
 * runs, over the real hierarchy, whatever cgroup namespace asks. Run with
 * BPF_PROG_TEST_RUN; @q is copied back.
 */
SEC("syscall")
int tslack_query(struct tslack_query *q)
{
	struct task_struct *p = NULL;
	struct cgroup *cgrp;

	if (q->tid) {
		p = bpf_task_from_pid(q->tid);
		if (!p)
			return -ESRCH;
		bpf_rcu_read_lock();
		cgrp = bpf_cgroup_acquire(p->cgroups->dfl_cgrp);
		bpf_rcu_read_unlock();
	} else {
		cgrp = bpf_cgroup_from_id(q->cgroup_id);
	}
	if (!cgrp) {
		if (p)
			bpf_task_release(p);
		return -ENOENT;
	}
	q->cgroup_id = cgrp->kn->id;
	q->imposed = imposed_on(cgrp);
	bpf_cgroup_release(cgrp);
	if (p) {
		q->own = p->timer_slack_ns;
		q->policy = p->policy;
		/* As the kernel does: realtime and deadline tasks get none. */
		if (q->policy == SCHED_FIFO || q->policy == SCHED_RR ||
		    q->policy == SCHED_DEADLINE)
			q->effective = 0;
		else
			q->effective = q->own > q->imposed ? q->own : q->imposed;
		bpf_task_release(p);
	}
	return 0;
}

/*
 * Run by tslackctl after it writes the map, so that a setting is used from
 * each task's next sleep rather than within TSLACK_MAX_CACHE_AGE_MS.
 */
SEC("syscall")
int tslack_invalidate(void *ctx)
{
	__sync_fetch_and_add(&generation, 1);
	return 0;
}

SEC(".struct_ops.link")
struct timer_slack_ops tslack = {
	.effective_slack = (void *)tslack_effective_slack,
};
