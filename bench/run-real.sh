#!/bin/sh
# shellcheck disable=SC2046 # res takes a command's output as separate fields
# make bench-real, inside the systemd guest of bench/build-rootfs-real
# (bench/run-real boots it): real Debian services idle, their wakeups and
# the machine's, the package's idle intervals for a power model, then
# their request latency under light load, with no slack and with 50 ms on
# system.slice, twice ("aligned" and "plain": v5's modes; since v6 the
# same policy).
# Usage: run-real.sh IDLE_S ROUNDS [LATENCY]
# Modes, in this order each round: none, aligned, plain (v5's --no-align),
# none again (run-to-run noise). Each round: every mode's idle frame
# first (tslackctl top --json, IDLE_S s, 2 s after the mode's commands,
# then POWER_S s of power:cpu_idle in tracefs), then every mode's latency
# runs unless LATENCY is 0 (one client at a time, outside the slack).
# Lines:
#   RESULT idle MODE ROUND CGROUP WAKEUPS/S    per service, system.slice, /
#   RESULT machine MODE ROUND LOC/S PACKAGE/S
#   RESULT power MODE ROUND TRACED_S INTERVALS IDLE_PCT PER_S MEAN_MS
#     PCT_20US PCT_100US PCT_200US PCT_800US PCT_5000US SILENT LOST
#                                              (see power below)
#   RESULT busy MODE ROUND COMM MS             who was busy in that trace
#   RESULT lat MODE ROUND SERVICE P50_MS P99_MS
#   RESULT trace COMM FUNCTION ARMED WITHOUT_SLACK   (aligned, once)
#   RESULT check ...   top against the kernel's events (aligned, once;
#                      see check below)
IDLE=${1:-20}
ROUNDS=${2:-2}
LATENCY=${3:-1}
# The power model's trace after each idle frame, in s (see power below).
POWER_S=10
SERVICES="redis-server memcached nginx postgresql@15-main tslack-real-py tslack-real-node"
# Their cgroups (postgresql's cluster units are in their own slice).
CGROUPS="redis-server.service memcached.service nginx.service
system-postgresql.slice/postgresql@15-main.service tslack-real-py.service
tslack-real-node.service"

# The measuring itself stays outside system.slice and its slack.
if [ -z "${TSLACK_REAL_SCOPE:-}" ]; then
	TSLACK_REAL_SCOPE=1 exec systemd-run --scope --quiet --slice=bench -- \
		/usr/bin/env TSLACK_REAL_SCOPE=1 sh "$0" "$@"
fi

res() { echo "RESULT $*"; }
say() { echo "# $*"; }

say "$(uname -r), $(nproc) CPUs, in $(cat /proc/self/cgroup), up $(cut -d' ' -f1 /proc/uptime) s"
for s in $SERVICES tslack; do
	st=$(systemctl is-active "$s.service")
	say "$s: $st"
	[ "$st" = active ] || systemctl status --no-pager "$s.service" | head -n 20
done
# tslackd follows sessions (there are none here) and sets no slack of its
# own; stopped so that the detach and attach below change nothing under it.
systemctl stop tslackd.service
say "$(tslackctl status | tr '\n' ' ')"

# tracefs: the power model's power:cpu_idle after each idle frame and the
# timers' hrtimer_start at the end. The power model compares times of
# events on different CPUs: the global trace clock orders them across
# CPUs (local, the default, is each CPU's own).
t=/sys/kernel/tracing
[ -d $t/events ] || mount -t tracefs tracefs $t 2>/dev/null
if [ ! -f $t/events/power/cpu_idle/enable ]; then
	say "no power:cpu_idle in tracefs ($t/events/power/cpu_idle): no power model"
elif ! echo global >$t/trace_clock; then
	say "no global trace clock ($t/trace_clock: $(cat $t/trace_clock)): no power model"
else
	POWER_CPUS=$(getconf _NPROCESSORS_ONLN)
	say "power model: power:cpu_idle on $POWER_CPUS CPUs, ${POWER_S} s after each idle frame"
fi

mode() {
	tslackctl detach || exit 1
	case $1 in
	none*) tslackctl attach ;;
	aligned) tslackctl attach && tslackctl set /system.slice 50ms ;;
	plain) tslackctl attach && tslackctl set /system.slice 50ms ;;
	esac || exit 1
	sleep 2
}

