// SPDX-License-Identifier: GPL-2.0
/*
 * power-profiles-daemon has two names: net.hadess.PowerProfiles (0.12,
 * Debian 12's) and org.freedesktop.UPower.PowerProfiles (0.20 on); the
 * newer is asked first. Both daemons are D-Bus activatable: our calls
 * never start them (no auto start), a machine without a battery has no
 * reason to run UPower for us.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/compiler.h"
#include "log.h"
#include "power.h"

/* A daemon that does not answer within this is taken as not there. */
#define CALL_USEC (1000000ULL)

static const struct {
	const char *name, *path;
} ppd[] = {
	{ "org.freedesktop.UPower.PowerProfiles", "/org/freedesktop/UPower/PowerProfiles" },
	{ "net.hadess.PowerProfiles", "/net/hadess/PowerProfiles" },
};

#define UPOWER "org.freedesktop.UPower"
#define UPOWER_PATH "/org/freedesktop/UPower"

/* Follow who owns @name, and the properties of its object @path. */
static int follow(sd_bus *bus, const char *name, const char *path,
		  sd_bus_message_handler_t fn, void *data)
{
	char rule[256];
	int r;

	snprintf(rule, sizeof(rule),
		 "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='%s'",
		 name);
	r = sd_bus_add_match(bus, NULL, rule, fn, data);
	if (r < 0)
		return r;
	/*
	 * From @name's owner only: the bus delivers no one else's (anyone
	 * may send a signal, with any path and interface).
	 */
	return sd_bus_match_signal(bus, NULL, name, path, "org.freedesktop.DBus.Properties",
				   "PropertiesChanged", fn, data);
}

int power_subscribe(sd_bus *bus, struct power *p, sd_bus_message_handler_t fn, void *data)
{
	unsigned int i;
	int r;

	p->ppd = -1;
	p->upower = -1;
	for (i = 0; i < ARRAY_SIZE(ppd); i++) {
		r = follow(bus, ppd[i].name, ppd[i].path, fn, data);
		if (r < 0)
			return r;
	}
	return follow(bus, UPOWER, UPOWER_PATH, fn, data);
}

/* A read of both daemons in flight: power_read(). */
struct reading {
	struct power *p;
	power_done_fn done;
	void *data;
	int pending;		/* calls in flight */
	unsigned int ppd_i;	/* the name of power-profiles-daemon asked */
	int ppd_r, upower_r;	/* 0 read, -ENOENT no one has the name, -errno */
	char profile[64];
	bool battery;
	char ppd_why[256], upower_why[256];
};

static int on_profile(sd_bus_message *m, void *data, sd_bus_error *ret_error);
static int on_battery(sd_bus_message *m, void *data, sd_bus_error *ret_error);

/*
 * Ask for property @prop of @iface at @name's @path, for @fn, counted in
 * flight; 0 or -errno.
 */
static int request_property(sd_bus *bus, struct reading *rd, const char *name,
			    const char *path, const char *iface, const char *prop,
			    sd_bus_message_handler_t fn)
{
	sd_bus_message *m = NULL;
	int r;

	r = sd_bus_message_new_method_call(bus, &m, name, path,
					   "org.freedesktop.DBus.Properties", "Get");
	if (r >= 0)
		r = sd_bus_message_set_auto_start(m, 0);
	if (r >= 0)
		r = sd_bus_message_append(m, "ss", iface, prop);
	if (r >= 0)
		r = sd_bus_call_async(bus, NULL, m, fn, rd, CALL_USEC);
	sd_bus_message_unref(m);
	if (r >= 0)
		rd->pending++;
	return r;
}

/*
 * The reply @m, of D-Bus type @type ('s' or 'b'), into @out (a string: of
 * @len bytes). 0, -ENOENT if no one has the name, or another -errno (in @why).
 */
