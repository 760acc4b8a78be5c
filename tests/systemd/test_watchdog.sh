#!/bin/sh
# In the systemd guest: tslackd pings its unit's watchdog. With a 2 s
# WatchdogSec= it runs for several intervals without systemd killing and
# restarting it (a tslackd that never pinged would be killed after 2 s).
. /usr/local/lib/tslack/systemd-lib.sh
plan 3

mkdir -p /run/systemd/system/tslackd.service.d
printf '[Service]\nWatchdogSec=2s\n' >/run/systemd/system/tslackd.service.d/50-test.conf
systemctl daemon-reload
systemctl start tslackd.service
eq watchdog/interval 2s "$(systemctl show -P WatchdogUSec tslackd.service)"
pid=$(systemctl show -P MainPID tslackd.service)
sleep 7
eq watchdog/same_process "active $pid 0" "$(systemctl is-active tslackd.service) $(
	systemctl show -P MainPID tslackd.service) $(systemctl show -P NRestarts tslackd.service)"
eq watchdog/no_abort "" "$(journalctl -q -o cat -u tslackd.service | grep -i -m1 'watchdog timeout')"
systemctl stop tslackd.service
rm -r /run/systemd/system/tslackd.service.d
systemctl daemon-reload
exit 0
