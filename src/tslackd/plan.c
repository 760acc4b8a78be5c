// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "../cgroup.h"
#include "../settings.h"
#include "plan.h"

uint64_t plan_session_slack(const struct tslackd_config *cfg, const struct session *s)
{
	uint64_t ns = cfg->active_ns;

	if ((s->idle || !s->active) && cfg->idle_ns > ns)
		ns = cfg->idle_ns;
	if (s->locked && cfg->locked_ns > ns)
		ns = cfg->locked_ns;
	return ns;
}

struct wants {
	struct want *w;
	int n;
	const struct tslackd_config *cfg;
	struct watch *watch;
	int err;
};

static void add(struct wants *ws, uint64_t id, enum field f, uint64_t ns, const char *path)
{
	struct want *p;
	int i;

	for (i = 0; i < ws->n; i++) {
		if (ws->w[i].id != id || ws->w[i].field != f)
			continue;
		/* A cgroup planned twice keeps the smaller slack. */
		if (ns < ws->w[i].value)
			ws->w[i].value = ns;
		return;
	}
	p = realloc(ws->w, (ws->n + 1) * sizeof(*p));
	if (!p) {
		ws->err = -1;
		return;
	}
	ws->w = p;
	p = &ws->w[ws->n++];
	p->id = id;
	p->field = f;
	p->value = ns;
	snprintf(p->path, sizeof(p->path), "%s", path);
}

/* Watch @cg for new cgroups; exempt it if its name says so. */
static int exempt(struct cgroup *cg, const struct cgroup *parent, void *data)
{
	struct wants *ws = data;
	const char *name = strrchr(cg->path, '/') + 1;
	unsigned int i;

	watch_dir(ws->watch, cg->path);
	for (i = 0; parent && i < ws->cfg->n_exempt; i++) {
		if (!fnmatch(ws->cfg->exempt[i], name, 0)) {
			add(ws, cg->id, FIELD_MAX, TSLACK_EXEMPT_MAX_NS, cg->path);
			break;
		}
	}
	return 0;
}

/* The minimum @ns on the cgroup at @path, and the exemptions below it. */
static void add_min(struct wants *ws, const char *path, uint64_t ns)
{
	struct cgroup *cg;

	if (!*path || !ns)
		return;
	cg = malloc(sizeof(*cg));
	if (!cg) {
		ws->err = -1;
		return;
	}
	/* Gone meanwhile: nothing to do for it. */
	if (!cgroup_by_path(path, cg, NULL, 0)) {
		add(ws, cg->id, FIELD_MIN, ns, cg->path);
		cgroup_walk(cg, exempt, ws);
	}
	free(cg);
}

int plan(const struct tslackd_config *cfg, const struct session *s, int n,
	 struct want **out, struct watch *w)
{
	struct wants ws = { .cfg = cfg, .watch = w };
	uint64_t ns, user_ns;
	int i, j;

	for (i = 0; i < n; i++) {
		ns = plan_session_slack(cfg, &s[i]);
		add_min(&ws, s[i].scope_cg, ns);
		/* A user's manager and apps, once per user, if no session is without. */
		for (j = 0; j < i && s[j].uid != s[i].uid; j++)
			;
		if (j < i)
			continue;
		user_ns = ns;
		for (j = i + 1; j < n; j++) {
			if (s[j].uid != s[i].uid)
				continue;
			ns = plan_session_slack(cfg, &s[j]);
			if (ns < user_ns)
				user_ns = ns;
		}
		add_min(&ws, s[i].user_cg, user_ns);
	}
	if (ws.err) {
		free(ws.w);
		return -1;
	}
	*out = ws.w;
	return ws.n;
}
