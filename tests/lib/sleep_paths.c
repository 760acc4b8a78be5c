// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <linux/aio_abi.h>
#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "sleep_paths.h"

#ifndef SYS_futex_wait
#define SYS_futex_wait 455	/* Linux 6.7; Debian 12's headers predate it */
#endif

#define NSEC_PER_SEC 1000000000ULL

static struct timespec ts_of(uint64_t ns)
{
	return (struct timespec){ .tv_sec = ns / NSEC_PER_SEC,
				  .tv_nsec = ns % NSEC_PER_SEC };
}

uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* 0 when a sleep that should time out did, else -errno. */
static int timed_out(long ret, int expected_errno)
{
	if (ret == 0 && expected_errno == 0)
		return 0;
	if (ret < 0 && errno == expected_errno)
		return 0;
	return ret < 0 ? -errno : -EPROTO;
}

static int do_nanosleep(uint64_t ns)
{
	struct timespec ts = ts_of(ns);

	return timed_out(nanosleep(&ts, NULL), 0);
}

static int do_clock_nanosleep_rel(uint64_t ns)
{
	struct timespec ts = ts_of(ns);

	return -clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

static int do_clock_nanosleep_abs(uint64_t ns)
{
	struct timespec ts = ts_of(monotonic_ns() + ns);

	return -clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static int do_select(uint64_t ns)
{
	struct timeval tv = { .tv_sec = ns / NSEC_PER_SEC,
			      .tv_usec = ns % NSEC_PER_SEC / 1000 };

	return timed_out(select(0, NULL, NULL, NULL, &tv), 0);
}

static int do_pselect6(uint64_t ns)
{
	struct timespec ts = ts_of(ns);

	return timed_out(pselect(0, NULL, NULL, NULL, &ts, NULL), 0);
}

static int do_poll(uint64_t ns)
{
	return timed_out(poll(NULL, 0, ns / 1000000), 0);
}

static int do_ppoll(uint64_t ns)
{
	struct timespec ts = ts_of(ns);

	return timed_out(ppoll(NULL, 0, &ts, NULL), 0);
}

/* An epoll instance with nothing to report, created once. */
static int idle_epoll_fd(void)
{
	static int fd = -1;

	if (fd < 0)
		fd = epoll_create1(EPOLL_CLOEXEC);
	return fd;
}

static int do_epoll_wait(uint64_t ns)
{
	struct epoll_event ev;

	return timed_out(epoll_wait(idle_epoll_fd(), &ev, 1, ns / 1000000), 0);
}

static int do_epoll_pwait(uint64_t ns)
{
	struct epoll_event ev;

	return timed_out(epoll_pwait(idle_epoll_fd(), &ev, 1, ns / 1000000,
				     NULL), 0);
}

static int do_epoll_pwait2(uint64_t ns)
{
	struct timespec ts = ts_of(ns);
	struct epoll_event ev;

	return timed_out(syscall(SYS_epoll_pwait2, idle_epoll_fd(), &ev, 1,
				 &ts, NULL, 0), 0);
}

static int do_futex_wait(uint64_t ns)
{
	struct timespec ts = ts_of(ns);
	uint32_t word = 0;

	return timed_out(syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &ts,
				 NULL, 0), ETIMEDOUT);
}

static int do_futex_wait_requeue_pi(uint64_t ns)
{
	/* The timeout of FUTEX_WAIT_REQUEUE_PI is absolute, on MONOTONIC. */
	struct timespec ts = ts_of(monotonic_ns() + ns);
	uint32_t word = 0, pi_lock = 0;

	return timed_out(syscall(SYS_futex, &word,
				 FUTEX_WAIT_REQUEUE_PI_PRIVATE, 0, &ts,
				 &pi_lock, 0), ETIMEDOUT);
}

static int do_rt_sigtimedwait(uint64_t ns)
{
	struct timespec ts = ts_of(ns);
	sigset_t set;

	/* SIGUSR2 stays blocked and never sent: the wait always times out. */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	return timed_out(sigtimedwait(&set, NULL, &ts), EAGAIN);
}

static int do_io_getevents(uint64_t ns)
{
	static aio_context_t ctx;
	static pid_t owner;
	struct timespec ts = ts_of(ns);
	struct io_event ev;

	/* AIO contexts belong to the mm: a forked child needs its own. */
	if (owner != getpid()) {
		ctx = 0;
		if (syscall(SYS_io_setup, 1, &ctx))
			return -errno;
		owner = getpid();
	}
	return timed_out(syscall(SYS_io_getevents, ctx, 1, 1, &ev, &ts), 0);
}

static int do_semtimedop(uint64_t ns)
{
	static int semid = -1;
	struct sembuf op = { .sem_num = 0, .sem_op = -1 };
	struct timespec ts = ts_of(ns);

	if (semid < 0) {
		semid = semget(IPC_PRIVATE, 1, 0600);
		if (semid < 0)
			return -errno;
	}
	return timed_out(semtimedop(semid, &op, 1, &ts), EAGAIN);
}

static int do_timerfd(uint64_t ns)
{
	struct itimerspec its = { .it_value = ts_of(ns) };
	uint64_t ticks;
	int fd, ret = 0;

	fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (timerfd_settime(fd, 0, &its, NULL) ||
	    read(fd, &ticks, sizeof(ticks)) != sizeof(ticks))
		ret = -errno;
	close(fd);
	return ret;
}

static int do_futex_waitv(uint64_t ns)
{
	struct timespec ts = ts_of(monotonic_ns() + ns);
	uint32_t word = 0;
	struct futex_waitv w = {
		.val = 0,
		.uaddr = (uintptr_t)&word,
		.flags = FUTEX_32 | FUTEX_PRIVATE_FLAG,
	};

	return timed_out(syscall(SYS_futex_waitv, &w, 1, 0, &ts,
				 CLOCK_MONOTONIC), ETIMEDOUT);
}

/* The futex2 futex_wait (Linux 6.7), which takes only a policy's slack. */
static int do_futex2_wait(uint64_t ns)
{
	struct timespec ts = ts_of(monotonic_ns() + ns);
	uint32_t word = 0;

	return timed_out(syscall(SYS_futex_wait, &word, 0, FUTEX_BITSET_MATCH_ANY,
				 FUTEX_32 | FUTEX_PRIVATE_FLAG, &ts, CLOCK_MONOTONIC),
			 ETIMEDOUT);
}

const struct sleep_path sleep_paths[] = {
	{ "nanosleep", do_nanosleep, SLACK_TASK },
	{ "clock_nanosleep_rel", do_clock_nanosleep_rel, SLACK_TASK },
	{ "clock_nanosleep_abs", do_clock_nanosleep_abs, SLACK_TASK },
	{ "select", do_select, SLACK_TASK },
	{ "pselect6", do_pselect6, SLACK_TASK },
	{ "poll", do_poll, SLACK_TASK },
	{ "ppoll", do_ppoll, SLACK_TASK },
	{ "epoll_wait", do_epoll_wait, SLACK_TASK },
	{ "epoll_pwait", do_epoll_pwait, SLACK_TASK },
	{ "epoll_pwait2", do_epoll_pwait2, SLACK_TASK },
	{ "futex_wait", do_futex_wait, SLACK_TASK },
	{ "futex_wait_requeue_pi", do_futex_wait_requeue_pi, SLACK_TASK },
	{ "rt_sigtimedwait", do_rt_sigtimedwait, SLACK_TASK },
	{ "io_getevents", do_io_getevents, SLACK_TASK },
	{ "semtimedop", do_semtimedop, SLACK_TASK },
	{ "timerfd", do_timerfd, SLACK_NONE },
	{ "futex_waitv", do_futex_waitv, SLACK_POLICY },
	{ "futex2_wait", do_futex2_wait, SLACK_POLICY },
};

const unsigned int nr_sleep_paths = ARRAY_SIZE(sleep_paths);

bool policy_futex2 = true;

/* Whether @p's timer takes the slack of a policy, by its answer. */
static bool takes_slack(const struct sleep_path *p)
{
	return p->slack == SLACK_TASK || (p->slack == SLACK_POLICY && policy_futex2);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int measure_lateness(const struct sleep_path *path, uint64_t req_ns,
		     unsigned int samples, int64_t *median, bool *early)
{
	int64_t late[samples];
	unsigned int i;
	uint64_t t0;
	int err;

	*early = false;
	for (i = 0; i < samples; i++) {
		t0 = monotonic_ns();
		err = path->sleep(req_ns);
		if (err)
			return err;
		late[i] = (int64_t)(monotonic_ns() - t0 - req_ns);
		if (late[i] < 0)
			*early = true;
	}
	qsort(late, samples, sizeof(late[0]), cmp_i64);
	*median = late[samples / 2];
	return 0;
}

/* Without high-resolution timers, ticks decide when sleepers wake. */
static void check_high_res(const char *phase)
{
	struct timespec res;
	char name[128];

	snprintf(name, sizeof(name), "%s/high_res_timers", phase);
	clock_getres(CLOCK_MONOTONIC, &res);
	report(name, res.tv_sec == 0 && res.tv_nsec == 1,
	       "CLOCK_MONOTONIC resolution is %ld ns: no high-resolution mode, so no slack to see",
	       res.tv_nsec);
}

/* One path's sleeps of 1 ms: about @slack_ns late, or well under @scale_ns. */
static void check_sleep_path(const char *name, const struct sleep_path *p, uint64_t slack_ns,
			     uint64_t scale_ns)
{
	const uint64_t req_ns = 1000000;
	int64_t late;
	bool early;
	int err;

	err = measure_lateness(p, req_ns, 5, &late, &early);
	if (err)
		report(name, false, "sleep failed: %s", strerror(-err));
	else if (slack_ns && takes_slack(p))
		report(name, !early && late >= (int64_t)slack_ns / 2,
		       "woke %lld ns late%s, expected about %llu",
		       (long long)late, early ? " (and early)" : "",
		       (unsigned long long)slack_ns);
	else
		report(name, !early && late < (int64_t)scale_ns / 4,
		       "woke %lld ns late%s, expected well under %llu",
		       (long long)late, early ? " (and early)" : "",
		       (unsigned long long)scale_ns / 4);
}

void check_sleep_paths(const char *phase, uint64_t slack_ns, uint64_t scale_ns)
{
	char name[128];
	unsigned int i;

	check_high_res(phase);
	for (i = 0; i < nr_sleep_paths; i++) {
		snprintf(name, sizeof(name), "%s/%s", phase, sleep_paths[i].name);
		check_sleep_path(name, &sleep_paths[i], slack_ns, scale_ns);
	}
}

const char *churn_stop_file;

int churn_sleeps(uint64_t ns, uint64_t period_ns)
{
	uint64_t end = monotonic_ns() + ns;
	unsigned int i = 0;
	int64_t late;
	bool early;
	int err;

	while (monotonic_ns() < end) {
		const struct sleep_path *p = &sleep_paths[i++ % nr_sleep_paths];

		if (churn_stop_file && !access(churn_stop_file, F_OK))
			break;

		err = measure_lateness(p, period_ns, 1, &late, &early);
		if (err || early) {
			printf("# %s: %s\n", p->name, err ? strerror(-err) : "woke early");
			fflush(stdout);
			return -1;
		}
	}
	return 0;
}
