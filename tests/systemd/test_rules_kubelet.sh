#!/bin/sh
# The package's example rules for a Kubernetes node
# (/usr/share/doc/tslack/examples/slack.d/50-kubelet.conf) on kubelet's
# cgroups, made as kubelet and containerd make them with the systemd cgroup
# driver: kubelet's slices (kubepods.slice, the QoS slices, one per pod)
# are transient units started over D-Bus with the properties runc's
# libcontainer gives them for kubelet's cgroup manager, and each container
# is a transient scope made with its process in its pod's slice, as runc
# makes cri-containerd-ID.scope for containerd. tslackd starts before
# kubelet has made any of them, as at boot: the BestEffort slice gets the
# rule when it appears (a container started with it sleeps with 50 ms
# within the bound of a new cgroup); a BestEffort pod made later sleeps
# with it from its first sleep, with no setting of its own; the map holds
# one setting; --status names the rule; stop undoes it and a start finds
# the slice already there; Guaranteed and Burstable containers keep their
# own slack all along.
. /usr/local/lib/tslack/systemd-lib.sh
plan 16

DEFAULT=50000
RULE=50000000
EXAMPLE=/usr/share/doc/tslack/examples/slack.d/50-kubelet.conf
ETC=/etc/tslack/slack.d
SD=org.freedesktop.systemd1
BE=/kubepods.slice/kubepods-besteffort.slice
# Pod UIDs as kubelet names pod slices (a dash is a level to systemd:
# the UID's dashes become underscores).
POD_BE=0c3e5a2e_6a0b_4e51_9f0e_2b1d7c4a9e01
POD_BE2=7d9b3f10_52c4_4d3a_8b6e_94a0e1f2c302
POD_G=a1f4c8d2_3e57_4b09_a6d1_5c2e8f7b1d03
POD_BU=e5b2d9a4_0f6c_4a18_b3e7_6d1c9a2f4e04

cleanup() {
	systemctl stop tslackd.service
	# Stopping a slice stops what is in it (its units require it).
	systemctl stop kubepods.slice 2>/dev/null
	poll 30 test ! -d $CG/kubepods.slice
	rm -f $ETC/50-kubelet.conf
	# Purge (test_zz_purge) must find /etc/tslack as the package left it.
	rmdir $ETC 2>/dev/null
}
trap cleanup EXIT

# ctr_id NAME: a container id as containerd's, 64 hex digits.
ctr_id() { printf '%s' "$1" | sha256sum | cut -c1-64; }

# unit_cg UNIT: the unit's cgroup, as tslackctl takes it.
unit_cg() { systemctl show -P ControlGroup "$1"; }

# slice_start NAME PARENT: a slice as kubelet's cgroup manager makes one
# through runc's libcontainer (its systemd driver's Apply): a transient
# unit, started over D-Bus, that Wants= its parent (-.slice for
# kubepods.slice), accounting on, no default dependencies. Returns once its
# cgroup is there. "--": the parent "-.slice" is no option.
slice_start() {
	_sn=$1
	busctl -- call $SD /org/freedesktop/systemd1 $SD.Manager StartTransientUnit \
		'ssa(sv)a(sa(sv))' "$1" replace 7 \
		Description s "libcontainer container $1" Wants as 1 "$2" \
		MemoryAccounting b true CPUAccounting b true IOAccounting b true \
		TasksAccounting b true DefaultDependencies b false 0 >/dev/null &&
		poll 10 eval 'test -n "$(unit_cg "$_sn")" && test -d "$CG$(unit_cg "$_sn")"'
}

# pod_start QOS UID: a pod's slice, in its QoS slice (QOS is besteffort or
# burstable; empty for a Guaranteed pod, directly in kubepods.slice).
pod_start() {
	if [ -n "$1" ]; then
		slice_start "kubepods-$1-pod$2.slice" "kubepods-$1.slice"
	else
		slice_start "kubepods-pod$2.slice" kubepods.slice
	fi
}

# container_start POD_SLICE NAME FILE: a container as runc makes one for
# containerd (SystemdCgroup = true): a transient scope
# cri-containerd-ID.scope in the pod's slice, made with its process,
# delegated, accounting on, no default dependencies. The process is a
# probe writing FILE (systemd-run --scope execs it once the scope holds it).
container_start() {
	_id=$(ctr_id "$2")
	systemd-run --quiet --collect --scope --unit="cri-containerd-$_id.scope" \
		--description="libcontainer container $_id" --slice="$1" \
		-p Delegate=yes -p DefaultDependencies=no -p MemoryAccounting=yes \
		-p CPUAccounting=yes -p IOAccounting=yes -p TasksAccounting=yes \
		-- sh -c "$(probe_cmd "$3")" </dev/null >/dev/null 2>&1 &
	poll 10 has_lines "$3" 1
}

# min_effective CGROUP: its min_slack_ns and effective_slack_ns.
min_effective() {
	tslackctl get "$1" | awk '$1 == "min_slack_ns" { m = $2 }
		$1 == "effective_slack_ns" { e = $2 } END { print m, e }'
}

