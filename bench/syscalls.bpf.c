// SPDX-License-Identifier: GPL-2.0
/*
 * make bench: the system calls one process (all its threads) makes, to
 * weigh per-task mode's follow against the hook, which makes none.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

/* The process counted, set before load. */
const volatile __u32 tgid;
__u64 calls;

SEC("raw_tp/sys_enter")
int count_syscall(void *ctx)
{
	if (bpf_get_current_pid_tgid() >> 32 == tgid)
		__sync_fetch_and_add(&calls, 1);
	return 0;
}
