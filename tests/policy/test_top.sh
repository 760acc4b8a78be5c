#!/bin/sh
# tslackctl top and stats against a load whose wakeups are known: the
# bench's 16 sleepers at 10 ms, which count their own wakeups. top's
# figure for their cgroup must be within 10% of theirs, and its timer
# interrupts within 10% of /proc/interrupts over the same time; its
# counting is loaded only while it runs.
. /usr/local/lib/tslack/harness.sh
plan 18
# within PCT A B: A within PCT% of B
within() { awk -v p="$1" -v a="$2" -v b="$3" 'BEGIN { exit !(b > 0 && a > b * (1 - p / 100) && a < b * (1 + p / 100)) }'; }
# The LOC line of /proc/interrupts, summed over the CPUs.
loc() { awk '/LOC:/ { n = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i; print n }' /proc/interrupts; }
# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

tslackctl detach
tslackctl attach || { fail top/attach "tslackctl attach failed"; exit 1; }
mkdir -p "$CG/wk"

in_cg_bg wk tslack-bench sleepers 16 7 10 >/tmp/sleepers
load=$!
usleep 500000
# /proc/interrupts read as each frame arrives: frames 2 to 4 against the
# same three seconds, give or take the pipe's delay at both ends. (A
# window around the whole command would hold top's start, long under
# KASAN, at another interrupt rate.)
: >/tmp/top.json
: >/tmp/top.loc
tslackctl top -b -n 4 -d 1 --depth 1 --json | while IFS= read -r line; do
	echo "$(cut -d' ' -f1 /proc/uptime) $(loc)" >>/tmp/top.loc
	printf '%s\n' "$line" >>/tmp/top.json
done
wait "$load"
read -r want_w _ want_pkg _ </tmp/sleepers
want_loc=$(awk 'NR == 1 { s = $1; a = $2 } NR == 4 { printf "%.1f", ($2 - a) / ($1 - s) }' /tmp/top.loc)
# The first second may hold the load's start: the median of the four.
got_w=$(grep -o '"path": "/wk", "id": [0-9]*, "wakeups_per_s": [0-9.]*' /tmp/top.json |
	awk '{ print $NF }' | median)
# Interrupts: top's frames 2 to 4 together.
got_loc=$(grep -o '"interval_s": [0-9.]*, "timer_interrupts_per_s": [0-9.]*' /tmp/top.json |
	awk 'NR > 1 { t += $2; n += $2 * $4 } END { printf "%.1f", n / t }')
eq "top/four_frames" 4 "$(grep -c '^{ "interval_s"' /tmp/top.json)"
# Depth 0: the root alone, with every wakeup folded into it.
expect_file "top/json_depth_0" top-depth0.json "$(tslackctl top -b -n 1 -d 0.1 --depth 0 --json | norm)"
within 10 "$got_w" "$want_w" && pass top/wakeups_of_the_load ||
	fail top/wakeups_of_the_load "top says $got_w/s for /wk, the sleepers counted $want_w/s"
echo "# top: /wk $got_w/s (load: $want_w/s), interrupts $got_loc/s (/proc/interrupts: $want_loc/s)"
within 10 "$got_loc" "$want_loc" && pass top/timer_interrupts ||
	fail top/timer_interrupts "top says $got_loc/s, /proc/interrupts over the same time $want_loc/s"
# Package wakeups: top's counter against the load's own, over other spans.
got_pkg=$(grep -o '"package_wakeups_per_s": [0-9.]*' /tmp/top.json | awk '{ print $NF }' | median)
within 25 "$got_pkg" "$want_pkg" && pass top/package_wakeups ||
	fail top/package_wakeups "top says $got_pkg/s, the load's counter $want_pkg/s"
eq "top/nothing_left_loaded" 0 "$(bpftool prog show | grep -c count_wakeup)"

