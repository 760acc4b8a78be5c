// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <fnmatch.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/cgroup.h"
#include "../lib/format.h"
#include "../lib/settings.h"
#include "budget.h"
#include "log.h"
#include "match.h"
#include "plan.h"
#include "subtree.h"

uint64_t plan_session_slack(const struct tslackd_config *cfg, const struct power *pw,
			    const struct session *s, const char **why)
{
	const char *w = "active";
	uint64_t ns = cfg->active_ns;

	if ((s->idle || !s->active) && cfg->idle_ns > ns) {
		ns = cfg->idle_ns;
		w = s->idle ? "idle" : "background";
	}
	if (s->locked && cfg->locked_ns > ns) {
		ns = cfg->locked_ns;
		w = "locked";
	}
	if (pw && pw->saver && cfg->power_saver_ns > ns) {
		ns = cfg->power_saver_ns;
		w = "power-saver";
	}
	if (pw && pw->battery && cfg->on_battery_ns > ns) {
		ns = cfg->on_battery_ns;
		w = "on-battery";
	}
	if (why)
		*why = w;
	return ns;
}

struct wants {
	struct want *w;
	int n;
	const struct tslackd_config *cfg;
	struct watch *watch;
	struct budget *b;		/* of the walk under way */
	int err;
	const struct rule *rule;	/* whose matches match_cgroups() reports */
	int from_rules;
};

/* Also @src's, with @src's the one kept first: cut to what fits. */
static void also(struct want *w, const char *src)
{
	size_t len = strlen(w->source);

	if (strstr(w->source, src) || len + 1 + strlen(src) >= sizeof(w->source))
		return;
	snprintf(w->source + len, sizeof(w->source) - len, ",%s", src);
}

/*
 * One answer per cgroup and field, whoever asks: the largest minimum and
 * the smallest cap (which the policy lets win over any minimum).
 */
