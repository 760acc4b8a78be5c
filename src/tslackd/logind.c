// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions are read afresh on every change: nothing is cached, so nothing
 * goes stale when a signal is missed. A read blocks nothing: ListSessions,
 * then one GetAll per session and the cgroups of its two units (GetUnit,
 * then ControlGroup), in the event loop, at most LOGIND_CALLS_MAX of them
 * in flight at a time (budget.h). A call that fails leaves out only its
 * own session.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/format.h"
#include "budget.h"
#include "log.h"
#include "logind.h"

#define SYSTEMD1 "org.freedesktop.systemd1"

/* A read of the sessions in flight: logind_read_sessions(). */
struct reading {
	sd_bus *bus;
	struct session *all;
	bool *out;		/* per session: left out (closing, gone, background) */
	int n;
	int pending;		/* calls not answered yet, started or queued */
	int in_flight;		/* of those, started: at most LOGIND_CALLS_MAX */
	struct call *queue, **tail;	/* the others, in order */
	int err;		/* ListSessions failed: the whole read */
	char why[256];
	logind_done_fn done;
	void *data;
};

/*
 * A call, queued or in flight: @member of @path with @a (and @b), for
 * session @i: its properties, or the cgroup of @unit into @cg (GetUnit,
 * then its ControlGroup).
 */
struct call {
	struct reading *rd;
	struct call *next;
	sd_bus_message_handler_t fn;
	const char *dest, *iface, *member, *a, *b;
	char path[512];
	int i;
	char *cg;
	size_t len;
	char unit[64];
};

/* Does @r say that a session's object is gone: it ended meanwhile? */
static bool gone(int r)
{
	return r == -ENOENT || r == -EBADR || r == -ENXIO;
}

/*
 * Session @i could not be read, said by @why: it alone is left out of
 * this read (the caller keeps what it knew of it, and reads again).
 */
static void session_failed(struct reading *rd, int i, const char *what, int r, const char *why)
{
	char id[256];

	if (rd->all[i].failed)
		return;
	rd->all[i].failed = true;
	log_err("reading session %s: %s: %s", escape_name(id, sizeof(id), rd->all[i].id), what,
		why ? why : strerror(-r));
}

/* Every call answered: the sessions that count go to @done. */
static void finish(struct reading *rd)
{
	int i, n = 0;

	for (i = 0; i < rd->n; i++)
		if (!rd->out[i])
			rd->all[n++] = rd->all[i];
	if (rd->err) {
		log_err("reading logind's sessions: %s", rd->why);
		free(rd->all);
		rd->all = NULL;
		n = rd->err;
	}
	rd->done(rd->all, n, rd->data);
	free(rd->out);
	free(rd);
}

/*
 * Start what is queued while fewer than LOGIND_CALLS_MAX are in flight
 * (the bus refuses more than its limit of pending replies per connection:
 * 128 on the system bus); after the last answer, finish().
 */
static void pump(struct reading *rd)
{
	struct call *c;
	int r;

	while (rd->queue && rd->in_flight < LOGIND_CALLS_MAX) {
		c = rd->queue;
		rd->queue = c->next;
		if (!rd->queue)
			rd->tail = &rd->queue;
		if (c->b)
			r = sd_bus_call_method_async(rd->bus, NULL, c->dest, c->path, c->iface,
						     c->member, c->fn, c, "ss", c->a, c->b);
		else
			r = sd_bus_call_method_async(rd->bus, NULL, c->dest, c->path, c->iface,
						     c->member, c->fn, c, "s", c->a);
		if (r >= 0) {
			rd->in_flight++;
			continue;
		}
		session_failed(rd, c->i, c->member, r, NULL);
		rd->pending--;
		free(c);
	}
	if (!rd->pending)
		finish(rd);
}

/*
 * Queue @member of @path (@iface) for session @i with @c, or fail only
 * that session.
 */
static void submit(struct reading *rd, struct call *c, int i, const char *dest,
		   const char *path, const char *iface, const char *member,
		   sd_bus_message_handler_t fn, const char *a, const char *b)
{
	if (!c || snprintf(c->path, sizeof(c->path), "%s", path) >= (int)sizeof(c->path)) {
		session_failed(rd, i, member, c ? -ENAMETOOLONG : -ENOMEM, NULL);
		free(c);
		return;
	}
	c->rd = rd;
	c->next = NULL;
	c->i = i;
	c->dest = dest;
	c->iface = iface;
	c->member = member;
	c->fn = fn;
	c->a = a;
	c->b = b;
	*rd->tail = c;
	rd->tail = &c->next;
	rd->pending++;
}

