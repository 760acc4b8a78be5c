/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counting timed-sleep wakeups by cgroup, with BPF loaded only while
 * tslackctl top or stats runs (bpf/tslack_top.bpf.c says what counts).
 */
#ifndef TSLACK_WAKEUPS_H
#define TSLACK_WAKEUPS_H

#include <stddef.h>
#include <stdint.h>

struct wakeup_counter;

struct wakeup_count {
	uint64_t id;		/* cgroup v2 id */
	uint64_t n;		/* wakeups since the counter started */
};

/* Load and attach the counter; NULL after printing why. */
struct wakeup_counter *wakeups_start(void);

/* Detach and unload it. */
void wakeups_stop(struct wakeup_counter *c);

/*
 * Every cgroup's count so far, summed over CPUs, sorted by id, in a new
 * array *@counts to free(). The number of counts, or -errno.
 */
long wakeups_read(struct wakeup_counter *c, struct wakeup_count **counts);

/* @id's count in @counts (of @n, sorted by id), 0 if it has none. */
uint64_t wakeups_of(const struct wakeup_count *counts, long n, uint64_t id);

/* Wakeups that found the counter's map full. */
uint64_t wakeups_dropped(struct wakeup_counter *c);

/*
 * Package wakeups so far: CPUs leaving idle, those within 200 us of each
 * other counted once (bpf/tslack_top.bpf.c).
 */
uint64_t wakeups_package(struct wakeup_counter *c);

#endif