static int reply(sd_bus_message *m, char type, void *out, size_t len, char *why, size_t wlen)
{
	const sd_bus_error *e = sd_bus_message_get_error(m);
	const char *s;
	int b, r;

	if (sd_bus_message_is_method_error(m, SD_BUS_ERROR_SERVICE_UNKNOWN) ||
	    sd_bus_message_is_method_error(m, SD_BUS_ERROR_NAME_HAS_NO_OWNER))
		r = -ENOENT;
	else if (e)
		r = -sd_bus_message_get_errno(m);
	else
		r = sd_bus_message_enter_container(m, 'v', type == 's' ? "s" : "b");
	if (r >= 0 && type == 's') {
		r = sd_bus_message_read_basic(m, 's', &s);
		if (r >= 0)
			snprintf(out, len, "%s", s);
	} else if (r >= 0) {
		r = sd_bus_message_read_basic(m, 'b', &b);
		if (r >= 0)
			*(bool *)out = b;
	}
	if (r < 0)
		snprintf(why, wlen, "%s", e && e->message ? e->message : strerror(-r));
	return r < 0 ? r : 0;
}

/* Say once what a daemon's coming or going means: @was to @now. */
static void log_daemon_presence(int was, int now, const char *daemon, const char *key,
				const char *why)
{
	if (was == now)
		return;
	if (now)
		log_info("following %s for %s", daemon, key);
	else
		log_info("%s is not running (%s): %s unused until it starts", daemon, why, key);
}

/* Both read: into p, said when it changed, then to done(). */
static void finish(struct reading *rd)
{
	struct power *p = rd->p;
	bool saver, battery;
	int there;

	there = !rd->ppd_r;
	log_daemon_presence(p->ppd, there, "power-profiles-daemon", "PowerSaver=", rd->ppd_why);
	saver = there && !strcmp(rd->profile, "power-saver");
	if (there && (p->ppd != there || saver != p->saver))
		log_info("power profile: %s", rd->profile);
	p->ppd = there;
	p->saver = saver;

	there = !rd->upower_r;
	log_daemon_presence(p->upower, there, "UPower", "OnBattery=", rd->upower_why);
	battery = there && rd->battery;
	if (there && (p->upower != there || battery != p->battery))
		log_info("%s", battery ? "on battery" : "on mains power");
	p->upower = there;
	p->battery = battery;
	rd->done(rd->data);
	free(rd);
}

static int on_profile(sd_bus_message *m, void *data, sd_bus_error *ret_error)
{
	struct reading *rd = data;
	int r;

	(void)ret_error;
	rd->pending--;
	rd->ppd_r = reply(m, 's', rd->profile, sizeof(rd->profile), rd->ppd_why,
			  sizeof(rd->ppd_why));
	/* Not under the newer name: the older one. */
	if (rd->ppd_r == -ENOENT && ++rd->ppd_i < ARRAY_SIZE(ppd)) {
		r = request_property(sd_bus_message_get_bus(m), rd, ppd[rd->ppd_i].name,
				     ppd[rd->ppd_i].path, ppd[rd->ppd_i].name, "ActiveProfile",
				     on_profile);
		if (r < 0) {
			rd->ppd_r = r;
			snprintf(rd->ppd_why, sizeof(rd->ppd_why), "%s", strerror(-r));
		}
	}
	if (!rd->pending)
		finish(rd);
	return 0;
}

static int on_battery(sd_bus_message *m, void *data, sd_bus_error *ret_error)
{
	struct reading *rd = data;

	(void)ret_error;
	rd->pending--;
	rd->upower_r = reply(m, 'b', &rd->battery, 0, rd->upower_why, sizeof(rd->upower_why));
	if (!rd->pending)
		finish(rd);
	return 0;
}

int power_read(sd_bus *bus, struct power *p, power_done_fn done, void *data)
{
	struct reading *rd = calloc(1, sizeof(*rd));
	int r;

	if (!rd)
		return -ENOMEM;
	rd->p = p;
	rd->done = done;
	rd->data = data;
	r = request_property(bus, rd, ppd[0].name, ppd[0].path, ppd[0].name, "ActiveProfile",
			     on_profile);
	if (r >= 0)
		r = request_property(bus, rd, UPOWER, UPOWER_PATH, UPOWER, "OnBattery",
				     on_battery);
	if (r < 0 && rd->pending) {
		/* The first is in flight: it ends the read, UPower as not there. */
		rd->upower_r = r;
		snprintf(rd->upower_why, sizeof(rd->upower_why), "%s", strerror(-r));
		return 0;
	}
	if (r < 0)
		free(rd);
	return r < 0 ? r : 0;
}
