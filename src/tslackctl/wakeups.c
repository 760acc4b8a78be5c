// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "tslack_top.skel.h"
#include "lib/map_keys.h"
#include "tslackctl.h"
#include "wakeups.h"

struct wakeup_counter {
	struct tslack_top_bpf *skel;
	int ncpus;
};

struct wakeup_counter *wakeups_start(void)
{
	struct wakeup_counter *c = calloc(1, sizeof(*c));
	int err;

	if (!c)
		return NULL;
	c->ncpus = libbpf_num_possible_cpus();
	c->skel = tslack_top_bpf__open_and_load();
	err = c->skel ? tslack_top_bpf__attach(c->skel) : -errno;
	if (c->ncpus <= 0 || err) {
		fail_errno("loading the wakeup counter", c->ncpus <= 0 ? c->ncpus : err);
		wakeups_stop(c);
		return NULL;
	}
	return c;
}

void wakeups_stop(struct wakeup_counter *c)
{
	if (!c)
		return;
	tslack_top_bpf__destroy(c->skel);
	free(c);
}

static int cmp_count_id(const void *a, const void *b)
{
	uint64_t x = ((const struct wakeup_count *)a)->id;
	uint64_t y = ((const struct wakeup_count *)b)->id;

	return x < y ? -1 : x > y;
}

long wakeups_read(struct wakeup_counter *c, struct wakeup_count **counts)
{
	int fd = bpf_map__fd(c->skel->maps.wakeups);
	struct wakeup_count *out;
	__u64 *keys, *percpu;
	long n, i, m = 0;
	int cpu;

	n = map_keys(fd, &keys);
	if (n < 0)
		return n;
	percpu = calloc(c->ncpus, sizeof(*percpu));
	out = calloc(n ? n : 1, sizeof(*out));
	if (!percpu || !out) {
		free(keys);
		free(percpu);
		free(out);
		return -ENOMEM;
	}
	/* In id order, as top and stats look them up. */
	for (i = 0; i < n; i++) {
		if (bpf_map_lookup_elem(fd, &keys[i], percpu))
			continue;
		out[m].id = keys[i];
		out[m].n = 0;
		for (cpu = 0; cpu < c->ncpus; cpu++)
			out[m].n += percpu[cpu];
		m++;
	}
	free(keys);
	free(percpu);
	*counts = out;
	return m;
}

uint64_t wakeups_of(const struct wakeup_count *counts, long n, uint64_t id)
{
	struct wakeup_count key = { .id = id };
	const struct wakeup_count *c;

	c = n ? bsearch(&key, counts, n, sizeof(*counts), cmp_count_id) : NULL;
	return c ? c->n : 0;
}

uint64_t wakeups_dropped(struct wakeup_counter *c)
{
	return c->skel->bss->dropped;
}

uint64_t wakeups_package(struct wakeup_counter *c)
{
	return __atomic_load_n(&c->skel->bss->package_wakeups, __ATOMIC_RELAXED);
}
