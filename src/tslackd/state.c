// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/cgroup.h"
#include "../lib/format.h"
#include "../lib/policy.h"
#include "../lib/settings.h"
#include "../lib/trial.h"
#include "log.h"
#include "state.h"
#include "testhook.h"

const char *const field_name[] = { "min", "max" };

/*
 * The map is full: said once, not at each write and retry (a user making
 * cgroups that a rule matches could make it a stream), until a reconcile
 * sees no more of it.
 */
static bool full_said, full_seen;

/*
 * The map is not written because its intent cannot be saved first (/run
 * full): said once, until a save works again. tslackd retries every 10 s.
 */
static bool said_unrecorded;

static uint64_t setting_field(const struct tslack_setting *v, enum field f)
{
	return f == FIELD_MIN ? v->min_slack_ns : v->max_slack_ns;
}

/*
 * @id's @f as its owner set it: a trial minimum in progress (tslackctl
 * stats --slack) is taken for the value it stands in for, never held or
 * put back as someone's setting.
 */
static uint64_t read_field(int fd, uint64_t id, enum field f)
{
	struct tslack_setting v;
	uint64_t cur;

	settings_read(fd, id, &v);
	cur = setting_field(&v, f);
	return f == FIELD_MIN ? trial_underlying(id, cur) : cur;
}

static void set_setting_field(struct tslack_setting *v, enum field f, uint64_t ns)
{
	if (f == FIELD_MIN)
		v->min_slack_ns = ns;
	else
		v->max_slack_ns = ns;
}

/*
 * Write @f of @id's setting: 1 if it changed, 0 if it had that value,
 * -ENOENT if the cgroup is gone (and its entry with it), or -errno after
 * logging why: the map is full (E2BIG), say.
 */
static int write_field(int fd, uint64_t id, enum field f, uint64_t ns, const char *path)
{
	char a[32], b[32], p[ESCAPED_NAME_MAX];
	struct tslack_setting v;
	uint64_t was;
	int err;

	settings_read(fd, id, &v);
	was = setting_field(&v, f);
	if (was == ns)
		return 0;
	set_setting_field(&v, f, ns);
	err = settings_write_cgroup(fd, id, path, &v);
	escape_name(p, sizeof(p), path);
	if (err == -ENOENT)
		return err;	/* removed meanwhile */
	if (err == -E2BIG) {
		full_seen = true;
		if (!full_said)
			log_err("%s: setting %s_slack_ns to %s: %s (the map is full: retried every 10 s, not logged again until there is room)",
				p, field_name[f], format_ns(a, sizeof(a), ns), strerror(-err));
		full_said = true;
		return err;
	}
	if (err) {
		log_err("%s: setting %s_slack_ns to %s: %s", p, field_name[f],
			format_ns(a, sizeof(a), ns), strerror(-err));
		return err;
	}
	log_info("%s: %s_slack_ns %s (was %s)", p, field_name[f],
		 format_ns(a, sizeof(a), ns), format_ns(b, sizeof(b), was));
	return 1;
}

static struct applied *find(struct state *st, uint64_t id, enum field f)
{
	int i;

	for (i = 0; i < st->n; i++)
		if (st->a[i].id == id && st->a[i].field == f)
			return &st->a[i];
	return NULL;
}

static const struct want *wanted(const struct applied *a, const struct want *want, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (want[i].id == a->id && want[i].field == a->field)
			return &want[i];
	return NULL;
}

/* Room for one more entry in @st, not counted yet; NULL when out of memory. */
static struct applied *reserve(struct state *st)
{
	struct applied *p = realloc(st->a, (st->n + 1) * sizeof(*p));

	if (!p) {
		log_err("out of memory");
		return NULL;
	}
	st->a = p;
	return &p[st->n];
}

/*
 * What the map has in @a's field, @cur, told apart: tslackd's own if it is
 * the value it set or the one it was writing when it was killed (the state
 * file said both before the write: a value it imposed is never taken for
 * someone else's); otherwise someone else wrote it meanwhile, and theirs
 * is what comes back at the end. True if it is tslackd's.
 */
static bool settle(struct applied *a, uint64_t cur)
{
	bool own = cur == a->value || cur == a->next;

	if (!own)
		a->prev = cur;
	a->value = cur;
	a->next = cur;
	return own;
}

/* Drop @a from @st once the reconcile is over: an entry has no id 0. */
static void drop(struct applied *a)
{
	a->id = 0;
}

/*
 * Plan @a, held and no longer wanted: to be put back to what it replaced
 * (a->next), dropped if its cgroup is gone or someone else's value is
 * there now (left as it is).
 */
static void plan_undo(int fd, struct applied *a)
{
	char p[ESCAPED_NAME_MAX];

	if (!cgroup_is(a->path, a->id)) {
		drop(a);	/* removed: the policy deleted its setting */
		return;
	}
	if (!settle(a, read_field(fd, a->id, a->field))) {
		log_info("%s: %s_slack_ns changed by someone else: left as it is",
			 escape_name(p, sizeof(p), a->path), field_name[a->field]);
		drop(a);
		return;
	}
	a->next = a->prev;
}

/*
 * Plan @w: its entry in @st (a new one if it is held by nothing yet, with
 * the map's value as what it replaces) with @w's value as its next. 0, or
 * -1 out of memory.
 */
