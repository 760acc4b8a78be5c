#!/bin/sh
# tslackctl and the cgroup policy, inside the VM: the 2011 series'
# documentation example, live updates, migration, cleanup, updates by id,
# bad input, and oversleep under the policy on every sleep path.
. /usr/local/lib/tslack/harness.sh
plan 60
get() { tslackctl get "$@" | tr '\n' ' '; }

expect_error "bad/set_before_attach" 1 "tslackctl: tslack is not attached: run 'tslackctl attach' first" \
	tslackctl set . 1ms
eq "cli/help" 0 "$(tslackctl --help >/dev/null; echo $?)"
eq "cli/status_detached" "attached: no" "$(tslackctl status)"
eq "cli/status_exit_detached" 3 "$(tslackctl status >/dev/null; echo $?)"

tslackctl attach || { fail attach "tslackctl attach failed"; exit 1; }
eq "cli/status_exit_attached" 0 "$(tslackctl status >/dev/null; echo $?)"
eq "cli/status_attached" "cgroups with a setting: 0 of 16384" "$(tslackctl status | tail -n 1)"

# The example of Documentation/cgroups/timer_slack.txt (2011), on the root.
eq "seed/root_default" "min_slack_ns 0 effective_slack_ns 0 " "$(get /sys/fs/cgroup)"
tslackctl set /sys/fs/cgroup 50000
eq "seed/root_50000" "min_slack_ns 50000 effective_slack_ns 50000 " "$(get .)"
mkdir "$CG/a"
eq "seed/new_child_inherits" "min_slack_ns 50000 effective_slack_ns 50000 " "$(get a)"
tslackctl set a 70000
eq "seed/child_70000" "min_slack_ns 70000 effective_slack_ns 70000 " "$(get a)"
tslackctl set /sys/fs/cgroup 100000
eq "seed/root_100000_child" "min_slack_ns 70000 effective_slack_ns 100000 " "$(get a)"
eq "seed/root_100000_root" "min_slack_ns 100000 effective_slack_ns 100000 " "$(get .)"
eq "seed/kernel_sees_it" 100000 "$(slack_in a)"
tslackctl set . 0
eq "seed/root_cleared_child" "min_slack_ns 70000 effective_slack_ns 70000 " "$(get a)"
tslackctl set a 0
eq "seed/all_cleared" "cgroups with a setting: 0 of 16384" "$(tslackctl status | tail -n 1)"
rmdir "$CG/a"

# A subtree that existed before the setting gets it at once, at any depth.
mkdir -p "$CG/s/d1/d2/d3"
tslackctl set s 20ms
eq "subtree/deep_existing" "min_slack_ns 0 effective_slack_ns 20000000 " "$(get s/d1/d2/d3)"
eq "subtree/kernel_deep" 20000000 "$(slack_in s/d1/d2/d3)"
eq "subtree/outside_untouched" 50000 "$(slack_in .)"
eq "get/json" '{"path": "/s/d1", "id": '"$(stat -c %i $CG/s/d1)"', "min_slack_ns": 0, "effective_slack_ns": 20000000}' \
	"$(tslackctl get --json s/d1)"
# Every path form tslackctl prints is accepted back; relative paths are
# relative to the current directory inside cgroup2.
eq "path/printed_form" "$(get s/d1)" "$(get /s/d1)"
eq "path/list_form" "$(get s/d1)" "$(get "$(tslackctl list | awk '$1 ~ /d1$/ { print $1 }')")"
eq "path/relative_to_cwd" "$(get s/d1)" "$(cd "$CG/s" && get d1)"
eq "path/dot_is_cwd" "$(get s)" "$(cd "$CG/s" && get .)"

# A task that is asleep sees a change at its next sleep, and a move.
mkdir "$CG/t1" "$CG/t2"
tslackctl set t1 5ms
tslackctl set t2 7ms
in_cg_bg t1 tslack-probe watch 400 25 >/tmp/watch
watcher=$!
# Wait (up to 4 s) until the watcher has reported slack $1.
seen() {
	for _ in $(seq 1 200); do
		grep -qx "$1" /tmp/watch && return 0
		usleep 20000
	done
	return 1
}
seen 5000000
tslackctl set t1 6ms
seen 6000000
echo "$watcher" > "$CG/t2/cgroup.procs"
eq "live/get_pid" "cgroup /t2 timerslack_ns 50000 effective_slack_ns 7000000 " \
	"$(tslackctl get --pid "$watcher" | tail -n 3 | tr '\n' ' ')"
