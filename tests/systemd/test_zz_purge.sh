#!/bin/sh
# In the systemd guest, last (the runner goes in name order), as it
# changes what the package set up at boot. A kernel without BTF, shown
# to the units by mounting an empty file over /sys/kernel/btf/vmlinux:
# both units are skipped with one line each, not failed. An upgrade keeps the policy and what was set. Then apt-get purge
# leaves nothing of tslack behind: no pinned policy, no state, no
# configuration, no unit, no enablement link.
. /usr/local/lib/tslack/systemd-lib.sh
plan 14

# A kernel without BTF: both skipped, one line each, nothing failed.
: > /tmp/empty.btf
mount -o bind /tmp/empty.btf /sys/kernel/btf/vmlinux ||
	fail nobtf/mount "cannot mount over /sys/kernel/btf/vmlinux"
since=$(date '+%Y-%m-%d %H:%M:%S')
systemctl restart tslack.service tslackd.service 2>&1 | sed 's/^/# /'
eq nobtf/skipped "inactive exec-condition inactive exec-condition" "$(
	for u in tslack tslackd; do
		printf '%s %s ' "$(systemctl is-active $u.service)" \
			"$(systemctl show -P Result $u.service)"
	done | sed 's/ $//')"
eq nobtf/one_line "1 1" "$(for u in tslack tslackd; do
	journalctl -q -o cat --since "$since" -u $u.service |
		grep -c 'has no BTF'; done | paste -s -d ' ')"
umount /sys/kernel/btf/vmlinux
systemctl start tslack.service
eq nobtf/failed_none "" "$(systemctl list-units --failed --no-legend --plain)"
# An upgrade (the same package again, /work/tslack.deb: dpkg runs the
# upgrade paths of its maintainer scripts) keeps the policy attached with
# what was set by hand, and restarts tslackd, which takes back its state.
systemctl start tslack.service tslackd.service
poll 10 test -e /run/tslackd/state
mkdir -p /sys/fs/cgroup/upgrade-test
tslackctl set upgrade-test 3ms
before=$(systemctl show -P MainPID tslackd.service)
DEBIAN_FRONTEND=noninteractive dpkg -i /work/tslack.deb >/tmp/upgrade.log 2>&1
rc=$?
eq upgrade/dpkg "0" "$rc$(grep -i -m1 -E 'error|warning' /tmp/upgrade.log | sed 's/^/: /')"
eq upgrade/setting_kept 3000000 "$(tslackctl get upgrade-test | awk '/^min/ { print $2 }')"
after=$(systemctl show -P MainPID tslackd.service)
eq upgrade/tslackd_restarted "active new" "$(systemctl is-active tslackd.service) $(
	[ "$after" -gt 0 ] && [ "$after" != "$before" ] && echo new || echo "$before $after")"
eq upgrade/no_failed_unit "" "$(systemctl list-units --failed --no-legend --plain)"
rmdir /sys/fs/cgroup/upgrade-test
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q tslack >/tmp/purge.log 2>&1
rc=$?
eq purge/apt_get "0" "$rc$(grep -i -m1 -E 'error|warning' /tmp/purge.log | sed 's/^/: /')"
eq purge/not_installed "" "$(dpkg-query -W -f='${Status}' tslack 2>/dev/null)"
eq purge/no_policy "" "$(ls /sys/fs/bpf/tslack 2>&1 | grep -v 'No such file')"
eq purge/no_state "" "$(ls -d /run/tslackd 2>/dev/null)"
eq purge/no_config "" "$(ls -d /etc/tslack 2>/dev/null)"
eq purge/no_units "" "$(systemctl list-unit-files --no-legend tslack.service tslackd.service \
	tslack-follow.service 2>/dev/null)"
eq purge/no_links "" "$(find /etc/systemd/system -name 'tslack*.service' \
	! -name tslack-vm.service ! -name 'tslack-test*' 2>/dev/null)"
exit 0
