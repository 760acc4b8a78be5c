// SPDX-License-Identifier: GPL-2.0
/*
 * Helper for the shell tests in the VM: what the kernel says about the
 * calling task's timer slack, and the other things a shell cannot do.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <linux/sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "probe_run.h"
#include "sleep_paths.h"
#include "timer_slack.h"

/*
 * Print the effective slack here, then in a child that clone3() starts in
 * the cgroup directory @dir, as systemd starts services.
 */
static int clone_into(const char *dir)
{
	struct clone_args args = { .flags = CLONE_INTO_CGROUP, .exit_signal = SIGCHLD };
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), status;
	long pid;

	if (fd < 0) {
		perror(dir);
		return 1;
	}
	printf("%ld ", sleep_slack());
	fflush(stdout);
	args.cgroup = fd;
	pid = syscall(SYS_clone3, &args, sizeof(args));
	if (pid == 0) {
		printf("%ld\n", sleep_slack());
		fflush(stdout);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		perror("tslack-probe: clone3");
		return 1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static void exit_now(int sig)
{
	_exit(sig ? 0 : 1);
}

static int usage(void)
{
	fputs("Usage: tslack-probe effective|own\n"
	      "       tslack-probe set-own NS (then print the effective slack)\n"
	      "       tslack-probe threads SECONDS (two threads; print the pid)\n"
	      "       tslack-probe pty KEYS DELAY_MS COMMAND [ARG]...\n"
	      "       tslack-probe watch COUNT INTERVAL_MS\n"
	      "       tslack-probe clone-into CGROUP_DIR\n"
	      "       tslack-probe sleeps PHASE SLACK_NS [no-futex2]\n"
	      "       tslack-probe trace-spec (for TSLACK_HRTIMER_START, as root)\n"
	      "       tslack-probe rate SECONDS INTERVAL_MS\n"
	      "       tslack-probe churn SECONDS [PERIOD_MS] (then print 'final CGROUP SLACK')\n"
	      "       tslack-probe without-caps COMMAND [ARG]...\n"
	      "       tslack-probe as-user UID COMMAND [ARG]...\n"
	      "       tslack-probe in-cgroupns COMMAND [ARG]... (its own cgroup2 mount)\n"
	      "       tslack-probe kill-after USECS COMMAND [ARG]...\n"
	      "       tslack-probe duration COUNT COMMAND [ARG]...\n"
	      "       tslack-probe lock PATH COMMAND [ARG]... (COMMAND holds a flock on PATH)\n"
	      "       tslack-probe move-wait CGROUP_DIR NS (microseconds until the slack is NS)\n"
	      "       tslack-probe lower-wait NS (set it, then wait until it is raised)\n"
	      "       tslack-probe lower-proc-wait NS (the same through /proc/self/timerslack_ns)\n"
	      "       tslack-probe many-threads N SECONDS (N threads; print the pid)\n"
	      "       tslack-probe fifo SECONDS (SCHED_FIFO; print the pid)\n"
	      "       tslack-probe sched TID fifo|other\n"
	      "       tslack-probe forks N (N children that exit at once)\n",
	      stderr);
	return 2;
}

struct slack_watch {
	unsigned long long ns;	/* the slack awaited */
	bool raised;		/* any slack above @ns will do */
	pthread_barrier_t go;	/* passed once the main thread has set t0 */
	bool failed;		/* the change failed: nothing to wait for */
	uint64_t t0;
	int ret;
};

/*
 * The main thread's slack, polled every POLL_US by a SCHED_FIFO thread:
 * per-task mode leaves real-time threads alone, and their sleeps take no
 * slack, so the polling is as fine after the change as before it. Polled
 * by the main thread itself, one sleep would take the new slack, and
 * the time measured would be up to that slack late. Not finer: the
 * follower may share this thread's CPU, and each poll preempts it.
 */
#define POLL_US 500

static void *watch_slack(void *arg)
{
	struct slack_watch *w = arg;
	unsigned long long v = 0;
	char path[64], buf[32];
	uint64_t t;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/timerslack_ns", getpid());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(path);
		w->ret = 1;
		pthread_barrier_wait(&w->go);
		return NULL;
	}
	pthread_barrier_wait(&w->go);
	while (!w->failed && (t = monotonic_ns()) - w->t0 < 5000000000ULL) {
		n = pread(fd, buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			break;
		buf[n] = '\0';
		v = strtoull(buf, NULL, 10);
		if (w->raised ? v > w->ns : v == w->ns) {
			printf("%llu %llu\n", (unsigned long long)(t - w->t0) / 1000, v);
			w->ret = 0;
			close(fd);
			return NULL;
		}
		usleep(POLL_US);
	}
	if (!w->failed)
		printf("timeout %llu\n", v);
	w->ret = 1;
	close(fd);
	return NULL;
}

/*
 * Per-task mode's latency: move into @dir (as "echo $$ > cgroup.procs"
 * does), or with no @dir lower the own slack to @ns; then print the
 * microseconds from then until the slack is @ns (or, lowered, raised above it) and
 * the slack then. 5 s at most: then "timeout" and exit 1.
 */
static int wait_slack(const char *dir, unsigned long long ns, bool through_proc)
{
	struct slack_watch w = { .ns = ns, .raised = !dir, .ret = 1 };
	struct sched_param sp = { .sched_priority = 10 };
	char path[4096];
	pthread_attr_t attr;
	pthread_t thread;
	FILE *f;

	/*
	 * The watcher exists before the change, so that the time measured
	 * is the follower's, not that of creating a thread.
	 */
	pthread_barrier_init(&w.go, NULL, 2);
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	pthread_attr_setschedparam(&attr, &sp);
	errno = pthread_create(&thread, &attr, watch_slack, &w);
	pthread_attr_destroy(&attr);
	if (errno) {
		perror("tslack-probe: a SCHED_FIFO thread");
		return 1;
	}
	/*
	 * Timed from the return of the write, when this task runs in its new
	 * cgroup: before it moves anything, the write may wait for an RCU
	 * grace period (percpu_down_write() of cgroup_threadgroup_rwsem),
	 * which no follower of moves can shorten.
	 */
	if (dir) {
		snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
		f = fopen(path, "w");
		if (!f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f)) {
			perror(path);
			w.failed = true;
		}
	} else if (through_proc) {
		/* As a thread may itself, without any capability. */
		f = fopen("/proc/self/timerslack_ns", "w");
		if (!f || fprintf(f, "%llu\n", ns) < 0 || fclose(f)) {
			perror("/proc/self/timerslack_ns");
			w.failed = true;
		}
	} else {
		prctl(PR_SET_TIMERSLACK, ns, 0, 0, 0);
	}
	w.t0 = monotonic_ns();
	pthread_barrier_wait(&w.go);
	pthread_join(thread, NULL);
	return w.failed ? 1 : w.ret;
}