# The text form: a header, and the load's cgroup with its slack.
tslackctl set wk 20ms
in_cg_bg wk tslack-bench sleepers 4 3 10 >/dev/null
load=$!
usleep 300000
tslackctl top -b -n 1 -d 1 --depth 1 >/tmp/top.txt
wait "$load"
eq "top/text_header" "CGROUP WAKEUPS/S EFFECTIVE" "$(sed -n 3p /tmp/top.txt | tr -s ' ')"
eq "top/text_row_slack" "20ms" "$(awk '$1 == "/wk" { print $3 }' /tmp/top.txt)"
tslackctl set wk 0

# stats: before and after 50 ms of slack, and the setting put back.
in_cg_bg wk tslack-bench sleepers 16 6 10 >/dev/null
load=$!
usleep 300000
tslackctl stats --for 2s --slack 50ms --json wk >/tmp/stats.json
wait "$load"
expect_file "stats/json" stats.json "$(norm "$(stat -c %i $CG/wk)" ID_WK </tmp/stats.json)"
before=$(grep -o '"name": "before", "effective_slack_ns": 0, "wakeups_per_s": [0-9.]*' /tmp/stats.json | awk '{ print $NF }')
after=$(grep -o '"name": "after", "effective_slack_ns": 50000000, "wakeups_per_s": [0-9.]*' /tmp/stats.json | awk '{ print $NF }')
awk -v b="$before" -v a="$after" 'BEGIN { exit !(b > 1000 && a < b / 3) }' &&
	pass stats/slack_cuts_wakeups || fail stats/slack_cuts_wakeups "$(cat /tmp/stats.json)"
eq "stats/setting_restored" "min_slack_ns 0 max_slack_ns 0 effective_slack_ns 0 " \
	"$(tslackctl get wk | tr '\n' ' ')"
# A hangup (the terminal gone) during the trial puts the setting back too.
tslackctl stats --for 5s --slack 50ms wk >/dev/null 2>/tmp/stats.err &
st=$!
trial_on() { tslackctl get wk | grep -q '^min_slack_ns 50000000$'; }
poll 15 trial_on
kill -HUP "$st"
wait "$st"
eq "stats/hangup_restores" "1 min_slack_ns 0 tslackctl: interrupted" \
	"$? $(tslackctl get wk | head -n 1) $(cat /tmp/stats.err)"
# Killed outright during the trial: a child of its puts the setting back.
tslackctl stats --for 5s --slack 50ms wk >/dev/null 2>&1 &
st=$!
poll 15 trial_on
kill -KILL "$st"
wait "$st" 2>/dev/null
restored() { tslackctl get wk | grep -q '^min_slack_ns 0$'; }
poll 5 restored && pass stats/sigkill_restores ||
	fail stats/sigkill_restores "$(tslackctl get wk | head -n 1)"
poll 5 sh -c "[ ! -e /run/tslack/trial/$(stat -c %i "$CG/wk") ]" && pass stats/sigkill_trial_forgotten ||
	fail stats/sigkill_trial_forgotten "$(ls /run/tslack/trial)"
expect_error "stats/bad_for" 2 "tslackctl: --for: '10' is not from 100ms to 1h" \
	tslackctl stats --for 10 wk

# On a terminal: a frame, sorted by path after 'p', ended by 'q'.
tslack-probe pty pq 1500 tslackctl top -d 0.5 >/tmp/top.pty
eq "top/interactive_quits_on_q" 0 "$?"
grep -q 'q quit' /tmp/top.pty && grep -q '^CGROUP' /tmp/top.pty && pass top/interactive_frames ||
	fail top/interactive_frames "$(tr -d '\033' </tmp/top.pty | head -c 300)"

# Loading and unloading the counting while timers wake tasks on every CPU:
# the kernel patches hrtimer_wakeup's entry under them each time.
in_cg_bg wk tslack-bench sleepers 8 8 1 >/dev/null
load=$!
usleep 300000
cycles=0
while [ "$cycles" -lt 20 ] && tslackctl top -b -n 1 -d 0.1 --depth 0 >/dev/null; do
	cycles=$((cycles + 1))
done
wait "$load"
eq "top/twenty_loads_under_wakeups" 20 "$cycles"

tslackctl detach
rmdir "$CG/wk"
exit 0