idle() {
	tslackctl top --json -n 1 -d "$IDLE" --depth=3 >/tmp/frame.json || exit 1
	res machine "$1" "$2" $(jq -r '"\(.timer_interrupts_per_s) \(.package_wakeups_per_s)"' /tmp/frame.json)
	for cg in / /system.slice $(for c in $CGROUPS; do echo "/system.slice/$c"; done) \
		/init.scope /bench.slice; do
		res idle "$1" "$2" "$cg" "$(jq -r --arg p "$cg" \
			'[.cgroups[] | select(.path == $p) | .wakeups_per_s] | first // 0' /tmp/frame.json)"
	done
	power "$1" "$2"
}

# The power model (not a measurement): power:cpu_idle on every CPU for
# POWER_S s of guest time, right after each idle frame (the mode
# unchanged, the frame's tslackctl gone), and the package's idle
# intervals from it: the stretches in which every CPU is idle at once.
#   RESULT power MODE ROUND TRACED_S INTERVALS IDLE_PCT PER_S MEAN_MS
#     PCT_20US PCT_100US PCT_200US PCT_800US PCT_5000US SILENT LOST
# IDLE_PCT: the share of traced time with the package idle; PCT_N: the
# share of traced time in package idle intervals at least N us long (the
# target residencies of intel_idle's Skylake client table: 20 C1E, 100
# C3, 200 C6, 800 C7s and C8, 5000 C9 and C10). SILENT: CPUs without an
# event in the trace; LOST: events the trace buffer lost (if not 0, that
# run's figures miss some of its events).
power() {
	[ -n "${POWER_CPUS:-}" ] || return 0
	echo 0 >$t/tracing_on && : >$t/trace
	echo 1 >$t/events/power/cpu_idle/enable && echo 1 >$t/events/sched/sched_switch/enable
	echo 1 >$t/tracing_on
	sleep "$POWER_S"
	echo 0 >$t/tracing_on && echo 0 >$t/events/enable
	res power "$1" "$2" $(pkgidle "$POWER_CPUS" <$t/trace)
	busy "$1" "$2" <$t/trace
}

# busy MODE ROUND <TRACE: who kept a CPU busy in a trace with
# sched:sched_switch, from each switch to a task to the next switch on its
# CPU: RESULT busy MODE ROUND COMM MS, the five busiest task names.
busy() {
	awk -v m="$1" -v r="$2" "$AWK_US"'
	{
		for (i = 2; i <= NF && $i != "sched_switch:"; i++)
			;
		if (i > NF)
			next
		c = next_comm = ""
		for (j = 1; j < i; j++)
			if ($j ~ /^\[[0-9]+\]$/)
				c = $j
		for (j = i + 1; j <= NF; j++)
			if ($j ~ /^next_comm=/)
				next_comm = substr($j, 11)
		at = us($(i - 1))
		if ((c in cur) && cur[c] !~ /^swapper/)
			ms[cur[c]] += (at - since[c]) / 1000
		cur[c] = next_comm
		since[c] = at
	}
	END { for (k in ms) printf "RESULT busy %s %s %s %.2f\n", m, r, k, ms[k] }' |
		sort -k6 -g -r | head -n 5
}

# An awk function: the microseconds of a trace's "SECONDS.MICROSECONDS:";
# the 1 in front keeps the leading zeros of the microseconds from being
# read as octal (as busybox awk would).
AWK_US='function us(s, a) {
	sub(/:$/, "", s)
	split(s, a, ".")
	return a[1] * 1000000 + ("1" substr(a[2] "000000", 1, 6)) - 1000000
}'

