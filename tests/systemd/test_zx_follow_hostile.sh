#!/bin/sh
# Per-task mode against a user who tries to stall, fool or outlast it, in
# the systemd guest on Debian's own kernels with the package's units
# running (tslack.service, tslack-follow.service): alice moves a process
# of 2000 threads between two cgroups of her own delegated subtree, inside
# a slice with a setting, while root writes settings and tslackd runs;
# then the follower is SIGKILLed and must be restarted and catch up, a
# second follower is refused, and a stop of tslack.service gives every
# thread its own slack back. Named to run after test_package, which
# checks when tslack.service first started.
. /usr/local/lib/tslack/systemd-lib.sh
plan 13

uid=$(uid_of alice)
mine=$CG/user.slice/user-$uid.slice/user@$uid.service
follow_pid() { systemctl show -P MainPID tslack-follow.service; }
cpu_ms() {
	awk -v hz="$(getconf CLK_TCK)" '{ print int(($14 + $15) * 1000 / hz) }' "/proc/$1/stat"
}
restarts() { systemctl show -P NRestarts "$1"; }
# thread_slacks PID: the slacks of PID's threads, each once; one cat for
# all (a cat per thread of 2000 takes seconds under TCG).
thread_slacks() {
	[ -n "$1" ] && [ -d "/proc/$1/task" ] || return 0
	ls "/proc/$1/task" | sed 's|.*|/proc/&/timerslack_ns|' | xargs cat 2>/dev/null | sort -u
}

session_open alice
systemctl start tslackd.service
tslackctl set "/user.slice/user-$uid.slice" 10ms
# Her own cgroups, in the subtree systemd delegates to her.
session_run alice "mkdir $(q "$mine/ha") $(q "$mine/hb")" ||
	echo "# cannot make alice's cgroups"
# Started by her own systemd, as an app: inside her delegated subtree.
pf=$(probe_file many.pid alice)
user_app alice tslack-hostile-many.service "exec tslack-probe many-threads 2000 600 >$(q "$pf")"
poll 30 test -s "$pf"
m=$(cat "$pf")
poll 15 eval '[ "$(thread_slacks $m)" = 10000000 ]'
echo "# alice's process $m: $(ls "/proc/$m/task" | wc -l) threads at $(thread_slacks "$m")"

# Her storm: 20 s of moves, as fast as the kernel takes them.
f=$(follow_pid)
c0=$(cpu_ms "$f")
t0=$(date +%s)
moves=$(probe_file moves alice)
session_spawn alice "end=\$((\$(date +%s) + 20)); n=0; while [ \$(date +%s) -lt \$end ]; do
	echo $m > $(q "$mine/ha/cgroup.procs") && echo $m > $(q "$mine/hb/cgroup.procs") &&
	n=\$((n + 2)); echo \$n > $(q "$moves"); done"
# Root's writes meanwhile, on a cgroup of root's own.
mkdir -p "$CG/system.slice/tslack-hostile"
worst=0
for i in 1 2 3 4 5 6 7 8; do
	sleep 2
	us=$(tslack-probe duration 1 tslackctl set system.slice/tslack-hostile $((i + 1))ms)
	[ "$us" -gt "$worst" ] 2>/dev/null && worst=$us
done
poll 30 eval '[ $(($(date +%s) - t0)) -ge 21 ]'
c1=$(cpu_ms "$f")
t1=$(date +%s)
share=$(((c1 - c0) / (t1 - t0) / 10))
echo "# alice's storm: $(cat "$moves") moves; root's set took at most $worst us; follow used $share% of a CPU in $((t1 - t0)) s"
[ "$(cat "$moves")" -ge 10 ] 2>/dev/null && pass hostile/alice_moved || fail hostile/alice_moved "$(cat "$moves") moves"
[ "$worst" -le 3000000 ] && pass hostile/set_answers || fail hostile/set_answers "$worst us"
[ "$share" -le 40 ] && pass hostile/follow_cpu_bounded || fail hostile/follow_cpu_bounded "$share%"
eq hostile/same_follower "$f" "$(follow_pid)"
eq hostile/tslackd_not_restarted "active 0" \
	"$(systemctl is-active tslackd.service) $(restarts tslackd.service)"
poll 15 eval '[ "$(thread_slacks $m)" = 10000000 ]'
eq hostile/threads_right_after "10000000" "$(thread_slacks "$m")"

