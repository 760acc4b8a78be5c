// SPDX-License-Identifier: GPL-2.0
/* tslackctl stats: a cgroup's wakeups, before and with a trial minimum. */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/format.h"
#include "lib/interrupts.h"
#include "lib/json.h"
#include "lib/parse.h"
#include "lib/policy.h"
#include "guard.h"
#include "top.h"
#include "tslackctl.h"
#include "wakeups.h"


struct subtree_sum {
	const struct wakeup_count *now, *then;
	long nnow, nthen;
	uint64_t n;
};

static int add_wakeups(struct cgroup *cg, const struct cgroup *parent, void *data)
{
	struct subtree_sum *s = data;

	(void)parent;
	s->n += wakeups_of(s->now, s->nnow, cg->id) - wakeups_of(s->then, s->nthen, cg->id);
	return 0;
}

struct period {
	uint64_t slack;		/* imposed on the cgroup; UINT64_MAX: unknown */
	double wakeups, irqs, pkgs;	/* per second */
};

/* Count @cg's subtree's wakeups and the machine's timer interrupts for @ns. */
static int measure(struct wakeup_counter *c, struct cgroup *cg, uint64_t ns, struct period *p)
{
	struct subtree_sum s = {};
	struct wakeup_count *then = NULL, *now = NULL;
	unsigned long long irq0, pkg0;
	double t0, secs;
	int ret = -1;

	s.nthen = wakeups_read(c, &then);
	irq0 = local_timer_interrupts();
	pkg0 = wakeups_package(c);
	t0 = now_s();
	while (!top_stop && now_s() < t0 + ns / 1e9)
		usleep(((t0 + ns / 1e9) - now_s()) * 1e6 + 1);
	secs = now_s() - t0;
	p->irqs = (local_timer_interrupts() - irq0) / secs;
	p->pkgs = (wakeups_package(c) - pkg0) / secs;
	s.nnow = wakeups_read(c, &now);
	s.now = now;
	s.then = then;
	if (!top_stop && s.nthen >= 0 && s.nnow >= 0 && !cgroup_walk(cg, add_wakeups, &s)) {
		p->wakeups = s.n / secs;
		ret = 0;
	}
	free(then);
	free(now);
	return ret;
}

static uint64_t imposed_on(const struct cgroup *cg)
{
	int qfd = top_query_fd();
	uint64_t ns = imposed(qfd, cg->id);

	if (qfd >= 0)
		close(qfd);
	return ns;
}

static const char *const period_names[] = { "before", "after" };

/* stats --json: "interval_s", the length of each period, as top names it. */
static int print_stats_json(const struct cgroup *cg, uint64_t ns, const struct period *p,
			    int n)
{
	struct json_object *periods = json_object_new_array(), *row, *j;
	int i;

	for (i = 0; i < n; i++) {
		row = json_add(json_object_new_object(), "name",
			       json_object_new_string(period_names[i]));
		if (p[i].slack != UINT64_MAX)
			row = json_add(row, "effective_slack_ns", json_object_new_uint64(p[i].slack));
		row = json_add(row, "wakeups_per_s", json_fixed(p[i].wakeups, 1));
		row = json_add(row, "timer_interrupts_per_s", json_fixed(p[i].irqs, 1));
		row = json_add(row, "package_wakeups_per_s", json_fixed(p[i].pkgs, 1));
		periods = json_append(periods, row);
	}
	j = json_add(json_object_new_object(), "path", json_name(cg->path));
	j = json_add(j, "id", json_object_new_uint64(cg->id));
	j = json_add(j, "interval_s", json_fixed(ns / 1e9, 3));
	return show_json(json_add(j, "periods", periods));
}

static int print_stats(const struct cgroup *cg, uint64_t ns, const struct period *p,
		       int n, bool json)
{
	char slack[32], dur[32], name[ESCAPED_NAME_MAX];
	int i;

	if (json)
		return print_stats_json(cg, ns, p, n);
	printf("%s (id %" PRIu64 "), %s each\n", escape_name(name, sizeof(name), cg->path), cg->id,
	       format_ns(dur, sizeof(dur), ns));
	printf("%-8s %10s %12s %20s %20s\n", "", "EFFECTIVE", "WAKEUPS/S", "TIMER INTERRUPTS/S",
	       "PACKAGE WAKEUPS/S");
	for (i = 0; i < n; i++)
		printf("%-8s %10s %12.1f %20.1f %20.1f\n", n > 1 ? period_names[i] : "",
		       p[i].slack == UINT64_MAX ? "-" : format_ns(slack, sizeof(slack), p[i].slack),
		       p[i].wakeups, p[i].irqs, p[i].pkgs);
	return 0;
}

/*
 * Count @cg's subtree's wakeups for @ns; with @slack, then as long again
 * with @slack as its min_slack_ns, restored after. 0 or 1.
 */
static int stats_run(const struct cgroup *target, uint64_t ns, const uint64_t *slack, bool json)
{
	struct cgroup *cg = malloc(sizeof(*cg));
	struct guard g = { .fd = -1 };
	bool restored = false;
	struct period p[2];
	int n = 0, ret = 1;
	struct wakeup_counter *c = NULL;

	if (!cg)
		return 1;
	*cg = *target;
	if (slack && guard_start(&g, cg, *slack))
		goto out;
	c = wakeups_start();
	if (!c)
		goto out;
	signal(SIGINT, top_on_signal);
	signal(SIGTERM, top_on_signal);
	/* A closed terminal (ssh gone) must not leave the trial minimum set. */
	signal(SIGHUP, top_on_signal);
	p[0].slack = imposed_on(cg);
	if (measure(c, cg, ns, &p[n++]))
		goto out;
	if (slack) {
		if (guard_set(&g, cg, *slack))
			goto out;
		p[1].slack = imposed_on(cg);
		ret = measure(c, cg, ns, &p[n++]);
		/* Put back what was there, also after ^C. */
		restored = !guard_restore(&g, cg);
		if (!restored || ret)
			goto out;
	}
	ret = print_stats(cg, ns, p, n, json) ? 1 : 0;
out:
	if (top_stop)
		say("interrupted");
	guard_end(&g, restored);
	wakeups_stop(c);
	free(cg);
	return ret;
}

int cmd_stats(int argc, char **argv, const struct opts *o)
{
	uint64_t id = 0, ns = 10000000000ULL, slack;
	struct cgroup cg;
	char err[512];
	int ret, first;

	first = optind;
	ret = check_cgroup_arg(argc, o, &id, true);
	if (ret)
		return ret;
	if (o->period) {
		if (parse_duration_ns(o->period, &ns, err, sizeof(err)))
			return usage_error("--for: %s", err);
		if (ns < 100000000 || ns > 3600000000000ULL)
			return usage_error("--for: '%s' is not from 100ms to 1h", o->period);
	}
	if (o->slack) {
		ret = check_slack(o->slack, "--slack", &slack);
		if (ret)
			return ret;
	}
	ret = find_cgroup(argv[first], o, id, true, &cg);
	if (ret)
		return ret;
	return stats_run(&cg, ns, o->slack ? &slack : NULL, o->json) ? EXIT_RUNTIME : 0;
}
