/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The power sources: power-profiles-daemon's ActiveProfile and UPower's
 * OnBattery, followed on the system bus. Either daemon may be missing
 * (a desktop without them, a server): that is said once, not at each
 * refresh, and its setting is then unused.
 */
#ifndef TSLACKD_POWER_H
#define TSLACKD_POWER_H

#include <stdbool.h>
#include <systemd/sd-bus.h>

struct power {
	bool saver;		/* ActiveProfile is "power-saver" */
	bool battery;		/* OnBattery */
	int ppd, upower;	/* -1 not known yet, 0 not there, 1 there */
};

/*
 * Call @fn when either daemon comes, goes or changes a property, as said
 * by the bus or by the daemon itself (the owner of its name); @p is read
 * then with power_read(). 0 or -errno.
 */
int power_subscribe(sd_bus *bus, struct power *p, sd_bus_message_handler_t fn, void *data);

/*
 * Read both properties into @p without blocking, and without starting
 * either daemon: @done is called once, from the event loop, when @p holds
 * them (a daemon that is not there, or does not answer within a second,
 * counts as not running). 0, or -errno if the read could not start (and
 * @done is never called).
 */
typedef void (*power_done_fn)(void *data);
int power_read(sd_bus *bus, struct power *p, power_done_fn done, void *data);

#endif
