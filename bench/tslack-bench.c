// SPDX-License-Identifier: GPL-2.0
/*
 * Measurements for make bench, run inside the VM by run-bench:
 *
 *   tslack-bench poll-ready CALLS [SPIN]
 *	ns per poll() on a pipe that has data, with a 1 s timeout: the call
 *	never sleeps, so it must never ask a policy. With SPIN, the test-only
 *	constant policy is attached, doing SPIN iterations of busy work per
 *	call (a deliberately slow policy). Prints the median of 7 runs and
 *	how often the policy was called.
 *   tslack-bench pingpong ROUNDS [SPIN]
 *	ns per round trip of a byte between two processes on CPU 0 through
 *	two pipes, each waiting in poll() with a 1 s timeout: every round
 *	trip is two sleeps that ask for their slack. SPIN as above (0: a
 *	trivial policy). The median of 7 runs, and the policy's calls.
 *   tslack-bench sleepers NPROC SECONDS PERIOD_MS [PROC_SLACK_NS]
 *	NPROC processes, process i on CPU i modulo the CPUs online, sleep
 *	PERIOD_MS (+-20% jitter) in a loop; prints process wakeups, timer
 *	interrupts (LOC, all CPUs) and package wakeups (CPUs leaving idle,
 *	those within 200 us of each other once; tslackctl top's counter)
 *	per second, then the mean and the largest lateness of a sleep in
 *	ms (how much later than asked it returned). With PROC_SLACK_NS, it
 *	is first written to each one's /proc/PID/timerslack_ns, the
 *	upstream way.
 *   tslack-bench migrations MOVES IN_DIR OUT_DIR NS
 *	This process moves itself MOVES times, alternately into the cgroup
 *	directory IN_DIR, whose slack is NS, and back to OUT_DIR, which has
 *	none; after each move it sleeps 1 ms in a loop until its sleeps have
 *	the slack of where it is (the hook's answer, or in per-task mode its
 *	own). Prints, for the moves into IN_DIR, the sleeps taken with the
 *	wrong slack per move (mean, largest) and the microseconds until the
 *	right one (mean, largest).
 *   tslack-bench syscalls PID COMMAND...
 *	Runs COMMAND and prints the system calls the process PID made
 *	meanwhile and the CPU time it took (ms).
 */
#define _GNU_SOURCE
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "const_slack.skel.h"
#include "interrupts.h"
#include "syscalls.skel.h"
#include "timer_slack.h"
#include "tslack_top.skel.h"

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

/* The median of 7 runs of @fn(@arg), in ns per iteration. */
static double median_ns(long n, int (*fn)(long n, void *arg), void *arg)
{
	double runs[7], t0;
	int r;

	for (r = 0; r < 7; r++) {
		t0 = now_s();
		if (fn(n, arg))
			return -1;
		runs[r] = (now_s() - t0) * 1e9 / n;
	}
	qsort(runs, 7, sizeof(runs[0]), cmp_double);
	return runs[3];
}

static int ready_polls(long calls, void *arg)
{
	struct pollfd *pfd = arg;
	long i;

	for (i = 0; i < calls; i++) {
		if (poll(pfd, 1, 1000) != 1) {
			perror("poll");
			return -1;
		}
	}
	return 0;
}

struct pingpong {
	int to_child, from_child;
};

/* Wait for a byte on @fd, as an event loop does: poll with a timeout. */
static int wait_byte(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char c;

	return poll(&pfd, 1, 1000) == 1 && read(fd, &c, 1) == 1 ? 0 : -1;
}

static int round_trips(long rounds, void *arg)
{
	struct pingpong *pp = arg;
	long i;

	for (i = 0; i < rounds; i++)
		if (write(pp->to_child, "p", 1) != 1 || wait_byte(pp->from_child)) {
			perror("pingpong");
			return -1;
		}
	return 0;
}