/* @c is answered and done with: the next ones start. */
static int call_done(struct call *c)
{
	struct reading *rd = c->rd;

	free(c);
	rd->in_flight--;
	rd->pending--;
	pump(rd);
	return 0;
}

/* The error @m is, as -errno, with its message in *@why; 0 if it is none. */
static int error_of(sd_bus_message *m, const char **why)
{
	const sd_bus_error *e = sd_bus_message_get_error(m);

	*why = e && e->message ? e->message : NULL;
	return e ? -sd_bus_message_get_errno(m) : 0;
}

/* The end of a unit's cgroup lookup, @r its failure. */
static int unit_done(struct call *c, int r, const char *why)
{
	char what[128];

	if (r < 0) {
		snprintf(what, sizeof(what), "the cgroup of %s", c->unit);
		session_failed(c->rd, c->i, what, r, why);
	}
	return call_done(c);
}

static int on_cgroup(sd_bus_message *m, void *data, sd_bus_error *ret_error)
{
	struct call *c = data;
	const char *why, *val;
	int r;

	(void)ret_error;
	r = error_of(m, &why);
	if (!r)
		r = sd_bus_message_read(m, "v", "s", &val) ?: -EBADMSG;
	if (r > 0)
		snprintf(c->cg, c->len, "%s", val);
	return unit_done(c, r < 0 ? r : 0, why);
}

static int on_unit(sd_bus_message *m, void *data, sd_bus_error *ret_error)
{
	struct call *c = data;
	struct call *get;
	const char *why, *path, *iface;
	int r;

	(void)ret_error;
	r = error_of(m, &why);
	/* Not loaded: the user's manager is not running, say. */
	if (r && sd_bus_message_is_method_error(m, SYSTEMD1 ".NoSuchUnit"))
		return unit_done(c, 0, NULL);
	if (!r)
		r = sd_bus_message_read(m, "o", &path) ?: -EBADMSG;
	if (r < 0)
		return unit_done(c, r, why);
	iface = strstr(c->unit, ".scope") ? SYSTEMD1 ".Scope" : SYSTEMD1 ".Service";
	get = malloc(sizeof(*get));
	if (get) {
		*get = *c;
		submit(c->rd, get, c->i, SYSTEMD1, path, "org.freedesktop.DBus.Properties", "Get",
		       on_cgroup, iface, "ControlGroup");
	} else {
		session_failed(c->rd, c->i, "Get", -ENOMEM, NULL);
	}
	return call_done(c);
}

/* Queue the lookup of the cgroup of @unit, for session @i, into @cg. */
static void unit_cgroup(struct reading *rd, int i, const char *unit, char *cg, size_t len)
{
	struct call *c = calloc(1, sizeof(*c));

	if (c) {
		c->cg = cg;
		c->len = len;
		snprintf(c->unit, sizeof(c->unit), "%s", unit);
	}
	submit(rd, c, i, SYSTEMD1, "/org/freedesktop/systemd1", SYSTEMD1 ".Manager", "GetUnit",
	       on_unit, c ? c->unit : NULL, NULL);
}

/*
 * Whether a session of class @class is someone at the machine: idle or
 * not, it gets slack and holds back its user's. Those are the classes
 * logind lets have an idle hint or a lock screen (user, user-early,
 * greeter, lock-screen: logind-session.h, SESSION_CLASS_CAN_IDLE and
 * _CAN_LOCK) and the other logins of systemd 256 (user-light,
 * user-early-light, user-incomplete: a login that does not start the
 * user's manager). Not background and background-light (cron, su: never
 * idle, and their users' apps should not wait for them); not manager and
 * manager-early, systemd 256's session of user@UID.service itself: it has
 * no scope, is always active (seatless) and never idle, so it would keep
 * the user's apps fast for as long as the user is logged in; nor none, or
 * a class of a later systemd that it does not know.
 */
static bool interactive(const char *class)
{
	return !strcmp(class, "user") || !strncmp(class, "user-", 5) ||
	       !strcmp(class, "greeter") || !strcmp(class, "lock-screen");
}

/*
 * A session's properties, from the reply @m to its GetAll: *@out if it is
 * closing or not interactive().
 */
