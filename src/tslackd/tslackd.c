// SPDX-License-Identifier: GPL-2.0
/*
 * tslackd: raise the timer slack of a session's processes while logind
 * says the session is idle, locked or in the background, and lower it
 * again when it is not; and hold the settings the rule files of slack.d
 * declare on every cgroup they match. See tslackd(8).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "../lib/format.h"
#include "../lib/policy.h"
#include "budget.h"
#include "config.h"
#include "log.h"
#include "logind.h"
#include "plan.h"
#include "power.h"
#include "rules.h"
#include "state.h"
#include "tslackd.h"
#include "watch.h"

/* After a failure (not attached, say), try again this often. */
#define RETRY_USEC (10 * 1000000ULL)

/*
 * Fire @es now, or @gap after @last (when it last fired), or longer after
 * it if the last apply() took more than a WALK_CPU_SHARE_INV-th of that: a
 * burst of events costs one call, and its end is not lost. One already
 * due sees what happened since it was armed.
 */
static void arm(struct daemon *d, sd_event_source *es, uint64_t last, uint64_t gap)
{
	int on = SD_EVENT_OFF;
	uint64_t now = 0;

	sd_event_source_get_enabled(es, &on);
	if (on != SD_EVENT_OFF)
		return;
	if (gap < WALK_CPU_SHARE_INV * d->apply_usec)
		gap = WALK_CPU_SHARE_INV * d->apply_usec;
	sd_event_now(d->ev, CLOCK_MONOTONIC, &now);
	if (last && now < last + gap)
		now = last + gap;
	sd_event_source_set_time(es, now);
	sd_event_source_set_enabled(es, SD_EVENT_ONESHOT);
}

/* Something said on the bus changed: a refresh, at most one per REFRESH_USEC. */
static void refresh_soon(struct daemon *d)
{
	arm(d, d->refresh, d->last_refresh, REFRESH_USEC);
}


/* Say what changed for each session since the last refresh. */
static void log_sessions(struct daemon *d, const struct session *s, const uint64_t *slack,
			 int n)
{
	char buf[32], id[256], user[256];
	const char *what;
	int i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < d->n_last && strcmp(d->last[j].id, s[i].id); j++)
			;
		if (j < d->n_last && d->last_slack[j] == slack[i])
			continue;
		what = s[i].locked ? "locked" : s[i].idle ? "idle" :
		       !s[i].active ? "in the background" : "active";
		log_info("session %s of %s is %s: slack %s", escape_name(id, sizeof(id), s[i].id),
			 escape_name(user, sizeof(user), s[i].user), what,
			 format_ns(buf, sizeof(buf), slack[i]));
	}
}

/*
 * Until it works: logind back, memory found. Not while tslack is detached
 * if on_attach() will say when it is attached again.
 */
static void retry_if(struct daemon *d, int r)
{
	bool retry = r && !(r == -ENOENT && d->attach_watched);

	sd_event_source_set_enabled(d->retry, retry ? SD_EVENT_ONESHOT : SD_EVENT_OFF);
	if (retry)
		sd_event_source_set_time_relative(d->retry, RETRY_USEC);
}

/* The CPU this thread has used, in microseconds. */
static uint64_t cpu_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000ULL + ts.tv_nsec / 1000;
}

/* The sessions read (@n of them, or -errno): hold what they and the rules want. */
static void apply(struct daemon *d, struct session *s, int n)
{
	struct want *w = NULL;
	uint64_t *slack = NULL, t0 = cpu_usec();
	int nw = -1, i, r = -1;

	if (n >= 0) {
		slack = calloc(n + 1, sizeof(*slack));
		for (i = 0; slack && i < n; i++)
			slack[i] = plan_session_slack(&d->cfg, &d->power, &s[i], NULL);
		nw = slack ? plan(&d->cfg, &d->power, &d->rules, s, n, &w, &d->watch,
				  &d->cuts) : -1;
	}
	if (nw >= 0) {
		log_sessions(d, s, slack, n);
		watch_end(&d->watch);
		/* Saved even after a failure: it says what is still to undo. */
		r = state_reconcile(&d->st, w, nw, &(struct status){ d->state_file, s, slack, n });
		free(d->last);
		free(d->last_slack);
		d->last = s;
		d->last_slack = slack;
		d->n_last = n;
		s = NULL;
		slack = NULL;
	}
	free(s);
	free(slack);
	free(w);
	d->apply_usec = cpu_usec() - t0;
	retry_if(d, r ?: d->read_failed ? -1 : 0);
	/* What changed during the read is read again. */
	if (d->again) {
		d->again = false;
		refresh_soon(d);
	}
}