/* Both ends on CPU 0, so that every hand-over is a sleep and a wakeup. */
static int pingpong(long rounds)
{
	int down[2], up[2];
	struct pingpong pp;
	cpu_set_t cpu0;
	double ns;
	pid_t pid;

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (pipe(down) || pipe(up) || sched_setaffinity(0, sizeof(cpu0), &cpu0)) {
		perror("pingpong setup");
		return 1;
	}
	pid = fork();
	if (pid == 0) {
		while (!wait_byte(down[0]))
			if (write(up[1], "q", 1) != 1)
				_exit(1);
		_exit(0);
	}
	pp = (struct pingpong){ .to_child = down[1], .from_child = up[0] };
	ns = pid < 0 ? -1 : median_ns(rounds, round_trips, &pp);
	close(down[1]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	if (ns < 0)
		return 1;
	printf("%.1f", ns);
	return 0;
}

static int poll_ready(long calls)
{
	struct pollfd pfd;
	double ns;
	int p[2];

	if (pipe(p) || write(p[1], "x", 1) != 1) {
		perror("pipe");
		return 1;
	}
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	ns = median_ns(calls, ready_polls, &pfd);
	if (ns < 0)
		return 1;
	printf("%.1f", ns);
	return 0;
}

/*
 * Run @fn(@n) with the test-only constant policy attached, doing @spin
 * iterations of busy work per call; print how often it was called.
 */
static int with_constant_policy(int (*fn)(long n), long n, const char *spin)
{
	struct const_slack_bpf *skel = const_slack_bpf__open();
	struct bpf_link *link = NULL;
	int ret = 1;

	if (skel) {
		skel->bss->spin = atoi(spin);
		if (!const_slack_bpf__load(skel))
			link = bpf_map__attach_struct_ops(skel->maps.const_slack);
	}
	if (link) {
		ret = fn(n);
		printf(" %llu\n", (unsigned long long)skel->bss->calls);
	} else {
		perror("attaching the constant policy");
	}
	bpf_link__destroy(link);
	const_slack_bpf__destroy(skel);
	return ret;
}

/* Without the constant policy: whatever is attached, or nothing. */
static int run(int (*fn)(long n), long n, const char *spin)
{
	int ret;

	if (spin)
		return with_constant_policy(fn, n, spin);
	ret = fn(n);
	printf(" -\n");
	return ret;
}

/* What each sleeper sends back. */
struct sleeps {
	long n;
	double late_ns, max_late_ns;
};

static void sleeper(int cpu, double seconds, long period_ms, int go, int out)
{
	struct sleeps r = { 0 };
	cpu_set_t set;
	double end, t;
	char c;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	srand(getpid());
	if (sched_setaffinity(0, sizeof(set), &set) || read(go, &c, 1) != 1)
		_exit(1);
	for (end = now_s() + seconds; (t = now_s()) < end; r.n++) {
		long ns = period_ms * 1000000L;
		struct timespec ts;
		double late;

		ns += (rand() % 41 - 20) * ns / 100;
		ts = (struct timespec){ ns / 1000000000L, ns % 1000000000L };
		nanosleep(&ts, NULL);
		late = (now_s() - t) * 1e9 - ns;
		r.late_ns += late;
		if (late > r.max_late_ns)
			r.max_late_ns = late;
	}
	if (write(out, &r, sizeof(r)) != sizeof(r))
		_exit(1);
	_exit(0);
}

static int sleepers(int nproc, double seconds, long period_ms, const char *proc_slack)
{
	int go[2], out[2], i, ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct sleeps all = { 0 }, r;
	struct tslack_top_bpf *top;
	unsigned long long irq0;
	__u64 pkg0;
	double t0;
	pid_t pid;

	top = tslack_top_bpf__open_and_load();
	if (!top || tslack_top_bpf__attach(top)) {
		perror("loading the package wakeup counter");
		return 1;
	}
	if (pipe(go) || pipe(out)) {
		perror("pipe");
		return 1;
	}
	for (i = 0; i < nproc; i++) {
		pid = fork();
		if (pid == 0)
			sleeper(i % ncpus, seconds, period_ms, go[0], out[1]);
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
	pkg0 = top->bss->package_wakeups;
	t0 = now_s();
	for (i = 0; i < nproc; i++)
		if (write(go[1], "g", 1) != 1)
			return 1;
	/* No sleepers: what the machine does alone, for @seconds. */
	if (!nproc)
		usleep(seconds * 1e6);
	for (i = 0; i < nproc; i++) {
		if (read(out[0], &r, sizeof(r)) != sizeof(r))
			return 1;
		all.n += r.n;
		all.late_ns += r.late_ns;
		if (r.max_late_ns > all.max_late_ns)
			all.max_late_ns = r.max_late_ns;
	}
	t0 = now_s() - t0;
	printf("%.1f %.1f %.1f %.2f %.2f\n", all.n / t0,
	       (local_timer_interrupts() - irq0) / t0,
	       (top->bss->package_wakeups - pkg0) / t0,
	       all.n ? all.late_ns / all.n / 1e6 : 0, all.max_late_ns / 1e6);
	while (wait(NULL) > 0)
		;
	tslack_top_bpf__destroy(top);
	return 0;
}

/* Moved by writing to @dir's cgroup.procs, as a service manager does. */
static int move_self(const char *dir)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

struct lag {
	long moves, wrong, max_wrong;
	double us, max_us;
};

/* After a move: 1 ms sleeps until they have the slack @want. */
static int sleep_until_slack(long want, struct lag *lag)
{
	const struct timespec ms = { 0, 1000000 };
	double t0 = now_s(), us;
	long wrong = 0;

	while (sleep_slack() != want) {
		if (now_s() - t0 > 5) {
			fprintf(stderr, "tslack-bench: slack %ld, not %ld, after 5 s\n",
				sleep_slack(), want);
			return -1;
		}
		nanosleep(&ms, NULL);
		wrong++;
	}
	us = (now_s() - t0) * 1e6;
	lag->moves++;
	lag->wrong += wrong;
	lag->max_wrong = wrong > lag->max_wrong ? wrong : lag->max_wrong;
	lag->us += us;
	lag->max_us = us > lag->max_us ? us : lag->max_us;
	return 0;
}

static int migrations(long moves, const char *in, const char *out, long ns)
{
	long own = own_slack(), i;
	struct lag lag = { 0 }, back = { 0 };

	/*
	 * Only moves in are counted: after a move out the first sleep still
	 * has @ns of slack, so its length says nothing about the follower.
	 */
	for (i = 0; i < moves; i++) {
		if (move_self(i % 2 ? out : in) ||
		    sleep_until_slack(i % 2 ? own : ns, i % 2 ? &back : &lag))
			return 1;
	}
	printf("%.2f %ld %.0f %.0f\n", (double)lag.wrong / lag.moves, lag.max_wrong,
	       lag.us / lag.moves, lag.max_us);
	return 0;
}

/* utime + stime of @pid, in ms. */
static double cpu_ms(pid_t pid)
{
	unsigned long utime, stime;
	char path[64];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	/* comm (field 2) has no space or parenthesis for the processes measured. */
	n = fscanf(f, "%*d %*s %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
		   &utime, &stime);
	fclose(f);
	return n == 2 ? (utime + stime) * 1000.0 / sysconf(_SC_CLK_TCK) : -1;
}

static int count_syscalls(pid_t pid, char **cmd)
{
	struct syscalls_bpf *skel = syscalls_bpf__open();
	double c0;
	int status = -1, ret = 1;
	pid_t child;

	if (!skel)
		return 1;
	skel->rodata->tgid = pid;
	if (syscalls_bpf__load(skel) || syscalls_bpf__attach(skel)) {
		perror("tslack-bench: counting system calls");
		goto out;
	}
	c0 = cpu_ms(pid);
	child = fork();
	if (child == 0) {
		execvp(cmd[0], cmd);
		_exit(127);
	}
	if (child < 0 || waitpid(child, &status, 0) != child || status) {
		fprintf(stderr, "tslack-bench: %s failed\n", cmd[0]);
		goto out;
	}
	printf("%llu %.0f\n", (unsigned long long)skel->bss->calls, cpu_ms(pid) - c0);
	ret = 0;
out:
	syscalls_bpf__destroy(skel);
	return ret;
}

int main(int argc, char **argv)
{
	const char *spin = argc == 4 ? argv[3] : NULL;

	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "poll-ready"))
		return run(poll_ready, atol(argv[2]), spin);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "pingpong"))
		return run(pingpong, atol(argv[2]), spin);
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "sleepers"))
		return sleepers(atoi(argv[2]), atof(argv[3]), atol(argv[4]),
				argc == 6 ? argv[5] : NULL);
	if (argc == 6 && !strcmp(argv[1], "migrations"))
		return migrations(atol(argv[2]), argv[3], argv[4], atol(argv[5]));
	if (argc >= 4 && !strcmp(argv[1], "syscalls"))
		return count_syscalls(atoi(argv[2]), argv + 3);
	fputs("Usage: tslack-bench poll-ready CALLS [SPIN]\n"
	      "       tslack-bench pingpong ROUNDS [SPIN]\n"
	      "       tslack-bench sleepers NPROC SECONDS PERIOD_MS [PROC_SLACK_NS]\n"
	      "       tslack-bench migrations MOVES IN_DIR OUT_DIR NS\n"
	      "       tslack-bench syscalls PID COMMAND...\n",
	      stderr);
	return 2;
}
