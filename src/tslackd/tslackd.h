/* SPDX-License-Identifier: GPL-2.0 */
/* The daemon (tslackd.c), for main.c: what it holds, and its event loop. */
#ifndef TSLACKD_H
#define TSLACKD_H

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "budget.h"
#include "config.h"
#include "logind.h"
#include "power.h"
#include "rules.h"
#include "state.h"
#include "watch.h"

#define TSLACKD_STATE "/run/tslackd/state"

struct daemon {
	sd_event *ev;
	sd_bus *bus;
	const char *config_dir;
	const char *state_file;
	struct tslackd_config cfg;
	struct rules rules;
	struct power power;
	struct state st;
	sd_event_source *refresh;	/* a change said on the bus, refresh pending */
	uint64_t last_refresh;		/* when it last fired (CLOCK_MONOTONIC) */
	sd_event_source *retry;
	sd_event_source *settle;	/* new cgroups seen, refresh pending */
	sd_event_source *made;		/* inotify's news of them, off until the settle */
	uint64_t last_settle;		/* when it last fired */
	uint64_t apply_usec;		/* CPU the last apply() took: walks, writes */
	bool attach_watched;		/* on_attach() tells when tslack is attached */
	bool power_stale;		/* a power source changed: read at the next refresh */
	int reading;			/* reads in flight: sessions, power sources */
	bool again;			/* and something changed since the read started */
	struct session *read;		/* the sessions read, until the power sources are */
	int n_read;			/* how many, or -errno */
	bool read_failed;		/* some could not be read: retried */
	struct cuts cuts;		/* walks cut short, logged */
	bool bus_lost;			/* the system bus went away: exit, holding on */
	struct watch watch;
	struct session *last;		/* as of the last refresh, for the log */
	uint64_t *last_slack;
	int n_last;
};

/* Run the daemon until SIGTERM, or the system bus is gone: an exit status. */
int run(struct daemon *d);

#endif
