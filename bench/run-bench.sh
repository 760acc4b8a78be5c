#!/bin/sh
# make bench, inside the VM: one "RESULT name value..." line per figure,
# which bench/run turns into the table. Repeats interleave the configs.
R=${1:-5}
CALLS=${2:-20000}
SECONDS_PER_RUN=${3:-5}

. /usr/local/lib/tslack/harness.sh

res boot_to_bench_s "$(cut -d' ' -f1 /proc/uptime)"
tslackctl detach >/dev/null 2>&1

# A chain of 16 cgroups: l1/l2/.../l16.
path=
for i in $(seq 1 16); do
	path=$path/l$i
	mkdir -p "$CG$path"
	eval "depth$i=\$path"
done

ROUNDS=$((CALLS / 4))
for r in $(seq 1 "$R"); do
	res poll_none $(in_cg "$depth4" tslack-bench poll-ready "$CALLS")
	res poll_slow $(in_cg "$depth4" tslack-bench poll-ready "$CALLS" 1000)
	res pp_none $(in_cg "$depth4" tslack-bench pingpong "$ROUNDS")
	res pp_trivial $(in_cg "$depth4" tslack-bench pingpong "$ROUNDS" 0)
	tslackctl attach && tslackctl set l1 50ms || exit 1
	res poll_tslack $(in_cg "$depth4" tslack-bench poll-ready "$CALLS")
	for d in 1 4 16; do
		eval "p=\$depth$d"
		res "pp_depth$d" $(in_cg "$p" tslack-bench pingpong "$ROUNDS")
	done
	tslackctl detach || exit 1
	# Without alignment: what the policy costs, apart from the kernel's
	# arithmetic that puts an aligned timer on the grid.
	tslackctl attach && tslackctl set l1 50ms || exit 1
	res pp_noalign $(in_cg "$depth4" tslack-bench pingpong "$ROUNDS")
	tslackctl detach || exit 1
done

# The same at depth 4 with 10,000 more cgroups holding a setting, written
# in one bpftool batch, as a script would.
mkdir -p "$CG/many"
names() { awk 'BEGIN { for (i = 1; i <= 10000; i++) print "c" i }'; }
(cd "$CG/many" && names | xargs mkdir && names | xargs stat -c %i) |
	awk -v m="$MAP" '{
		printf "map update pinned %s key", m
		v = $1
		for (i = 0; i < 8; i++) { printf " %d", v % 256; v = int(v / 256) }
		printf " value 0 225 245 5 0 0 0 0 0 225 245 5 0 0 0 0\n"
	}' >/tmp/many.batch
[ "$(wc -l </tmp/many.batch)" -eq 10000 ] || exit 1
for r in $(seq 1 "$R"); do
	tslackctl attach && tslackctl set l1 50ms || exit 1
	bpftool batch file /tmp/many.batch >/dev/null || exit 1
	res map_entries "$(tslackctl status | tail -n 1 | cut -d' ' -f5)"
	res pp_depth4_10k $(in_cg "$depth4" tslack-bench pingpong "$ROUNDS")
	tslackctl detach || exit 1
done

mkdir -p "$CG/wk"
for r in $(seq 1 "$R"); do
	res wake_default "$(bench_sleepers)"
	tslackctl attach && tslackctl set wk 50ms || exit 1
	res wake_tslack "$(bench_sleepers)"
	tslackctl detach && tslackctl attach && tslackctl set wk 50ms || exit 1
	res wake_plain "$(bench_sleepers)"
	tslackctl detach || exit 1
	res wake_pertask "$(bench_sleepers 50000000)"
done

# Wakeups against slack, for the plot.
tslackctl attach || exit 1
for ms in 0 1 5 20 50 100; do
	tslackctl set wk "${ms}ms" || exit 1
	res "sweep_$ms" "$(bench_sleepers)"
done

# The same sweep per cgroup, as tslackctl top sees it: /wk's 16 sleepers
# get the slack, /other's 8 beside them keep their own.
mkdir -p "$CG/other"
field() { grep -o "$1[0-9.]*" | head -n 1 | awk '{ print $NF }'; }
for ms in 0 1 5 20 50 100; do
	tslackctl set wk "${ms}ms" || exit 1
	sleep 2
	in_cg_bg other tslack-bench sleepers 8 "$SECONDS_PER_RUN" 10 >/dev/null
	o=$!
	in_cg_bg wk tslack-bench sleepers 16 "$SECONDS_PER_RUN" 10 >/dev/null
	w=$!
	usleep 500000
	top=$(tslackctl top -b -n 1 -d $((SECONDS_PER_RUN - 1)) --depth 1 --json)
	wait "$o" "$w"
	res "percg_$ms" "$(echo "$top" | field '"path": "/wk", "id": [0-9]*, "wakeups_per_s": ')" \
		"$(echo "$top" | field '"path": "/other", "id": [0-9]*, "wakeups_per_s": ')" \
		"$(echo "$top" | field '"timer_interrupts_per_s": ')"
done
tslackctl detach
