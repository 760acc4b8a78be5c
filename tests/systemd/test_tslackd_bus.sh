#!/bin/sh
# In the systemd guest: tslackd exits when its system bus goes away, with
# a failure and a message, for systemd to restart it (Restart=on-failure)
# rather than run on blind. A tslackd of the test's own on a bus of its
# own: a dbus-daemon started here and given as the system bus
# (DBUS_SYSTEM_BUS_ADDRESS), then killed; the guest's bus and
# tslackd.service are left alone. With no logind there, each read of the
# sessions fails, asynchronously, and says why.
. /usr/local/lib/tslack/systemd-lib.sh
plan 4

dir=/run/tslack-test/bus
rm -rf "$dir"
mkdir -p "$dir/conf"
bus=$(dbus-daemon --session --address="unix:path=$dir/socket" --fork --print-pid)
DBUS_SYSTEM_BUS_ADDRESS="unix:path=$dir/socket" \
	tslackd --config-dir "$dir/conf" --state "$dir/state" 2>"$dir/log" &
pid=$!
poll 20 grep -q "reading logind's sessions: " "$dir/log" &&
	pass bus/read_fails || fail bus/read_fails "$(cat "$dir/log")"
kill "$bus"
exited() { ! kill -0 "$pid" 2>/dev/null; }
if poll 20 exited; then
	wait "$pid"
	eq bus/exit_status 1 $?
else
	fail bus/exit_status "still running 20 s after its bus went away"
	kill "$pid"
fi
eq bus/said "tslackd: the system bus disconnected: exiting, for systemd to restart tslackd" \
	"$(grep -m1 'system bus' "$dir/log")"
# Nothing was held, so nothing is recorded.
[ ! -s "$dir/state" ] && pass bus/no_state || fail bus/no_state "$(cat "$dir/state")"
rm -rf "$dir"
exit 0