seen 7000000
kill "$watcher" && wait "$watcher"
eq "live/sequence" "5000000 6000000 7000000" "$(uniq /tmp/watch | tr '\n' ' ' | sed 's/ $//')"
# A child that clone3() starts in another cgroup (as systemd starts a
# service) has that cgroup's slack from its first sleep.
eq "live/clone_into_cgroup" "7000000 6000000" "$(in_cg t2 tslack-probe clone-into "$CG/t1")"

# Scripts update a cgroup by id; the subtree follows at once.
cat >/tmp/by-id.sh <<'SCRIPT'
#!/bin/sh
id=$(stat -c %i /sys/fs/cgroup/s)
exec tslackctl set --id "$id" 30ms
SCRIPT
sh /tmp/by-id.sh
eq "by_id/script" "min_slack_ns 30000000 effective_slack_ns 30000000 " "$(get s)"
eq "by_id/subtree" 30000000 "$(slack_in s/d1/d2)"
eq "by_id/get" "min_slack_ns 30000000 effective_slack_ns 30000000 " \
	"$(get --id "$(stat -c %i $CG/s)")"

# Removing cgroups removes their entries.
n_before=$(bpftool map dump pinned "$MAP" | grep -c '"key"')
rmdir "$CG/s/d1/d2/d3" "$CG/s/d1/d2"
n_after=$(bpftool map dump pinned "$MAP" | grep -c '"key"')
eq "rmdir/entries_removed" $((n_before - 2)) "$n_after"
eq "list/rows" "/s /s/d1 /t1 /t2" "$(tslackctl list | awk 'NR > 1 { print $1 }' | tr '\n' ' ' | sed 's/ $//')"
eq "dump/named_fields" 1 "$(bpftool map dump pinned "$MAP" | grep -c '"min_slack_ns": 30000000')"

# Every sleep path oversleeps by the cgroup's slack.
in_cg s tslack-probe sleeps cgroup 30000000

# Edges: 0, 1 and U64_MAX (= ULONG_MAX here); maxima do not overflow;
# the effective-slack prctl clamps like PR_GET_TIMERSLACK.
tslackctl set s 1
eq "edge/one_below_own" 50000 "$(slack_in s)"
tslackctl set s 0
eq "edge/zero" "min_slack_ns 0 effective_slack_ns 0 " "$(get s)"
tslackctl set s 18446744073709551615
tslackctl set s/d1 5
eq "edge/u64_max_child" "min_slack_ns 5 effective_slack_ns 18446744073709551615 " "$(get s/d1)"
# The kernel lets a policy add at most 500 ms.
eq "edge/u64_max_capped_by_kernel" 500000000 "$(slack_in s/d1)"
tslackctl set s 0
tslackctl set s/d1 0
out=$(tslackctl check 2>&1)
eq "check/consistent" "0 " "$? $out"

# A full map is a clear error that changes nothing.
tslackctl detach
tslackctl attach --max-cgroups 4
mkdir -p "$CG/f/1" "$CG/f/2" "$CG/f/3" "$CG/f/4"
expect_error "bad/map_full" 1 "tslackctl: the map is full: /f needs 5 new entries, 4 of 4 are free; nothing changed" \
	tslackctl set f 1ms
eq "bad/map_full_nothing_set" "min_slack_ns 0 effective_slack_ns 0 " "$(get f/1)"

# Detach restores stock behaviour.
tslackctl set t1 9ms
tslackctl detach
eq "detach/stock_slack" 50000 "$(slack_in t1)"
eq "detach/status" "attached: no" "$(tslackctl status)"
ls /sys/fs/bpf | grep -q . && fail "detach/unpinned" "left in /sys/fs/bpf: $(ls /sys/fs/bpf)" ||
	pass "detach/unpinned"
rmdir "$CG/f/1" "$CG/f/2" "$CG/f/3" "$CG/f/4" "$CG/f" "$CG/s/d1" "$CG/s" \
	"$CG/t1" "$CG/t2"
exit 0
