#!/bin/sh
# In the systemd guest: tslackd killed (SIGKILL, as the watchdog kills it)
# at every point of a reconcile, and with its state file's directory full,
# never takes a value it imposed for the one it replaced. The test build
# (tslackd-test, -DTSLACK_TEST) kills itself where TSLACKD_TEST_CRASH_AT
# says (src/tslackd/testhook.h): after the state file says what is about
# to be written (intent), after each map write (write:N), after the last
# one but before the result is saved (confirm). Each time the next tslackd
# must hold what alice's session says, and put back, when she is active,
# exactly what was there before any tslackd: 3ms on her scope (root's
# setting) and nothing on her user@1000.service. It runs outside the unit,
# with a state file of its own, on a small tmpfs that the test fills.
. /usr/local/lib/tslack/systemd-lib.sh
plan 42

TSLACKD=/usr/local/libexec/tslack/tslackd-test
DIR=/run/tslack-test/crash
RUN=$DIR/run		# the state file's directory: a 64 KiB tmpfs
STATE=$RUN/state
LOG=$DIR/log
IDLE=30000000
LOCKED=60000000
ROOTS=3000000		# what root set on alice's scope before tslackd
BEFORE="$ROOTS 0"	# her scope's and her user@1000.service's minimum

pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid"
	session_close_all
	umount "$RUN" 2>/dev/null
	rm -rf "$DIR"
}
trap cleanup EXIT

rm -rf "$DIR"
mkdir -p "$DIR/conf" "$RUN"
mount -t tmpfs -o size=64k,mode=0755 tslack-crash "$RUN"
printf '[Slack]\nIdle=30ms\nLocked=60ms\n[Exempt]\nUnits=\n' >"$DIR/conf/tslackd.conf"

# tslackd_run [CRASH_AT]: start the test build (killing itself at
# CRASH_AT, if given) in the background; $pid is its. Its log is $LOG,
# which it takes for the journal's stream (each line with its priority).
: >"$LOG"
tslackd_run() {
	# shellcheck disable=SC2086 # no CRASH_AT: no assignment
	env JOURNAL_STREAM="$(stat -c %d:%i "$LOG")" ${1:+TSLACKD_TEST_CRASH_AT=$1} \
		"$TSLACKD" --config-dir "$DIR/conf" --state "$STATE" >>"$LOG" 2>&1 &
	pid=$!
}

# killed_at NAME POINT: run tslackd until it kills itself at POINT.
killed_at() {
	tslackd_run "$2"
	_p=$pid
	# One that never gets there is stopped (SIGTERM: 143).
	poll 60 eval '! kill -0 "$_p" 2>/dev/null' || kill "$_p"
	wait "$_p"
	_rc=$?
	pid=
	eq "$1" 137 "$_rc"
}

# stop: SIGTERM, as systemctl stop: what it holds is undone.
stop() {
	kill "$pid"
	wait "$pid"
	pid=
}

# sigkill: as the watchdog kills it, wherever it is.
sigkill() {
	kill -9 "$pid"
	wait "$pid"
	pid=
}

min_of() {
	tslackctl get --json "$1" | tr -d '\n' | sed -n 's/.*"min_slack_ns": *\([0-9]*\).*/\1/p'
}
map() { echo "$(min_of "$scope") $(min_of "$user")"; }

# expect_map NAME "SCOPE_MIN USER_MIN": wait (up to 15 s: a retry comes
# after 10 s) until the map says so.
expect_map() {
	_want=$2
	poll 15 eval '[ "$(map)" = "$_want" ]'
	eq "$1" "$_want" "$(map)"
}

hint() { session_run alice "/usr/sbin/tslackd $1" | sed 's/^/# /'; }

session_open alice
scope=$(session_scope alice)
user=/user.slice/user-1000.slice/user@1000.service
tslackctl set "$scope" 3ms
eq setup/before "$BEFORE" "$(map)"
hint "--set-idle yes"

# (a) Killed while imposing: at each point, the next one holds alice's
# idle slack and puts back what was there before.
for at in intent write:1 write:2 confirm; do
	killed_at "$at/killed" "$at"
	case $at in
	intent) eq "$at/map_untouched" "$BEFORE" "$(map)" ;;
	write:1) eq "$at/one_written" "$IDLE 0" "$(map)" ;;
	*) eq "$at/both_written" "$IDLE $IDLE" "$(map)" ;;
	esac
	tslackd_run
	expect_map "$at/held" "$IDLE $IDLE"
	hint "--set-idle no"
	expect_map "$at/nothing_adopted" "$BEFORE"
	stop
	hint "--set-idle yes"
done

# (b) Killed while changing what it holds (idle, then locked): either
# value in the map is known to be its own.
for at in intent write:1; do
	tslackd_run
	expect_map "change-$at/idle" "$IDLE $IDLE"
	sigkill
	hint "--set-locked yes"
	killed_at "change-$at/killed" "$at"
	tslackd_run
	expect_map "change-$at/locked" "$LOCKED $LOCKED"
	hint "--set-locked no"
	hint "--set-idle no"
	expect_map "change-$at/nothing_adopted" "$BEFORE"
	stop
	hint "--set-idle yes"
done

# (c) Killed while putting back: what is put back stays, and what it
# replaced is still known the next time.
tslackd_run
expect_map undo/idle "$IDLE $IDLE"
sigkill
hint "--set-idle no"
killed_at undo/killed write:1
tslackd_run
expect_map undo/put_back "$BEFORE"
hint "--set-idle yes"
expect_map undo/idle_again "$IDLE $IDLE"
hint "--set-idle no"
expect_map undo/nothing_adopted "$BEFORE"
stop

# (d) The state file cannot be written (/run full): logged, nothing
# imposed, made by the retry once there is room; killed then, the next
# one still knows.
dd if=/dev/zero of="$RUN/fill" bs=4k 2>/dev/null
hint "--set-idle yes"
: >"$LOG"
tslackd_run
if poll 15 grep -q '^<3>tslackd: the map is not written' "$LOG"; then
	pass full/logged
else
	fail full/logged "$(cat "$LOG")"
fi
grep -q "^<3>tslackd: writing $STATE: No space left on device" "$LOG" && pass full/error_priority ||
	fail full/error_priority "$(cat "$LOG")"
sleep 1
eq full/nothing_imposed "$BEFORE" "$(map)"
# Tried again and again while full: said once, and once when it works.
hint "--set-locked yes"
sleep 2
hint "--set-locked no"
sleep 2
eq full/said_once "1 1" \
	"$(grep -c 'the map is not written' "$LOG") $(grep -c "writing $STATE" "$LOG")"
rm "$RUN/fill"
expect_map full/retried "$IDLE $IDLE"
grep -q "^<6>tslackd: $STATE is written again" "$LOG" && pass full/said_recovered ||
	fail full/said_recovered "$(cat "$LOG")"
sigkill
tslackd_run
expect_map full/restarted "$IDLE $IDLE"
# Full again: what is put back is put back all the same.
dd if=/dev/zero of="$RUN/fill" bs=4k 2>/dev/null
hint "--set-idle no"
expect_map full/put_back "$BEFORE"
hint "--set-idle yes"
sleep 2
eq full/still_nothing_imposed "$BEFORE" "$(map)"
stop
[ ! -e "$STATE" ] && pass full/stopped_clean || fail full/stopped_clean "$(cat "$STATE")"
rm "$RUN/fill"
tslackd_run
expect_map full/later "$IDLE $IDLE"
stop
eq full/after_stop "$BEFORE" "$(map)"
tslackctl set "$scope" 0
exit 0