static int read_properties(sd_bus_message *m, struct session *s, bool *out, char *scope,
			   size_t len)
{
	const char *name, *str;
	int r, b;

	r = sd_bus_message_enter_container(m, 'a', "{sv}");
	while (r >= 0 && (r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
		r = sd_bus_message_read(m, "s", &name);
		if (r < 0)
			break;
		if (!strcmp(name, "State") || !strcmp(name, "Class") || !strcmp(name, "Scope")) {
			r = sd_bus_message_read(m, "v", "s", &str);
			if (r < 0)
				break;
			if (!strcmp(name, "Scope"))
				snprintf(scope, len, "%s", str);
			else if (!strcmp(name, "State") ? !strcmp(str, "closing") : !interactive(str))
				*out = true;
		} else if (!strcmp(name, "IdleHint") || !strcmp(name, "LockedHint") ||
			   !strcmp(name, "Active")) {
			r = sd_bus_message_read(m, "v", "b", &b);
			if (r < 0)
				break;
			if (!strcmp(name, "IdleHint"))
				s->idle = b;
			else if (!strcmp(name, "LockedHint"))
				s->locked = b;
			else
				s->active = b;
		} else {
			r = sd_bus_message_skip(m, "v");
		}
		if (r >= 0)
			r = sd_bus_message_exit_container(m);
	}
	return r < 0 ? r : 0;
}

static int on_session(sd_bus_message *m, void *data, sd_bus_error *ret_error)
{
	struct call *c = data;
	struct reading *rd = c->rd;
	struct session *s = &rd->all[c->i];
	char scope[64] = "", unit[64];
	const char *why;
	int r;

	(void)ret_error;
	r = error_of(m, &why);
	if (!r)
		r = read_properties(m, s, &rd->out[c->i], scope, sizeof(scope));
	if (gone(r)) {
		rd->out[c->i] = true;
	} else if (r < 0) {
		session_failed(rd, c->i, "GetAll", r, why);
	} else if (!rd->out[c->i]) {
		if (*scope)
			unit_cgroup(rd, c->i, scope, s->scope_cg, sizeof(s->scope_cg));
		snprintf(unit, sizeof(unit), "user@%u.service", s->uid);
		unit_cgroup(rd, c->i, unit, s->user_cg, sizeof(s->user_cg));
	}
	return call_done(c);
}

/* Every session listed, and the path of its object in *@paths. */
static int read_list(struct reading *rd, sd_bus_message *m, const char ***paths)
{
	const char *id, *user, *seat, *path, **pp;
	struct session *p;
	uint32_t uid;
	int r;

	r = sd_bus_message_enter_container(m, 'a', "(susso)");
	while (r >= 0 &&
	       (r = sd_bus_message_read(m, "(susso)", &id, &uid, &user, &seat, &path)) > 0) {
		p = realloc(rd->all, (rd->n + 1) * sizeof(*p));
		pp = p ? realloc(*paths, (rd->n + 1) * sizeof(*pp)) : NULL;
		if (p)
			rd->all = p;
		if (!pp)
			return -ENOMEM;
		*paths = pp;
		memset(&p[rd->n], 0, sizeof(*p));
		snprintf(p[rd->n].id, sizeof(p->id), "%s", id);
		snprintf(p[rd->n].user, sizeof(p->user), "%s", user);
		p[rd->n].uid = uid;
		pp[rd->n++] = path;
	}
	return r;
}

static int on_list(sd_bus_message *m, void *data, sd_bus_error *ret_error)
{
	struct call *c = data;
	struct reading *rd = c->rd;
	const char **paths = NULL, *why;
	int r, i;

	(void)ret_error;
	r = error_of(m, &why);
	if (!r)
		r = read_list(rd, m, &paths);
	rd->out = r < 0 ? NULL : calloc(rd->n + 1, sizeof(*rd->out));
	if (r >= 0 && !rd->out)
		r = -ENOMEM;
	if (r < 0) {
		rd->err = r;
		snprintf(rd->why, sizeof(rd->why), "%s", why ? why : strerror(-r));
		rd->out = calloc(1, sizeof(*rd->out));
		rd->n = 0;
	}
	/* Queued, not started: a few at a time (pump()). */
	for (i = 0; i < rd->n; i++)
		submit(rd, calloc(1, sizeof(struct call)), i, LOGIN1, paths[i],
		       "org.freedesktop.DBus.Properties", "GetAll", on_session,
		       LOGIN1 ".Session", NULL);
	free(paths);
	return call_done(c);
}

int logind_read_sessions(sd_bus *bus, logind_done_fn done, void *data)
{
	struct reading *rd = calloc(1, sizeof(*rd));
	struct call *c = calloc(1, sizeof(*c));
	int r = -ENOMEM;

	if (rd && c) {
		rd->bus = bus;
		rd->done = done;
		rd->data = data;
		rd->tail = &rd->queue;
		c->rd = rd;
		r = sd_bus_call_method_async(bus, NULL, LOGIN1, "/org/freedesktop/login1",
					     LOGIN1 ".Manager", "ListSessions", on_list, c, NULL);
	}
	if (r < 0) {
		free(c);
		free(rd);
		return r;
	}
	rd->pending = 1;
	rd->in_flight = 1;
	return 0;
}
