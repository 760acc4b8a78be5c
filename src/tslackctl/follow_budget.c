// SPDX-License-Identifier: GPL-2.0
/*
 * What bounds tslackctl follow's work, whatever users create: a share of
 * a CPU for events, and full passes paced by what the last one cost. A
 * storm (events past the share) is said when it starts and when it ends,
 * once each, so a log shows every storm and none floods it. It ends when
 * follow, looking at its events, has left none to a full pass for a
 * second, or has had none for a second; a full pass during a storm
 * counts as part of it.
 */
#define _GNU_SOURCE
#include <time.h>

#include "follow.h"
#include "tslackctl.h"

static double seconds(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double now(void)
{
	return seconds(CLOCK_MONOTONIC);
}

double cpu_now(void)
{
	return seconds(CLOCK_THREAD_CPUTIME_ID);
}

static void storm_over(struct follower *f)
{
	say("the storm of events is over: %lu were left to full passes", f->deferred);
	f->storm = false;
	f->deferred = 0;
}

void storm_check(struct follower *f)
{
	if (f->storm && now() - f->last_event >= 1)
		storm_over(f);
}

bool budget_left(struct follower *f)
{
	double t = now();

	if (t - f->second >= 1) {
		f->second = t;
		f->second_cpu = cpu_now();
	}
	if (cpu_now() - f->second_cpu < 1.0 / EVENT_CPU_SHARE_INV) {
		if (f->storm && t - f->last_deferred >= 1)
			storm_over(f);
		return true;
	}
	if (!f->storm)
		say("a storm of events: more than 1/%d of a CPU to follow them; the rest by full passes, paced by their cost, until it is over",
		    EVENT_CPU_SHARE_INV);
	f->storm = true;
	f->deferred++;
	f->last_deferred = t;
	return false;
}

void pass_done(struct follower *f, double cpu)
{
	f->last_pass = now();
	f->pass_cpu = cpu;
	if (f->storm) {
		f->last_deferred = f->last_pass;
		f->last_event = f->last_pass;
	}
}

double next_pass(const struct follower *f)
{
	/* A write to the map is followed as soon as the pacing allows. */
	double wait = f->map_written ? 0 : f->pass_due ? 1 : PASS_SECONDS;

	if (wait < PASS_COST_INV * f->pass_cpu)
		wait = PASS_COST_INV * f->pass_cpu;
	return f->last_pass + wait;
}
