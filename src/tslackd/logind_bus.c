// SPDX-License-Identifier: GPL-2.0
/*
 * What tslackd says to logind besides reading its sessions (logind.c):
 * the signals it listens to, and the hints that tslackd --set-idle and
 * --set-locked set for a session, as its idle tracker would.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/compiler.h"
#include "../lib/format.h"
#include "log.h"
#include "logind.h"

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
			escape_name(esc, sizeof(esc), id),
			err.message ? err.message : strerror(-r));
	free(path);
	sd_bus_error_free(&err);
	return r < 0 ? -1 : 0;
}
