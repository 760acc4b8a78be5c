#!/bin/sh
# Per-task mode, on a kernel without the hook (Debian 12's own 6.1, or
# 6.12 without the series): the same map and rule, applied by writing each
# thread's own slack (tslackctl follow). What a user relies on: existing
# threads, forks and moves take the slack; a thread's own larger slack is
# kept and its own value comes back; realtime threads and cgroups without
# a setting are left alone; follow's work stays bounded.
. /usr/local/lib/tslack/harness.sh
plan 49
ms=1000000
# slack_of PID: the slack of each thread of PID, space-separated. Only
# /proc/TID has timerslack_ns, not /proc/PID/task/TID.
slack_of() {
	for _t in $(ls /proc/"$1"/task); do cat /proc/"$_t"/timerslack_ns; done |
		tr '\n' ' ' | sed 's/ $//'
}
# wait_slack SECONDS PID WANT: until every thread of PID has WANT.
all_slack() { [ "$(slack_of "$1" | tr ' ' '\n' | sort -u)" = "$2" ]; }
wait_slack() { poll "$1" all_slack "$2" "$3"; }
# wait_slacks SECONDS PID "WANT...": until PID's threads have these, in order.
same_slacks() { [ "$(slack_of "$1")" = "$2" ]; }
wait_slacks() { poll "$1" same_slacks "$2" "$3"; }
cpu_ticks() { awk '{ print $14 + $15 }' /proc/"$1"/stat; }

tslackctl detach
eq "pt/supported" "|0" \
	"$(tslackctl supported 2>&1)|$(tslackctl supported >/dev/null 2>&1; echo $?)"
eq "pt/supported_per_task" 0 "$(tslackctl supported --per-task >/dev/null 2>&1; echo $?)"
out=$(tslackctl follow 2>&1)
eq "pt/follow_before_attach" "tslackctl: tslack is not attached: run 'tslackctl attach' first|1" \
	"$out|$(tslackctl follow >/dev/null 2>&1; echo $?)"
tslackctl attach || { fail pt/attach "tslackctl attach failed"; exit 1; }
eq "pt/status_mode" "mode: per-task (no kernel hook; tslackctl follow writes each thread's slack)" \
	"$(tslackctl status | sed -n 2p)"
eq "pt/status_json_mode" 1 "$(tslackctl status --json | grep -c '"mode": "per-task"')"
eq "pt/status_not_followed" \
	"attached: yes (/sys/fs/bpf/tslack), but nothing follows it: tslackctl follow is not running|false" \
	"$(tslackctl status | head -n 1)|$(tslackctl status --json | sed -n 's/.*"follower_running": \([a-z]*\).*/\1/p')"

mkdir -p "$CG/a/b" "$CG/x" "$CG/rt"
# Threads that exist before anything is set: two, the second of which
# has its own slack of 100 ms (tslack-probe threads).
in_cg_bg a tslack-probe threads 600 >/tmp/threads.pid
t=$!
poll 5 test -s /tmp/threads.pid
own=$(slack_of $t)
tslackctl follow 2>/tmp/follow.log &
follower=$!
followed() { tslackctl status | grep -q "^follower: pid $follower, last full pass [0-9]* s ago\$"; }
poll 10 followed && pass pt/status_followed || fail pt/status_followed "$(tslackctl status)"

tslackctl set a 20ms
wait_slack 5 $t 20000000 && pass pt/existing_threads_raised ||
	fail pt/existing_threads_raised "$(slack_of $t)"
eq "pt/get_own_kept" "$own" \
	"$(tslackctl get --json --pid $t | grep -o '"timerslack_ns": [0-9]*' | cut -d' ' -f2 | tr '\n' ' ' | sed 's/ $//')"
tslackctl set a 0
wait_slacks 5 $t "$own" && pass pt/own_back_when_unset || fail pt/own_back_when_unset "$(slack_of $t)"

# A thread's own larger slack is kept.
tslackctl set a 20ms
in_cg a tslack-probe set-own 300000000 >/dev/null
sh -c 'echo $$ > '"$CG"'/a/cgroup.procs; exec sleep 600' &
s=$!
wait_slack 5 $s 20000000
echo 300000000 > /proc/$s/timerslack_ns
sleep 1
tslackctl set a 30ms
wait_slack 5 $t 30000000
eq "pt/own_larger_kept" 300000000 "$(slack_of $s)"
kill $s

