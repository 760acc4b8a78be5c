#!/bin/sh
# In the systemd guest: a trial minimum (tslackctl stats --slack) on a
# session's scope while tslackd changes that scope's slack. tslackd must
# never take the trial for root's setting: when the session is active
# again, the scope has what root set before (3ms), not the trial (5ms),
# however the trial and the session's states interleave.
. /usr/local/lib/tslack/systemd-lib.sh
plan 11

ROOTS=3000000
TRIAL=5000000
IDLE=30000000
LOCKED=60000000

tslackd_config <<CONF
[Slack]
Idle=30ms
Locked=60ms
CONF

cleanup() {
	session_close_all
	systemctl stop tslackd.service
}
trap cleanup EXIT

hint() {
	_s=$1
	shift
	session_run "$_s" "/usr/sbin/tslackd $*" >/dev/null
}
min_of() { tslackctl get "$1" | sed -n 's/^min_slack_ns //p'; }
min_is() { [ "$(min_of "$1")" = "$2" ]; }

systemctl start tslackd.service
session_open alice
scope=$(session_scope alice)
id=$(stat -c %i "/sys/fs/cgroup$scope")
tslackctl set "$scope" 3ms

# The trial first, then idle: tslackd writes over the trial, and puts
# back what the trial stood in for.
tslackctl stats --for 4s --slack 5ms "$scope" >/dev/null 2>/tmp/trial.err &
st=$!
poll 10 min_is "$scope" "$TRIAL"
eq trial/recorded "$TRIAL $ROOTS" "$(cat /run/tslack/trial/"$id" 2>&1)"
hint alice --set-idle yes
poll 10 min_is "$scope" "$IDLE" && pass trial_then_idle/held || fail trial_then_idle/held "$(min_of "$scope")"
wait "$st"
eq trial_then_idle/left_to_tslackd "0 $IDLE" "$? $(min_of "$scope")"
[ -e /run/tslack/trial/"$id" ] && fail trial/record_gone "$(ls /run/tslack/trial)" || pass trial/record_gone
hint alice --set-idle no
poll 10 min_is "$scope" "$ROOTS" && pass trial_then_idle/roots_back ||
	fail trial_then_idle/roots_back "$(min_of "$scope")"

# Idle first, then the trial, then locked: tslackd holds its value over
# the trial, and the trial is not what comes back either.
hint alice --set-idle yes
poll 10 min_is "$scope" "$IDLE" && pass idle_then_trial/held || fail idle_then_trial/held "$(min_of "$scope")"
tslackctl stats --for 4s --slack 5ms "$scope" >/dev/null 2>&1 &
st=$!
poll 10 min_is "$scope" "$TRIAL" && pass idle_then_trial/trial_on || fail idle_then_trial/trial_on "$(min_of "$scope")"
hint alice --set-locked yes
poll 10 min_is "$scope" "$LOCKED" && pass idle_then_trial/locked || fail idle_then_trial/locked "$(min_of "$scope")"
wait "$st"
hint alice --set-locked no
hint alice --set-idle no
poll 10 min_is "$scope" "$ROOTS" && pass idle_then_trial/roots_back ||
	fail idle_then_trial/roots_back "$(min_of "$scope")"

# A setting made during a trial ends it: no record is left to mislead.
tslackctl stats --for 3s --slack 5ms "$scope" >/dev/null 2>&1 &
st=$!
poll 10 min_is "$scope" "$TRIAL"
tslackctl set "$scope" 4ms
[ -e /run/tslack/trial/"$id" ] && fail set_ends_trial/record_gone "$(ls /run/tslack/trial)" ||
	pass set_ends_trial/record_gone
wait "$st"
eq set_ends_trial/kept "4000000" "$(min_of "$scope")"
tslackctl set "$scope" 0
