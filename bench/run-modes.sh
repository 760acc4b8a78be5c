#!/bin/sh
# make bench, inside the VM, once on the tslack kernel (the hook) and once
# on the same source and configuration without the series (per-task mode,
# tslackctl follow): the same load in each. One "RESULT MODE_NAME VALUE..."
# line per figure, MODE being hook or pertask:
#   pp_none, pp_set	ns per ping-pong round trip at depth 4, without
#			and with 50 ms set at depth 1
#   forks		follow's system calls and CPU ms for 1000 short tasks
#			forked in a cgroup with 50 ms (per-task mode only)
#   moves		the same for 1000 migrations in and out of it
#   lag			per migration in: sleeps of 1 ms taken with the wrong
#			slack (mean, largest) and us until the right one
#   wake_none, wake	16 sleepers at 10 ms (tslack-bench sleepers'
#			figures) without slack and with 50 ms on their
#			cgroup; the hook again as wake_plain (v5's
#			--no-align; since v6 the same policy)
R=${1:-5}
SECONDS_PER_RUN=${2:-5}

. /usr/local/lib/tslack/harness.sh

tslackctl detach >/dev/null 2>&1
tslackctl attach || exit 1
case $(tslackctl status | sed -n 2p) in
"mode: hook"*) m=hook ;;
"mode: per-task"*) m=pertask ;;
*) echo "run-modes: unknown mode" >&2; exit 1 ;;
esac
tslackctl detach || exit 1
res mode "$m" "$(uname -r)"

mkdir -p "$CG/l1/l2/l3/l4" "$CG/wk" "$CG/in" "$CG/out"
ROUNDS=5000
attach() {
	tslackctl attach "$@" || exit 1
	if [ $m = pertask ]; then
		tslackctl follow 2>/tmp/follow.log &
		follower=$!
	fi
}
detach() {
	tslackctl detach || exit 1
	# follow waits for the next attach until it is stopped.
	if [ $m = pertask ]; then
		kill "$follower" && wait "$follower"
	fi
}
# counted COMMAND...: follow's system calls and CPU ms while COMMAND runs
# and 1 s after it, for follow to catch up.
counted() { tslack-bench syscalls "$follower" sh -c '"$@" && sleep 1' sh "$@"; }

for r in $(seq 1 "$R"); do
	res "${m}_pp_none" $(in_cg l1/l2/l3/l4 tslack-bench pingpong "$ROUNDS")
	res "${m}_wake_none" "$(bench_sleepers)"
	attach
	tslackctl set l1 50ms && tslackctl set in 50ms || exit 1
	res "${m}_pp_set" $(in_cg l1/l2/l3/l4 tslack-bench pingpong "$ROUNDS")
	if [ $m = pertask ]; then
		res "${m}_forks" "$(counted sh -c 'echo $$ >"$0/in/cgroup.procs" &&
			exec tslack-probe forks 1000' "$CG")"
		res "${m}_moves" "$(counted sh -c 'echo $$ >"$0/out/cgroup.procs" &&
			exec tslack-bench migrations 1000 "$0/in" "$0/out" 50000000 >/tmp/lag' "$CG")"
		res "${m}_lag" "$(cat /tmp/lag)"
	else
		res "${m}_lag" "$(in_cg out tslack-bench migrations 1000 "$CG/in" "$CG/out" 50000000)"
	fi
	tslackctl set wk 50ms || exit 1
	res "${m}_wake" "$(bench_sleepers)"
	detach
	if [ $m = hook ]; then
		attach
		tslackctl set wk 50ms || exit 1
		res "${m}_wake_plain" "$(bench_sleepers)"
		detach
	fi
done
