#!/bin/sh
# make stress, inside the debug kernel: 64 tasks sleep through every
# converted syscall across a tree of cgroups while one process creates and
# removes cgroups and moves tasks, one sets and clears slack as fast as it
# can, one writes the map directly with bpftool as a script would, and one
# attaches and detaches the policy. Then the map must match the cgroup
# tree, and every task, the sleepers that lived through it all included,
# must sleep with the slack the map implies. Splats are
# caught by vmtest/run from the guest's dmesg.
DUR=${1:-30}
LEAVES="a/1 a/2 b/1 b/2 c"

. /usr/local/lib/tslack/harness.sh
plan 5
pick() { set -- $LEAVES; shift $((RANDOM % $#)); echo "$1"; }
now() { cut -d. -f1 /proc/uptime; }

export CHURN_STOP_FILE=/tmp/churn.stop
rm -f "$CHURN_STOP_FILE"
tslackctl attach || { fail stress/attach "tslackctl attach failed"; exit 1; }
for l in $LEAVES; do mkdir -p "$CG/st/$l"; done

pids=
for i in $(seq 1 64); do
	leaf=$(pick)
	# Until told to stop, once the races are over (a slow racer may
	# end well after $DUR), or $DUR + 120 s.
	in_cg_bg "st/$leaf" tslack-probe churn $((DUR + 120)) 5 >"/tmp/churn.$i"
	pids="$pids $!"
done
end=$(($(now) + DUR))

(	# cgroups come and go below the leaves; sleepers move around
	n=0
	while [ "$(now)" -lt "$end" ]; do
		n=$((n + 1))
		d=$CG/st/$(pick)/tmp$((RANDOM % 4))
		mkdir "$d" 2>/dev/null || rmdir "$d" 2>/dev/null
		set -- $pids
		shift $((RANDOM % $#))
		echo "$1" > "$CG/st/$(pick)/cgroup.procs" 2>/dev/null
	done
	echo "# $n cgroup creations or removals and task moves"
) &
mover=$!
(	# slack set and cleared as fast as possible, on leaves and inner nodes
	n=0
	while [ "$(now)" -lt "$end" ]; do
		n=$((n + 1))
		case $((RANDOM % 3)) in
		0) cg=st ;;
		1) cg=st/$(pick) ;;
		2) cg=st/$(pick | cut -d/ -f1) ;;
		esac
		tslackctl set "$cg" "$((RANDOM % 4 * 5))ms" 2>/dev/null
	done
	echo "# $n slack settings"
) &
setter=$!
(	# a script's direct writes, racing the rest
	n=0
	while [ "$(now)" -lt "$end" ]; do
		n=$((n + 1))
		map_write "st/$(pick)" "$((RANDOM % 4 * 5000000))" 0 2>/dev/null
	done
	echo "# $n direct map writes"
) &
writer=$!
(	# the policy attached and detached
	n=0
	while [ "$(now)" -lt "$end" ]; do
		n=$((n + 1))
		tslackctl detach
		tslackctl attach 2>/dev/null
		sleep 0.3
	done
	echo "# $n detach and attach cycles"
) &
attacher=$!

# Once every racer is done, attached again if need be, the sleepers get
# two quiet seconds (the policy reuses an answer for at most 100 ms).
wait "$attacher" "$mover" "$setter" "$writer"
tslackctl status >/dev/null || tslackctl attach
sleep 2
touch "$CHURN_STOP_FILE"
bad=0
for p in $pids; do
	wait "$p" || bad=$((bad + 1))
done
rm -f "$CHURN_STOP_FILE"
[ "$bad" -eq 0 ] && pass stress/sleepers || fail stress/sleepers "$bad of 64 sleepers failed"

# The sleepers' last answers, after two quiet seconds, match the map.
wrong=
for i in $(seq 1 64); do
	# shellcheck disable=SC2046
	set -- $(grep '^final ' "/tmp/churn.$i")
	want=$(tslackctl get "$2" | awk '/^effective/ { print ($2 > 50000) ? $2 : 50000 }')
	[ "$3" = "$want" ] || wrong="$wrong $2:$3!=$want"
done
[ -z "$wrong" ] && pass stress/sleepers_match_map || fail stress/sleepers_match_map "$wrong"

# What the race left is consistent: no setting of a cgroup that is gone.
out=$(tslackctl check 2>&1) && pass stress/map_after_race ||
	fail stress/map_after_race "$out"
# Settle: one more set of two nodes, as a session manager would.
tslackctl set st 5ms && tslackctl set st/a 10ms

# Every task's effective slack, as the kernel reports it, matches the map.
wrong=
for leaf in $LEAVES; do
	want=$(tslackctl get "st/$leaf" | awk '/^effective/ { print ($2 > 50000) ? $2 : 50000 }')
	got=$(slack_in "st/$leaf")
	[ "$got" = "$want" ] || wrong="$wrong $leaf:$got!=$want"
done
[ -z "$wrong" ] && pass stress/task_slack_matches_map || fail stress/task_slack_matches_map "$wrong"

tslackctl detach
find "$CG/st" -depth -type d -exec rmdir {} \; 2>/dev/null
[ ! -e "$CG/st" ] && pass stress/cleanup || fail stress/cleanup "cgroups left"
