// SPDX-License-Identifier: GPL-2.0
/*
 * tslackctl follow: per-task mode's writer, on kernels without the hook.
 * The policy's apply iterator plans which thread's own slack to raise or
 * give back (tslack.bpf.c) and this writes it (lib/pertask.c): at once
 * for the threads the events ring buffer names (forked or moved into
 * another cgroup, or that set their own slack; all of them after a
 * setting made by tslackctl), and by a full pass over every thread every
 * PASS_SECONDS (a direct bpftool write, an event the ring buffer had no
 * room for).
 *
 * It runs until stopped (SIGTERM): after a detach it waits for the next
 * attach. Its work is bounded whatever users do: at most BUDGET events a second
 * are acted on, the rest wait for the next full pass, at most one a
 * second; each is said once in the log.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/bpffs.h"
#include "lib/pertask.h"
#include "lib/policy.h"
#include "tslackctl.h"

/* A full pass this often, whatever happens. */
#define PASS_SECONDS 10
/* Events acted on in a second; the rest wait for a full pass. */
#define BUDGET 2000

struct follower {
	int dir;		/* the checked pin directory, also the lock */
	int apply;		/* the plan iterator */
	int lost_map;		/* events the ring buffer had no room for */
	__u64 lost;
	double second;		/* the start of the second BUDGET counts in */
	unsigned int spent;
	bool pass_due;		/* a full pass at the next chance */
	bool said_budget, said_lost, said_write;
	int write_err;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig __always_unused)
{
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Say once that a write failed: the thread keeps the slack it has. */
static void check_writes(struct follower *f)
{
	if (f->write_err && !f->said_write) {
		say("cannot write a thread's timer slack: %s (said once)", strerror(-f->write_err));
		f->said_write = true;
	}
	f->write_err = 0;
}

static bool within_budget(struct follower *f)
{
	double t = now();

	if (t - f->second >= 1) {
		f->second = t;
		f->spent = 0;
	}
	if (f->spent < BUDGET) {
		f->spent++;
		return true;
	}
	if (!f->said_budget) {
		say("more than %d changes a second to follow: the rest by full passes (said once)",
		    BUDGET);
		f->said_budget = true;
	}
	f->pass_due = true;
	return false;
}

static int on_event(void *ctx, void *data, size_t len)
{
	const struct tslack_event *ev = data;
	struct follower *f = ctx;

	if (len < sizeof(*ev) || !within_budget(f))
		return 0;
	switch (ev->type) {
	case TSLACK_EV_THREAD:
	case TSLACK_EV_PROCESS:
		if (pertask_pass(f->apply, ev->type == TSLACK_EV_PROCESS ? ev->pid : 0,
				 ev->type == TSLACK_EV_THREAD ? ev->pid : 0, &f->write_err) < 0)
			f->pass_due = true;
		break;
	default:
		f->pass_due = true;
	}
	return 0;
}

/*
 * Hold off detach (and writers of the map) while acting: it takes the lock
 * to give every thread its own slack back, after which nothing may raise
 * it again. 1 if still attached (locked then), 0 if detached, -errno.
 */
static int lock_attached(struct follower *f)
{
	int ret;

	if (flock(f->dir, LOCK_SH))
		return -errno;
	ret = has_link(f->dir);
	if (ret <= 0)
		flock(f->dir, LOCK_UN);
	return ret;
}

static int full_pass(struct follower *f)
{
	__u64 lost = 0;
	__u32 zero = 0;
	long n;

	if (!bpf_map_lookup_elem(f->lost_map, &zero, &lost) && lost != f->lost) {
		if (!f->said_lost)
			say("the events ring buffer was full: followed by full passes (said once)");
		f->said_lost = true;
		f->lost = lost;
	}
	n = pertask_pass(f->apply, 0, 0, &f->write_err);
	if (n < 0)
		return fail_errno("a pass over every thread", n);
	f->pass_due = false;
	return 0;
}

/* Until detached (0) or stopped (0), or an exit status. */
static int follow(struct follower *f, struct ring_buffer *rb)
{
	struct pollfd pfd = { .fd = ring_buffer__epoll_fd(rb), .events = POLLIN };
	double last_pass = 0, wait;
	int ret = 0, failed = 0;

	while (!stop) {
		ret = lock_attached(f);
		if (ret <= 0)
			break;
		/* What happened while we were away is in the ring buffer. */
		if (ring_buffer__consume(rb) < 0)
			f->pass_due = true;
		if (f->pass_due ? now() - last_pass >= 1 : now() - last_pass >= PASS_SECONDS) {
			failed = full_pass(f);
			last_pass = now();
		}
		flock(f->dir, LOCK_UN);
		check_writes(f);
		if (failed)
			return failed;
		wait = last_pass + (f->pass_due ? 1 : PASS_SECONDS) - now();
		if (poll(&pfd, 1, wait > 0 ? (int)(wait * 1000) + 1 : 0) < 0 && errno != EINTR)
			return fail_errno("waiting for events", -errno);
	}
	if (ret < 0)
		return fail_errno(TSLACK_PIN_DIR, ret);
	return 0;
}

static void follower_close(struct follower *f, struct ring_buffer **rb, int *events)
{
	ring_buffer__free(*rb);
	*rb = NULL;
	if (*events >= 0)
		close(*events);
	if (f->lost_map >= 0)
		close(f->lost_map);
	if (f->apply >= 0)
		close(f->apply);
	if (f->dir >= 0)
		close(f->dir);
	*events = f->dir = f->apply = f->lost_map = -1;
}

/* Take the attached policy's pins: 0, or an exit status after saying why. */
static int follower_open(struct follower *f, struct ring_buffer **rb, int *events)
{
	int ret;

	f->dir = open_pin_dir();
	f->apply = f->dir < 0 ? f->dir : get_at(f->dir, "apply");
	f->lost_map = f->dir < 0 ? f->dir : get_at(f->dir, "events-lost");
	*events = f->dir < 0 ? f->dir : get_at(f->dir, "events");
	ret = f->apply < 0 ? f->apply : f->lost_map < 0 ? f->lost_map : *events < 0 ? *events : 0;
	if (ret)
		return fail_errno(TSLACK_PIN_DIR, ret);
	f->lost = 0;
	f->pass_due = false;
	*rb = ring_buffer__new(*events, on_event, f, NULL);
	if (!*rb)
		return fail_errno("the events ring buffer", -errno);
	return 0;
}

/*
 * The policy's mode, or -errno: -ENOENT if it is not attached. The
 * hook's policy needs nothing followed: said, and EXIT_RUNTIME.
 */
static int per_task_attached(void)
{
	int mode = policy_mode();

	if (mode == POLICY_HOOK) {
		say("this kernel has the hook: every sleep asks the policy, nothing to follow");
		return EXIT_RUNTIME;
	}
	if (mode < 0 && mode != -ENOENT)
		return fail_errno(TSLACK_PIN_DIR, mode);
	return mode < 0 ? mode : 0;
}

/*
 * Detached: wait until a policy is attached again (an attach renames its
 * directory into bpffs: inotify says so; every PASS_SECONDS all the same)
 * or we are stopped. 0 attached again, -1 stopped, or an exit status.
 */
static int wait_attach(void)
{
	struct pollfd pfd = { .events = POLLIN };
	char buf[4096];
	int ret;

	pfd.fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (pfd.fd >= 0 && inotify_add_watch(pfd.fd, TSLACK_BPFFS, IN_MOVED_TO | IN_CREATE) < 0) {
		close(pfd.fd);
		pfd.fd = -1;
	}
	while (!stop) {
		ret = per_task_attached();
		if (ret != -ENOENT)
			break;
		if (poll(&pfd, 1, PASS_SECONDS * 1000) < 0 && errno != EINTR) {
			ret = fail_errno("waiting for an attach", -errno);
			break;
		}
		while (pfd.fd >= 0 && read(pfd.fd, buf, sizeof(buf)) > 0)
			;
	}
	if (pfd.fd >= 0)
		close(pfd.fd);
	return stop ? -1 : ret;
}

int cmd_follow(int argc, char **argv __always_unused, const struct opts *o __always_unused)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct follower f = { .dir = -1, .apply = -1, .lost_map = -1 };
	struct ring_buffer *rb = NULL;
	int events = -1, ret;

	if (optind != argc)
		return usage_error("usage: tslackctl follow");
	if (!may_change_policy())
		return EXIT_RUNTIME;
	/* The plans number threads as the initial pid namespace does. */
	if (!pertask_in_init_pidns()) {
		say("follow runs in the initial pid namespace only");
		return EXIT_RUNTIME;
	}
	ret = per_task_attached();
	if (ret == -ENOENT) {
		say("tslack is not attached: run 'tslackctl attach' first");
		return EXIT_RUNTIME;
	}
	if (ret)
		return ret;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/* Its own wakeups are a full pass every PASS_SECONDS: let them wait. */
	prctl(PR_SET_TIMERSLACK, 100000000UL);
	/* A detach and an attach by hand: the new policy is followed too. */
	do {
		ret = follower_open(&f, &rb, &events);
		if (!ret)
			ret = follow(&f, rb);
		follower_close(&f, &rb, &events);
	} while (!ret && !stop && !(ret = wait_attach()));
	return ret < 0 ? 0 : ret;
}