static void add(struct wants *ws, uint64_t id, enum field f, uint64_t ns, const char *path,
		const char *src)
{
	struct want *p;
	bool wins;
	int i;

	for (i = 0; i < ws->n; i++) {
		p = &ws->w[i];
		if (p->id != id || p->field != f)
			continue;
		wins = f == FIELD_MIN ? ns > p->value : ns < p->value;
		if (wins) {
			p->value = ns;
			snprintf(p->source, sizeof(p->source), "%s", src);
		} else if (ns == p->value) {
			also(p, src);
		}
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
	snprintf(p->source, sizeof(p->source), "%s", src);
}

/* A cgroup below a session's: exempt it if its name says so. */
static void exempt(const char *path, void *data)
{
	struct wants *ws = data;
	const char *name = strrchr(path, '/') + 1;
	char src[SOURCE_MAX], abs[PATH_MAX * 2];
	struct stat st;
	unsigned int i;

	for (i = 0; i < ws->cfg->n_exempt; i++) {
		if (fnmatch(ws->cfg->exempt[i], name, 0))
			continue;
		/* A cgroup's id is the inode number of its directory. */
		if (cgroup_abs_path(abs, sizeof(abs), path) || stat(abs, &st) ||
		    !budget_set(ws->b))
			return;		/* removed meanwhile, or too many */
		snprintf(src, sizeof(src), "exempt:%s", ws->cfg->exempt[i]);
		add(ws, st.st_ino, FIELD_MAX, TSLACK_EXEMPT_MAX_NS, path, src);
		return;
	}
}

/*
 * The minimum @ns on the cgroup at @path, and the exemptions below it;
 * a walk cut short is logged once, until one is not.
 */
static void add_min(struct wants *ws, struct cuts *cuts, const char *path, uint64_t ns,
		    const char *src)
{
	struct budget b = {};
	struct cgroup *cg;
	char p[ESCAPED_NAME_MAX];

	if (!*path || !ns)
		return;
	cg = malloc(sizeof(*cg));
	if (!cg) {
		ws->err = -1;
		return;
	}
	/* Gone meanwhile: nothing to do for it. */
	if (!cgroup_by_path(path, cg, NULL, 0)) {
		add(ws, cg->id, FIELD_MIN, ns, cg->path, src);
		ws->b = &b;
		subtree_walk(cg->path, ws->watch, &b, exempt, ws);
		ws->b = NULL;
		if (b.cut && cuts_first(cuts, cg->id))
			log_warn("%s: too many cgroups below it: not followed beyond %d exempted, %d directories watched, %d entries read, %d levels down (the rest is neither exempted nor watched)",
				 escape_name(p, sizeof(p), cg->path), WALK_MAX_SET, WALK_MAX_WATCH,
				 WALK_MAX_SEEN, WALK_MAX_DEPTH);
	}
	free(cg);
}

/* A cgroup a rule's glob matches: the rule's minimum and cap on it. */
static void rule_match(const char *path, void *data)
{
	struct wants *ws = data;
	const struct rule *r = ws->rule;
	struct stat st;
	char abs[PATH_MAX * 2];

	if (ws->from_rules >= RULES_MAX)
		return;
	/* A cgroup's id is the inode number of its directory. */
	if (cgroup_abs_path(abs, sizeof(abs), path) || stat(abs, &st))
		return;		/* removed meanwhile */
	ws->from_rules++;
	if (r->min)
		add(ws, st.st_ino, FIELD_MIN, r->min, path, r->where);
	if (r->max)
		add(ws, st.st_ino, FIELD_MAX, r->max, path, r->where);
}

/* The rules' settings, after the sessions': those get the map's room first. */
static void plan_rules(struct wants *ws, struct rules *rules)
{
	char p[ESCAPED_NAME_MAX];
	struct budget b;
	int i;

	for (i = 0; i < rules->n; i++) {
		b = (struct budget){};
		ws->rule = &rules->r[i];
		if (match_cgroups(rules->r[i].glob, ws->watch, &b, rule_match, ws) < 0)
			ws->err = -1;
		if ((b.cut || ws->from_rules >= RULES_MAX) && !rules->r[i].over_said) {
			rules->r[i].over_said = true;
			log_warn("%s: %s matches too many cgroups: at most %d set (%d for all rules), %d directories watched, %d entries read",
				 rules->r[i].where + 5, escape_name(p, sizeof(p), rules->r[i].glob),
				 WALK_MAX_SET, RULES_MAX, WALK_MAX_WATCH, WALK_MAX_SEEN);
		}
	}
}

int plan(const struct tslackd_config *cfg, const struct power *pw, struct rules *rules,
	 const struct session *s, int n, struct want **out, struct watch *w, struct cuts *cuts)
{
	struct wants ws = { .cfg = cfg, .watch = w };
	const char *why, *user_why;
	char src[SOURCE_MAX];
	uint64_t ns, user_ns;
	int i, j;

	for (i = 0; i < n; i++) {
		ns = plan_session_slack(cfg, pw, &s[i], &why);
		snprintf(src, sizeof(src), "session:%s:%s", s[i].id, why);
		add_min(&ws, cuts, s[i].scope_cg, ns, src);
		/* A user's manager and apps, once per user, if no session is without. */
		for (j = 0; j < i && s[j].uid != s[i].uid; j++)
			;
		if (j < i)
			continue;
		user_ns = ns;
		user_why = why;
		for (j = i + 1; j < n; j++) {
			if (s[j].uid != s[i].uid)
				continue;
			ns = plan_session_slack(cfg, pw, &s[j], &why);
			if (ns < user_ns) {
				user_ns = ns;
				user_why = why;
			}
		}
		snprintf(src, sizeof(src), "user:%s:%s", s[i].user, user_why);
		add_min(&ws, cuts, s[i].user_cg, user_ns, src);
	}
	plan_rules(&ws, rules);
	cuts_end(cuts);
	if (ws.err) {
		free(ws.w);
		return -1;
	}
	*out = ws.w;
	return ws.n;
}
