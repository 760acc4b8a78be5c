#!/bin/sh
# In the systemd guest, booted with tslack installed from its .deb the way
# apt-get installs it (vmtest/run --deb): what the package set up at boot,
# as a user finds it. Checked through properties that outlive a stop, so
# that this holds whatever ran before. (test_zz_purge.sh checks the units
# on a kernel without BTF, and the purge.)
. /usr/local/lib/tslack/systemd-lib.sh
plan 9

eq package/installed "install ok installed" "$(dpkg-query -W -f='${Status}' tslack 2>&1)"
eq package/programs "/usr/sbin/tslackctl /usr/sbin/tslackd" \
	"$(command -v tslackctl) $(command -v tslackd)"
eq package/conffile "/etc/tslack/tslackd.conf" \
	"$(dpkg-query -W -f='${Conffiles}\n' tslack | awk 'NF { print $1 }')"
eq package/enabled "enabled enabled" \
	"$(systemctl is-enabled tslack.service tslackd.service | paste -s -d ' ')"
# Attached at boot, before anyone could log in (the package's units).
eq package/attached_at_boot "active 0" "$(systemctl is-active tslack.service) $(
	tslackctl status >/dev/null; echo $?)"
before=$(systemctl show -P ActiveEnterTimestampMonotonic tslack.service)
users=$(systemctl show -P ActiveEnterTimestampMonotonic systemd-user-sessions.service)
eq package/before_logins yes "$([ "$before" -gt 0 ] && [ "$before" -le "$users" ] && echo yes ||
	echo "tslack $before, user sessions $users")"
# tslackd was started at boot and never restarted.
eq package/tslackd_started "yes 0" "$([ "$(systemctl show -P ExecMainStartTimestampMonotonic \
	tslackd.service)" -gt 0 ] && echo yes) $(systemctl show -P NRestarts tslackd.service)"
eq package/no_failed_unit "" "$(systemctl list-units --failed --no-legend --plain)"
eq package/no_errors "" "$(journalctl -b -q -p err -u tslack.service -u tslackd.service)"

exit 0
