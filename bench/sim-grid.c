// SPDX-License-Identifier: GPL-2.0
/*
 * A simulation of make bench's alignment load, to compare grids without a
 * kernel: 16 sleepers sleeping 10 ms (+-20%) with 50 ms of slack, sleeper
 * i on CPU i modulo the CPUs. A CPU leaves idle at the earliest hard
 * expiry of its timers and runs every timer whose soft expiry has passed,
 * as __hrtimer_run_queues() does; each woken sleeper sleeps again 20 us
 * later. Package wakeups are CPUs leaving idle, those within 200 us of
 * the previous one counted once, as tslackctl top counts them.
 *
 * Prints, for each grid and 2 and 8 CPUs: per-CPU wakeups a second,
 * package wakeups a second, both against per-task slack, and the mean
 * lateness of a sleep. Then the v5 grid with wider windows: the package
 * wakeups they cost against the margin they give a waker whose sleep
 * ends 20 ms before a waiter's timeout, both with 60 ms of slack (the
 * kselftest's pair: window x 20 / 60). This load's sleepers wake nearly in
 * phase, so their places in a window stay close: timers of unrelated
 * phases spread over all of it, and meet less often as it grows, which
 * this model does not price. It is a model, not a measurement.
 *
 * Build and run: cc -O2 -Wall -o build/sim-grid bench/sim-grid.c && build/sim-grid
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define US		1000LL
#define MS		(1000 * US)
#define SLEEPERS	16
#define SLACK		(50 * MS)
#define WINDOW		(200 * US)	/* package wakeups: CPUs within it count once */
#define RUN		(600LL * 1000 * MS)
#define REARM		(20 * US)

enum grid { PER_TASK, GRID_POW2, GRID, GRID_WINDOW, GRID_HALF, GRID_6_5, GRID_2S };

static const char *const names[] = {
	[PER_TASK] = "per-task (expiry + slack)",
	[GRID_POW2] = "grid = power of two <= slack",
	[GRID] = "grid = slack (v4)",
	[GRID_WINDOW] = "grid = slack, 200 us window (v5)",
	[GRID_HALF] = "grid = slack / 2",
	[GRID_6_5] = "grid = 1.2 x slack, else per-task",
	[GRID_2S] = "grid = 2 x slack, else per-task",
};

static uint64_t rng;
/* The v5 grid's window: where in it a timer expires keeps their order. */
static int64_t window = WINDOW;

static int64_t uniform(int64_t lo, int64_t hi)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return lo + (int64_t)(rng % (uint64_t)(hi - lo + 1));
}

/* The hard expiry a sleep with soft expiry @soft gets under @g. */
static int64_t hard_expiry(enum grid g, int64_t soft)
{
	int64_t hard = soft + SLACK, step, rem;

	switch (g) {
	case PER_TASK:
		return hard;
	case GRID_POW2:
		/* Never more than the slack: a grid point is always in range. */
		for (step = 1; 2 * step <= SLACK; step *= 2)
			;
		return hard - hard % step;
	case GRID:
	case GRID_WINDOW:
		rem = hard % SLACK;
		return hard - rem + (g == GRID_WINDOW ? rem * window / SLACK : 0);
	case GRID_HALF:
	case GRID_6_5:
	case GRID_2S:
		step = g == GRID_HALF ? SLACK / 2 : g == GRID_6_5 ? SLACK * 6 / 5 : 2 * SLACK;
		rem = hard % step;
		/* No grid point in [soft, soft + slack]: plain slack. */
		return hard - rem >= soft ? hard - rem : hard;
	}
	return hard;
}

struct result {
	double cpu_wakeups, package_wakeups, lateness_ms;
};

static struct result simulate(enum grid g, int cpus)
{
	int64_t soft[SLEEPERS], hard[SLEEPERS], now = 0, last_wake = -WINDOW - 1;
	long long cpu_wakeups = 0, package_wakeups = 0, sleeps = 0;
	double late = 0;
	int i, c;

	/* The same draws for every grid. */
	rng = 88172645463325252ULL;
	for (i = 0; i < SLEEPERS; i++) {
		soft[i] = uniform(0, 10 * MS) + uniform(8 * MS, 12 * MS);
		hard[i] = hard_expiry(g, soft[i]);
	}
	while (now < RUN) {
		int64_t next = INT64_MAX;
		int who = 0;

		/* The CPU whose next hard expiry comes first leaves idle. */
		for (c = 0; c < cpus; c++)
			for (i = c; i < SLEEPERS; i += cpus)
				if (hard[i] < next) {
					next = hard[i];
					who = c;
				}
		now = next;
		cpu_wakeups++;
		if (now - last_wake > WINDOW)
			package_wakeups++;
		last_wake = now;
		for (i = who; i < SLEEPERS; i += cpus) {
			if (soft[i] > now)
				continue;
			late += now - soft[i];
			sleeps++;
			soft[i] = now + REARM + uniform(8 * MS, 12 * MS);
			hard[i] = hard_expiry(g, soft[i]);
		}
	}
	return (struct result){
		.cpu_wakeups = cpu_wakeups / (double)cpus / (RUN / 1e9),
		.package_wakeups = package_wakeups / (RUN / 1e9),
		.lateness_ms = late / sleeps / MS,
	};
}

int main(void)
{
	static const int cpu_counts[] = { 2, 8 };
	unsigned int k;
	int g;

	printf("%-34s %4s %14s %8s %16s %8s %12s\n", "grid", "CPUs", "CPU wakeups/s",
	       "of task", "package wakeups/s", "of task", "lateness ms");
	for (k = 0; k < sizeof(cpu_counts) / sizeof(cpu_counts[0]); k++) {
		struct result base = simulate(PER_TASK, cpu_counts[k]);

		for (g = PER_TASK; g <= GRID_2S; g++) {
			struct result r = simulate(g, cpu_counts[k]);

			printf("%-34s %4d %14.1f %8.3f %16.1f %8.3f %12.1f\n", names[g],
			       cpu_counts[k], r.cpu_wakeups, r.cpu_wakeups / base.cpu_wakeups,
			       r.package_wakeups, r.package_wakeups / base.package_wakeups,
			       r.lateness_ms);
		}
	}
	static const int64_t windows[] = { 200 * US, 500 * US, 1 * MS, 2 * MS, SLACK / 8 };

	printf("\n%-34s %4s %16s %8s %12s\n", "v5 grid, window", "CPUs", "package wakeups/s",
	       "of task", "margin us");
	for (k = 0; k < sizeof(cpu_counts) / sizeof(cpu_counts[0]); k++) {
		struct result base = simulate(PER_TASK, cpu_counts[k]);
		unsigned int w;

		for (w = 0; w < sizeof(windows) / sizeof(windows[0]); w++) {
			struct result r;

			window = windows[w];
			r = simulate(GRID_WINDOW, cpu_counts[k]);
			printf("%-28s %5lld us %4d %16.1f %8.3f %12lld\n", "window", window / US,
			       cpu_counts[k], r.package_wakeups, r.package_wakeups / base.package_wakeups,
			       window * 20 / 60 / US);
		}
	}
	window = WINDOW;
	return 0;
}
