#!/bin/sh
# tslackd's power sources. Without power-profiles-daemon and UPower it runs
# as before, with one journal line for each, not one per refresh. With the
# real power-profiles-daemon, power-saver gives every session PowerSaver=,
# the active one and its apps too, an idle one the larger Idle=, and
# balanced takes it back. UPower is python3-dbusmock's template (a VM has
# no battery): OnBattery gives OnBattery=, followed as it changes.
. /usr/local/lib/tslack/systemd-lib.sh
plan 14

DEFAULT=50000
IDLE=30000000
SAVER=20000000
BATTERY=15000000
PPD=net.hadess.PowerProfiles
PPD_PATH=/net/hadess/PowerProfiles

tslackd_config <<CONF
[Slack]
Idle=30ms
PowerSaver=20ms
OnBattery=15ms
CONF

cleanup() {
	profile balanced 2>/dev/null
	systemctl stop power-profiles-daemon.service 2>/dev/null
	mock_upower_stop
	session_close_all
	systemctl stop tslackd.service
}
trap cleanup EXIT

profile() { busctl set-property $PPD $PPD_PATH $PPD ActiveProfile s "$1"; }
battery() {
	busctl set-property org.freedesktop.UPower /org/freedesktop/UPower \
		org.freedesktop.UPower OnBattery b "$1"
}
hint() { session_run alice "/usr/sbin/tslackd $1" | sed 's/^/# /'; }

# Neither daemon: one line each, however many refreshes.
systemctl stop power-profiles-daemon.service 2>/dev/null
t0=$(journal_mark)
systemctl start tslackd.service
session_open alice
a=$(probe_file power-alice alice)
app=$(probe_file power-app alice)
session_spawn alice "$(probe_cmd "$a")"
user_app alice power-app.service "$(probe_cmd "$app")"
hint "--set-idle yes"
expect_slack absent/idle "$IDLE" "$a"
hint "--set-idle no"
expect_slack absent/active "$DEFAULT" "$a"
eq absent/ppd_one_line 1 "$(journal_since "$t0" | grep -c 'power-profiles-daemon is not running')"
eq absent/upower_one_line 1 "$(journal_since "$t0" | grep -c 'UPower is not running')"
eq absent/no_errors "" "$(journal_since "$t0" err)"

# The real power-profiles-daemon (D-Bus activatable: started by hand).
systemctl start power-profiles-daemon.service
poll 10 eval 'journal_since "$t0" | grep -q "following power-profiles-daemon"'
profile power-saver
eq ppd/profile power-saver "$(busctl get-property $PPD $PPD_PATH $PPD ActiveProfile | cut -d'"' -f2)"
expect_slack ppd/active_session "$SAVER" "$a"
expect_slack ppd/user_app "$SAVER" "$app"
src=$(tslackd --status | grep -A1 "^min .*$(session_scope alice)\$" | sed -n '2s/^ *//p')
eq ppd/status_source "session:$(session_id alice):power-saver" "$src"
hint "--set-idle yes"
expect_slack ppd/idle_larger_wins "$IDLE" "$a"
hint "--set-idle no"
profile balanced
expect_slack ppd/balanced_again "$DEFAULT" "$a"

# UPower, mocked, on the system bus: root may own its name here.
mock_upower true
expect_slack battery/on "$BATTERY" "$a"
expect_slack battery/user_app "$BATTERY" "$app"
battery false
expect_slack battery/mains "$DEFAULT" "$a"