/* One read less in flight: after the last, apply() what was read. */
static void read_done(struct daemon *d)
{
	if (--d->reading)
		return;
	apply(d, d->read, d->n_read);
	d->read = NULL;
}

/*
 * Sessions that a call failed for are taken as the last refresh saw them,
 * or left out if it did not see them, and read again at the retry: one
 * session that could not be read changes nothing for the others, nor for
 * itself until it is read. The number left.
 */
static int keep_failed(struct daemon *d, struct session *s, int n)
{
	int i, j, k = 0;

	for (i = 0; i < n; i++) {
		if (s[i].failed) {
			d->read_failed = true;
			for (j = 0; j < d->n_last && strcmp(d->last[j].id, s[i].id); j++)
				;
			if (j == d->n_last)
				continue;
			s[i] = d->last[j];
		}
		s[k++] = s[i];
	}
	return k;
}

static void on_sessions(struct session *s, int n, void *data)
{
	struct daemon *d = data;

	d->read_failed = false;
	if (n > 0)
		n = keep_failed(d, s, n);
	d->read = s;
	d->n_read = n;
	read_done(d);
}

static void on_power_read(void *data)
{
	read_done(data);
}

/*
 * Read the sessions and, if they said they changed, the power sources, in
 * parallel; then apply(). Once at a time.
 */
static void refresh(struct daemon *d)
{
	int r;

	if (d->reading) {
		d->again = true;
		return;
	}
	r = logind_read_sessions(d->bus, on_sessions, d);
	if (r < 0) {
		log_err("reading logind's sessions: %s", strerror(-r));
		retry_if(d, -1);
		return;
	}
	d->reading = 1;
	if (d->power_stale && !power_read(d->bus, &d->power, on_power_read, d)) {
		d->power_stale = false;
		d->reading++;
	}
}

static int on_refresh(sd_event_source *es, uint64_t usec, void *data)
{
	struct daemon *d = data;

	(void)es;
	d->last_refresh = usec;
	refresh(d);
	return 0;
}

static int on_timer(sd_event_source *es, uint64_t usec, void *data)
{
	(void)es;
	(void)usec;
	refresh(data);
	return 0;
}

static int on_settle(sd_event_source *es, uint64_t usec, void *data)
{
	struct daemon *d = data;

	(void)es;
	d->last_settle = usec;
	sd_event_source_set_enabled(d->made, SD_EVENT_ON);
	refresh(d);
	return 0;
}

static int on_cgroup_made(sd_event_source *es, int fd, uint32_t revents, void *data)
{
	struct daemon *d = data;

	(void)es;
	(void)fd;
	(void)revents;
	/*
	 * Until the settle, new cgroups are left in the queue and read then
	 * (an overflow makes a walk all the same): a user making cgroups as
	 * fast as she can costs one read a settle, not a wakeup a mkdir.
	 */
	if (watch_drain(&d->watch)) {
		arm(d, d->settle, d->last_settle, SETTLE_USEC);
		sd_event_source_set_enabled(d->made, SD_EVENT_OFF);
	}
	return 0;
}

/*
 * tslackctl attach renames its pin directory into place when the new
 * policy is ready: its map is empty, and gets what we hold at once.
 */
static int on_attach(sd_event_source *es, const struct inotify_event *ev, void *data)
{
	struct daemon *d = data;

	(void)es;
	/* After an overflow, any event may be lost: look again. */
	if ((ev->mask & IN_Q_OVERFLOW) || (ev->len && !strcmp(ev->name, TSLACK_PIN_NAME)))
		refresh_soon(d);
	return 0;
}

/*
 * Whether @m is a signal sent to tslackd alone. The signals followed are
 * broadcasts, which the bus delivers only from the owner of the name
 * matched (the match's sender); one sent to us alone is delivered whoever
 * sends it, and sd-bus cannot tell a name's owner from another peer.
 */
static bool unicast(sd_bus_message *m)
{
	return sd_bus_message_get_destination(m) != NULL;
}

static int on_logind(sd_bus_message *m, void *data, sd_bus_error *err)
{
	(void)err;
	if (!unicast(m))
		refresh_soon(data);
	return 0;
}

/* A power daemon came, went or changed: read it again, at the next refresh. */
static int on_power(sd_bus_message *m, void *data, sd_bus_error *err)
{
	struct daemon *d = data;

	(void)err;
	if (unicast(m))
		return 0;
	d->power_stale = true;
	refresh_soon(d);
	return 0;
}

/*
 * The system bus went away (dbus-daemon restarted, say): tslackd is blind
 * without it. Exit with a failure, for systemd to start it again
 * (Restart=on-failure); what it holds is kept, in its state file, for the
 * next one to take back.
 */
