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
	return sd_bus_match_signal(bus, NULL, NULL, path, "org.freedesktop.DBus.Properties",
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

/*
 * Property @prop of @iface at @name's @path, of D-Bus type @type ('s' or
 * 'b'), into @out (a string: of @len bytes). 0, -ENOENT if no one has
 * @name, or another -errno (in @why).
 */
static int get(sd_bus *bus, const char *name, const char *path, const char *iface,
	       const char *prop, char type, void *out, size_t len, char *why, size_t wlen)
{
	sd_bus_error err = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL, *reply = NULL;
	const char *s;
	int b, r;

	r = sd_bus_message_new_method_call(bus, &m, name, path,
					   "org.freedesktop.DBus.Properties", "Get");
	if (r >= 0)
		r = sd_bus_message_set_auto_start(m, 0);
	if (r >= 0)
		r = sd_bus_message_append(m, "ss", iface, prop);
	if (r >= 0)
		r = sd_bus_call(bus, m, CALL_USEC, &err, &reply);
	if (r < 0 && (sd_bus_error_has_name(&err, SD_BUS_ERROR_SERVICE_UNKNOWN) ||
		      sd_bus_error_has_name(&err, SD_BUS_ERROR_NAME_HAS_NO_OWNER)))
		r = -ENOENT;
	if (r >= 0)
		r = sd_bus_message_enter_container(reply, 'v', type == 's' ? "s" : "b");
	if (r >= 0 && type == 's') {
		r = sd_bus_message_read_basic(reply, 's', &s);
		if (r >= 0)
			snprintf(out, len, "%s", s);
	} else if (r >= 0) {
		r = sd_bus_message_read_basic(reply, 'b', &b);
		if (r >= 0)
			*(bool *)out = b;
	}
	if (r < 0)
		snprintf(why, wlen, "%s", err.message ? err.message : strerror(-r));
	sd_bus_error_free(&err);
	sd_bus_message_unref(m);
	sd_bus_message_unref(reply);
	return r < 0 ? r : 0;
}

/* Say once what a daemon's coming or going means: @was to @now. */
static void say(int was, int now, const char *daemon, const char *key, const char *why)
{
	if (was == now)
		return;
	if (now)
		log_info("following %s for %s", daemon, key);
	else
		log_info("%s is not running (%s): %s unused until it starts", daemon, why, key);
}

void power_read(sd_bus *bus, struct power *p)
{
	char profile[64] = "", why[256] = "";
	unsigned int i;
	bool saver, battery = false;
	int r = -ENOENT, there;

	for (i = 0; i < 2 && r; i++)
		r = get(bus, ppd[i].name, ppd[i].path, ppd[i].name, "ActiveProfile", 's',
			profile, sizeof(profile), why, sizeof(why));
	there = !r;
	say(p->ppd, there, "power-profiles-daemon", "PowerSaver=", why);
	saver = there && !strcmp(profile, "power-saver");
	if (there && (p->ppd != there || saver != p->saver))
		log_info("power profile: %s", profile);
	p->ppd = there;
	p->saver = saver;

	r = get(bus, UPOWER, UPOWER_PATH, UPOWER, "OnBattery", 'b', &battery, 0, why,
		sizeof(why));
	there = !r;
	say(p->upower, there, "UPower", "OnBattery=", why);
	battery = there && battery;
	if (there && (p->upower != there || battery != p->battery))
		log_info("%s", battery ? "on battery" : "on mains power");
	p->upower = there;
	p->battery = battery;
}
