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
/* Iterations of busy work per call: a deliberately slow policy. */
__u32 spin;
/* Calls, for the bench to see that a policy was asked at all. */
__u64 calls;
/* Where the busy work goes, so that the compiler keeps it. */
__u64 sink;

SEC("struct_ops/effective_slack")
__u64 BPF_PROG(effective_slack, struct task_struct *p, const struct timer_slack_ctx *sleep)
{
	__u64 v = slack_ns;
	int i;

	if (spin) {
		bpf_for(i, 0, spin)
			v = v * 7 % 1000003;
		sink = v;
	}
	__sync_fetch_and_add(&calls, 1);
	return slack_ns;
}

SEC(".struct_ops.link")
struct timer_slack_ops const_slack = {
	.effective_slack = (void *)effective_slack,
};