# pkgidle NCPU <TRACE: the package's idle intervals in a trace of
# power:cpu_idle, lines "... 123.456789: cpu_idle: state=S cpu_id=C"
# (seconds.microseconds of the global trace clock). A CPU enters idle
# with S its state (kernel/sched/idle.c: default_idle_call(), which this
# guest uses for want of a cpuidle driver, says 1; the polling loop 0; a
# driver its state's index) and leaves it with S = 4294967295
# (PWR_EVENT_EXIT, -1 as u32); entries and exits alternate. The package
# is idle while every CPU is. Before its first event a CPU was in the
# state that event leaves, so every CPU is known from the trace's first
# event to its last, the span measured. A CPU with no event at all never
# entered or left idle in the span: counted idle throughout (an idle
# machine's CPU in a long sleep; a task running 10 s without a break
# would be the other case) and as SILENT. Every interval counted begins
# and ends at events in the span: one in progress before the first event
# ends at it and is left out; one can be open after the last event only
# if that event began it, and it is left out too (length 0). An interval
# begins at an entry event, just before the CPU halts, and ends at an
# exit event, which comes after the handler of the interrupt that woke
# the CPU: a few us late. Events of two CPUs in the same microsecond
# come in the trace's order. Prints the fields of RESULT power after
# ROUND.
pkgidle() {
	awk -v ncpu="$1" "$AWK_US"'
	function interval(len, k) {
		nint++
		idle += len
		for (k = 1; k <= 5; k++)
			if (len >= thr[k])
				deep[k] += len
	}
	BEGIN { split("20 100 200 800 5000", thr, " ") }
	/\[LOST [0-9]+ EVENTS\]/ { sub(/.*\[LOST /, ""); lost += $1; next }
	/\[LOST EVENTS\]/ { lost++; next }
	{
		i = 2
		while (i <= NF && $i != "cpu_idle:")
			i++
		if (i > NF)
			next
		st = c = ""
		for (j = i + 1; j <= NF; j++) {
			if ($j ~ /^state=/)
				st = substr($j, 7)
			else if ($j ~ /^cpu_id=/)
				c = substr($j, 8)
		}
		if (st == "" || c == "")
			next
		n++
		at[n] = us($(i - 1))
		cpu[n] = c
		enter[n] = st != "4294967295"
		if (!(c in idlebefore))
			idlebefore[c] = !enter[n]
	}
	END {
		for (k = 0; k < ncpu; k++)
			if (!((k "") in idlebefore)) {
				idlebefore[k ""] = 1
				silent++
			}
		busy = 0
		for (c in idlebefore) {
			isidle[c] = idlebefore[c]
			busy += !isidle[c]
		}
		span = n ? at[n] - at[1] : 0
		if (span <= 0) {
			printf "0 0 0 0 0 0 0 0 0 0 %d %d\n", silent, lost
			exit
		}
		for (e = 1; e <= n; e++) {
			c = cpu[e]
			if (isidle[c] == enter[e])
				continue
			isidle[c] = enter[e]
			if (enter[e]) {
				if (--busy == 0)
					from = at[e]
			} else if (busy++ == 0 && e > 1)
				interval(at[e] - from)
		}
		printf "%.3f %d %.2f %.2f %.3f", span / 1e6, nint, 100 * idle / span,
			nint / (span / 1e6), nint ? idle / nint / 1000 : 0
		for (k = 1; k <= 5; k++)
			printf " %.2f", 100 * deep[k] / span
		printf " %d %d\n", silent, lost
	}'
}

# pct FILE P: the P-th percentile of the numbers of FILE, one a line.
pct() {
	sort -g "$1" | awk -v p="$2" '{ v[NR] = $1 } END { i = int(NR * p / 100); if (i < 1) i = 1; print v[i] }'
}

# ab_lat PORT PATH: 500 requests, one at a time; p50 and p99 in ms.
ab_lat() {
	ab -q -n 500 -c 1 -e /tmp/ab.csv "http://127.0.0.1:$1/" >/tmp/ab.out 2>&1 ||
		{ cat /tmp/ab.out; return; }
	echo "$(awk -F, '$1 == 50 { print $2 }' /tmp/ab.csv) $(awk -F, '$1 == 99 { print $2 }' /tmp/ab.csv)"
}

latency() {
	# redis-benchmark: 2000 GETs from one client, one at a time.
	res lat "$1" "$2" redis $(redis-benchmark -c 1 -n 2000 -t get --csv 2>/dev/null |
		awk -F, '$1 == "\"GET\"" { gsub(/"/, ""); print $5, $7 }')
	# pgbench -S: one client, 50 read-only transactions a second for
	# 10 s (latency from each one's scheduled start, pgbench's way).
	rm -f /tmp/pgb.*
	(cd /tmp && runuser -u postgres -- pgbench -n -S -c 1 -R 50 -T 10 -l --log-prefix=/tmp/pgb bench \
		>/tmp/pgb.out 2>&1) || cat /tmp/pgb.out
	awk '{ print $3 / 1000 }' /tmp/pgb.* 2>/dev/null >/tmp/pgb.ms
	res lat "$1" "$2" postgresql "$(pct /tmp/pgb.ms 50)" "$(pct /tmp/pgb.ms 99)"
	# memcached: 500 GETs, 100 a second (bench/real/latency.py, in us).
	res lat "$1" "$2" memcached $(python3 /usr/local/lib/tslack-real/latency.py 11211 500 100 |
		awk '{ printf "%.3f %.3f", $1 / 1000, $2 / 1000 }')
	res lat "$1" "$2" nginx $(ab_lat 80)
	res lat "$1" "$2" tslack-real-py $(ab_lat 8081)
	res lat "$1" "$2" tslack-real-node $(ab_lat 8082)
}

# Until every service accepts connections, then a settling time.
ports="6379 5432 11211 80 8081 8082"
for i in $(seq 1 600); do
	python3 -c 'import socket, sys
for p in sys.argv[1:]:
	socket.create_connection(("127.0.0.1", int(p)), 1).close()' $ports 2>/dev/null && break
	sleep 1
done
say "ports $ports: $([ "$i" = 600 ] && echo "not all open" || echo open), up $(cut -d' ' -f1 /proc/uptime) s"
# pgbench's tables, scale 1.
runuser -u postgres -- createdb bench && runuser -u postgres -- pgbench -i -q -s 1 bench >/tmp/pgi.out 2>&1 ||
	cat /tmp/pgi.out
# What autovacuum and the checkpointer would do after that on their own,
# once, a minute or so later: done now. And a long settling: the services'
# own first minutes (node's compiler and collector, postgresql's
# background work) cost an aligned frame 1-2% of busy time when it was 30 s.
runuser -u postgres -- vacuumdb --all --analyze --quiet >/tmp/pgv.out 2>&1 &&
	runuser -u postgres -- psql -q -c CHECKPOINT >>/tmp/pgv.out 2>&1 || cat /tmp/pgv.out
say "settling 120 s"
sleep 120
for r in $(seq 1 "$ROUNDS"); do
	[ "$r" = 1 ] || { say "settling 10 s"; sleep 10; }
	say "round $r idle, up $(cut -d' ' -f1 /proc/uptime) s"
	for m in none aligned plain none2; do
		mode $m
		idle $m "$r"
	done
	[ "$LATENCY" = 0 ] && continue
	say "latency, up $(cut -d' ' -f1 /proc/uptime) s"
	for m in none aligned plain none2; do
		mode $m
		latency $m "$r"
	done
done

# Which timers the slack could not stretch: hrtimer_start for 10 s with
# 50 ms aligned on system.slice. Sleeps (hrtimer_wakeup) by task name,
# other timers by callback; how many were armed, how many with less than
# 1 ms between their soft and hard expiry, and the mean of that in ms.
#   RESULT trace TASK|- CALLBACK ARMED UNDER_1MS MEAN_SLACK_MS
if [ -f $t/events/timer/hrtimer_start/enable ]; then
	mode aligned
	echo 0 >$t/tracing_on && : >$t/trace
	echo 1 >$t/events/timer/hrtimer_start/enable && echo 1 >$t/tracing_on
	sleep 10
	echo 0 >$t/tracing_on && echo 0 >$t/events/timer/hrtimer_start/enable
	awk '/hrtimer_start:/ {
		comm = $1; sub(/-[0-9]+$/, "", comm)
		fn = ""; e = 0; s = 0
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^function=/) { fn = substr($i, 10) }
			if ($i ~ /^expires=/) { e = substr($i, 9) }
			if ($i ~ /^softexpires=/) { s = substr($i, 13) }
		}
		if (fn != "hrtimer_wakeup")
			comm = "-"
		k = comm " " fn; n[k]++; d[k] += e - s
		if (e - s < 1000000) z[k]++
	} END { for (k in n) printf "RESULT trace %s %d %d %.2f\n", k, n[k], z[k], d[k] / n[k] / 1e6 }' $t/trace |
		sort -k5 -n -r
