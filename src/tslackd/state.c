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
#include "log.h"
#include "state.h"

static const char *const field_name[] = { "min", "max" };

/*
 * The map is full: said once, not at each write and retry (a user making
 * cgroups that a rule matches could make it a stream), until a reconcile
 * sees no more of it.
 */
static bool full_said, full_seen;

static uint64_t get(const struct tslack_setting *v, enum field f)
{
	return f == FIELD_MIN ? v->min_slack_ns : v->max_slack_ns;
}

static void set(struct tslack_setting *v, enum field f, uint64_t ns)
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
	char a[32], b[32], p[ESCAPED_MAX];
	struct tslack_setting v;
	uint64_t was;
	int err;

	settings_read(fd, id, &v);
	was = get(&v, f);
	if (was == ns)
		return 0;
	set(&v, f, ns);
	err = settings_write_cgroup(fd, id, path, &v);
	cescape(p, sizeof(p), path);
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

/*
 * Undo @a if it still holds what tslackd set: 1 if the map changed, 0 if
 * there is nothing to undo, or -errno if the write failed (@a is still
 * held then).
 */
static int restore(int fd, const struct applied *a)
{
	char p[ESCAPED_MAX];
	struct tslack_setting v;
	int r;

	if (!cgroup_is(a->path, a->id))
		return 0;	/* removed: the policy deleted its setting */
	settings_read(fd, a->id, &v);
	if (get(&v, a->field) != a->value) {
		log_info("%s: %s_slack_ns changed by someone else: left as it is",
			 cescape(p, sizeof(p), a->path), field_name[a->field]);
		return 0;
	}
	r = write_field(fd, a->id, a->field, a->prev, a->path);
	return r == -ENOENT ? 0 : r;
}

static struct applied *find(struct state *st, uint64_t id, enum field f)
{
	int i;

	for (i = 0; i < st->n; i++)
		if (st->a[i].id == id && st->a[i].field == f)
			return &st->a[i];
	return NULL;
}

