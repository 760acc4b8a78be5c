#!/bin/sh
# In the systemd guest, on either kernel: the mode the package's units run
# in, said by tslackctl status; tslack-follow.service active only without
# the hook (skipped with one line on the patched kernel, never failed);
# and, in both, a system service started in a slice with a setting (its
# first process is clone3()'d into its cgroup by systemd) sleeping with
# the slice's slack, and its own back when the setting goes.
. /usr/local/lib/tslack/systemd-lib.sh
plan 7

case $(uname -r) in
*-tslack) mode=hook follow="inactive exec-condition" ;;
*) mode=per-task follow="active success" ;;
esac
eq unit/status_mode "$mode" "$(tslackctl status --json | sed -n 's/.*"mode": "\([a-z-]*\)".*/\1/p')"
eq unit/follow "$follow" "$(systemctl is-active tslack-follow.service) $(
	systemctl show -P Result tslack-follow.service)"
eq unit/no_failed "" "$(systemctl list-units --failed --no-legend --plain)"

# The slice exists while a unit is in it.
systemd-run --quiet --collect --unit=tslack-follow-hold.service --slice=tslackfollow.slice sleep 600
# Named as units, as systemctl set-property names them (--unit).
tslackctl set --unit=tslackfollow.slice 7ms
svc=$(probe_file service root)
systemd-run --quiet --collect --unit=tslack-follow-probe.service --slice=tslackfollow.slice \
	-- sh -c "$(probe_cmd "$svc")"
expect_slack unit/service_in_slice 7000000 "$svc"
eq unit/get_by_unit "/tslackfollow.slice/tslack-follow-probe.service 7000000" "$(
	tslackctl get --json --unit=tslack-follow-probe.service |
	sed -n 's/.*"path": "\([^"]*\)".*"effective_slack_ns": \([0-9]*\).*/\1 \2/p')"
eq unit/no_such_unit "tslackctl: tslack-no-such.service: no cgroup: no such unit, or it is not running|1" \
	"$(tslackctl set --unit=tslack-no-such.service 1ms 2>&1)|$(
		tslackctl set --unit=tslack-no-such.service 1ms >/dev/null 2>&1; echo $?)"
tslackctl set --unit=tslackfollow.slice 0
expect_slack unit/service_own_back 50000 "$svc"
systemctl stop tslack-follow-probe.service tslack-follow-hold.service
exit 0