# A child forked inside inherits the raised slack, and gets its parent's
# own back: kernel/fork.c gives it the parent's current slack.
in_cg_bg a sh -c 'sleep 600 & echo $! > /tmp/child.pid; wait'
p=$!
poll 5 test -s /tmp/child.pid
c=$(cat /tmp/child.pid)
wait_slack 5 $c 30000000 && pass pt/fork_inherits || fail pt/fork_inherits "$(slack_of $c)"
tslackctl set a 0
wait_slack 5 $c 50000 && pass pt/fork_own_back || fail pt/fork_own_back "$(slack_of $c)"
kill $p $c

# The largest minimum on the path, capped by exemptions: a and b below.
tslackctl set a 10ms
tslackctl set a/b 40ms
out=$(in_cg a/b tslack-probe move-wait "$CG/a/b" 40000000)
eq "pt/largest_minimum" "40000000" "${out#* }"
tslackctl set --max a 5ms
out=$(in_cg x tslack-probe move-wait "$CG/a/b" 5000000)
eq "pt/capped" "5000000" "${out#* }"
tslackctl exempt a/b
out=$(in_cg x tslack-probe move-wait "$CG/a/b" 50000)
eq "pt/exempt_keeps_own" "50000" "${out#* }"
tslackctl set --max a 0
tslackctl set --max a/b 0
tslackctl set a/b 0

# A thread moved in takes the slack within 10 ms (the first move of a
# systemd unit's process is such a move): five moves, their median within
# 10 ms and every one within 100 ms. The median, not the largest: make
# test runs two guests on two host cores, and one move in five has taken
# 10.5 ms there. One move before them: under TCG the first run of follow's
# path includes translating its code, up to 10 ms more (traced).
in_cg x tslack-probe move-wait "$CG/a" 10000000 >/dev/null
times=""
for i in 1 2 3 4 5; do
	out=$(in_cg x tslack-probe move-wait "$CG/a" 10000000)
	times="$times ${out%% *}"
done
median=$(printf '%s\n' $times | sort -n | sed -n 3p)
worst=$(printf '%s\n' $times | sort -n | sed -n 5p)
echo "# move-in to slack: 5 moves,$times us (median $median, largest $worst)"
timed=$(printf '%s\n' $times | grep -c '^[0-9][0-9]*$')
[ "$timed" = 5 ] && [ "$median" -le 10000 ] && [ "$worst" -le 100000 ] &&
	pass pt/move_in_within_10ms ||
	fail pt/move_in_within_10ms "$timed of 5 moves timed: median ${median} us, largest ${worst} us"
# Moved out: its own slack back.
sh -c 'echo $$ > '"$CG"'/a/cgroup.procs; exec sleep 600' &
s=$!
wait_slack 5 $s 10000000
echo $s > "$CG/x/cgroup.procs"
wait_slack 5 $s 50000 && pass pt/move_out_own_back || fail pt/move_out_own_back "$(slack_of $s)"
kill $s

# A thread that lowers its own slack inside is raised again, through
# prctl() or its own /proc/PID/timerslack_ns (no capability needed).
out=$(in_cg a tslack-probe lower-wait 1000)
eq "pt/lowered_raised_again" 10000000 "${out#* }"
out=$(in_cg a tslack-lower32 1000)
eq "pt/lowered_32bit_raised_again" 10000000 "${out#* }"
out=$(in_cg a tslack-probe lower-proc-wait 1000)
eq "pt/lowered_proc_raised_again" 10000000 "${out#* }"
echo "# lowered through /proc, raised again after ${out%% *} us"
[ "${out%% *}" -le 1000000 ] 2>/dev/null && pass pt/lowered_proc_within_1s ||
	fail pt/lowered_proc_within_1s "${out%% *} us"

