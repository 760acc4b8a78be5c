#!/bin/sh
# Bad input to tslackctl, table-driven: each gets its exact message (the
# first line on stderr) and exit status, and leaves the map as it was.
# Then the callers without privilege.
. /usr/local/lib/tslack/harness.sh
plan 82

expect_error "bad/set_before_attach" 1 "tslackctl: tslack is not attached: run 'tslackctl attach' first" \
	tslackctl set . 1ms
tslackctl detach
tslackctl attach || { fail bad/attach "tslackctl attach failed"; exit 1; }
mkdir -p "$CG/s/c"
tslackctl set s 30ms
touch /tmp/file

dur="want nanoseconds, or numbers with units (1.5ms, 1s 500ms)"
units="(use ns, us, ms, s or min)"
# NAME|EXIT|MESSAGE|ARGUMENTS (split on spaces)
while IFS='|' read -r name rc msg args; do
	[ -n "$name" ] || continue
	# shellcheck disable=SC2086 # the arguments are meant to split
	expect_error "bad/$name" "$rc" "$msg" tslackctl $args
done <<TABLE
no_command|2|tslackctl: missing COMMAND|
unknown_command|2|tslackctl: unknown command 'frobnicate'|frobnicate
unknown_global_option|2|tslackctl: unknown option '-x'|-x status
unknown_global_long|2|tslackctl: unknown option '--frob'|--frob status
no_such_path|1|tslackctl: nope: no such cgroup|set nope 1ms
no_such_abs_path|1|tslackctl: /sys/fs/cgroup/nope: no such cgroup|set /sys/fs/cgroup/nope 1ms
outside_cgroup2|1|tslackctl: /tmp: no such cgroup|set /tmp 1ms
dotdot_outside|1|tslackctl: ../../../tmp: not in the cgroup2 hierarchy (/sys/fs/cgroup)|set ../../../tmp 1ms
bpffs|1|tslackctl: /sys/fs/bpf: no such cgroup|set /sys/fs/bpf 1ms
regular_file|1|tslackctl: s/cgroup.procs: not a cgroup (a cgroup is a directory)|set s/cgroup.procs 1ms
file_outside|1|tslackctl: /tmp/file: no such cgroup|set /tmp/file 1ms
missing_cgroup|2|tslackctl: missing CGROUP|set
unknown_option|2|tslackctl: unknown option '--bogus'|set --bogus 1ms
option_of_another_command|2|tslackctl: unknown option '--json'|set --json s 1ms
missing_slack|2|tslackctl: missing SLACK|set s
extra_argument|2|tslackctl: too many arguments|set s 1ms 2ms
negative|2|tslackctl: '-5' is not a duration: $dur|set s -5
plus_sign|2|tslackctl: '+5' is not a duration: $dur|set s +5
garbage|2|tslackctl: 'abc' is not a duration: $dur|set s abc
unit_only|2|tslackctl: 'ms' is not a duration: $dur|set s ms
fraction_without_unit|2|tslackctl: '1.5' is not a duration: $dur|set s 1.5
unknown_unit|2|tslackctl: '10xs': unknown unit 'xs' $units|set s 10xs
upper_case_unit|2|tslackctl: '5MS': unknown unit 'MS' $units|set s 5MS
hex|2|tslackctl: '0x10': unknown unit 'x' $units|set s 0x10
above_kernel_cap|2|tslackctl: '600ms' is more than the 500ms a policy may impose|set s 600ms
minutes|2|tslackctl: '1min' is more than the 500ms a policy may impose|set s 1min
max_above_kernel_cap|2|tslackctl: '1s' is more than the 500ms a policy may impose|set --max s 1s
overflow_u64|2|tslackctl: '18446744073709551616' is too large: the maximum is 18446744073709551615 ns|set s 18446744073709551616
overflow_unit|2|tslackctl: '18446744074s' is too large: the maximum is 18446744073709551615 ns|set s 18446744074s
no_such_id|1|tslackctl: no cgroup has id 999999|set --id 999999 1ms
id_not_number|2|tslackctl: 'x1' is not a cgroup id: want a positive decimal number|set --id x1 1ms
id_zero|2|tslackctl: '0' is not a cgroup id: want a positive decimal number|set --id 0 1ms
id_negative|2|tslackctl: '-3' is not a cgroup id: want a positive decimal number|set --id -3 1ms
id_missing|2|tslackctl: --id needs a cgroup id|set --id
id_missing_slack|2|tslackctl: missing SLACK|set --id 999999
usage_before_path|2|tslackctl: 'abc' is not a duration: $dur|set nope abc
usage_before_id|2|tslackctl: 'abc' is not a duration: $dur|set --id 999999 abc
exempt_missing|2|tslackctl: missing CGROUP|exempt
exempt_extra|2|tslackctl: too many arguments|exempt s 1ms
exempt_no_such_path|1|tslackctl: nope: no such cgroup|exempt nope
get_no_such_path|1|tslackctl: nope: no such cgroup|get nope
get_no_such_id|1|tslackctl: no cgroup has id 999999|get --id 999999
get_extra|2|tslackctl: too many arguments|get s s
get_no_such_pid|1|tslackctl: process 999999: no such process|get --pid 999999
get_bad_pid|2|tslackctl: 'abc' is not a process id|get --pid abc
get_pid_extra|2|tslackctl: usage: tslackctl get [--json] --pid PID|get --pid 1 s
attach_twice|1|tslackctl: already attached (/sys/fs/bpf/tslack/policy exists); 'tslackctl detach' first|attach
attach_max_zero|2|tslackctl: --max-cgroups: '0' is not a number from 1 to 16777216|attach --max-cgroups 0
attach_max_garbage|2|tslackctl: --max-cgroups: 'abc' is not a number from 1 to 16777216|attach --max-cgroups=abc
attach_max_plus|2|tslackctl: --max-cgroups: '+5' is not a number from 1 to 16777216|attach --max-cgroups +5
attach_max_above|2|tslackctl: --max-cgroups: '16777217' is not a number from 1 to 16777216|attach --max-cgroups 16777217
attach_max_missing|2|tslackctl: --max-cgroups needs a value|attach --max-cgroups
attach_extra|2|tslackctl: usage: tslackctl attach [--max-cgroups=N] [--no-align]|attach now
detach_extra|2|tslackctl: usage: tslackctl detach|detach now
status_extra|2|tslackctl: usage: tslackctl status [--json]|status now
supported_extra|2|tslackctl: usage: tslackctl supported|supported now
list_extra|2|tslackctl: usage: tslackctl list [--json]|list now
check_extra|2|tslackctl: usage: tslackctl check [--json] [--fix]|check now
top_delay_short|2|tslackctl: --delay: '0.01' is not from 100ms to 1h|top -d 0.01
top_delay_garbage|2|tslackctl: --delay: 'x' is not a duration: $dur|top --delay=x
top_sort|2|tslackctl: --sort: 'cpu' is not wakeups, path or slack|top --sort=cpu
top_depth|2|tslackctl: --depth: '65' is not a number from 0 to 64|top --depth 65
top_iterations|2|tslackctl: --iterations: '0' is not a number from 1 to 1000000|top -n 0
top_extra|2|tslackctl: usage: tslackctl top [-b] [-n N] [-d DELAY] [--depth=N] [--sort=KEY] [--json]|top now
stats_missing|2|tslackctl: missing CGROUP|stats
stats_slack_above_cap|2|tslackctl: '1s' is more than the 500ms a policy may impose|stats --slack=1s s
stats_no_such_path|1|tslackctl: nope: no such cgroup|stats nope
TABLE

