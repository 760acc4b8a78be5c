// SPDX-License-Identifier: GPL-2.0
/*
 * Counting for tslackctl top and stats: the timed sleeps whose timer
 * expired and woke their task (nanosleep, poll, select, epoll, futex and
 * the other hrtimer_sleeper users), by the task's cgroup v2 id. Loaded
 * only while top or stats runs, and it changes nothing the policy does.
 * Not counted: timerfd, POSIX timers and itimers, which wake through other
 * callbacks, and sleeps that end before their timer (a wakeup by data).
 * And the CPUs' wakeups from idle, with those of several CPUs that come
 * together counted once.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

#define E2BIG	7
#define EEXIST	17

/*
 * Wakeups by cgroup id, per CPU: the counting takes no lock. The entry of
 * a removed cgroup goes with it, so cgroups made and removed while top
 * runs do not fill the map.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, __u64);
} wakeups SEC(".maps");

/* A full map: wakeups of cgroups it had no room for. */
__u64 dropped;

SEC("fentry/hrtimer_wakeup")
int BPF_PROG(count_wakeup, struct hrtimer *timer)
{
	_Static_assert(__builtin_offsetof(struct hrtimer_sleeper, timer) == 0,
		       "hrtimer_sleeper starts with its timer");
	/* The timer is the first member of its hrtimer_sleeper. */
	struct hrtimer_sleeper *sleeper = (void *)timer;
	struct task_struct *task = BPF_CORE_READ(sleeper, task);
	__u64 id, one = 1, *n;
	long err;

	if (!task)
		return 0;
	id = BPF_CORE_READ(task, cgroups, dfl_cgrp, kn, id);
	n = bpf_map_lookup_elem(&wakeups, &id);
	if (!n) {
		err = bpf_map_update_elem(&wakeups, &id, &one, BPF_NOEXIST);
		if (err == -EEXIST)	/* another CPU added it meanwhile */
			n = bpf_map_lookup_elem(&wakeups, &id);
		else if (err == -E2BIG)
			__sync_fetch_and_add(&dropped, 1);
	}
	if (n)
		(*n)++;
	return 0;
}

/*
 * Package wakeups, what PowerTOP users watch: a CPU leaving idle counts
 * unless another one left idle less than PACKAGE_WINDOW_NS before it, so
 * that CPUs woken together count once. Exchanged atomically: on real
 * hardware CPUs do leave idle at the same instant.
 */
#define PACKAGE_WINDOW_NS	200000
/* trace_cpu_idle()'s state when a CPU leaves idle (PWR_EVENT_EXIT). */
#define IDLE_EXIT		((unsigned int)-1)

__u64 last_idle_exit;
__u64 package_wakeups;
__u64 idle_exits;

SEC("tp_btf/cpu_idle")
int BPF_PROG(count_idle_exit, unsigned int state, unsigned int cpu)
{
	__u64 now, prev;

	if (state != IDLE_EXIT)
		return 0;
	now = bpf_ktime_get_ns();
	prev = __sync_lock_test_and_set(&last_idle_exit, now);
	if (now - prev >= PACKAGE_WINDOW_NS)
		__sync_fetch_and_add(&package_wakeups, 1);
	__sync_fetch_and_add(&idle_exits, 1);
	return 0;
}

/* The default hierarchy, cgroup v2, is the first one set up: id 0. */
SEC("tp_btf/cgroup_rmdir")
int BPF_PROG(forget_cgroup, struct cgroup *cgrp, const char *path)
{
	__u64 id;

	if (BPF_CORE_READ(cgrp, root, hierarchy_id) != 0)
		return 0;
	id = BPF_CORE_READ(cgrp, kn, id);
	bpf_map_delete_elem(&wakeups, &id);
	return 0;
}