# A raised thread made realtime: not left raised (the kernel zeroes a
# realtime thread's slack where it has the fix, follow gives its own
# back where not), and raised again once it is not realtime.
sh -c 'echo $$ > '"$CG"'/a/cgroup.procs; exec sleep 600' &
s=$!
wait_slack 5 $s 10000000
tslack-probe sched $s fifo
not_raised() { [ "$(slack_of "$1")" != 10000000 ]; }
poll 12 not_raised $s && pass pt/realtime_after_raise || fail pt/realtime_after_raise "$(slack_of $s)"
tslack-probe sched $s other
wait_slack 12 $s 10000000 && pass pt/realtime_then_other_raised ||
	fail pt/realtime_then_other_raised "$(slack_of $s)"
kill $s

# One follower at a time.
out=$(tslackctl follow 2>&1)
eq "pt/one_follower" \
	"tslackctl: another tslackctl follow is running (pid $follower): one follower at a time|1" \
	"$out|$(tslackctl follow >/dev/null 2>&1; echo $?)"

# Realtime threads are left alone; cgroups without a setting too.
in_cg_bg a tslack-probe fifo 600 >/tmp/fifo.pid
f=$!
poll 5 test -s /tmp/fifo.pid
sleep 1
eq "pt/realtime_untouched" "$(cat /proc/$f/timerslack_ns)" "$(slack_of $f)"
[ "$(slack_of $f)" != 10000000 ] && pass pt/realtime_not_raised || fail pt/realtime_not_raised "$(slack_of $f)"
kill $f
sh -c 'echo $$ > '"$CG"'/x/cgroup.procs; exec sleep 600' &
s=$!
sleep 1
eq "pt/no_setting_untouched" 50000 "$(slack_of $s)"
kill $s

# clone3(CLONE_INTO_CGROUP), as systemd starts a unit's process.
out=$(in_cg x sh -c 'tslack-probe clone-into '"$CG"'/a >/dev/null; echo ok')
eq "pt/clone_into" ok "$out"

# A setting made with bpftool alone wakes follow too (tslack_map_write):
# applied at once (a pass paced by the last one's cost: well under a
# second; 2 s allowed for a loaded host), not at the next full pass.
map_write a 15000000 0
wait_slack 2 $t 15000000 && pass pt/bpftool_write_within_2s ||
	fail pt/bpftool_write_within_2s "$(slack_of $t)"
tslackctl set a 10ms

# The same commands as with the hook.
eq "pt/list" "/a 10ms -" "$(tslackctl list | awk 'NR > 1 { print $1, $3, $4 }')"
eq "pt/get" "min_slack_ns 10000000 max_slack_ns 0 effective_slack_ns 10000000" \
	"$(tslackctl get a | tr '\n' ' ' | sed 's/ $//')"
eq "pt/check" 0 "$(tslackctl check >/dev/null; echo $?)"

# Bounded: a fork storm inside costs follow nothing (the kernel's
# inheritance does the work); 1000 moves in and out cost it a bounded
# amount, said once if over the budget.
c0=$(cpu_ticks $follower)
in_cg a tslack-probe forks 1000
c1=$(cpu_ticks $follower)
echo "# follow's CPU for 1000 forks inside: $((c1 - c0)) ticks"
[ $((c1 - c0)) -le 5 ] && pass pt/fork_storm_free || fail pt/fork_storm_free "$((c1 - c0)) ticks"
sh -c 'exec sleep 600' &
s=$!
i=0
while [ $i -lt 500 ]; do
	echo $s > "$CG/a/cgroup.procs"
	echo $s > "$CG/x/cgroup.procs"
	i=$((i + 1))
done
sleep 2
c2=$(cpu_ticks $follower)
echo "# follow's CPU for 1000 moves: $((c2 - c1)) ticks"
[ $((c2 - c1)) -le 200 ] && pass pt/move_storm_bounded || fail pt/move_storm_bounded "$((c2 - c1)) ticks"
eq "pt/move_storm_right" 50000 "$(slack_of $s)"
kill $s
kill -0 $follower && pass pt/follow_alive || fail pt/follow_alive "$(cat /tmp/follow.log)"