static int on_disconnected(sd_bus_message *m, void *data, sd_bus_error *err)
{
	struct daemon *d = data;

	(void)m;
	(void)err;
	log_err("the system bus disconnected: exiting, for systemd to restart tslackd");
	d->bus_lost = true;
	return sd_event_exit(d->ev, EXIT_FAILURE);
}

static int on_hup(sd_event_source *es, const struct signalfd_siginfo *si, void *data)
{
	struct daemon *d = data;
	struct tslackd_config cfg;
	struct rules rules;

	(void)es;
	(void)si;
	sd_notify(0, "RELOADING=1");
	if (config_load(d->config_dir, &cfg)) {
		log_err("reload: configuration and rules unchanged");
	} else if (rules_load(d->config_dir, &rules)) {
		config_free(&cfg);
		log_err("reload: configuration and rules unchanged");
	} else {
		config_free(&d->cfg);
		rules_free(&d->rules);
		d->cfg = cfg;
		d->rules = rules;
		log_info("configuration reloaded: %d rule%s", rules.n, rules.n == 1 ? "" : "s");
		refresh(d);
	}
	sd_notify(0, "READY=1");
	return 0;
}

int run(struct daemon *d)
{
	sigset_t mask;
	int r;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	if ((r = sd_event_default(&d->ev)) < 0 ||
	    (r = sd_bus_open_system(&d->bus)) < 0 ||
	    (r = sd_bus_attach_event(d->bus, d->ev, 0)) < 0 ||
	    /* Pings WatchdogSec= of the unit at half its interval, if set. */
	    (r = sd_event_set_watchdog(d->ev, true)) < 0 ||
	    (r = sd_event_add_signal(d->ev, NULL, SIGTERM, NULL, NULL)) < 0 ||
	    (r = sd_event_add_signal(d->ev, NULL, SIGINT, NULL, NULL)) < 0 ||
	    (r = sd_event_add_signal(d->ev, NULL, SIGHUP, on_hup, d)) < 0 ||
	    /* Not the default accuracy (250 ms): a refresh due now starts now. */
	    (r = sd_event_add_time_relative(d->ev, &d->refresh, CLOCK_MONOTONIC, REFRESH_USEC, 1,
					    on_refresh, d)) < 0 ||
	    (r = sd_event_add_time_relative(d->ev, &d->retry, CLOCK_MONOTONIC, RETRY_USEC, 0,
					    on_timer, d)) < 0 ||
	    (r = sd_event_add_time_relative(d->ev, &d->settle, CLOCK_MONOTONIC, SETTLE_USEC, 0,
					    on_settle, d)) < 0 ||
	    (r = watch_init(&d->watch)) < 0 ||
	    (r = sd_event_add_io(d->ev, &d->made, d->watch.fd, EPOLLIN, on_cgroup_made, d)) < 0 ||
	    (r = sd_bus_match_signal(d->bus, NULL, "org.freedesktop.DBus.Local", NULL,
				     "org.freedesktop.DBus.Local", "Disconnected",
				     on_disconnected, d)) < 0 ||
	    (r = logind_subscribe(d->bus, on_logind, d)) < 0 ||
	    (r = power_subscribe(d->bus, &d->power, on_power, d)) < 0) {
		log_err("setting up the event loop and the system bus: %s", strerror(-r));
		return 1;
	}
	r = sd_event_add_inotify(d->ev, NULL, TSLACK_BPFFS, IN_CREATE | IN_MOVED_TO | IN_ONLYDIR,
				 on_attach, d);
	d->attach_watched = r >= 0;
	if (r < 0)
		log_warn("watching %s: %s", TSLACK_BPFFS, strerror(-r));
	sd_event_source_set_enabled(d->refresh, SD_EVENT_OFF);
	sd_event_source_set_enabled(d->retry, SD_EVENT_OFF);
	sd_event_source_set_enabled(d->settle, SD_EVENT_OFF);
	/*
	 * What a killed tslackd set is undone or kept by the first refresh.
	 * A damaged file has been logged: what could be read of it is used.
	 */
	state_load(d->state_file, &d->st);
	d->power_stale = true;
	refresh(d);
	sd_notify(0, "READY=1");
	r = sd_event_loop(d->ev);
	sd_notify(0, "STOPPING=1");
	if (d->bus_lost)
		return 1;
	/*
	 * Undo everything; the state file is kept only if something is
	 * still held (even when it could not be saved: /run full).
	 */
	state_reconcile(&d->st, NULL, 0, &(struct status){ .file = d->state_file });
	if (!d->st.n)
		unlink(d->state_file);
	return r ? 1 : 0;
}
