#!/bin/sh
# dist/kubernetes/tslack-daemonset.yaml's containers, run as a node would
# run them: the package's units stopped, then the attach init container,
# then follow and tslackd side by side, each privileged in the host's pid
# namespace and in a mount namespace of its own where the ConfigMap's
# rules are /etc/tslack/slack.d (the commands and rules are the
# manifest's, extracted by tests/host/fleet_commands.py). A BestEffort
# pod's process gets the rule's 50 ms, a Burstable one keeps its own;
# the recipe's removal (the containers killed as kubelet kills them, then
# a detach as a privileged pod runs it) gives it its own back. Per-task
# mode's: the DaemonSet is for nodes that run their distribution's kernel.
. /usr/local/lib/tslack/systemd-lib.sh
F=/usr/local/lib/tslack/fleet
CG=/sys/fs/cgroup
plan 8

# container NAME: the container NAME's command, as the pod runs it.
container() {
	cmd=$(cat "$F/$1")
	unshare --mount --propagation private sh -c '
		mkdir -p /etc/tslack/slack.d &&
		mount --bind "$0" /etc/tslack/slack.d && eval "exec $1"' "$F/rules" "$cmd"
}
own_of() { cat /proc/"$1"/timerslack_ns; }

systemctl stop tslackd.service tslack-follow.service tslack.service
# The hostPath volumes of type DirectoryOrCreate.
mkdir -p /run/tslack /run/tslackd
eq fleet/units_stopped "" "$(ls /sys/fs/bpf/tslack 2>/dev/null)"

container attach
eq fleet/attach_container "0 per-task" \
	"$(tslackctl status >/dev/null; echo $?) $(tslackctl status --json | sed -n 's/.*"mode": *"\([a-z-]*\)".*/\1/p')"
container follow &
follow=$!
container tslackd &
tslackd=$!

mkdir -p "$CG/kubepods.slice/kubepods-besteffort.slice/pod1" "$CG/kubepods.slice/kubepods-burstable.slice/pod2"
sleep 600 &
be=$!
sleep 600 &
bu=$!
own=$(own_of $be)
echo $be >"$CG/kubepods.slice/kubepods-besteffort.slice/pod1/cgroup.procs"
echo $bu >"$CG/kubepods.slice/kubepods-burstable.slice/pod2/cgroup.procs"
poll 30 eval '[ "$(own_of $be)" = 50000000 ]'
eq fleet/besteffort_50ms 50000000 "$(own_of $be)"
eq fleet/burstable_own "$own" "$(own_of $bu)"
eq fleet/one_follower "$(tslackctl status --json | sed -n 's/.*"follower_pid": *\([0-9]*\).*/\1/p')" \
	"$(pgrep -f -x 'tslackctl follow')"

# The DaemonSet deleted: kubelet sends SIGTERM; the recipe's detach.
kill -TERM $follow $tslackd 2>/dev/null
pkill -TERM -x tslackd
pkill -TERM -f -x 'tslackctl follow'
wait $follow $tslackd 2>/dev/null
eq fleet/containers_gone "" "$(pgrep -x tslackd; pgrep -f -x 'tslackctl follow')"
unshare --mount --propagation private tslackctl detach
eq fleet/detach_own_back "$own" "$(own_of $be)"
eq fleet/nothing_pinned "" "$(ls /sys/fs/bpf/tslack 2>/dev/null)"

kill $be $bu 2>/dev/null
wait $be $bu 2>/dev/null
rmdir "$CG/kubepods.slice/kubepods-besteffort.slice/pod1" "$CG/kubepods.slice/kubepods-besteffort.slice" \
	"$CG/kubepods.slice/kubepods-burstable.slice/pod2" "$CG/kubepods.slice/kubepods-burstable.slice" \
	"$CG/kubepods.slice" 2>/dev/null
# The package's units back, as the next test expects them.
systemctl start tslack.service
poll 20 eval '[ "$(systemctl is-active tslack-follow.service)" = active ]'
systemctl stop tslackd.service
exit 0
