#!/usr/bin/env bash
# tslackctl's usage errors, on the host without a VM: each gets its exact
# message as the first line on stderr, "Try 'tslackctl --help'." as the
# second, exit status 2, and nothing on stdout, but for the error object
# of a command given --json. tslackctl runs without capabilities (an
# empty bounding set): a usage error is found before anything is loaded,
# and a case that was not one could reach nothing of this machine's
# kernel. Prints PASS/FAIL lines for the summary.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
ctl=$top/build/tslackctl
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

# run ARG...: tslackctl without capabilities; stdout in $out, stderr in
# $err, the exit status in $rc.
run() {
	setpriv --bounding-set=-all --inh-caps=-all -- "$ctl" "$@" >"$out" 2>"$err"
	rc=$?
}

# usage NAME MESSAGE STDOUT ARG...: a usage error saying MESSAGE, with
# STDOUT (empty, or the JSON error object) on stdout.
usage() {
	local name=$1 msg=$2 want_out=$3 got
	shift 3
	run "$@"
	got="exit $rc|$(head -n 1 "$err")|$(sed -n 2p "$err")|$(wc -l <"$err")|$(cat "$out")"
	if [ "$got" = "exit 2|tslackctl: $msg|Try 'tslackctl --help'.|2|$want_out" ]; then
		echo "PASS usage/$name"
	else
		echo "FAIL usage/$name: got '$got' for tslackctl $*"
	fi
}

dur="want nanoseconds, or numbers with units (1.5ms, 1s 500ms)"
units="(use ns, us, ms, s or min)"
# NAME|EXIT|MESSAGE|ARGUMENTS (split on spaces): no stdout.
while IFS='|' read -r name rc msg args; do
	[ -n "$name" ] || continue
	# shellcheck disable=SC2086 # the arguments are meant to split
	usage "$name" "${msg#tslackctl: }" "" $args
done <<TABLE
no_command|2|tslackctl: missing COMMAND|
unknown_command|2|tslackctl: unknown command 'frobnicate'|frobnicate
unknown_global_option|2|tslackctl: unknown option '-x'|-x status
unknown_global_long|2|tslackctl: unknown option '--frob'|--frob status
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
id_not_number|2|tslackctl: 'x1' is not a cgroup id: want a positive decimal number|set --id x1 1ms
id_zero|2|tslackctl: '0' is not a cgroup id: want a positive decimal number|set --id 0 1ms
id_negative|2|tslackctl: '-3' is not a cgroup id: want a positive decimal number|set --id -3 1ms
id_missing|2|tslackctl: --id needs a cgroup id|set --id
id_missing_slack|2|tslackctl: missing SLACK|set --id 999999
usage_before_path|2|tslackctl: 'abc' is not a duration: $dur|set nope abc
usage_before_id|2|tslackctl: 'abc' is not a duration: $dur|set --id 999999 abc
exempt_missing|2|tslackctl: missing CGROUP|exempt
exempt_extra|2|tslackctl: too many arguments|exempt s 1ms
get_extra|2|tslackctl: too many arguments|get s s
get_bad_pid|2|tslackctl: 'abc' is not a process id|get --pid abc
get_pid_extra|2|tslackctl: usage: tslackctl get [--json] --pid PID|get --pid 1 s
attach_max_zero|2|tslackctl: --max-cgroups: '0' is not a number from 1 to 16777216|attach --max-cgroups 0
attach_max_garbage|2|tslackctl: --max-cgroups: 'abc' is not a number from 1 to 16777216|attach --max-cgroups=abc
attach_max_plus|2|tslackctl: --max-cgroups: '+5' is not a number from 1 to 16777216|attach --max-cgroups +5
attach_max_above|2|tslackctl: --max-cgroups: '16777217' is not a number from 1 to 16777216|attach --max-cgroups 16777217
attach_max_missing|2|tslackctl: --max-cgroups needs a value|attach --max-cgroups
attach_extra|2|tslackctl: usage: tslackctl attach [--max-cgroups=N] [--no-futex2]|attach now
attach_no_futex2_value|2|tslackctl: option '--no-futex2' takes no value|attach --no-futex2=yes
no_futex2_of_set|2|tslackctl: unknown option '--no-futex2'|set --no-futex2 s 1ms
detach_extra|2|tslackctl: usage: tslackctl detach|detach now
status_extra|2|tslackctl: usage: tslackctl status [--json]|status now
supported_extra|2|tslackctl: usage: tslackctl supported [--per-task]|supported now
follow_extra|2|tslackctl: usage: tslackctl follow|follow now
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
option_takes_no_value|2|tslackctl: option '--json' takes no value|status --json=yes
unknown_short_option|2|tslackctl: unknown option '-q'|get -q s
max_of_exempt|2|tslackctl: unknown option '--max'|exempt --max s
pid_and_id|2|tslackctl: usage: tslackctl get [--json] --pid PID|get --pid 1 --id 5
stats_extra|2|tslackctl: too many arguments|stats s t
stats_for_short|2|tslackctl: --for: '10ms' is not from 100ms to 1h|stats --for=10ms s
stats_for_garbage|2|tslackctl: --for: 'x' is not a duration: $dur|stats --for=x s
top_depth_garbage|2|tslackctl: --depth: 'x' is not a number from 0 to 64|top --depth=x
TABLE

# With --json, the message is also the error object on stdout, once the
# command's options are read; a mistake in them is not (--json may not
# have been read).
usage json/missing_cgroup "missing CGROUP" '{ "error": "missing CGROUP" }' get --json
usage json/extra "usage: tslackctl list [--json]" \
	'{ "error": "usage: tslackctl list [--json]" }' list --json now
usage json/top_sort "--sort: 'cpu' is not wakeups, path or slack" \
	"{ \"error\": \"--sort: 'cpu' is not wakeups, path or slack\" }" top --json --sort=cpu
usage json/bad_option "unknown option '--frob'" "" get --json --frob s
usage json/not_this_command "unknown option '--json'" "" set --json s 1ms

# --help (also after a command), help and --version: stdout only, exit 0.
for args in --help "set --help" help --version "-v --help"; do
	# shellcheck disable=SC2086
	run $args
	if [ "$rc" = 0 ] && [ -s "$out" ] && [ ! -s "$err" ]; then
		echo "PASS usage/ok/${args// /_}"
	else
		echo "FAIL usage/ok/${args// /_}: exit $rc, $(wc -l <"$out") lines out, err '$(head -n 1 "$err")'"
	fi
done
exit 0
