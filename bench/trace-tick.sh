#!/bin/sh
# Issue 30's trace, inside the VM: what each CPU does around a wakeup from
# idle under make bench's sleepers load (16 x 10 ms, per-task slack 50 ms
# by default). Prints the load's figures (wakeups/s LOC/s package
# wakeups/s mean-late max-late), then a count of the tick's expiries
# (tick_nohz_handler) against the sleepers' (hrtimer_wakeup) and of the
# idle loop's choices (kprobes on tick_nohz_idle_stop_tick and
# tick_nohz_idle_retain_tick), then the trace itself.
# Usage: tslack-trace-tick [SECONDS [SLACK_NS]]
SECS=${1:-3}
SLACK=${2:-50000000}
. /usr/local/lib/tslack/harness.sh
T=/sys/kernel/tracing

echo "# cpuidle driver: $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)"
grep -qs "^nodev $T " /proc/mounts || mount -t tracefs nodev $T || exit 1
echo 0 >$T/tracing_on
echo >$T/trace
echo 8192 >$T/buffer_size_kb
echo >$T/kprobe_events
for k in 'p:stop_tick tick_nohz_idle_stop_tick' 'p:retain_tick tick_nohz_idle_retain_tick' \
	'p:restart tick_nohz_restart_sched_tick' 'r:rcu_needs rcu_needs_cpu ret=$retval' \
	'r:next_timer get_next_timer_interrupt ret=$retval'; do
	echo "$k" >>$T/kprobe_events || echo "# no kprobe: $k"
done
echo 1 >$T/events/kprobes/enable
for e in timer/hrtimer_start timer/hrtimer_cancel timer/hrtimer_expire_entry timer/timer_start \
	timer/timer_expire_entry timer/tick_stop irq/softirq_raise irq/softirq_entry power/cpu_idle \
	irq_vectors/local_timer_entry irq_vectors/reschedule_entry \
	irq_vectors/call_function_single_entry sched/sched_wakeup; do
	[ -e $T/events/$e/enable ] && echo 1 >$T/events/$e/enable || echo "# no event $e"
done
mkdir -p "$CG/wk"
in_cg_bg wk tslack-bench sleepers 16 $((SECS + 2)) 10 "$SLACK"
pid=$!
sleep 1
echo 1 >$T/tracing_on
sleep "$SECS"
echo 0 >$T/tracing_on
wait $pid
cat $T/trace >/tmp/trace.txt
# The tick's hrtimer callback: tick_nohz_handler since 6.9, tick_sched_timer before.
echo "# in $SECS s: tick expiries $(grep -c -E 'function=(tick_nohz_handler|tick_sched_timer) now' /tmp/trace.txt)," \
	"sleeper expiries $(grep -c 'function=hrtimer_wakeup now' /tmp/trace.txt)," \
	"local timer interrupts $(grep -c local_timer_entry /tmp/trace.txt)," \
	"tick kept at idle entry $(grep -c ' retain_tick:' /tmp/trace.txt)," \
	"stopped $(grep -c ' stop_tick:' /tmp/trace.txt)"
echo "=== TRACE"
cat /tmp/trace.txt
