#!/bin/sh
# In the systemd guest, last (the runner goes in name order), as it
# changes what the package set up at boot. A kernel without the hook,
# shown to the units by mounting BTF without timer_slack_ops over
# /sys/kernel/btf/vmlinux: both units are skipped with one line each, not
# failed. Then apt-get purge leaves nothing of tslack behind: no pinned
# policy, no state, no configuration, no unit, no enablement link.
. /usr/local/lib/tslack/systemd-lib.sh
plan 10

# A kernel without the hook: both skipped, one line each, nothing failed.
mount -o bind /usr/local/lib/tslack/nohook.btf /sys/kernel/btf/vmlinux ||
	fail nohook/mount "cannot mount over /sys/kernel/btf/vmlinux"
since=$(date '+%Y-%m-%d %H:%M:%S')
systemctl restart tslack.service tslackd.service 2>&1 | sed 's/^/# /'
eq nohook/skipped "inactive exec-condition inactive exec-condition" "$(
	for u in tslack tslackd; do
		printf '%s %s ' "$(systemctl is-active $u.service)" \
			"$(systemctl show -P Result $u.service)"
	done | sed 's/ $//')"
eq nohook/one_line "1 1" "$(for u in tslack tslackd; do
	journalctl -q -o cat --since "$since" -u $u.service |
		grep -c 'has no timer_slack_ops'; done | paste -s -d ' ')"
umount /sys/kernel/btf/vmlinux
systemctl start tslack.service
eq nohook/failed_none "" "$(systemctl list-units --failed --no-legend --plain)"

systemctl start tslack.service tslackd.service
poll 10 test -e /run/tslackd/state
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q tslack >/tmp/purge.log 2>&1
rc=$?
eq purge/apt_get "0" "$rc$(grep -i -m1 -E 'error|warning' /tmp/purge.log | sed 's/^/: /')"
eq purge/not_installed "" "$(dpkg-query -W -f='${Status}' tslack 2>/dev/null)"
eq purge/no_policy "" "$(ls /sys/fs/bpf/tslack 2>&1 | grep -v 'No such file')"
eq purge/no_state "" "$(ls -d /run/tslackd 2>/dev/null)"
eq purge/no_config "" "$(ls -d /etc/tslack 2>/dev/null)"
eq purge/no_units "" "$(systemctl list-unit-files --no-legend tslack.service tslackd.service \
	2>/dev/null)"
eq purge/no_links "" "$(find /etc/systemd/system -name 'tslack*.service' \
	! -name tslack-vm.service ! -name 'tslack-test*' 2>/dev/null)"
exit 0