# PIDs reused at once (pid_max lowered): alice's short-lived children
# each move from an exempt cgroup of hers into one with 10 ms (a write for
# follow to make) and exit, while root's own short-lived processes, in a
# cgroup without a setting, take their numbers: none of root's may get
# alice's slack (follow writes only to the thread that started when the
# policy planned it).
kill "$m" 2>/dev/null
poll 30 test ! -d "/proc/$m"
tslackctl set system.slice/tslack-hostile 0
tslackctl exempt "${mine#$CG}/ha"
pid_max=$(cat /proc/sys/kernel/pid_max)
echo 1024 >/proc/sys/kernel/pid_max
user_app alice tslack-hostile-reuse.service "echo \$\$ > $(q "$mine/ha/cgroup.procs");
	end=\$((\$(date +%s) + 15)); while [ \$(date +%s) -lt \$end ]; do
	sh -c 'echo \$\$ > $(q "$mine/hb/cgroup.procs")'; done"
got=$(sh -c 'echo $$ > "$1/cgroup.procs"; end=$(($(date +%s) + 12))
	while [ "$(date +%s)" -lt $end ]; do cat /proc/self/timerslack_ns; done' sh \
	"$CG/system.slice/tslack-hostile" | sort | uniq -c | awk '{ print $2 "x" $1 }' | tr '\n' ' ')
echo $pid_max >/proc/sys/kernel/pid_max
echo "# root's short-lived processes while alice's reused their pids: $got"
eq hostile/pid_reuse_root_untouched 50000 "$(echo "$got" | tr ' ' '\n' | sed -n 's/x.*//p' | sort -u)"
# Her storm over first: while her cgroup.procs writes go on, forks crawl
# (root's loop above makes 60-90 processes in 12 s under TCG) and 200
# threads once took more than 30 s to start.
poll 30 eval '[ "$(user_unit_prop alice tslack-hostile-reuse.service ActiveState)" != active ]'
tslackctl set --max "${mine#$CG}/ha" 0
pf=$(probe_file many2.pid alice)
user_app alice tslack-hostile-many2.service "exec tslack-probe many-threads 200 600 >$(q "$pf")"
poll 60 test -s "$pf"
m=$(cat "$pf")
[ -n "$m" ] || echo "# alice's second process wrote no pid: tslack-hostile-many2.service" \
	"$(user_unit_prop alice tslack-hostile-many2.service ActiveState)," \
	"$(user_unit_prop alice tslack-hostile-many2.service Result)"
poll 20 eval '[ "$(thread_slacks $m)" = 10000000 ]'

# A second follower is refused; the unit's stays.
out=$(tslackctl follow 2>&1)
eq hostile/one_follower \
	"tslackctl: another tslackctl follow is running (pid $f): one follower at a time|1" \
	"$out|$(tslackctl follow >/dev/null 2>&1; echo $?)"

# The follower SIGKILLed: restarted by its unit, it catches up with what
# changed meanwhile.
n0=$(restarts tslack-follow.service)
kill -KILL "$f"
tslackctl set "/user.slice/user-$uid.slice" 20ms
poll 30 eval '[ "$(restarts tslack-follow.service)" -gt "$n0" ] &&
	[ "$(systemctl is-active tslack-follow.service)" = active ]'
eq hostile/follower_restarted active "$(systemctl is-active tslack-follow.service)"
poll 20 eval '[ "$(thread_slacks $m)" = 20000000 ]'
eq hostile/caught_up 20000000 "$(thread_slacks "$m")"

# A stop of tslack.service (detach) gives every thread its own back.
systemctl stop tslack.service
eq hostile/stop_own_back 50000 "$(thread_slacks "$m")"
eq hostile/stop_nothing_pinned "" "$(ls /sys/fs/bpf/tslack 2>/dev/null)"
systemctl start tslack.service
poll 20 eval '[ "$(systemctl is-active tslack-follow.service)" = active ]'
eq hostile/restarted_after_stop active "$(systemctl is-active tslack-follow.service)"

kill "$m" 2>/dev/null
systemctl stop tslackd.service
session_close alice
rmdir "$mine/ha" "$mine/hb" "$CG/system.slice/tslack-hostile" 2>/dev/null
tslackctl set "/user.slice/user-$uid.slice" 0 2>/dev/null
exit 0
