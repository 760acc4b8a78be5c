/* SPDX-License-Identifier: GPL-2.0 */
/* The sessions systemd-logind knows, and the cgroups systemd gave them. */
#ifndef TSLACKD_LOGIND_H
#define TSLACKD_LOGIND_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#define LOGIN1 "org.freedesktop.login1"

struct session {
	char id[64];
	char user[64];
	uint32_t uid;
	bool idle;		/* IdleHint */
	bool locked;		/* LockedHint */
	bool active;		/* Active: the foreground session of its seat, or seatless */
	char scope_cg[PATH_MAX];	/* its session-N.scope's cgroup, "" if none */
	char user_cg[PATH_MAX];		/* its user's user@UID.service's, "" if none */
	bool failed;		/* a call for it failed: only its id and user are known */
};

/*
 * Call @fn whenever logind says something changed: a session or user came
 * or went, a property changed, logind restarted. 0 or -errno.
 */
int logind_subscribe(sd_bus *bus, sd_bus_message_handler_t fn, void *data);

/*
 * Read the sessions that are neither closing nor of a class that is not
 * someone at the machine (background, manager...: logind.c), with their
 * hints and cgroups, without blocking: @done is called once, from the
 * event loop, with the sessions (to free()) and their number, in logind's
 * order, or with NULL and -errno after logging why. A session that a call
 * failed for (logged) is there with @failed set. 0, or -errno if the read
 * could not start (and @done is never called).
 */
typedef void (*logind_done_fn)(struct session *s, int n, void *data);
int logind_read_sessions(sd_bus *bus, logind_done_fn done, void *data);

/*
 * Set the IdleHint (or with @locked the LockedHint) of session @id
 * ("auto": the caller's own) to @on, as a session's idle tracker does.
 * 0, or -1 after printing why.
 */
int logind_set_hint(sd_bus *bus, const char *id, bool locked, bool on);

#endif
