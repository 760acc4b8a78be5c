// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "lib/format.h"
#include "lib/interrupts.h"
#include "lib/json.h"
#include "lib/parse.h"
#include "lib/policy.h"
#include "lib/settings.h"
#include "top.h"
#include "tslackctl.h"
#include "wakeups.h"

enum top_sort { TOP_SORT_WAKEUPS, TOP_SORT_PATH, TOP_SORT_SLACK };

struct top_config {
	uint64_t delay_ns;	/* between refreshes */
	long iterations;	/* refreshes to show; 0: until q */
	int depth;		/* deeper cgroups fold into their ancestor */
	enum top_sort sort;
	bool batch, json;
};

/* One line of top: a cgroup and its subtree folded into it. */
struct row {
	struct cgroup cg;
	uint64_t wakeups;	/* in the interval */
	uint64_t slack;		/* imposed on it; UINT64_MAX: unknown */
};

/* What one refresh shows. */
struct frame {
	struct row *rows;
	size_t n, cap;
	const struct wakeup_count *now, *then;
	long nnow, nthen;
	int depth;
	uint64_t total;		/* every counted wakeup, also of removed cgroups */
};

volatile sig_atomic_t top_stop;

void top_on_signal(int sig)
{
	(void)sig;
	top_stop = 1;
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int level(const char *path)
{
	int n = 0;

	if (!strcmp(path, "/"))
		return 0;
	for (; *path; path++)
		n += *path == '/';
	return n;
}

static struct row *add_row(struct frame *f, const struct cgroup *cg)
{
	struct row *r;

	if (f->n == f->cap) {
		f->cap = f->cap * 2 + 32;
		r = realloc(f->rows, f->cap * sizeof(*r));
		if (!r)
			return NULL;
		f->rows = r;
	}
	r = &f->rows[f->n++];
	r->cg = *cg;
	r->wakeups = 0;
	r->slack = UINT64_MAX;
	return r;
}

/* The row of @path's ancestor at level @depth (the root is level 0). */
static struct row *ancestor_row(struct frame *f, const char *path, int depth)
{
	const char *end = path;
	size_t i, len;
	int d;

	for (d = 0; d < depth && end; d++)
		end = strchr(end + 1, '/');
	len = !depth ? 1 : end ? (size_t)(end - path) : strlen(path);
	/* Walked parents first: the ancestor's row is there, most likely last. */
	for (i = f->n; i-- > 0;)
		if (strlen(f->rows[i].cg.path) == len && !strncmp(f->rows[i].cg.path, path, len))
			return &f->rows[i];
	return NULL;
}

/*
 * Count each cgroup's wakeups in its own row, down to the frame's depth,
 * and in every ancestor's: a row is its whole subtree, as in systemd-cgtop.
 */
static int fold(struct cgroup *cg, const struct cgroup *parent, void *data)
{
	struct frame *f = data;
	uint64_t n = wakeups_of(f->now, f->nnow, cg->id) - wakeups_of(f->then, f->nthen, cg->id);
	int lvl = level(cg->path), d;
	struct row *r;

	(void)parent;
	if (lvl <= f->depth && !add_row(f, cg))
		return -1;
	for (d = 0; n && d <= lvl && d <= f->depth; d++) {
		r = ancestor_row(f, cg->path, d);
		if (r)
			r->wakeups += n;
	}
	return 0;
}

/* Rows without wakeups are left out, but for the root's. */
static bool shown_row(const struct row *r)
{
	return r->wakeups || !strcmp(r->cg.path, "/");
}

static int cmp_rows(const void *a, const void *b, void *sortp)
{
	const struct row *x = a, *y = b;
	enum top_sort sort = *(enum top_sort *)sortp;

	if (sort == TOP_SORT_WAKEUPS && x->wakeups != y->wakeups)
		return x->wakeups < y->wakeups ? 1 : -1;
	if (sort == TOP_SORT_SLACK && x->slack != y->slack)
		return x->slack < y->slack ? 1 : -1;
	return strcmp(x->cg.path, y->cg.path);
}

/*
 * Wakeups between two reads of the counter. A removed cgroup's count
 * leaves the map: only what the cgroups still there gained counts.
 */
static uint64_t gained(const struct frame *f)
{
	uint64_t s = 0, was;
	long i;

	for (i = 0; i < f->nnow; i++) {
		was = wakeups_of(f->then, f->nthen, f->now[i].id);
		s += f->now[i].n > was ? f->now[i].n - was : 0;
	}
	return s;
}

int top_query_fd(void)
{
	struct tslack_err e = {};
	int attached, fd = -1;

	attached = policy_attached(&e);
	if (attached > 0)
		fd = settings_query_fd(&e);
	if (attached < 0 || (attached > 0 && fd < 0))
		fail(&e);
	return fd;
}

uint64_t imposed(int qfd, uint64_t id)
{
	struct tslack_query q = { .cgroup_id = id };

	return qfd >= 0 && !settings_query(qfd, &q) ? q.imposed : UINT64_MAX;
}

static int build_frame(struct frame *f, const struct top_config *cfg)
{
	struct cgroup *root = calloc(1, sizeof(*root));
	int qfd, ret = -1;
	size_t i;

	f->n = 0;
	f->depth = cfg->depth;
	f->total = gained(f);
	if (!root || cgroup_by_path("/", root, NULL, 0) || cgroup_walk(root, fold, f))
		goto out;
	/* What tslack imposes, where it is attached. */
	qfd = top_query_fd();
	for (i = 0; i < f->n; i++)
		f->rows[i].slack = imposed(qfd, f->rows[i].cg.id);
	if (qfd >= 0)
		close(qfd);
	ret = 0;
out:
	free(root);
	return ret;
}

/* A frame of top --json: one object, on one line. */
static int print_frame_json(const struct frame *f, double secs, double irqs, double pkgs)
{
	struct json_object *rows = json_object_new_array(), *row, *j;
	size_t i;

	for (i = 0; i < f->n; i++) {
		if (!shown_row(&f->rows[i]))
			continue;
		row = json_object_new_object();
		row = json_add(row, "path", json_name(f->rows[i].cg.path));
		row = json_add(row, "id", json_object_new_uint64(f->rows[i].cg.id));
		row = json_add(row, "wakeups_per_s", json_fixed(f->rows[i].wakeups / secs, 1));
		if (f->rows[i].slack != UINT64_MAX)
			row = json_add(row, "effective_slack_ns",
				       json_object_new_uint64(f->rows[i].slack));
		rows = json_append(rows, row);
	}
	j = json_add(json_object_new_object(), "interval_s", json_fixed(secs, 3));
	j = json_add(j, "timer_interrupts_per_s", json_fixed(irqs / secs, 1));
	j = json_add(j, "package_wakeups_per_s", json_fixed(pkgs / secs, 1));
	j = json_add(j, "wakeups_per_s", json_fixed(f->total / secs, 1));
	return show_json(json_add(j, "cgroups", rows));
}

static int print_frame(struct frame *f, const struct top_config *cfg, double secs,
		       double irqs, double pkgs, int max_rows)
{
	char buf[32], name[ESCAPED_NAME_MAX];
	int shown;
	size_t i;

	qsort_r(f->rows, f->n, sizeof(*f->rows), cmp_rows, (void *)&cfg->sort);
	if (cfg->json)
		return print_frame_json(f, secs, irqs, pkgs);
	printf("Timer interrupts: %.1f/s   package wakeups: %.1f/s   timed-sleep wakeups: %.1f/s   (every %.1fs, depth %d)\n\n",
	       irqs / secs, pkgs / secs, f->total / secs, secs, cfg->depth);
	printf("%-48s %12s %10s\n", "CGROUP", "WAKEUPS/S", "EFFECTIVE");
	for (i = 0, shown = 0; i < f->n && (max_rows <= 0 || shown < max_rows); i++) {
		if (!shown_row(&f->rows[i]))
			continue;
		shown++;
		printf("%-48s %12.1f %10s\n", escape_name(name, sizeof(name), f->rows[i].cg.path),
		       f->rows[i].wakeups / secs,
		       f->rows[i].slack == UINT64_MAX ? "-" :
		       format_ns(buf, sizeof(buf), f->rows[i].slack));
	}
	return 0;
}

/* Wait @secs or until a key; interactive keys change @cfg. */
static void wait_or_key(struct top_config *cfg, double secs, bool interactive)
{
	struct pollfd pfd = { .fd = 0, .events = POLLIN };
	double end = now_s() + secs;
	char c;

	while (!top_stop && now_s() < end) {
		if (!interactive) {
			usleep((end - now_s()) * 1e6);
			continue;
		}
		if (poll(&pfd, 1, (int)((end - now_s()) * 1000) + 1) <= 0 ||
		    read(0, &c, 1) != 1)
			continue;
		if (c == 'q')
			top_stop = 1;
		else if (c == 'w')
			cfg->sort = TOP_SORT_WAKEUPS;
		else if (c == 'p')
			cfg->sort = TOP_SORT_PATH;
		else if (c == 's')
			cfg->sort = TOP_SORT_SLACK;
		else if (c == '+' && cfg->depth < 64)
			cfg->depth++;
		else if (c == '-' && cfg->depth > 0)
			cfg->depth--;
		else
			continue;
		return;		/* redraw at once */
	}
}

/* Run top; 0 or 1. */
static int top_run(const struct top_config *config)
{
	struct top_config cfg = *config;
	bool interactive = !cfg.batch && isatty(0) && isatty(1);
	struct wakeup_count *then = NULL, *now = NULL;
	struct frame f = {};
	unsigned long long irq0, irq1, pkg0, pkg1;
	struct termios saved, raw;
	struct winsize ws;
	struct wakeup_counter *c;
	double t0, t1;
	long shown = 0;
	int ret = 0;

	c = wakeups_start();
	if (!c)
		return 1;
	signal(SIGINT, top_on_signal);
	signal(SIGTERM, top_on_signal);
	if (interactive && !tcgetattr(0, &saved)) {
		raw = saved;
		raw.c_lflag &= ~(ICANON | ECHO);
		tcsetattr(0, TCSANOW, &raw);
	}
	f.nthen = wakeups_read(c, &then);
	irq0 = local_timer_interrupts();
	pkg0 = wakeups_package(c);
	t0 = now_s();
	while (!top_stop && f.nthen >= 0 && (!cfg.iterations || shown < cfg.iterations)) {
		wait_or_key(&cfg, cfg.delay_ns / 1e9, interactive);
		if (top_stop)
			break;
		f.nnow = wakeups_read(c, &now);
		irq1 = local_timer_interrupts();
		pkg1 = wakeups_package(c);
		t1 = now_s();
		if (f.nnow < 0)
			break;
		f.now = now;
		f.then = then;
		if (build_frame(&f, &cfg)) {
			ret = 1;
			break;
		}
		if (interactive) {
			printf("\033[H\033[2J");
			if (ioctl(1, TIOCGWINSZ, &ws))
				ws.ws_row = 0;
		}
		if (print_frame(&f, &cfg, t1 - t0, irq1 - irq0, pkg1 - pkg0,
				interactive ? ws.ws_row - 5 : 0)) {
			ret = 1;
			break;
		}
		if (interactive)
			printf("\nq quit   w/p/s sort by wakeups/path/slack   +/- depth\n");
		else if (!cfg.json)
			printf("\n");
		fflush(stdout);
		shown++;
		free(then);
		then = now;
		now = NULL;
		f.nthen = f.nnow;
		irq0 = irq1;
		pkg0 = pkg1;
		t0 = t1;
	}
	if (f.nthen < 0 || f.nnow < 0) {
		fail_errno("reading the wakeup counter", f.nthen < 0 ? f.nthen : f.nnow);
		ret = 1;
	}
	if (wakeups_dropped(c))
		say("%" PRIu64 " wakeups not counted: too many cgroups", wakeups_dropped(c));
	if (interactive)
		tcsetattr(0, TCSANOW, &saved);
	free(then);
	free(now);
	free(f.rows);
	wakeups_stop(c);
	return ret;
}

int cmd_top(int argc, char **argv __always_unused, const struct opts *o)
{
	static const char *const sorts[] = { "wakeups", "path", "slack" };
	struct top_config cfg = { .delay_ns = 1000000000, .depth = 3 };
	char err[512], secs[64];
	uint64_t v;
	unsigned int i;

	if (optind != argc)
		return usage_error("usage: tslackctl top [-b] [-n N] [-d DELAY] [--depth=N] "
				   "[--sort=KEY] [--json]");
	if (o->iterations) {
		if (parse_count(o->iterations, 1000000, &v, err, sizeof(err)))
			return usage_error("--iterations: %s", err);
		cfg.iterations = v;
	}
	if (o->delay) {
		/* Like top and systemd-cgtop: a bare number is seconds. */
		snprintf(secs, sizeof(secs), "%s%s", o->delay,
			 o->delay[strspn(o->delay, "0123456789.")] ? "" : "s");
		if (parse_duration_ns(secs, &cfg.delay_ns, err, sizeof(err)))
			return usage_error("--delay: %s", err);
		if (cfg.delay_ns < 100000000 || cfg.delay_ns > 3600000000000ULL)
			return usage_error("--delay: '%s' is not from 100ms to 1h", o->delay);
	}
	if (o->depth) {
		/* 0 folds everything into the root. */
		if (!strcmp(o->depth, "0"))
			cfg.depth = 0;
		else if (parse_count(o->depth, 64, &v, err, sizeof(err)))
			return usage_error("--depth: '%s' is not a number from 0 to 64", o->depth);
		else
			cfg.depth = v;
	}
	for (i = 0; o->sort && i < ARRAY_SIZE(sorts) && strcmp(o->sort, sorts[i]); i++)
		;
	if (o->sort && i == ARRAY_SIZE(sorts))
		return usage_error("--sort: '%s' is not wakeups, path or slack", o->sort);
	cfg.sort = o->sort ? (enum top_sort)i : TOP_SORT_WAKEUPS;
	cfg.batch = o->batch || o->json;
	cfg.json = o->json;
	if (!may_change_policy())
		return EXIT_RUNTIME;
	return top_run(&cfg) ? EXIT_RUNTIME : 0;
}
