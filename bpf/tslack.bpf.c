// SPDX-License-Identifier: GPL-2.0
/*
 * tslack: the timer slack cgroup controller proposed in 2011, as a BPF
 * timer_slack_ops policy on cgroup v2. A task sleeps with the effective
 * slack of its cgroup: the largest min_slack_ns of the cgroup and all of
 * its ancestors. The kernel keeps the task's own slack if it is larger,
 * gives realtime and deadline tasks none, and reuses a task's answer until
 * this policy invalidates it.
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
	__type(value, struct tslack_cgroup);
} cgroups SEC(".maps");

void timer_slack_bpf_invalidate(void) __ksym;

/* The default hierarchy, cgroup v2, is the first one set up: id 0. */
static bool on_cgroup2(struct cgroup *cgrp)
{
	return BPF_CORE_READ(cgrp, root, hierarchy_id) == 0;
}

SEC("struct_ops/effective_slack")
__u64 BPF_PROG(tslack_effective_slack, struct task_struct *p, __u64 slack)
{
	__u64 id = p->cgroups->dfl_cgrp->kn->id;
	struct tslack_cgroup *cg = bpf_map_lookup_elem(&cgroups, &id);

	return cg ? cg->effective_slack_ns : slack;
}

/* A new cgroup starts with its parent's minimum, as in the 2011 series. */
SEC("tp_btf/cgroup_mkdir")
int BPF_PROG(tslack_cgroup_mkdir, struct cgroup *cgrp, const char *path)
{
	struct tslack_cgroup *parent;
	__u64 id, parent_id;

	if (!on_cgroup2(cgrp))
		return 0;
	parent_id = BPF_CORE_READ(cgrp, self.parent, cgroup, kn, id);
	parent = bpf_map_lookup_elem(&cgroups, &parent_id);
	if (!parent)
		return 0;
	id = cgrp->kn->id;
	bpf_map_update_elem(&cgroups, &id, parent, BPF_NOEXIST);
	return 0;
}

SEC("tp_btf/cgroup_rmdir")
int BPF_PROG(tslack_cgroup_rmdir, struct cgroup *cgrp, const char *path)
{
	__u64 id;

	if (!on_cgroup2(cgrp))
		return 0;
	id = cgrp->kn->id;
	bpf_map_delete_elem(&cgroups, &id);
	return 0;
}

struct write_loop {
	__u64 entries;
	long err;
};

static long write_entry(__u32 i, void *data)
{
	struct write_loop *w = data;
	struct tslack_entry e;

	w->err = bpf_copy_from_user(&e, sizeof(e),
				    (void *)(w->entries + (__u64)i * sizeof(e)));
	if (!w->err)
		w->err = bpf_map_update_elem(&cgroups, &e.id, &e.val, BPF_ANY);
	return w->err ? 1 : 0;
}

/*
 * The kernel reuses each task's last answer while the task stays in its
 * cgroup, until told that the map changed: tslackctl updates the map only
 * by running this program, see struct tslack_write_args. Returns 0 or
 * -errno.
 */
SEC("syscall")
int tslack_write(struct tslack_write_args *args)
{
	struct write_loop w = { .entries = args->entries };
	long n;

	n = bpf_loop(args->n, write_entry, &w, 0);
	/* Also after a failure: what was written must take effect. */
	timer_slack_bpf_invalidate();
	return n < 0 ? n : w.err;
}

SEC(".struct_ops.link")
struct timer_slack_ops tslack = {
	.effective_slack = (void *)tslack_effective_slack,
};