# own_slack NAME FILE: the probe writing FILE slept with its own slack,
# every time, through all of the above.
own_slack() {
	_got=$(sort -u "$2" | tr '\n' ' ')
	if [ "$_got" = "$DEFAULT " ] && has_lines "$2" 20; then
		pass "$1"
	else
		fail "$1" "$(wc -l <"$2") sleeps, with: $_got"
	fi
}

if [ -f "$EXAMPLE" ]; then
	pass example/installed
else
	fail example/installed "no $EXAMPLE: $(dpkg-query -W -f='${Status}' tslack 2>&1)"
	exit 1
fi
tslackd_config </dev/null
mkdir -p $ETC
rm -f $ETC/*.conf
cp "$EXAMPLE" $ETC/50-kubelet.conf
line=$(grep -n -m 1 '^/kubepods' $ETC/50-kubelet.conf | cut -d: -f1)
out=$(tslackd --check-config)
if [ "$(printf '%s\n' "$out" | sed -n '/^# Rules:/,$p' | grep -v '^# Rules:')" = \
	"# rule:$ETC/50-kubelet.conf:$line
$BE 50ms" ]; then
	pass check/one_rule
else
	fail check/one_rule "$(printf '%s\n' "$out" | sed -n '/^# Rules:/,$p' | tr '\n' ' ')"
fi

# tslackd first, as at boot; kubelet makes its cgroups later.
if [ -d $CG/kubepods.slice ]; then
	fail start/before_kubelet "$CG/kubepods.slice is already there"
else
	pass start/before_kubelet
fi
systemctl start tslackd.service

# kubelet starts: the node's slice and the QoS slices, then a BestEffort
# pod with a container. Its first 100 ms sleeps count: the QoS slice is
# new, so the bound of a new cgroup applies (1 s; ten sleeps allowed).
slice_start kubepods.slice -.slice
slice_start kubepods-burstable.slice kubepods.slice
slice_start kubepods-besteffort.slice kubepods.slice
pod_start besteffort $POD_BE
pb=$(probe_file kubelet-besteffort root)
container_start kubepods-besteffort-pod$POD_BE.slice besteffort "$pb"
eq layout/besteffort_container \
	"$BE/kubepods-besteffort-pod$POD_BE.slice/cri-containerd-$(ctr_id besteffort).scope" \
	"$(unit_cg "cri-containerd-$(ctr_id besteffort).scope")"
n=$(sleeps_before "$pb" "$RULE")
echo "# the BestEffort slice made after tslackd started: $n sleeps of 100 ms before the rule held"
if [ "$n" != never ] && [ "$n" -le 10 ]; then
	pass late/slice_gets_rule
else
	fail late/slice_gets_rule "$n: $(tr '\n' ' ' <"$pb")"
fi

# A Guaranteed pod (directly in kubepods.slice) and a Burstable one.
pod_start "" $POD_G
pg=$(probe_file kubelet-guaranteed root)
container_start kubepods-pod$POD_G.slice guaranteed "$pg"
eq layout/guaranteed_container \
	"/kubepods.slice/kubepods-pod$POD_G.slice/cri-containerd-$(ctr_id guaranteed).scope" \
	"$(unit_cg "cri-containerd-$(ctr_id guaranteed).scope")"
pod_start burstable $POD_BU
pu=$(probe_file kubelet-burstable root)
container_start kubepods-burstable-pod$POD_BU.slice burstable "$pu"

# A BestEffort pod made now sleeps with the slice's minimum from its first
# sleep, through the policy's walk: no setting of its own, none to wait for.
pod_start besteffort $POD_BE2
pb2=$(probe_file kubelet-besteffort2 root)
container_start kubepods-besteffort-pod$POD_BE2.slice besteffort2 "$pb2"
eq new_pod/first_sleep "$RULE" "$(head -n 1 "$pb2")"
eq new_pod/no_setting_of_its_own "0 $RULE" \
	"$(min_effective "$BE/kubepods-besteffort-pod$POD_BE2.slice")"
eq map/one_setting "$BE" "$(tslackctl list | awk '$1 ~ /^\/kubepods/ { print $1 }' | tr '\n' ' ' |
	sed 's/ $//')"
eq status/source "rule:$ETC/50-kubelet.conf:$line" "$(status_source $BE)"

# Stop undoes it; a start finds the slice there and sets it again.
systemctl stop tslackd.service
expect_slack stop/undone "$DEFAULT" "$pb"
systemctl start tslackd.service
expect_slack start/existing_slice "$RULE" "$pb"
eq start/qos_slice "$RULE $RULE" "$(min_effective $BE)"

# Through all of it, the Guaranteed and Burstable containers slept with
# their own slack.
poll 10 has_lines "$pg" 20
poll 10 has_lines "$pu" 20
own_slack guaranteed/own_slack "$pg"
own_slack burstable/own_slack "$pu"

systemctl stop tslackd.service
eq stop/no_setting_left "" "$(tslackctl list | awk '$1 ~ /^\/kubepods/ { print $1 }')"