# A process of 2000 threads moved in and out of a cgroup with a setting
# for 10 s, as fast as it goes: root's writes still answer at once
# (follow holds the lock SLICE_MS at a time), follow's CPU stays a bounded
# share of the storm (a fifth for events, a tenth for passes: 40% allowed),
# the storm is said once, and once over every thread is right.
in_cg_bg x tslack-probe many-threads 2000 600 >/tmp/many.pid
m=$!
poll 30 test -s /tmp/many.pid
c0=$(cpu_ticks $follower)
w0=$(date +%s)
sh -c 'end=$(($(date +%s) + 10)); while [ "$(date +%s)" -lt $end ]; do
	echo '$m' > '"$CG"'/a/cgroup.procs; echo '$m' > '"$CG"'/x/cgroup.procs; done' &
mover=$!
mkdir -p "$CG/r"
worst=0
for i in 1 2 3 4 5; do
	sleep 1
	us=$(tslack-probe duration 1 tslackctl set r $((i + 1))ms)
	[ "$us" -gt "$worst" ] 2>/dev/null && worst=$us
done
wait $mover
c1=$(cpu_ticks $follower)
w1=$(date +%s)
hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
share=$(( (c1 - c0) * 100 / hz * 100 / ((w1 - w0) * 100) ))
echo "# storm of 2000-thread moves: root's set took at most ${worst} us; follow used ${share}% of a CPU over $((w1 - w0)) s"
[ "$worst" -le 3000000 ] && pass pt/storm_set_answers || fail pt/storm_set_answers "${worst} us"
[ "$share" -le 40 ] && pass pt/storm_cpu_bounded || fail pt/storm_cpu_bounded "${share}%"
eq "pt/storm_right_after" 10000000 "$(tslackctl set r 0; echo $m > "$CG/a/cgroup.procs";
	poll 15 all_slack $m 10000000; slack_of $m | tr ' ' '\n' | sort -u)"
eq "pt/storm_said_once" 1 "$(grep -c 'a storm of events' /tmp/follow.log)"
poll 15 grep -q 'storm of events is over' /tmp/follow.log && pass pt/storm_over_said ||
	fail pt/storm_over_said "$(tail -n 3 /tmp/follow.log)"
kill $m
rmdir "$CG/r"

# A writer waits for the lock at most 10 s, then says why (here root's
# own tslack-probe holds it; follow never holds it past 20 ms at a time).
poll 5 eval 'tslack-probe lock /sys/fs/bpf/tslack sleep 14 2>/dev/null & h=$!; sleep 0.5; kill -0 $h'
out=$(tslackctl set a 10ms 2>&1)
rc=$?
eq "pt/lock_timeout" \
	"tslackctl: /sys/fs/bpf/tslack: another tslack command or tslackctl follow has held its lock for 10 s: try again|1" \
	"$out|$rc"
wait $h

# Detach from another pid namespace could give no thread its slack back
# (the plans number threads as the initial one does): refused, still attached.
out=$(unshare -p -f tslackctl detach 2>&1)
eq "pt/detach_other_pidns_refused" \
	"tslackctl: detaching in per-task mode: only from the initial pid and time namespaces, where threads can be given their own slack back|1|attached" \
	"$out|$(unshare -p -f tslackctl detach >/dev/null 2>&1; echo $?)|$(
		test -e /sys/fs/bpf/tslack/policy && echo attached)"

# Detach: every raised thread gets its own back; follow waits for the
# next attach (a detach and attach by hand), and stops on SIGTERM.
tslackctl detach
eq "pt/detach_own_back" "$own" "$(slack_of $t)"
tslackctl attach
tslackctl set a 25ms
wait_slack 5 $t 25000000 && pass pt/follow_after_reattach ||
	fail pt/follow_after_reattach "$(slack_of $t)"
tslackctl detach
kill $follower
wait $follower
eq "pt/follow_exit" 0 "$?"
eq "pt/nothing_pinned" "" "$(ls /sys/fs/bpf)"
eq "pt/follow_log_quiet" "" "$(grep -v -e 'said once' -e 'storm of events' /tmp/follow.log)"
kill $t
rmdir "$CG/a/b" "$CG/a" "$CG/x" "$CG/rt" 2>/dev/null
exit 0