static int plan_hold(int fd, struct state *st, const struct want *w)
{
	struct applied *a;
	uint64_t cur;

	a = find(st, w->id, w->field);
	if (!cgroup_is(w->path, w->id)) {
		if (a)
			drop(a);	/* removed since it was planned */
		return 0;
	}
	cur = read_field(fd, w->id, w->field);
	if (a) {
		settle(a, cur);
	} else {
		a = reserve(st);
		if (!a)
			return -1;
		memset(a, 0, sizeof(*a));
		a->id = w->id;
		a->field = w->field;
		a->prev = cur;
		a->value = cur;
		snprintf(a->path, sizeof(a->path), "%s", w->path);
		st->n++;
	}
	a->next = w->value;
	snprintf(a->source, sizeof(a->source), "%s", w->source);
	return 0;
}

/*
 * Write what @a plans (@new: an entry of this reconcile's; @undo: to be let
 * go): 1 if the map changed, 0 if not, -1 if it could not be written (then
 * @a says what the map has, and is kept: a field not let go stays held, a
 * refresh tries again). Entries done with are marked for compact().
 */
static int carry_out(int fd, struct applied *a, bool new, bool undo)
{
	int r;

	if (!a->id || a->next == a->value)
		return 0;
	r = write_field(fd, a->id, a->field, a->next, a->path);
	test_crash_point("write");
	if (r == -ENOENT) {
		drop(a);	/* removed meanwhile: nothing to hold or undo */
		return 0;
	}
	if (r < 0) {
		if (new)
			drop(a);	/* holds nothing */
		a->next = a->value;
		return -1;
	}
	a->value = a->next;
	if (undo)
		drop(a);
	return r;
}

/*
 * The intent could not be saved: nothing that @want imposes is written
 * (the entries of this reconcile, from @n_old on, go); what is undone
 * still is.
 */
static void cancel(struct state *st, int n_old, const struct want *want, int n)
{
	struct applied *a;
	int i;

	for (i = 0; i < st->n; i++) {
		a = &st->a[i];
		if (i >= n_old)
			drop(a);
		else if (wanted(a, want, n))
			a->next = a->value;
	}
}

/* Take out the entries marked by drop(), in order. */
static void compact(struct state *st)
{
	int i, n = 0;

	for (i = 0; i < st->n; i++)
		if (st->a[i].id)
			st->a[n++] = st->a[i];
	st->n = n;
}

static bool writes_planned(const struct state *st)
{
	int i;

	for (i = 0; i < st->n; i++)
		if (st->a[i].id && st->a[i].next != st->a[i].value)
			return true;
	return false;
}

static int save(const struct state *st, const struct status *sv)
{
	if (state_save(sv->file, st, sv->s, sv->slack, sv->n))
		return -1;
	said_unrecorded = false;
	return 0;
}

int state_reconcile(struct state *st, const struct want *want, int n,
		    const struct status *sv)
{
	struct tslack_err e = {};
	bool changed = false, planned, undo;
	int lock, fd, i, r, n_old, err = 0;

	lock = policy_lock_map(&fd, &e);
	if (lock < 0) {
		/* Not attached (yet): a warning; tslackd retries. */
		log_at(lock == -ENOENT ? SD_WARNING : SD_ERR, "%s", e.msg);
		save(st, sv);
		return lock;
	}
	full_seen = false;
	/* What each held field is to become, planned before any write. */
	n_old = st->n;
	for (i = 0; i < n_old; i++)
		if (!wanted(&st->a[i], want, n))
			plan_undo(fd, &st->a[i]);
	for (i = 0; i < n; i++)
		if (plan_hold(fd, st, &want[i]))
			err = -1;
	/*
	 * Write-ahead: the state file says what is about to be written
	 * before the map has it, so that a tslackd killed at any point in
	 * between, or after, finds every value it imposed recorded. When it
	 * cannot be saved (/run full), nothing is imposed; what is put back
	 * still is: that is the value the map had before, which no one can
	 * take for tslackd's.
	 */
	planned = writes_planned(st);
	if (planned) {
		if (save(st, sv)) {
			if (!said_unrecorded)
				log_err("the map is not written: what would be written could not be recorded first");
			said_unrecorded = true;
			cancel(st, n_old, want, n);
			err = -1;
		}
		test_crash_point("intent");
	}
	/* Undone first: their room in the map goes to what is held. */
	for (undo = true;; undo = false) {
		for (i = 0; i < st->n; i++) {
			if (!st->a[i].id || undo != !wanted(&st->a[i], want, n))
				continue;
			r = carry_out(fd, &st->a[i], i >= n_old, undo);
			if (r < 0)
				err = -1;
			else
				changed |= r;
		}
		if (!undo)
			break;
	}
	close(fd);
	compact(st);
	if (!full_seen && full_said) {
		full_said = false;
		log_info("the map has room again");
	}
	if (changed && policy_invalidate(&e)) {
		log_err("%s", e.msg);
		err = -1;
	}
	policy_unlock(lock);
	if (planned)
		test_crash_point("confirm");
	/* What was written: until this is saved, the intent says as much. */
	if (save(st, sv))
		err = -1;
	return err;
}

/* Take @a from line @no of @file into @st, if it is to be undone. 0 or -1. */
int state_add_loaded(const char *file, unsigned int no, struct state *st,
		     const struct applied *a)
{
	char p[ESCAPED_NAME_MAX];
	struct applied *slot;

	escape_name(p, sizeof(p), a->path);
	if (find(st, a->id, a->field)) {
		log_err("%s:%u: %s_slack_ns of %s recorded twice: ignored", file, no,
			field_name[a->field], p);
		return -1;
	}
	/* Acted on only where its two halves, path and id, still agree. */
	if (!cgroup_is(a->path, a->id)) {
		log_warn("%s:%u: %s is not cgroup %llu (any more): not undone", file, no, p,
			 (unsigned long long)a->id);
		return 0;
	}
	slot = reserve(st);
	if (!slot)
		return -1;
	*slot = *a;
	st->n++;
	return 0;
}