else
	say "no tracefs timer events"
fi

# tslackctl top's figures against the kernel's own events, once (issue
# 31): the same idle frame as the others (aligned), with tracefs on
# while top runs, and counted over top's frame. The kernel's events:
# each sched_waking inside an hrtimer_expire_entry of hrtimer_wakeup on
# the same CPU (a sleep whose timer woke its task), by the cgroup of the
# task woken; local_timer_entry; and the package's idle intervals from
# power:cpu_idle (pkgidle above).
#   RESULT check machine TOP_LOC/S TRACE_LOC/S TOP_PKG/S TRACE_PKG/S FRAME_S LOST
#   RESULT check cgroup CGROUP TOP/S TRACE/S
check() {
	for e in timer/hrtimer_expire_entry timer/hrtimer_expire_exit sched/sched_waking \
		irq_vectors/local_timer_entry power/cpu_idle; do
		[ -f $t/events/$e/enable ] || { say "no $e in tracefs: no cross-check of top"; return 0; }
	done
	mode aligned
	echo 0 >$t/tracing_on && : >$t/trace
	echo 16384 >$t/buffer_size_kb
	for e in timer/hrtimer_expire_entry timer/hrtimer_expire_exit sched/sched_waking \
		irq_vectors/local_timer_entry power/cpu_idle; do
		echo 1 >$t/events/$e/enable
	done
	echo 1 >$t/tracing_on
	echo "CHECK start" >$t/trace_marker
	tslackctl top --json -n 1 -d "$IDLE" --depth=3 >/tmp/check.json || exit 1
	echo "CHECK end" >$t/trace_marker
	echo 0 >$t/tracing_on
	echo 0 >$t/events/enable
	# Top's frame: the last interval_s before the end marker (its exit
	# takes a few ms); the trace from then on.
	secs=$(jq -r .interval_s /tmp/check.json)
	awk -v secs="$secs" "$AWK_US"'
		function at(l, f, i) {
			split(l, f, " ")
			for (i = 2; f[i] != "" && f[i] !~ /^[a-z_]+:$/; i++)
				;
			return us(f[i - 1])
		}
		NR == FNR { if (/tracing_mark_write: CHECK end/) end = at($0); next }
		/tracing_mark_write: CHECK end/ { exit }
		end && at($0) >= end - secs * 1e6' $t/trace $t/trace >/tmp/check.trace
	pkg=$(pkgidle "$(getconf _NPROCESSORS_ONLN)" </tmp/check.trace)
	# Lines "W TID" for each timed sleep's wakeup, then "LOC N".
	awk '{
		for (i = 2; i <= NF && $i !~ /^(hrtimer_expire_entry|hrtimer_expire_exit|sched_waking|local_timer_entry|cpu_idle):$/; i++)
			;
		if (i > NF)
			next
		c = ""
		for (j = 1; j < i; j++)
			if ($j ~ /^\[[0-9]+\]$/)
				c = $j
		if ($i == "hrtimer_expire_entry:")
			inw[c] = $0 ~ /function=hrtimer_wakeup /
		else if ($i == "hrtimer_expire_exit:")
			inw[c] = 0
		else if ($i == "local_timer_entry:")
			loc++
		else if ($i == "sched_waking:" && inw[c])
			for (j = i + 1; j <= NF; j++)
				if ($j ~ /^pid=/)
					print "W", substr($j, 5)
	}
	END { print "LOC", loc + 0 }' /tmp/check.trace >/tmp/check.w
	[ -s /tmp/check.trace ] || { say "cross-check: an empty trace"; return 0; }
	res check machine "$(jq -r .timer_interrupts_per_s /tmp/check.json)" \
		"$(awk -v s="$secs" '$1 == "LOC" { printf "%.1f", $2 / s }' /tmp/check.w)" \
		"$(jq -r .package_wakeups_per_s /tmp/check.json)" "$(echo "$pkg" | cut -d' ' -f4)" \
		"$secs" "$(echo "$pkg" | cut -d' ' -f12)"
	# Each woken thread's cgroup, read now: the services' threads live on.
	awk '$1 == "W" { print $2 }' /tmp/check.w | sort | uniq -c | while read -r n tid; do
		echo "$n $(sed -n 's/^0:://p' /proc/"$tid"/cgroup 2>/dev/null || echo gone)"
	done >/tmp/check.cg
	for cg in $(for c in $CGROUPS; do echo "/system.slice/$c"; done); do
		res check cgroup "$cg" "$(jq -r --arg p "$cg" \
			'[.cgroups[] | select(.path == $p) | .wakeups_per_s] | first // 0' /tmp/check.json)" \
			"$(awk -v c="$cg" -v s="$secs" '$2 == c || index($2, c "/") == 1 { n += $1 }
				END { printf "%.1f", n / s }' /tmp/check.cg)"
	done
}
check

tslackctl detach
say "done, up $(cut -d" " -f1 /proc/uptime) s"
