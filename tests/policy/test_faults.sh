#!/bin/sh
# tslackctl killed with SIGKILL at random points of "set" and "attach":
# what stays is the old state or the new one, never half of it, also for
# what running tasks see, and
# "tslackctl detach && tslackctl attach" always recovers.
ROUNDS=${1:-40}
. /usr/local/lib/tslack/harness.sh
plan 2
# kill_after USECS COMMAND...: start COMMAND, SIGKILL it after USECS.
kill_after() {
	us=$1
	shift
	"$@" >/dev/null 2>&1 &
	pid=$!
	usleep "$us"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

tslackctl detach
tslackctl attach || { fail faults/attach "tslackctl attach failed"; exit 1; }
mkdir -p "$CG/f/a/b/c" "$CG/f/a/b2" "$CG/f/x"
tslackctl set f 10ms
# A task that keeps sleeping below f, reporting the slack it uses: the
# kernel reuses its answer, so it sees a set only once that takes effect.
in_cg_bg f/a/b/c tslack-probe watch 100000 10 >/tmp/fwatch
watcher=$!

bad=
for i in $(seq 1 "$ROUNDS"); do
	old=$(tslackctl get f | awk '/^min/ { print $2 }')
	new=$(( (i % 7 + 1) * 1000000 ))
	kill_after $((RANDOM % 20000)) tslackctl set f "$new"
	now=$(tslackctl get f | awk '/^min/ { print $2 }')
	usleep 50000
	sees=$(tail -n 1 /tmp/fwatch)
	if [ "$now" != "$old" ] && [ "$now" != "$new" ]; then
		bad="$bad round $i: min $now, neither $old nor $new;"
	elif [ "$sees" != "$now" ]; then
		bad="$bad round $i: the map says $now, a task below sleeps with $sees;"
	elif ! out=$(tslackctl check 2>&1); then
		bad="$bad round $i: $out;"
	fi
done
kill "$watcher" && wait "$watcher"
[ -z "$bad" ] && pass faults/set_killed || fail faults/set_killed "$bad"

bad=
for i in $(seq 1 "$ROUNDS"); do
	tslackctl detach
	kill_after $((RANDOM % 60000)) tslackctl attach
	if tslackctl status | grep -q 'attached: yes'; then
		# All or nothing: an attached policy works.
		tslackctl set f/x 3ms && [ "$(tslackctl get f/x | awk '/^eff/ { print $2 }')" = 3000000 ] ||
			bad="$bad round $i: attached but set does not work;"
	fi
	tslackctl detach && tslackctl attach ||
		bad="$bad round $i: detach && attach failed;"
	ls /sys/fs/bpf | grep -q attaching && bad="$bad round $i: $(ls /sys/fs/bpf) left;"
done
[ -z "$bad" ] && pass faults/attach_killed || fail faults/attach_killed "$bad"

tslackctl detach
rmdir "$CG/f/a/b/c" "$CG/f/a/b" "$CG/f/a/b2" "$CG/f/a" "$CG/f/x" "$CG/f"
exit 0
