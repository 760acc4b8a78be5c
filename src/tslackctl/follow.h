/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tslackctl follow's state (follow.c), and the limits that bound its work
 * whatever users do (follow_budget.c).
 */
#ifndef TSLACKCTL_FOLLOW_H
#define TSLACKCTL_FOLLOW_H

#include <stdbool.h>
#include <linux/types.h>

/* The lock that writers and detach need: held at most this long, then let go as long. */
#define SLICE_MS 20
/* Acting on events takes at most 1/EVENT_CPU_SHARE_INV of a CPU; the rest wait for a pass. */
#define EVENT_CPU_SHARE_INV 5
/* A full pass waits at least PASS_COST_INV times the CPU the last one took. */
#define PASS_COST_INV 10
/* A full pass this often, whatever happens; at most once a second when one is due. */
#define PASS_SECONDS 10

struct follower {
	int dir;		/* the checked pin directory, also the lock */
	int apply;		/* the plan iterator */
	int lost_map;		/* events the ring buffer had no room for */
	int follower_map;	/* our tgid, for the policy */
	__u64 lost;
	bool locked, detached, in_event;
	bool tid_filter;	/* the kernel finds a thread by its tid */
	bool pass_due;		/* a full pass at the next chance */
	bool map_written;	/* the settings map was written: a pass at once */
	double locked_at;
	double last_pass;	/* when the last full pass ended */
	double pass_cpu;	/* and the CPU it took */
	double second, second_cpu;	/* the budget's second: its start, our CPU then */
	unsigned long deferred;	/* events left to full passes in this storm */
	double last_deferred;	/* when the last one was */
	double last_event;	/* when follow last looked at an event */
	bool storm, said_lost, said_write, said_tid_filter;
	int write_err;
};

/*
 * Does a tslackctl follow run (it holds /run/tslack/follow.lock)? 1, 0,
 * or -errno (only root may look). For tslackctl status.
 */
int follower_running(void);

/* CLOCK_MONOTONIC, and this thread's CPU time, in seconds. */
double now(void);
double cpu_now(void);

/*
 * May an event be acted on now? Not when this second's share of CPU is
 * spent: the event is then left to a full pass, and the storm said once.
 */
bool budget_left(struct follower *f);
/* After looking at the events: a storm with none for a second is over. */
void storm_check(struct follower *f);

/* A full pass ended now, having taken @cpu seconds of CPU. */
void pass_done(struct follower *f, double cpu);
/* When the next full pass is due. */
double next_pass(const struct follower *f);

#endif
