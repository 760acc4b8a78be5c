// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "tslack_top.skel.h"
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

static int by_id(const void *a, const void *b)
{
	uint64_t x = ((const struct wakeup_count *)a)->id;
	uint64_t y = ((const struct wakeup_count *)b)->id;

	return x < y ? -1 : x > y;
}

long wakeups_read(struct wakeup_counter *c, struct wakeup_count **counts)
{
	int fd = bpf_map__fd(c->skel->maps.wakeups);
	struct wakeup_count *out = NULL, *p;
	__u64 key, next, *percpu;
	long n = 0, cap = 0;
	int ret, cpu;

	percpu = calloc(c->ncpus, sizeof(*percpu));
	if (!percpu)
		return -ENOMEM;
	for (ret = bpf_map_get_next_key(fd, NULL, &next); !ret;
	     ret = bpf_map_get_next_key(fd, &key, &next)) {
		key = next;
		if (bpf_map_lookup_elem(fd, &key, percpu))
			continue;
		if (n == cap) {
			cap = cap * 2 + 64;
			p = realloc(out, cap * sizeof(*out));
			if (!p)
				break;
			out = p;
		}
		out[n].id = key;
		out[n].n = 0;
		for (cpu = 0; cpu < c->ncpus; cpu++)
			out[n].n += percpu[cpu];
		n++;
	}
	ret = errno == ENOENT ? 0 : -errno;
	free(percpu);
	if (ret) {
		free(out);
		return ret;
	}
	qsort(out, n, sizeof(*out), by_id);
	*counts = out;
	return n;
}

uint64_t wakeups_of(const struct wakeup_count *counts, long n, uint64_t id)
{
	struct wakeup_count key = { .id = id };
	const struct wakeup_count *c;

	c = n ? bsearch(&key, counts, n, sizeof(*counts), by_id) : NULL;
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
