// SPDX-License-Identifier: GPL-2.0
/*
 * Measurements for make bench, run inside the VM by run-bench:
 *
 *   tslack-bench poll-cost CALLS
 *	ns per poll() on a pipe that has data, with a 1 s timeout: the call
 *	computes the timer slack and never sleeps. The median of 7 runs.
 *   tslack-bench poll-cost-miss CALLS
 *	The same, but before each poll() the own slack alternates between
 *	50000 and 50001 ns (prctl), so that the kernel cannot reuse the
 *	policy's last answer: with and without a policy, the difference is
 *	the cost of asking the policy.
 *   tslack-bench poll-cost-constant CALLS
 *	The same with the test-only constant policy attached (no map
 *	lookup): the cost of calling a policy at all.
 *   tslack-bench sleepers NPROC SECONDS PERIOD_MS [PROC_SLACK_NS]
 *	NPROC processes sleep PERIOD_MS (+-20% jitter) in a loop; prints
 *	process wakeups and timer interrupts (LOC) per second. With
 *	PROC_SLACK_NS, it is first written to each one's
 *	/proc/PID/timerslack_ns, the upstream way.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "const_slack.skel.h"
#include "interrupts.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int poll_cost(long calls, bool miss)
{
	double runs[7], t0;
	struct pollfd pfd;
	int p[2], r;
	long i;

	if (pipe(p) || write(p[1], "x", 1) != 1) {
		perror("pipe");
		return 1;
	}
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	for (r = 0; r < 7; r++) {
		t0 = now_s();
		for (i = 0; i < calls; i++) {
			if (miss && prctl(PR_SET_TIMERSLACK, 50000 + (i & 1), 0, 0, 0)) {
				perror("prctl");
				return 1;
			}
			if (poll(&pfd, 1, 1000) != 1) {
				perror("poll");
				return 1;
			}
		}
		runs[r] = (now_s() - t0) * 1e9 / calls;
	}
	qsort(runs, 7, sizeof(runs[0]), cmp_double);
	printf("%.1f\n", runs[3]);
	return 0;
}

static int poll_cost_constant(long calls)
{
	struct const_slack_bpf *skel = const_slack_bpf__open_and_load();
	struct bpf_link *link = skel ? bpf_map__attach_struct_ops(skel->maps.const_slack) : NULL;
	int ret;

	if (!link) {
		perror("attaching the constant policy");
		const_slack_bpf__destroy(skel);
		return 1;
	}
	ret = poll_cost(calls, false);
	bpf_link__destroy(link);
	const_slack_bpf__destroy(skel);
	return ret;
}

static void sleeper(double seconds, long period_ms, int go, int out)
{
	double end;
	long n = 0;
	char c;

	srand(getpid());
	if (read(go, &c, 1) != 1)
		_exit(1);
	for (end = now_s() + seconds; now_s() < end; n++) {
		long ns = period_ms * 1000000L;
		struct timespec ts;

		ns += (rand() % 41 - 20) * ns / 100;
		ts = (struct timespec){ ns / 1000000000L, ns % 1000000000L };
		nanosleep(&ts, NULL);
	}
	if (write(out, &n, sizeof(n)) != sizeof(n))
		_exit(1);
	_exit(0);
}

static int sleepers(int nproc, double seconds, long period_ms, const char *proc_slack)
{
	int go[2], out[2], i;
	unsigned long long irq0;
	long total = 0, n;
	double t0;
	pid_t pid;

	if (pipe(go) || pipe(out)) {
		perror("pipe");
		return 1;
	}
	for (i = 0; i < nproc; i++) {
		pid = fork();
		if (pid == 0)
			sleeper(seconds, period_ms, go[0], out[1]);
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (proc_slack) {
			char path[64];
			FILE *f;

			snprintf(path, sizeof(path), "/proc/%d/timerslack_ns", pid);
			f = fopen(path, "w");
			if (!f || fputs(proc_slack, f) < 0 || fclose(f)) {
				perror(path);
				return 1;
			}
		}
	}
	irq0 = local_timer_interrupts();
	t0 = now_s();
	for (i = 0; i < nproc; i++)
		if (write(go[1], "g", 1) != 1)
			return 1;
	for (i = 0; i < nproc; i++) {
		if (read(out[0], &n, sizeof(n)) != sizeof(n))
			return 1;
		total += n;
	}
	t0 = now_s() - t0;
	while (wait(NULL) > 0)
		;
	printf("%.1f %.1f\n", total / t0, (local_timer_interrupts() - irq0) / t0);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "poll-cost"))
		return poll_cost(atol(argv[2]), false);
	if (argc == 3 && !strcmp(argv[1], "poll-cost-miss"))
		return poll_cost(atol(argv[2]), true);
	if (argc == 3 && !strcmp(argv[1], "poll-cost-constant"))
		return poll_cost_constant(atol(argv[2]));
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "sleepers"))
		return sleepers(atoi(argv[2]), atof(argv[3]), atol(argv[4]),
				argc == 6 ? argv[5] : NULL);
	fputs("Usage: tslack-bench poll-cost CALLS\n"
	      "       tslack-bench poll-cost-miss CALLS\n"
	      "       tslack-bench poll-cost-constant CALLS\n"
	      "       tslack-bench sleepers NPROC SECONDS PERIOD_MS [PROC_SLACK_NS]\n",
	      stderr);
	return 2;
}
