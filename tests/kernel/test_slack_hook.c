// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel-side tests of the timer slack hook, with a constant-slack
 * struct_ops policy: every converted sleep path oversleeps by the
 * policy's slack while it is attached and by the task's own slack after
 * detach; detach while tasks sleep; paths that must not be affected; that
 * the kernel keeps no answer of the policy.
 * The rules of the hook itself (RT and deadline, the 500 ms bound,
 * refusals, replacement, cgroup moves) are the series' own test in
 * selftests/bpf (test_progs -t timer_slack). The slack a sleep is armed
 * with is read from the hrtimer_start tracepoint (timer_slack.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "const_slack.skel.h"
#include "harness.h"
#include "sleep_paths.h"
#include "timer_slack.h"

#define MSEC 1000000ULL
#define POLICY_SLACK (20 * MSEC)
#define DEFAULT_SLACK 50000
#define REQ_NS (1 * MSEC)
#define SAMPLES 5

static struct bpf_link *attach(struct const_slack_bpf *skel)
{
	return bpf_map__attach_struct_ops(skel->maps.const_slack);
}

static void check_slack(const char *name, long own, long armed)
{
	long o = own_slack(), a = sleep_slack();

	report(name, o == own && a == armed,
	       "PR_GET_TIMERSLACK %ld (want %ld), a sleep armed with %ld (want %ld)",
	       o, own, a, armed);
}

/* Run @fn in a child so that policy and slack changes stay there. */
static void in_child(const char *name, void (*fn)(void))
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		fn();
		fflush(stdout);
		_exit(harness_exit_status());
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		report(name, false, "fork/wait: %s", strerror(errno));
	else if (!WIFEXITED(status))
		report(name, false, "child died with status %#x", status);
}

static void answer_fork_child(void)
{
	check_slack("answer/child_asks", DEFAULT_SLACK, 30 * MSEC);
}

/*
 * The kernel keeps nothing of an answer: the policy's new value is used
 * at the next sleep, by a child too, and the larger own slack still wins.
 */
static void check_no_kernel_cache(struct const_slack_bpf *skel)
{
	skel->data->slack_ns = 30 * MSEC;
	check_slack("answer/used_at_once", DEFAULT_SLACK, 30 * MSEC);
	in_child("answer/child_asks", answer_fork_child);
	prctl(PR_SET_TIMERSLACK, 40 * MSEC, 0, 0, 0);
	check_slack("answer/own_slack_larger", 40 * MSEC, 40 * MSEC);
	prctl(PR_SET_TIMERSLACK, 0, 0, 0, 0);
	skel->data->slack_ns = POLICY_SLACK;
}

static void check_detach_while_sleeping(struct const_slack_bpf *skel)
{
	enum { SLEEPERS = 8, CYCLES = 40 };
	pid_t pids[SLEEPERS];
	int i, status, bad = 0, cycles = 0;
	struct bpf_link *link;

	fflush(stdout);
	for (i = 0; i < SLEEPERS; i++) {
		pids[i] = fork();
		/* Sleepers that must keep waking, never early, across detaches. */
		if (pids[i] == 0)
			_exit(churn_sleeps(2000 * MSEC, REQ_NS) ? 1 : 0);
	}
	for (i = 0; i < CYCLES; i++) {
		link = attach(skel);
		if (!link)
			break;
		usleep(10000);
		bpf_link__destroy(link);
		usleep(10000);
		cycles++;
	}
	for (i = 0; i < SLEEPERS; i++)
		if (pids[i] < 0 || waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	report("detach/while_sleeping", cycles == CYCLES && !bad,
	       "%d of %d attach cycles, %d sleepers failed", cycles, CYCLES, bad);
}

int main(void)
{
	struct const_slack_bpf *skel;
	struct bpf_link *link;

	setvbuf(stdout, NULL, _IOLBF, 0);
	harness_plan(66);
	check_slack("slack/no_policy", DEFAULT_SLACK, DEFAULT_SLACK);
	check_sleep_paths("no_policy", 0, POLICY_SLACK);

	skel = const_slack_bpf__open();
	if (!skel)
		harness_fatal("policy/load", "%s", strerror(errno));
	if (const_slack_bpf__load(skel))
		harness_fatal("policy/load", "%s", strerror(errno));
	link = attach(skel);
	if (!link)
		harness_fatal("policy/attach", "%s", strerror(errno));

	check_slack("slack/policy", DEFAULT_SLACK, POLICY_SLACK);
	check_sleep_paths("policy", POLICY_SLACK, POLICY_SLACK);
	check_no_kernel_cache(skel);

	report("detach/destroy", !bpf_link__destroy(link), "%s", strerror(errno));
	check_slack("slack/detached", DEFAULT_SLACK, DEFAULT_SLACK);
	check_sleep_paths("detached", 0, POLICY_SLACK);
	check_detach_while_sleeping(skel);
	check_slack("slack/after_churn", DEFAULT_SLACK, DEFAULT_SLACK);

	const_slack_bpf__destroy(skel);
	return harness_exit_status();
}
