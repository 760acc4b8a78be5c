// SPDX-License-Identifier: GPL-2.0
/* Test-only timer slack policy: the same slack, slack_ns, for every task. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

/*
 * Written by the test through the skeleton, also while attached: the
 * kernel keeps no answer, so tasks see a new value at their next sleep.
 */
__u64 slack_ns = 20000000;

SEC("struct_ops/effective_slack")
__u64 BPF_PROG(effective_slack, struct task_struct *p, __u64 slack)
{
	return slack_ns;
}

SEC(".struct_ops.link")
struct timer_slack_ops const_slack = {
	.effective_slack = (void *)effective_slack,
};