static void *sleep_forever(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* "final CGROUP SLACK": where this task ended, and the slack it sleeps with. */
static int print_final(void)
{
	char line[4096];
	FILE *f = fopen("/proc/self/cgroup", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		printf("final %s %ld\n", line + 3, sleep_slack());
		fclose(f);
		return 0;
	}
	if (f)
		fclose(f);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "effective")) {
		printf("%ld\n", sleep_slack());
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "set-own")) {
		prctl(PR_SET_TIMERSLACK, strtoul(argv[2], NULL, 10), 0, 0, 0);
		printf("%ld\n", sleep_slack());
		return 0;
	}
	if (argc >= 5 && !strcmp(argv[1], "pty"))
		return on_pty(argv[2], atol(argv[3]) / 10 * 10 ?: 10, argv + 4);
	if (argc == 3 && !strcmp(argv[1], "threads")) {
		/* Two threads, the second with its own slack, until killed. */
		pthread_t t;

		signal(SIGTERM, exit_now);
		if (pthread_create(&t, NULL, sleep_forever, NULL))
			return 1;
		printf("%d\n", getpid());
		fflush(stdout);
		sleep(atoi(argv[2]));
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "own")) {
		printf("%ld\n", own_slack());
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "watch")) {
		long n = atol(argv[2]), ms = atol(argv[3]);
		struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

		/* Stopped by the test: a normal exit, no shell job message. */
		signal(SIGTERM, exit_now);
		/* One line per wakeup: the slack the next sleep will use. */
		while (n-- > 0) {
			printf("%ld\n", sleep_slack());
			fflush(stdout);
			nanosleep(&ts, NULL);
		}
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "clone-into"))
		return clone_into(argv[2]);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "sleeps")) {
		uint64_t slack = strtoull(argv[3], NULL, 10);

		/* no-futex2: the policy was attached with tslackctl attach --no-futex2. */
		if (argc == 5 && strcmp(argv[4], "no-futex2"))
			return usage();
		policy_futex2 = argc == 4;
		check_sleep_paths(argv[2], slack, slack ? slack : 20000000);
		return harness_exit_status();
	}
	if (argc == 2 && !strcmp(argv[1], "trace-spec")) {
		char spec[64];

		if (hrtimer_start_spec(spec, sizeof(spec)))
			return 1;
		printf("%s\n", spec);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "rate")) {
		uint64_t req = atol(argv[3]) * 1000000ULL, t0, t, late = 0;
		uint64_t end = monotonic_ns() + atol(argv[2]) * 1000000000ULL;
		struct timespec ts = { req / 1000000000, req % 1000000000 };
		unsigned long n = 0;

		/* A periodic sleeper: how often it wakes, and how late. */
		for (t0 = monotonic_ns(); t0 < end; t0 = t, n++) {
			nanosleep(&ts, NULL);
			t = monotonic_ns();
			late += t - t0 - req;
		}
		printf("%.0f wakeups/s, %.2f ms late on average\n",
		       n / (double)atol(argv[2]), n ? late / 1e6 / n : 0);
		return 0;
	}
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "churn")) {
		/* The stress test ends the sleepers once its races are over. */
		churn_stop_file = getenv("CHURN_STOP_FILE");
		if (churn_sleeps(atol(argv[2]) * 1000000000ULL,
				 (argc == 4 ? atol(argv[3]) : 1) * 1000000ULL))
			return 1;
		return print_final();
	}
	if (argc >= 3 && !strcmp(argv[1], "without-caps"))
		return exec_without_caps(argv + 2);
	if (argc >= 4 && !strcmp(argv[1], "as-user"))
		return exec_as_user(atoi(argv[2]), argv + 3);
	if (argc >= 3 && !strcmp(argv[1], "in-cgroupns"))
		return exec_in_cgroupns(argv + 2);
	if (argc >= 4 && !strcmp(argv[1], "kill-after"))
		return kill_after(atol(argv[2]), argv + 3);
	if (argc >= 4 && !strcmp(argv[1], "duration") && atol(argv[2]) > 0)
		return duration(atol(argv[2]), argv + 3);
	if (argc == 4 && !strcmp(argv[1], "move-wait"))
		return wait_slack(argv[2], strtoull(argv[3], NULL, 10), false);
	if (argc == 3 && !strcmp(argv[1], "lower-wait"))
		return wait_slack(NULL, strtoull(argv[2], NULL, 10), false);
	if (argc == 3 && !strcmp(argv[1], "lower-proc-wait"))
		return wait_slack(NULL, strtoull(argv[2], NULL, 10), true);
	if (argc == 4 && !strcmp(argv[1], "many-threads")) {
		/* N threads in all, until killed or SECONDS pass. */
		long i, n = atol(argv[2]);
		pthread_t t;

		signal(SIGTERM, exit_now);
		for (i = 1; i < n; i++) {
			if (pthread_create(&t, NULL, sleep_forever, NULL)) {
				perror("tslack-probe: a thread");
				return 1;
			}
		}
		printf("%d\n", getpid());
		fflush(stdout);
		sleep(atoi(argv[3]));
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "fifo")) {
		struct sched_param sp = { .sched_priority = 10 };

		signal(SIGTERM, exit_now);
		if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
			perror("tslack-probe: SCHED_FIFO");
			return 1;
		}
		printf("%d\n", getpid());
		fflush(stdout);
		sleep(atoi(argv[2]));
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "sched")) {
		/* Thread TID made SCHED_FIFO or SCHED_OTHER (busybox has no chrt). */
		struct sched_param sp = { .sched_priority = !strcmp(argv[3], "fifo") ? 10 : 0 };

		if (sched_setscheduler(atoi(argv[2]), sp.sched_priority ? SCHED_FIFO : SCHED_OTHER,
				       &sp)) {
			perror("tslack-probe: sched_setscheduler");
			return 1;
		}
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "forks")) {
		long i, n = atol(argv[2]);

		for (i = 0; i < n; i++) {
			pid_t pid = fork();

			if (pid == 0)
				_exit(0);
			if (pid < 0 || waitpid(pid, NULL, 0) != pid)
				return 1;
		}
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "lock"))
		return exec_locked(argv[2], argv + 3);
	return usage();
}
