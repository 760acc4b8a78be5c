#!/bin/sh
# In the systemd guest, last (the runner goes in name order): apt-get
# purge leaves nothing of tslack behind, no pinned policy, no state, no
# configuration, no unit, no enablement link.
. /usr/local/lib/tslack/systemd-lib.sh
plan 7

systemctl start tslack.service tslackd.service
poll 10 test -e /run/tslackd/state
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q tslack >/tmp/purge.log 2>&1
rc=$?
eq purge/apt_get "0" "$rc$(grep -i -m1 -E 'error|warning' /tmp/purge.log | sed 's/^/: /')"
eq purge/not_installed "" "$(dpkg-query -W -f='${Status}' tslack 2>/dev/null)"
eq purge/no_policy "" "$(ls /sys/fs/bpf/tslack 2>&1 | grep -v 'No such file')"
eq purge/no_state "" "$(ls -d /run/tslackd 2>/dev/null)"
eq purge/no_config "" "$(ls -d /etc/tslack 2>/dev/null)"
eq purge/no_units "" "$(systemctl list-unit-files --no-legend 'tslack*' 2>/dev/null)"
eq purge/no_links "" "$(find /etc/systemd/system -name 'tslack*.service' \
	! -name tslack-vm.service ! -name 'tslack-test*' 2>/dev/null)"
exit 0
