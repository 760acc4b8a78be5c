// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions are read afresh on every change: nothing is cached, so nothing
 * goes stale when a signal is missed. A read blocks nothing: ListSessions,
 * then one GetAll per session and the cgroups of its two units (GetUnit,
 * then ControlGroup), every call in flight at once, in the event loop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/compiler.h"
#include "log.h"
#include "logind.h"
#include "record.h"

#define LOGIN1 "org.freedesktop.login1"
#define SYSTEMD1 "org.freedesktop.systemd1"

/*
 * Only from logind (the owner of its name: the bus delivers no one else's),
 * and only what says something of sessions: its Manager's signals (a
 * session or user came or went) and the properties of sessions and users,
 * not those of the Manager, which change with each session's idle hint.
 */
int logind_subscribe(sd_bus *bus, sd_bus_message_handler_t fn, void *data)
{
	static const char *const props[] = {
		"type='signal',sender='" LOGIN1 "',interface='org.freedesktop.DBus.Properties',"
		"member='PropertiesChanged',arg0='" LOGIN1 ".Session'",
		"type='signal',sender='" LOGIN1 "',interface='org.freedesktop.DBus.Properties',"
		"member='PropertiesChanged',arg0='" LOGIN1 ".User'",
	};
	unsigned int i;
	int r;

	r = sd_bus_match_signal(bus, NULL, LOGIN1, "/org/freedesktop/login1", LOGIN1 ".Manager",
				NULL, fn, data);
	for (i = 0; r >= 0 && i < ARRAY_SIZE(props); i++)
		r = sd_bus_add_match(bus, NULL, props[i], fn, data);
	if (r < 0)
		return r;
	/* A restarted logind has lost no session but says nothing of them. */
	return sd_bus_add_match(bus, NULL,
				"type='signal',sender='org.freedesktop.DBus',"
				"member='NameOwnerChanged',arg0='" LOGIN1 "'", fn, data);
}

/* A read of the sessions in flight: logind_read_sessions(). */
struct reading {
	sd_bus *bus;
	struct session *all;
	bool *out;		/* per session: left out (closing, gone, background) */
	int n, pending, err;	/* calls in flight; the first failure */
	char why[256];
	logind_done_fn done;
	void *data;
};

/*
 * What a call in flight is for: session @i's properties, or the cgroup of
 * @unit into @cg (GetUnit, then its ControlGroup).
 */
