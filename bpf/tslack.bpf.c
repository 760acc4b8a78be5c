// SPDX-License-Identifier: GPL-2.0
/*
 * tslack: the timer slack cgroup controller proposed in 2011, as a BPF
 * timer_slack_ops policy on cgroup v2. See tslack.h for the rule; the
 * kernel keeps the task's own slack if it is larger, gives realtime and
 * deadline tasks none, and reuses a task's answer for at most
 * TSLACK_MAX_CACHE_AGE_MS, or until tslackctl invalidates it.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "tslack.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TSLACK_DEFAULT_MAX_CGROUPS);
	__type(key, __u64);
	__type(value, struct tslack_setting);
} settings SEC(".maps");

void timer_slack_bpf_invalidate(void) __ksym;

static __u64 cgroup_id(struct cgroup *cgrp)
{
	return BPF_CORE_READ(cgrp, kn, id);
}

/*
 * O(depth), on a cache miss only: the kernel reuses the answer. Plain
 * loads up the parent pointers (the verifier makes them fault-safe) cost
 * an instruction each, where BPF_CORE_READ() calls a helper per field.
 */
SEC("struct_ops/effective_slack")
__u64 BPF_PROG(tslack_effective_slack, struct task_struct *p, __u64 slack)
{
	struct cgroup *cgrp = p->cgroups->dfl_cgrp;
	__u64 min = 0, cap = ~0ULL, id;
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

/* The default hierarchy, cgroup v2, is the first one set up: id 0. */
static bool on_cgroup2(struct cgroup *cgrp)
{
	return BPF_CORE_READ(cgrp, root, hierarchy_id) == 0;
}

/* A new cgroup starts with its parent's minimum, as in the 2011 series. */
SEC("tp_btf/cgroup_mkdir")
int BPF_PROG(tslack_cgroup_mkdir, struct cgroup *cgrp, const char *path)
{
	struct tslack_setting *parent, val = {};
	__u64 id, parent_id;

	if (!on_cgroup2(cgrp))
		return 0;
	parent_id = cgroup_id(BPF_CORE_READ(cgrp, self.parent, cgroup));
	parent = bpf_map_lookup_elem(&settings, &parent_id);
	if (!parent || !parent->min_slack_ns)
		return 0;
	val.min_slack_ns = parent->min_slack_ns;
	id = cgroup_id(cgrp);
	bpf_map_update_elem(&settings, &id, &val, BPF_NOEXIST);
	return 0;
}

SEC("tp_btf/cgroup_rmdir")
int BPF_PROG(tslack_cgroup_rmdir, struct cgroup *cgrp, const char *path)
{
	__u64 id;

	if (!on_cgroup2(cgrp))
		return 0;
	id = cgroup_id(cgrp);
	bpf_map_delete_elem(&settings, &id);
	return 0;
}

/*
 * Run by tslackctl after it writes the map, so that a setting is used from
 * each task's next sleep rather than within TSLACK_MAX_CACHE_AGE_MS.
 */
SEC("syscall")
int tslack_invalidate(void *ctx)
{
	timer_slack_bpf_invalidate();
	return 0;
}

SEC(".struct_ops.link")
struct timer_slack_ops tslack = {
	.effective_slack = (void *)tslack_effective_slack,
	.max_cache_age_ms = TSLACK_MAX_CACHE_AGE_MS,
};
