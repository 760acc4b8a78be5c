// SPDX-License-Identifier: GPL-2.0
/*
 * tslackctl follow: per-task mode's writer, on kernels without the hook.
 * The policy's apply iterator plans which thread's own slack to raise or
 * give back (tslack_pertask.bpf.h) and this writes it (lib/pertask.c): at
 * once for the threads the events ring buffer names (forked or moved
 * where a setting applies, or that set their own slack; all of them after
 * a write to the settings map), and by a full pass over every thread
 * every PASS_SECONDS.
 *
 * Its work is bounded by limits, not by what users do (follow_budget.c): acting
 * on events takes at most a fifth of a CPU, the rest wait for a full
 * pass, and a full pass waits ten times the CPU the last one took. The
 * lock that detach and the writers of the map need is held at most
 * SLICE_MS at a time, then let go for as long. One follower at a time.
 * After a detach it waits for the next attach; it stops on SIGTERM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/bpffs.h"
#include "lib/pertask.h"
#include "lib/policy.h"
#include "follow.h"
#include "tslackctl.h"

/* Where the one follower says who it is. */
#define FOLLOW_LOCK "/run/tslack/follow.lock"

static volatile sig_atomic_t stop;

static void on_signal(int sig __always_unused)
{
	stop = 1;
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

/*
 * Hold off detach while acting: it takes the lock to give every thread its
 * own slack back, after which nothing may raise it again. 1 if still
 * attached (locked then), 0 if detached, -errno.
 */
static int lock_attached(struct follower *f)
{
	int ret;

	if (flock(f->dir, LOCK_SH))
		return -errno;
	ret = has_link(f->dir);
	if (ret <= 0) {
		flock(f->dir, LOCK_UN);
		return ret;
	}
	f->locked = true;
	f->locked_at = now();
	return 1;
}

static void unlock(struct follower *f)
{
	if (f->locked)
		flock(f->dir, LOCK_UN);
	f->locked = false;
}

/*
 * Between slices of a pass: after SLICE_MS holding the lock, let it go for
 * as long, so that a writer waiting for it gets it; then whether to go on.
 * 0, -ENOENT when detached meanwhile (nothing more may be written), or
 * -EAGAIN when an event's pass is over its budget.
 */
static int on_slice(void *ctx, size_t n __always_unused)
{
	struct timespec gap = { 0, SLICE_MS * 1000000L };
	struct follower *f = ctx;
	int ret;

	if (now() - f->locked_at >= SLICE_MS / 1000.0) {
		unlock(f);
		nanosleep(&gap, NULL);
		ret = lock_attached(f);
		if (ret <= 0) {
			f->detached = true;
			return ret ? ret : -ENOENT;
		}
	}
	return f->in_event && !budget_left(f) ? -EAGAIN : 0;
}

/* Plan and write the threads an event names: 0, or -errno to stop. */
static int act(struct follower *f, int pid, int tid)
{
	long n;

	f->in_event = true;
	n = pertask_pass(f->apply, pid, tid, &f->write_err, on_slice, f);
	f->in_event = false;
	if (n == -EAGAIN || (n < 0 && !f->detached)) {
		f->pass_due = true;
		return 0;
	}
	return n < 0 ? n : 0;
}

static int on_event(void *ctx, void *data, size_t len)
{
	const struct tslack_unraise *u = data;
	const struct tslack_event *ev = data;
	struct follower *f = ctx;
	int ret;

	if (f->detached || len < sizeof(*ev))
		return f->detached ? -ENOENT : 0;
	f->last_event = now();
	/* A fork's own slack back: one write, whatever the budget. */
	if (ev->type == TSLACK_EV_UNRAISE) {
		ret = len < sizeof(*u) ? 0 : pertask_write(&u->w);
		if (ret < 0 && !f->write_err)
			f->write_err = ret;
		return 0;
	}
	if (ev->type == TSLACK_EV_ALL)
		f->map_written = true;
	if (ev->type == TSLACK_EV_ALL || !budget_left(f)) {
		f->pass_due = true;
		return 0;
	}
	if (ev->type == TSLACK_EV_PROCESS)
		return act(f, ev->tgid, 0);
	/* Where the tid filter finds main threads only, the whole process. */
	if (ev->type == TSLACK_EV_THREAD)
		return f->tid_filter ? act(f, 0, ev->pid) : act(f, ev->tgid, 0);
	f->pass_due = true;
	return 0;
}

/* Say who follows, and when it last caught up (0: not yet), in the follower map. */
static int say_follower(struct follower *f, bool caught_up)
{
	struct tslack_follower me = { .tgid = getpid() };
	__u32 zero = 0;

	if (caught_up)
		me.caught_up_ns = now() * 1e9;
	return bpf_map_update_elem(f->follower_map, &zero, &me, BPF_ANY) ? -errno : 0;
}

static int full_pass(struct follower *f)
{
	__u64 lost = 0;
	__u32 zero = 0;
	double cpu = cpu_now();
	long n;

	/* Said once while the ring buffer keeps overflowing, again after a pass without. */
	if (!bpf_map_lookup_elem(f->lost_map, &zero, &lost) && lost != f->lost) {
		if (!f->said_lost)
			say("the events ring buffer was full: followed by full passes (said once until it is not)");
		f->said_lost = true;
		f->lost = lost;
	} else {
		f->said_lost = false;
	}
	n = pertask_pass(f->apply, 0, 0, &f->write_err, on_slice, f);
	pass_done(f, cpu_now() - cpu);
	if (n < 0 && !f->detached)
		return fail_errno("a pass over every thread", n);
	if (n >= 0)
		say_follower(f, true);
	f->pass_due = false;
	f->map_written = false;
	return 0;
}

/* Until detached (0) or stopped (0), or an exit status. */
static int follow(struct follower *f, struct ring_buffer *rb)
{
	struct pollfd pfd = { .fd = ring_buffer__epoll_fd(rb), .events = POLLIN };
	int ret = 0, failed = 0;
	double wait;

	while (!stop) {
		ret = lock_attached(f);
		if (ret <= 0)
			break;
		/* What happened while we were away is in the ring buffer. */
		if (ring_buffer__consume(rb) < 0 && !f->detached)
			f->pass_due = true;
		storm_check(f);
		if (!f->detached && now() >= next_pass(f))
			failed = full_pass(f);
		unlock(f);
		check_writes(f);
		if (failed || f->detached)
			return failed;
		wait = next_pass(f) - now();
		/* During a storm, wake each second to see whether it is over. */
		if (f->storm && wait > 1)
			wait = 1;
		if (poll(&pfd, 1, wait > 0 ? (int)(wait * 1000) + 1 : 0) < 0 && errno != EINTR)
			return fail_errno("waiting for events", -errno);
	}
	if (ret < 0)
		return fail_errno(TSLACK_PIN_DIR, ret);
	return 0;
}

static void follower_close(struct follower *f, struct ring_buffer **rb, int *events)
{
	struct tslack_follower none = {};
	__u32 zero = 0;

	ring_buffer__free(*rb);
	*rb = NULL;
	if (f->follower_map >= 0)
		bpf_map_update_elem(f->follower_map, &zero, &none, BPF_ANY);
	if (*events >= 0)
		close(*events);
	if (f->lost_map >= 0)
		close(f->lost_map);
	if (f->follower_map >= 0)
		close(f->follower_map);
	if (f->apply >= 0)
		close(f->apply);
	if (f->dir >= 0)
		close(f->dir);
	*events = f->dir = f->apply = f->lost_map = f->follower_map = -1;
}

/*
 * Whether the kernel finds a thread by its tid (pertask.h); if not, an
 * event for a thread plans its whole process. Said once a follow.
 */
static int check_tid_filter(struct follower *f)
{
	int query, ret;

	query = get_at(f->dir, "query-task");
	ret = query < 0 ? query : pertask_tid_filter_works(query);
	if (query >= 0)
		close(query);
	if (ret < 0)
		return fail_errno("trying the kernel's task iterator", ret);
	f->tid_filter = ret;
	if (!ret && !f->said_tid_filter)
		say("this kernel's task iterator finds a thread by its id only if it is its process's main one (fixed in Linux 6.1.115): an event for a thread plans its whole process");
	f->said_tid_filter = true;
	return 0;
}

/* Take the attached policy's pins: 0, or an exit status after saying why. */
static int follower_open(struct follower *f, struct ring_buffer **rb, int *events)
{
	int ret;

	f->dir = open_pin_dir();
	f->apply = f->dir < 0 ? f->dir : get_at(f->dir, "apply");
	f->lost_map = f->dir < 0 ? f->dir : get_at(f->dir, "events-lost");
	f->follower_map = f->dir < 0 ? f->dir : get_at(f->dir, "follower");
	*events = f->dir < 0 ? f->dir : get_at(f->dir, "events");
	ret = f->apply < 0 ? f->apply : f->lost_map < 0 ? f->lost_map :
		f->follower_map < 0 ? f->follower_map : *events < 0 ? *events : 0;
	if (ret)
		return fail_errno(TSLACK_PIN_DIR, ret);
	/* Our own writes need no event (tslack_proc_write). */
	ret = say_follower(f, false);
	if (ret)
		return fail_errno("the follower map", ret);
	ret = check_tid_filter(f);
	if (ret)
		return ret;
	f->lost = 0;
	f->pass_due = false;
	f->map_written = false;
	f->detached = false;
	f->last_pass = 0;
	*rb = ring_buffer__new(*events, on_event, f, NULL);
	if (!*rb)
		return fail_errno("the events ring buffer", -errno);
	return 0;
}

int follower_running(void)
{
	int fd, ret;

	fd = open(FOLLOW_LOCK, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	ret = flock(fd, LOCK_SH | LOCK_NB) ? errno == EWOULDBLOCK ? 1 : -errno : 0;
	close(fd);
	return ret;
}

/*
 * One follower at a time: two would both move the ring buffer's consumer
 * and race each other's plans. The lock is in root's /run; its file says
 * who holds it. 0 (held until we exit), or an exit status.
 */
static int claim_follower(void)
{
	char pid[16] = "";
	int fd, err;
	ssize_t n;

	if (mkdir("/run/tslack", 0755) && errno != EEXIST)
		return fail_errno("/run/tslack", -errno);
	fd = open(FOLLOW_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return fail_errno(FOLLOW_LOCK, -errno);
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		err = errno;
		n = err == EWOULDBLOCK ? read(fd, pid, sizeof(pid) - 1) : -1;
		close(fd);
		if (err != EWOULDBLOCK)
			return fail_errno(FOLLOW_LOCK, -err);
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		say("another tslackctl follow is running (pid %s): one follower at a time",
		    *pid ? pid : "unknown");
		return EXIT_RUNTIME;
	}
	if (ftruncate(fd, 0) || dprintf(fd, "%d\n", getpid()) < 0)
		return fail_errno(FOLLOW_LOCK, -errno);
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
	struct follower f = { .dir = -1, .apply = -1, .lost_map = -1, .follower_map = -1 };
	struct ring_buffer *rb = NULL;
	int events = -1, ret;

	if (optind != argc)
		return usage_error("usage: tslackctl follow");
	if (!may_change_policy())
		return EXIT_RUNTIME;
	/* The plans number threads as the initial pid namespace does. */
	if (!pertask_in_init_ns()) {
		say("follow runs in the initial pid and time namespaces only");
		return EXIT_RUNTIME;
	}
	ret = per_task_attached();
	if (ret == -ENOENT) {
		say("tslack is not attached: run 'tslackctl attach' first");
		return EXIT_RUNTIME;
	}
	if (!ret)
		ret = claim_follower();
	if (ret)
		return ret;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/*
	 * Its own wakeups are a full pass every PASS_SECONDS, which may wait,
	 * and the ends of its lock gaps, which should not be much longer
	 * than SLICE_MS: a tenth of that.
	 */
	prctl(PR_SET_TIMERSLACK, SLICE_MS * 100000UL);
	/* A detach and an attach by hand: the new policy is followed too. */
	do {
		ret = follower_open(&f, &rb, &events);
		if (!ret)
			ret = follow(&f, rb);
		follower_close(&f, &rb, &events);
	} while (!ret && !stop && !(ret = wait_attach()));
	return ret < 0 ? 0 : ret;
}
