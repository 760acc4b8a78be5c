#!/bin/sh
# In the systemd guest, on either kernel: the package's units as
# systemd-analyze security rates them (each of its directives kept because
# every test of the guest passes with it): tslack.service and
# tslack-follow.service at most 2.5, tslackd.service at most 1.1, its
# rating before; tslackd's memory and task limits; and its state file,
# which names every user's sessions and cgroups, root's alone.
. /usr/local/lib/tslack/systemd-lib.sh
plan 7

# exposure UNIT: systemd-analyze security's overall figure, e.g. 1.5.
exposure() {
	systemd-analyze security --no-pager "$1" 2>&1 |
		sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\) .*/\1/p'
}
# at_most NAME UNIT MAX
at_most() {
	_e=$(exposure "$2")
	echo "# systemd-analyze security $2: $_e"
	if [ -n "$_e" ] && awk -v e="$_e" -v m="$3" 'BEGIN { exit !(e <= m) }'; then
		pass "$1"
	else
		fail "$1" "exposure '$_e', at most $3 wanted"
	fi
}
at_most hardening/tslack tslack.service 2.5
at_most hardening/follow tslack-follow.service 2.5
at_most hardening/tslackd tslackd.service 1.1
eq hardening/tslackd_limits "67108864 8" "$(systemctl show -P MemoryMax tslackd.service) $(
	systemctl show -P TasksMax tslackd.service)"

systemctl start tslackd.service
poll 10 test -e /run/tslackd/state
eq hardening/state_modes "700 600" "$(stat -c %a /run/tslackd) $(stat -c %a /run/tslackd/state)"
eq hardening/state_not_alice "no" "$(runuser -u alice -- cat /run/tslackd/state >/dev/null 2>&1 &&
	echo yes || echo no)"
# What root reads, tslackd --status, still works.
eq hardening/status_root 0 "$(tslackd --status >/dev/null 2>&1; echo $?)"
systemctl stop tslackd.service
exit 0
