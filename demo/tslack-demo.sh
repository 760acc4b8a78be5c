#!/bin/sh
# What tslack does, in one run inside the VM (make demo).
set -e
. /usr/local/lib/tslack/harness.sh
# Timer interrupts so far: the LOC line of /proc/interrupts, all CPUs.
loc() { awk '/LOC:/ { n = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i; print n }' /proc/interrupts; }
# Run a sleeper in cgroup "session" for 2 s; print its wakeups and lateness.
sleeper() {
	before=$(loc)
	in_cg session tslack-probe rate 2 1
	echo "    timer interrupts: $(( ($(loc) - before) / 2 ))/s"
}
say() { printf '\n$ %s\n' "$*"; "$@"; }

mkdir -p "$CG/session"
echo "A task in cgroup /session sleeps 1 ms at a time."
echo
echo "Default timer slack (50 us):"
sleeper
say tslackctl attach
say tslackctl set session 20ms
say tslackctl get session
echo
echo "The same task, now that its session has 20 ms of slack:"
sleeper
say tslackctl set session 0
echo "... and back to the default:"
sleeper
mkdir -p "$CG/session/app" "$CG/session/audio"
say tslackctl set session 50ms
echo
echo "An audio player must not gain 50 ms: exempt its cgroup."
say tslackctl exempt session/audio
say tslackctl list
say bpftool map dump pinned /sys/fs/bpf/tslack/settings
echo
echo "A script can write the map with bpftool alone (min 80 ms, no cap):"
say bpftool map update pinned /sys/fs/bpf/tslack/settings \
	key $(le64 "$(stat -c %i "$CG/session/app")") value $(le64 80000000) $(le64 0)
say tslackctl get session/app
say tslackctl detach
rmdir "$CG/session/app" "$CG/session/audio" "$CG/session"
