// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions are read afresh on every change (a handful of calls each):
 * nothing is cached, so nothing goes stale when a signal is missed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "logind.h"
#include "record.h"

#define LOGIN1 "org.freedesktop.login1"
#define SYSTEMD1 "org.freedesktop.systemd1"

int logind_subscribe(sd_bus *bus, sd_bus_message_handler_t fn, void *data)
{
	int r;

	r = sd_bus_match_signal(bus, NULL, LOGIN1, NULL, NULL, NULL, fn, data);
	if (r < 0)
		return r;
	/* A restarted logind has lost no session but says nothing of them. */
	return sd_bus_add_match(bus, NULL,
				"type='signal',sender='org.freedesktop.DBus',"
				"member='NameOwnerChanged',arg0='" LOGIN1 "'", fn, data);
}

/* The cgroup of loaded unit @unit into @cg ("" if it is not loaded). */
static int unit_cgroup(sd_bus *bus, const char *unit, char *cg, size_t len)
{
	sd_bus_error err = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const char *path, *iface;
	char *val = NULL;
	int r;

	cg[0] = '\0';
	iface = strstr(unit, ".scope") ? SYSTEMD1 ".Scope" : SYSTEMD1 ".Service";
	r = sd_bus_call_method(bus, SYSTEMD1, "/org/freedesktop/systemd1",
			       SYSTEMD1 ".Manager", "GetUnit", &err, &reply, "s", unit);
	if (r < 0) {
		/* Not loaded: the user's manager is not running, say. */
		r = sd_bus_error_has_name(&err, SYSTEMD1 ".NoSuchUnit") ? 0 : r;
		goto out;
	}
	r = sd_bus_message_read(reply, "o", &path);
	if (r < 0)
		goto out;
	r = sd_bus_get_property_string(bus, SYSTEMD1, path, iface, "ControlGroup", &err, &val);
	if (r >= 0)
		snprintf(cg, len, "%s", val);
out:
	if (r < 0)
		log_err("the cgroup of %s: %s", unit, err.message ? err.message : strerror(-r));
	free(val);
	sd_bus_message_unref(reply);
	sd_bus_error_free(&err);
	return r < 0 ? r : 0;
}

static int get_bool(sd_bus *bus, const char *path, const char *name, bool *v)
{
	int r, b = 0;

	/* Nothing is read into @b when it fails: never copy that. */
	r = sd_bus_get_property_trivial(bus, LOGIN1, path, LOGIN1 ".Session", name,
					NULL, 'b', &b);
	if (r >= 0)
		*v = b;
	return r;
}

/* Is string property @name of session @path @val? 1 if so, 0 if not, or -errno. */
static int str_is(sd_bus *bus, const char *path, const char *name, const char *val)
{
	char *s = NULL;
	int r;

	r = sd_bus_get_property_string(bus, LOGIN1, path, LOGIN1 ".Session", name, NULL, &s);
	if (r >= 0)
		r = !strcmp(s, val);
	free(s);
	return r;
}

/* Does @r say that a session's object is gone: it ended meanwhile? */
static bool gone(int r)
{
	return r == -ENOENT || r == -EBADR || r == -ENXIO;
}

/*
 * One session, from its object @path; 1 if it does not count: closing,
 * gone, or of class background (cron, su: not someone at the machine,
 * never idle, and their users' apps should not wait for them).
 */
static int read_session(sd_bus *bus, const char *path, struct session *s)
{
	char *scope = NULL, unit[64];
	int r;

	r = str_is(bus, path, "State", "closing");
	if (!r)
		r = str_is(bus, path, "Class", "background");
	if (r)
		return r == 1 || gone(r) ? 1 : r;
	/* It may end between any two calls: then it is left out, as above. */
	if ((r = get_bool(bus, path, "IdleHint", &s->idle)) < 0 ||
	    (r = get_bool(bus, path, "LockedHint", &s->locked)) < 0 ||
	    (r = get_bool(bus, path, "Active", &s->active)) < 0 ||
	    (r = sd_bus_get_property_string(bus, LOGIN1, path, LOGIN1 ".Session", "Scope",
					    NULL, &scope)) < 0)
		return gone(r) ? 1 : r;
	r = *scope ? unit_cgroup(bus, scope, s->scope_cg, sizeof(s->scope_cg)) : 0;
	free(scope);
	if (r < 0)
		return r;
	snprintf(unit, sizeof(unit), "user@%u.service", s->uid);
	return unit_cgroup(bus, unit, s->user_cg, sizeof(s->user_cg));
}

int logind_sessions(sd_bus *bus, struct session **out)
{
	sd_bus_error err = SD_BUS_ERROR_NULL;
	const char *id, *user, *seat, *path;
	sd_bus_message *reply = NULL;
	struct session *all = NULL, *p;
	int r, n = 0;
	uint32_t uid;

	r = sd_bus_call_method(bus, LOGIN1, "/org/freedesktop/login1", LOGIN1 ".Manager",
			       "ListSessions", &err, &reply, NULL);
	if (r < 0)
		goto out;
	r = sd_bus_message_enter_container(reply, 'a', "(susso)");
	while (r >= 0 &&
	       (r = sd_bus_message_read(reply, "(susso)", &id, &uid, &user, &seat, &path)) > 0) {
		p = realloc(all, (n + 1) * sizeof(*all));
		if (!p) {
			r = -ENOMEM;
			break;
		}
		all = p;
		memset(&all[n], 0, sizeof(all[n]));
		snprintf(all[n].id, sizeof(all[n].id), "%s", id);
		snprintf(all[n].user, sizeof(all[n].user), "%s", user);
		all[n].uid = uid;
		r = read_session(bus, path, &all[n]);
		if (!r)
			n++;
	}
out:
	if (r < 0) {
		log_err("reading logind's sessions: %s", err.message ? err.message : strerror(-r));
		free(all);
		all = NULL;
		n = r;
	}
	sd_bus_message_unref(reply);
	sd_bus_error_free(&err);
	*out = all;
	return n;
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
