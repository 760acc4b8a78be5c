#!/bin/sh
# make bench, inside the VM, once per vCPU count: 16 sleepers (10 ms
# +-20%, process i on CPU i modulo the CPUs) at 50 ms of slack, per-task
# (/proc/PID/timerslack_ns) against tslack on their cgroup, aligned (the
# default) and not (attach). One "RESULT name wakeups/s LOC/s
# package-wakeups/s mean-late-ms max-late-ms" line per run; the repeats
# interleave the three.
R=${1:-5}
SECONDS_PER_RUN=${2:-5}

. /usr/local/lib/tslack/harness.sh

res cpus "$(grep -c ^processor /proc/cpuinfo)"
tslackctl detach >/dev/null 2>&1
mkdir -p "$CG/wk"
for r in $(seq 1 "$R"); do
	res pertask "$(bench_sleepers 50000000)"
	tslackctl attach && tslackctl set wk 50ms || exit 1
	res aligned "$(bench_sleepers)"
	tslackctl detach && tslackctl attach && tslackctl set wk 50ms || exit 1
	res plain "$(bench_sleepers)"
	tslackctl detach || exit 1
done
