// SPDX-License-Identifier: GPL-2.0
/* Test-only timer slack policy: the same slack, slack_ns, for every task. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

/*
 * Written by the test through the skeleton, also while attached; tasks
 * see a new value once the test runs invalidate.
 */
__u64 slack_ns = 20000000;

void timer_slack_bpf_invalidate(void) __ksym;

SEC("struct_ops/effective_slack")
__u64 BPF_PROG(effective_slack, struct task_struct *p, __u64 slack)
{
	return slack_ns;
}

SEC("syscall")
int invalidate(void *ctx)
{
	timer_slack_bpf_invalidate();
	return 0;
}

SEC(".struct_ops.link")
struct timer_slack_ops const_slack = {
	.effective_slack = (void *)effective_slack,
};
