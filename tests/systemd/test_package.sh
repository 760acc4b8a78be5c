#!/bin/sh
# In the systemd guest, booted with tslack installed from its .deb the way
# apt-get installs it (vmtest/run --deb): what the package set up at boot,
# as a user finds it. Checked through properties that outlive a stop, so
# that this holds whatever ran before. Then the kernel without the hook,
# shown to the units by mounting BTF without timer_slack_ops over
# /sys/kernel/btf/vmlinux: both units are skipped with one line, not failed.
. /usr/local/lib/tslack/systemd-lib.sh
plan 12

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

# A kernel without the hook: both skipped, one line each, nothing failed.
mount -o bind /usr/local/lib/tslack/nohook.btf /sys/kernel/btf/vmlinux ||
	fail package/nohook_mount "cannot mount over /sys/kernel/btf/vmlinux"
since=$(date '+%Y-%m-%d %H:%M:%S')
systemctl restart tslack.service tslackd.service 2>&1 | sed 's/^/# /'
eq package/nohook_skipped "inactive exec-condition inactive exec-condition" "$(
	for u in tslack tslackd; do
		printf '%s %s ' "$(systemctl is-active $u.service)" \
			"$(systemctl show -P Result $u.service)"
	done | sed 's/ $//')"
eq package/nohook_one_line "1 1" "$(for u in tslack tslackd; do
	journalctl -q -o cat --since "$since" -u $u.service |
		grep -c 'has no timer_slack_ops'; done | paste -s -d ' ')"
umount /sys/kernel/btf/vmlinux
systemctl start tslack.service
eq package/nohook_failed_none "" "$(systemctl list-units --failed --no-legend --plain)"
exit 0
