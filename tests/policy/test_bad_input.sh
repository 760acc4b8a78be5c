#!/bin/sh
# Bad input to tslackctl that only a machine with tslack can tell, table-
# driven: each gets its exact message (the first line on stderr) and exit
# status, and leaves the map as it was. Then the callers without
# privilege. Usage errors (exit 2) are tests/host/test_usage.sh's.
. /usr/local/lib/tslack/harness.sh
plan 32

expect_error "bad/set_before_attach" 1 "tslackctl: tslack is not attached: run 'tslackctl attach' first" \
	tslackctl set . 1ms
tslackctl detach
tslackctl attach || { fail bad/attach "tslackctl attach failed"; exit 1; }
mkdir -p "$CG/s/c"
tslackctl set s 30ms
touch /tmp/file

# NAME|EXIT|MESSAGE|ARGUMENTS (split on spaces)
while IFS='|' read -r name rc msg args; do
	[ -n "$name" ] || continue
	# shellcheck disable=SC2086 # the arguments are meant to split
	expect_error "bad/$name" "$rc" "$msg" tslackctl $args
done <<TABLE
no_such_path|1|tslackctl: nope: no such cgroup|set nope 1ms
no_such_abs_path|1|tslackctl: /sys/fs/cgroup/nope: no such cgroup|set /sys/fs/cgroup/nope 1ms
outside_cgroup2|1|tslackctl: /tmp: no such cgroup|set /tmp 1ms
dotdot_outside|1|tslackctl: ../../../tmp: not in the cgroup2 hierarchy (/sys/fs/cgroup)|set ../../../tmp 1ms
bpffs|1|tslackctl: /sys/fs/bpf: no such cgroup|set /sys/fs/bpf 1ms
regular_file|1|tslackctl: s/cgroup.procs: not a cgroup (a cgroup is a directory)|set s/cgroup.procs 1ms
file_outside|1|tslackctl: /tmp/file: no such cgroup|set /tmp/file 1ms
no_such_id|1|tslackctl: no cgroup has id 999999|set --id 999999 1ms
exempt_no_such_path|1|tslackctl: nope: no such cgroup|exempt nope
get_no_such_path|1|tslackctl: nope: no such cgroup|get nope
get_no_such_id|1|tslackctl: no cgroup has id 999999|get --id 999999
get_no_such_pid|1|tslackctl: process 999999: no such process|get --pid 999999
attach_twice|1|tslackctl: already attached (/sys/fs/bpf/tslack/policy exists); 'tslackctl detach' first|attach
stats_no_such_path|1|tslackctl: nope: no such cgroup|stats nope
typed_escape_sequence|1|tslackctl: no\x1b[2Jpe: no such cgroup|get $(printf 'no\033[2Jpe')
typed_not_utf8|1|tslackctl: x\xff: no such cgroup|set $(printf 'x\377') 1ms
TABLE
# With --json, the error object of such a name is ASCII JSON too.
eq "bad/typed_not_utf8_json" '{ "error": "x\\xff: no such cgroup" }' \
	"$(tslackctl get --json "$(printf 'x\377')" 2>/dev/null)"

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
# (In per-task mode with no follower running, the line says so after it.)
case $(tslackctl status | head -n 1) in
"attached: yes (/sys/fs/bpf/tslack)"*) pass priv/still_attached ;;
*) fail priv/still_attached "$(tslackctl status)" ;;
esac

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