static bool wanted(const struct applied *a, const struct want *want, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (want[i].id == a->id && want[i].field == a->field)
			return true;
	return false;
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
 * Hold @w: 1 if the map changed, 0 if not, -1 if it could not be written
 * (then what @st says is what the map has: a refresh tries again).
 */
static int hold(int fd, struct state *st, const struct want *w)
{
	struct tslack_setting v;
	struct applied *a;
	uint64_t cur;
	bool new;
	int r;

	if (!cgroup_is(w->path, w->id))
		return 0;	/* removed since it was planned */
	settings_read(fd, w->id, &v);
	cur = get(&v, w->field);
	a = find(st, w->id, w->field);
	new = !a;
	if (a && cur != a->value) {
		/* Set by someone else meanwhile: theirs comes back at the end. */
		a->prev = cur;
		a->value = cur;
	} else if (new) {
		/* Room first: a write made must be recorded. */
		a = reserve(st);
		if (!a)
			return -1;
		memset(a, 0, sizeof(*a));
		a->id = w->id;
		a->field = w->field;
		a->prev = cur;
		snprintf(a->path, sizeof(a->path), "%s", w->path);
	}
	r = write_field(fd, w->id, w->field, w->value, w->path);
	if (r == -ENOENT)
		return 0;	/* removed meanwhile: nothing to hold */
	if (r < 0)
		return -1;	/* not made: @a still says what the map has */
	if (new)
		st->n++;
	a->value = w->value;
	snprintf(a->source, sizeof(a->source), "%s", w->source);
	return r;
}

int state_reconcile(struct state *st, const struct want *want, int n)
{
	struct tslack_err e = {};
	bool changed = false;
	int lock, fd, i, r, err = 0;

	lock = policy_lock_map(&fd, &e);
	if (lock < 0) {
		/* Not attached (yet): a warning; tslackd retries. */
		log_at(lock == -ENOENT ? SD_WARNING : SD_ERR, "%s", e.msg);
		return lock;
	}
	full_seen = false;
	for (i = 0; i < st->n;) {
		if (wanted(&st->a[i], want, n)) {
			i++;
			continue;
		}
		r = restore(fd, &st->a[i]);
		if (r < 0) {
			err = -1;	/* still held: undone at the retry */
			i++;
			continue;
		}
		changed |= r;
		st->a[i] = st->a[--st->n];
	}
	for (i = 0; i < n; i++) {
		r = hold(fd, st, &want[i]);
		if (r < 0)
			err = -1;
		else
			changed |= r;
	}
	close(fd);
	if (!full_seen && full_said) {
		full_said = false;
		log_info("the map has room again");
	}
	if (changed && policy_invalidate(&e)) {
		log_err("%s", e.msg);
		err = -1;
	}
	policy_unlock(lock);
	return err;
}

/* Take @a from line @no of @file into @st, if it is to be undone. 0 or -1. */
static int load_applied(const char *file, unsigned int no, struct state *st,
			const struct applied *a)
{
	char p[ESCAPED_MAX];
	struct applied *slot;

	cescape(p, sizeof(p), a->path);
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

/*
 * Read line @no of @file (@len bytes with its newline) into @r; 0, or -1
 * after logging what it is (escaped: it may be anything).
 */
static int load_line(const char *file, unsigned int no, const char *line, ssize_t len,
		     struct record *r)
{
	char shown[256];
	char *copy;

	if (len > 0 && line[len - 1] == '\n' && !record_parse(line, len - 1, r))
		return 0;
	copy = strndup(line, len > 0 && line[len - 1] == '\n' ? len - 1 : len);
	log_err("%s:%u: not a record of this tslackd: ignored: '%s'", file, no,
		copy ? cescape(shown, sizeof(shown), copy) : "?");
	free(copy);
	return -1;
}

int state_load(const char *file, struct state *st)
{
	struct record *r = malloc(sizeof(*r));
	char *line = NULL;
	unsigned int no = 0;
	int ret = 0;
	size_t cap = 0;
	ssize_t len;
	FILE *f;

	st->a = NULL;
	st->n = 0;
	f = fopen(file, "re");
	if (!f || !r) {
		free(r);
		if (!f && errno == ENOENT)
			return 0;
		log_err("%s: %m", file);
		if (f)
			fclose(f);
		return -1;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		if (load_line(file, ++no, line, len, r)) {
			ret = -1;
		} else if (no == 1 && r->type != RECORD_HEADER) {
			ret = -1;
		} else if (r->type == RECORD_APPLIED && load_applied(file, no, st, &r->a)) {
			ret = -1;
		}
		/* An older tslackd's file, raw paths and all, is not read at all. */
		if (no == 1 && ret) {
			log_err("%s: not written by this version of tslackd: not read (what it set stays: tslackctl list)",
				file);
			break;
		}
	}
	free(line);
	free(r);
	fclose(f);
	return ret;
}

/* The session records, for --status; 0 or -1. */
static int save_sessions(FILE *f, struct record *r, const struct session *s,
			 const uint64_t *slack, int n)
{
	int i;

	r->type = RECORD_SESSION;
	for (i = 0; i < n; i++) {
		memcpy(r->s.id, s[i].id, sizeof(r->s.id));
		memcpy(r->s.user, s[i].user, sizeof(r->s.user));
		r->s.uid = s[i].uid;
		r->s.idle = s[i].idle;
		r->s.locked = s[i].locked;
		r->s.active = s[i].active;
		r->s.slack = slack[i];
		memcpy(r->s.scope, s[i].scope_cg, sizeof(r->s.scope));
		if (record_write(f, r))
			return -1;
	}
	return 0;
}

static int save_records(FILE *f, const struct state *st, const struct session *s,
			const uint64_t *slack, int n)
{
	struct record *r = calloc(1, sizeof(*r));
	int i, ret = -1;

	if (!r)
		return -1;
	r->type = RECORD_HEADER;
	r->pid = getpid();
	if (record_write(f, r) || save_sessions(f, r, s, slack, n))
		goto out;
	r->type = RECORD_APPLIED;
	for (i = 0; i < st->n; i++) {
		r->a = st->a[i];
		if (record_write(f, r))
			goto out;
	}
	ret = 0;
out:
	free(r);
	return ret;
}

int state_save(const char *file, const struct state *st, const struct session *s,
	       const uint64_t *slack, int n)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	f = fopen(tmp, "we");
	if (!f) {
		log_err("%s: %m", tmp);
		return -1;
	}
	if (save_records(f, st, s, slack, n) | fflush(f) | ferror(f) | fclose(f) ||
	    rename(tmp, file)) {
		log_err("writing %s: %m", file);
		unlink(tmp);
		return -1;
	}
	return 0;
}

static const char *session_state(const struct session_record *s)
{
	return s->locked ? "locked" : s->idle ? "idle" : !s->active ? "background" : "active";
}

/* One parsed line for people; the count of its kind in @seen. */
static void print_record(const struct record *r, int seen[3])
{
	char a[32], b[32], id[ESCAPED_MAX / 16], user[ESCAPED_MAX / 16], p[ESCAPED_MAX];
	char src[4 * SOURCE_MAX];

	switch (r->type) {
	case RECORD_HEADER:
		if (kill(r->pid, 0) && errno == ESRCH)
			printf("tslackd (pid %d) is not running: what it set stays until it starts again\n",
			       r->pid);
		break;
	case RECORD_SESSION:
		if (!seen[RECORD_SESSION]++)
			printf("%-10s %-12s %-10s %-8s %s\n", "SESSION", "USER", "STATE",
			       "SLACK", "SCOPE");
		printf("%-10s %-12s %-10s %-8s %s\n", cescape(id, sizeof(id), r->s.id),
		       cescape(user, sizeof(user), r->s.user), session_state(&r->s),
		       format_ns(a, sizeof(a), r->s.slack),
		       *r->s.scope ? cescape(p, sizeof(p), r->s.scope) : "-");
		break;
	case RECORD_APPLIED:
		if (!seen[RECORD_APPLIED]++)
			printf("%s%-6s %-8s %-8s %s\n%6s %s\n", seen[RECORD_SESSION] ? "\n" : "",
			       "FIELD", "SET", "WAS", "CGROUP", "", "SOURCE");
		printf("%-6s %-8s %-8s %s\n%6s %s\n", field_name[r->a.field],
		       format_ns(a, sizeof(a), r->a.value), format_ns(b, sizeof(b), r->a.prev),
		       cescape(p, sizeof(p), r->a.path), "",
		       *r->a.source ? cescape(src, sizeof(src), r->a.source) : "-");
		break;
	}
}

int state_print(const char *file)
{
	struct record *r = malloc(sizeof(*r));
	int seen[3] = { 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;

	f = r ? fopen(file, "re") : NULL;
	if (!f) {
		log_err("not running (%s: %m)", file);
		free(r);
		return 1;
	}
	/* Paths are printed escaped, as they are stored: a name is no terminal escape. */
	while ((len = getline(&line, &cap, f)) > 0)
		if (line[len - 1] == '\n' && !record_parse(line, len - 1, r))
			print_record(r, seen);
	if (!seen[RECORD_SESSION] && !seen[RECORD_APPLIED])
		printf("no sessions\n");
	free(line);
	free(r);
	fclose(f);
	return 0;
}