# check reports on one stream, stdout: each difference, then their count.
# A stale entry for id 999999 (0xf423f), written behind tslackctl's back.
stale="key 63 66 15 0 0 0 0 0"
# shellcheck disable=SC2086
bpftool map update pinned "$MAP" $stale value 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
out=$(tslackctl check 2>/dev/null)
rc=$?
eq "check/one_stream" "id 999999: stale entry, no such cgroup|1 entries differ from the cgroup tree|exit 1" \
	"$(printf '%s\n' "$out" | tr '\n' '|')exit $rc"
# --fix removes it, and only it.
out=$(tslackctl check --fix)
rc=$?
eq "check/fix" "id 999999: stale entry, no such cgroup: removed|exit 0|exit 0|1" \
	"$out|exit $rc|exit $(tslackctl check >/dev/null; echo $?)|$(tslackctl status | tail -n 1 | cut -d' ' -f5)"

# Without privilege: nobody, and root without CAP_BPF and CAP_SYS_ADMIN.
denied="tslackctl: permission denied (needs root: CAP_BPF and CAP_SYS_ADMIN)"
for who in "as-user 65534" "without-caps"; do
	tag=${who%% *}
	# shellcheck disable=SC2086
	expect_error "priv/$tag/set" 1 "$denied" tslack-probe $who tslackctl set s 1ms
	# shellcheck disable=SC2086
	expect_error "priv/$tag/detach" 1 "$denied" tslack-probe $who tslackctl detach
	# shellcheck disable=SC2086
	expect_error "priv/$tag/attach" 1 "$denied" tslack-probe $who tslackctl attach
done
# bpffs is mounted 0700, as systemd does: a user cannot even tell whether
# tslack is attached, and says so instead of "attached: no" and zeros.
pin_denied="tslackctl: /sys/fs/bpf/tslack: permission denied (needs root: CAP_BPF and CAP_SYS_ADMIN)"
expect_error "priv/nobody_get" 1 "$pin_denied" tslack-probe as-user 65534 tslackctl get s
expect_error "priv/nobody_status" 4 "$pin_denied" tslack-probe as-user 65534 tslackctl status
expect_error "priv/nobody_map_update" 255 \
	"Error: bpf obj get (/sys/fs/bpf/tslack): directory not in bpf file system (bpffs)" \
	tslack-probe as-user 65534 bpftool map update pinned "$MAP" key 1 0 0 0 0 0 0 0 value 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
[ "$(tslackctl status | head -n 1)" = "attached: yes (/sys/fs/bpf/tslack)" ] &&
	pass priv/still_attached || fail priv/still_attached "$(tslackctl status)"

# A hierarchy as deep as PATH_MAX allows (a user can make one in a
# delegated subtree, and tslackd walks those): every walk copes.
deep=deep
while [ ${#deep} -lt 4000 ]; do deep=$deep/a; done
mkdir -p "$CG/$deep"
tslackctl list >/dev/null 2>&1
eq deep/list 0 $?
tslackctl check >/dev/null 2>&1
eq deep/check 0 $?
while [ "$deep" != deep ]; do rmdir "$CG/$deep"; deep=${deep%/a}; done
rmdir "$CG/deep"

tslackctl detach
rmdir "$CG/s/c" "$CG/s"
exit 0
