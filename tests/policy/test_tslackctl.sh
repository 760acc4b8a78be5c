#!/bin/sh
# tslackctl and the cgroup policy, inside the VM: the 2011 series'
# documentation example, live updates, migration, cleanup, updates by id,
# bad input, and oversleep under the policy on every sleep path.
CG=/sys/fs/cgroup
MAP=/sys/fs/bpf/tslack/cgroups
MS=1000000

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
# eq NAME WANT GOT
eq() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got '$3', want '$2'"; fi
}
# Effective slack that the kernel reports to a task in cgroup $1.
slack_in() {
	sh -c 'echo $$ > "$1/cgroup.procs" && exec tslack-probe effective' sh "$CG/$1"
}
get() { tslackctl get "$@" | tr '\n' ' '; }
# Everything in the map, for checking that a command changed nothing.
map_state() { bpftool map dump pinned "$MAP" 2>&1 | sort; }

# expect_error NAME EXIT MESSAGE COMMAND...: fails with EXIT, says
# MESSAGE on stderr, and leaves the map as it was.
expect_error() {
	name=$1 want_rc=$2 want_msg=$3
	shift 3
	before=$(map_state)
	msg=$("$@" 2>&1 >/dev/null)
	rc=$?
	after=$(map_state)
	if [ "$rc" != "$want_rc" ]; then
		fail "$name" "exit $rc, want $want_rc ($msg)"
	elif ! echo "$msg" | grep -qF -- "$want_msg"; then
		fail "$name" "message '$msg' does not say '$want_msg'"
	elif [ "$before" != "$after" ]; then
		fail "$name" "the map changed"
	else
		pass "$name"
	fi
}

expect_error "bad/set_before_attach" 1 "not attached" tslackctl set . 1ms
eq "cli/help" 0 "$(tslackctl --help >/dev/null; echo $?)"
eq "cli/unknown_command" 2 "$(tslackctl frobnicate 2>/dev/null; echo $?)"
eq "cli/status_detached" "attached: no" "$(tslackctl status)"

tslackctl attach || { fail attach "tslackctl attach failed"; exit 1; }
eq "cli/status_attached" "cgroups with a setting: 0 of 16384" "$(tslackctl status | tail -n 1)"
expect_error "bad/attach_twice" 1 "already attached" tslackctl attach

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

# A task that is asleep sees a change at its next sleep, and a move.
mkdir "$CG/t1" "$CG/t2"
tslackctl set t1 5ms
tslackctl set t2 7ms
sh -c 'echo $$ > "$1/cgroup.procs" && exec tslack-probe watch 30 50' sh "$CG/t1" >/tmp/watch &
watcher=$!
sleep 0.4
tslackctl set t1 6ms
sleep 0.4
echo "$watcher" > "$CG/t2/cgroup.procs"
eq "live/get_pid" "cgroup /t2 timerslack_ns 50000 effective_slack_ns 7000000 " \
	"$(tslackctl get --pid "$watcher" | tail -n 3 | tr '\n' ' ')"
wait "$watcher"
eq "live/sequence" "5000000 6000000 7000000" "$(uniq /tmp/watch | tr '\n' ' ' | sed 's/ $//')"

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
eq "list/rows" "/s /s/d1 /t1 /t2" "$(tslackctl list | awk 'NR > 1 { print $1 }' | sort | tr '\n' ' ' | sed 's/ $//')"
eq "dump/named_fields" 1 "$(bpftool map dump pinned "$MAP" | grep -c '"min_slack_ns": 30000000')"

# Every sleep path oversleeps by the cgroup's slack.
sh -c 'echo $$ > "$1/cgroup.procs" && exec tslack-probe sleeps cgroup 30000000' sh "$CG/s"

# Bad input: a clear message, the right exit status, nothing changed.
touch /tmp/file
expect_error "bad/no_such_path" 1 "no such cgroup" tslackctl set nope 1ms
expect_error "bad/outside_cgroup2" 1 "not in the cgroup2 hierarchy" tslackctl set /tmp 1ms
expect_error "bad/regular_file" 1 "not a cgroup" tslackctl set s/cgroup.procs 1ms
expect_error "bad/negative" 2 "not a duration" tslackctl set s -5
expect_error "bad/garbage" 2 "not a duration" tslackctl set s abc
expect_error "bad/unit_only" 2 "not a duration" tslackctl set s ms
expect_error "bad/unknown_unit" 2 "unknown unit 'xs'" tslackctl set s 10xs
expect_error "bad/fraction" 2 "unknown unit '.5ms'" tslackctl set s 1.5ms
expect_error "bad/overflow_u64" 2 "too large" tslackctl set s 18446744073709551616
expect_error "bad/overflow_unit" 2 "too large" tslackctl set s 18446744074s
expect_error "bad/no_such_id" 1 "no cgroup has id 999999" tslackctl set --id 999999 1ms
expect_error "bad/id_not_number" 2 "not a cgroup id" tslackctl set --id x1 1ms
expect_error "bad/missing_slack" 2 "missing SLACK" tslackctl set s
expect_error "bad/extra_arg" 2 "too many arguments" tslackctl set s 1ms 2ms
expect_error "bad/unprivileged_set" 1 "permission denied" tslack-probe as-user 65534 tslackctl set s 1ms
expect_error "bad/unprivileged_detach" 1 "permission denied" tslack-probe as-user 65534 tslackctl detach

# A full map is a clear error that changes nothing.
tslackctl detach
tslackctl attach --max-cgroups 4
mkdir -p "$CG/f/1" "$CG/f/2" "$CG/f/3" "$CG/f/4"
expect_error "bad/map_full" 1 "the map is full" tslackctl set f 1ms
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
