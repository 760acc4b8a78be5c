// SPDX-License-Identifier: GPL-2.0
/*
 * What the policy's object loads in each mode: the hook's struct_ops, or
 * the programs that plan per-task writes and those that tell tslackctl
 * follow when to plan; the rule and the queries in both.
 */
#include <errno.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "compiler.h"
#include "load.h"

/*
 * Load what @mode runs: the hook's struct_ops, or the programs that plan
 * per-task writes; the rule and the queries in both.
 */
static void select_mode(struct tslack_bpf *skel, enum policy_mode mode)
{
	struct bpf_program *per_task[] = {
		skel->progs.tslack_fork, skel->progs.tslack_attach_task,
		skel->progs.tslack_prctl, skel->progs.tslack_apply, skel->progs.tslack_restore,
		skel->progs.tslack_map_write,
	};
	/* Where the kernel has them: 32-bit programs, and /proc's writer. */
	struct bpf_program *optional[] = {
		skel->progs.tslack_prctl32, skel->progs.tslack_proc_write,
	};
	static const char *const optional_fn[] = { "__ia32_sys_prctl", "timerslack_ns_write" };
	unsigned int i;

	skel->rodata->per_task = mode == POLICY_PER_TASK;
	/* libbpf loads a struct_ops program only for a map it creates. */
	bpf_map__set_autocreate(skel->maps.tslack, mode == POLICY_HOOK);
	bpf_map__set_autocreate(skel->maps.answers, mode == POLICY_HOOK);
	for (i = 0; i < ARRAY_SIZE(per_task); i++)
		bpf_program__set_autoload(per_task[i], mode == POLICY_PER_TASK);
	for (i = 0; i < ARRAY_SIZE(optional); i++)
		bpf_program__set_autoload(optional[i], mode == POLICY_PER_TASK &&
					  libbpf_find_vmlinux_btf_id(optional_fn[i],
								     BPF_TRACE_FEXIT) > 0);
	/* Iterators are run, not attached: tslack_bpf__attach() leaves them. */
	bpf_program__set_autoattach(skel->progs.tslack_query_cgroup, false);
	bpf_program__set_autoattach(skel->progs.tslack_query_task, false);
	bpf_program__set_autoattach(skel->progs.tslack_apply, false);
	bpf_program__set_autoattach(skel->progs.tslack_restore, false);
	/* Only per-task mode reads the events: one page for the hook's. */
	if (mode == POLICY_HOOK)
		bpf_map__set_max_entries(skel->maps.events, getpagesize());
}

/*
 * TSLACK_MAX_CACHE_AGE_MS in jiffies, which the policy reads for its age
 * check (one load, where a clock read costs a helper call). A coarse
 * clock ticks once a jiffy: its resolution is 1/HZ.
 */
static __u64 max_age_jiffies(void)
{
	struct timespec tick;
	__u64 ns;

	if (clock_getres(CLOCK_MONOTONIC_COARSE, &tick))
		return 1;
	ns = tick.tv_sec * 1000000000ULL + tick.tv_nsec;
	return ns ? TSLACK_MAX_CACHE_AGE_MS * 1000000ULL / ns : 1;
}

struct tslack_bpf *policy_load(enum policy_mode mode, unsigned int max_cgroups,
			       unsigned int flags, struct tslack_err *e)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	struct tslack_bpf *skel;
	int err;

	skel = tslack_bpf__open();
	if (!skel) {
		err_errno(e, 0, "opening the policy", errno);
		return NULL;
	}
	skel->rodata->max_age_jiffies = max_age_jiffies();
	select_mode(skel, mode);
	skel->rodata->futex2_waits = flags & POLICY_FUTEX2;
	err = bpf_map__set_max_entries(skel->maps.settings, max_cgroups);
	if (!err)
		err = tslack_bpf__load(skel);
	/* A direct write to this map wakes tslackctl follow (tslack_map_write). */
	if (!err)
		err = bpf_map_get_info_by_fd(bpf_map__fd(skel->maps.settings), &info, &len) ?
			-errno : 0;
	if (err) {
		err_errno(e, 0, "loading the policy", err);
		tslack_bpf__destroy(skel);
		return NULL;
	}
	skel->bss->settings_map_id = info.id;
	return skel;
}