struct call {
	struct reading *rd;
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

/* The read fails with @r, first said by @why (NULL: strerror(-@r)). */
static void fail(struct reading *rd, int r, const char *why)
{
	if (rd->err)
		return;
	rd->err = r;
	snprintf(rd->why, sizeof(rd->why), "%s", why ? why : strerror(-r));
}

/* One call less in flight: after the last, the sessions that count go to @done. */
static void finish_one(struct reading *rd)
{
	int i, n = 0;

	if (--rd->pending)
		return;
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

/* Start @member of @path (@iface) with @c, counted in flight; 0 or -errno. */
static int call_async(struct call *c, const char *dest, const char *path, const char *iface,
		      const char *member, sd_bus_message_handler_t fn, const char *types,
		      const char *a, const char *b)
{
	int r;

	if (!b)
		r = sd_bus_call_method_async(c->rd->bus, NULL, dest, path, iface, member, fn, c,
					     types, a);
	else
		r = sd_bus_call_method_async(c->rd->bus, NULL, dest, path, iface, member, fn, c,
					     types, a, b);
	if (r >= 0)
		c->rd->pending++;
	return r;
}

/* The error @m is, as -errno, with its message in *@why; 0 if it is none. */
static int error_of(sd_bus_message *m, const char **why)
{
	const sd_bus_error *e = sd_bus_message_get_error(m);

	*why = e && e->message ? e->message : NULL;
	return e ? -sd_bus_message_get_errno(m) : 0;
}

/* The end of a unit's cgroup lookup, @r its failure (logged). Always 0. */
static int unit_done(struct call *c, int r, const char *why)
{
	if (r < 0) {
		log_err("the cgroup of %s: %s", c->unit, why ? why : strerror(-r));
		fail(c->rd, r, NULL);
	}
	finish_one(c->rd);
	free(c);
	return 0;
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
	r = call_async(c, SYSTEMD1, path, "org.freedesktop.DBus.Properties", "Get", on_cgroup,
		       "ss", iface, "ControlGroup");
	if (r < 0)
		return unit_done(c, r, NULL);
	finish_one(c->rd);	/* this call; its Get is in flight */
	return 0;
}

/* Ask for the cgroup of @unit into @cg ("" if it is not loaded). */
static void unit_cgroup(struct reading *rd, const char *unit, char *cg, size_t len)
{
	struct call *c = calloc(1, sizeof(*c));
	int r = -ENOMEM;

	if (c) {
		c->rd = rd;
		c->cg = cg;
		c->len = len;
		snprintf(c->unit, sizeof(c->unit), "%s", unit);
		r = call_async(c, SYSTEMD1, "/org/freedesktop/systemd1", SYSTEMD1 ".Manager",
			       "GetUnit", on_unit, "s", unit, NULL);
	}
	if (r < 0) {
		log_err("the cgroup of %s: %s", unit, strerror(-r));
		fail(rd, r, NULL);
		free(c);
	}
}

/*
 * A session's properties, from the reply @m to its GetAll: *@out if it is
 * closing or of class background (cron, su: not someone at the machine,
 * never idle, and their users' apps should not wait for them), or gone.
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
			else if (!strcmp(str, !strcmp(name, "State") ? "closing" : "background"))
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
		fail(rd, r, NULL);
	} else if (!rd->out[c->i]) {
		if (*scope)
			unit_cgroup(rd, scope, s->scope_cg, sizeof(s->scope_cg));
		snprintf(unit, sizeof(unit), "user@%u.service", s->uid);
		unit_cgroup(rd, unit, s->user_cg, sizeof(s->user_cg));
	}
	finish_one(rd);
	free(c);
	return 0;
}

/* Every session listed: ask for each one's properties, at once. */
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
	struct reading *rd = data;
	const char **paths = NULL, *why;
	struct call *c;
	int r, i;

	(void)ret_error;
	r = error_of(m, &why);
	if (!r)
		r = read_list(rd, m, &paths);
	rd->out = r < 0 ? NULL : calloc(rd->n + 1, sizeof(*rd->out));
	if (r >= 0 && !rd->out)
		r = -ENOMEM;
	if (r < 0)
		fail(rd, r, why);
	/* The paths are @m's, and the sessions move no more. */
	for (i = 0; r >= 0 && i < rd->n; i++) {
		c = calloc(1, sizeof(*c));
		r = c ? 0 : -ENOMEM;
		if (c) {
			c->rd = rd;
			c->i = i;
			r = call_async(c, LOGIN1, paths[i], "org.freedesktop.DBus.Properties",
				       "GetAll", on_session, "s", LOGIN1 ".Session", NULL);
		}
		if (r < 0) {
			free(c);
			fail(rd, r, NULL);
		}
	}
	free(paths);
	if (!rd->out)
		rd->n = 0;
	finish_one(rd);
	return 0;
}

int logind_read_sessions(sd_bus *bus, logind_done_fn done, void *data)
{
	struct reading *rd = calloc(1, sizeof(*rd));
	int r;

	if (!rd)
		return -ENOMEM;
	rd->bus = bus;
	rd->done = done;
	rd->data = data;
	r = sd_bus_call_method_async(bus, NULL, LOGIN1, "/org/freedesktop/login1",
				     LOGIN1 ".Manager", "ListSessions", on_list, rd, NULL);
	if (r < 0) {
		free(rd);
		return r;
	}
	rd->pending = 1;
	return 0;
}

int logind_set_hint(sd_bus *bus, const char *id, bool locked, bool on)
{
	sd_bus_error err = SD_BUS_ERROR_NULL;
	char *path = NULL, esc[256];
	int r;

	r = sd_bus_path_encode("/org/freedesktop/login1/session", id, &path);
	if (r >= 0)
		r = sd_bus_call_method(bus, LOGIN1, path, LOGIN1 ".Session",
				       locked ? "SetLockedHint" : "SetIdleHint", &err, NULL,
				       "b", (int)on);
	if (r < 0)
		log_err("setting the %s hint of session %s: %s", locked ? "locked" : "idle",
			cescape(esc, sizeof(esc), id), err.message ? err.message : strerror(-r));
	free(path);
	sd_bus_error_free(&err);
	return r < 0 ? -1 : 0;
}
