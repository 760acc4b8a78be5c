#!/bin/sh
# What a user with a delegated subtree, or a container with its own cgroup
# namespace, can do to tslack: nothing that fills the settings map, makes
# root's writes fail, or hides the slack the kernel imposes on it. Also
# failures that must not hide: output errors, a value written during a
# stats trial.
. /usr/local/lib/tslack/harness.sh
plan 31
count() { tslackctl status | tail -n 1 | cut -d' ' -f5; }
# How many bytes of stdin are neither printable ASCII nor a newline.
raw_bytes() { tr -d '\n\040-\176' | wc -c; }
min() { tslackctl get "$@" | sed -n 's/^min_slack_ns //p'; }

# uid 1000 owns /deleg, as systemd delegates user@1000.service to its user.
delegate() {
	mkdir -p "$CG/deleg"
	chown 1000:1000 "$CG/deleg" "$CG/deleg/cgroup.procs" \
		"$CG/deleg/cgroup.subtree_control" "$CG/deleg/cgroup.threads"
}
# user_mkdirs N: uid 1000 makes N cgroups, some nested, in /deleg.
user_mkdirs() {
	tslack-probe as-user 1000 sh -c 'i=0; while [ $i -lt "$1" ]; do
		mkdir -p "$2/u$i/n" || exit 1; i=$((i + 1)); done' sh "$1" "$CG/deleg"
}
undelegate() {
	find "$CG/deleg" -depth -type d -exec rmdir {} \; 2>/dev/null
}

tslackctl detach
tslackctl attach || { fail unpriv/attach "tslackctl attach failed"; exit 1; }
delegate
tslackctl set deleg 20ms
user_mkdirs 50
eq "map/user_mkdirs_add_no_entry" 1 "$(count)"
eq "map/new_cgroup_sleeps_with_parent_min" 20000000 "$(slack_in deleg/u7/n)"
tslackctl set deleg 5ms
eq "map/new_cgroup_follows_parent_down" 5000000 "$(slack_in deleg/u7/n)"
# A user's cgroup name in list --json, once root gives it a setting:
# quote, backslash and tab escaped, so that a script reads one string.
name=$(printf 'q"u\\o\tte')
tslack-probe as-user 1000 sh -c 'mkdir "$1/$2"' sh "$CG/deleg" "$name"
tslackctl set "deleg/$name" 3ms
eq "json/user_name_escaped" 1 "$(tslackctl list --json | grep -c -F '"/deleg/q\"u\\o\tte"')"

# Names that would act on root's terminal or are not UTF-8 (ESC [2J
# clears the screen, CSI as a C1 control in UTF-8, CR and tab, bytes 0xff
# 0xfe; cgroupfs refuses LF) come out of every command escaped, and
# --json stays ASCII JSON.
esc=$(printf 'e\033[2Jx') crtab=$(printf 'c\r\tl') c1=$(printf 'k\302\233m')
bad=$(printf 'b\377\376')
for n in "$esc" "$crtab" "$c1" "$bad"; do
	tslack-probe as-user 1000 sh -c 'mkdir "$1/$2"' sh "$CG/deleg" "$n"
	tslackctl set "deleg/$n" 3ms
done
tslackctl list >/tmp/list.out
eq "names/list_no_raw_bytes" 0 "$(raw_bytes </tmp/list.out)"
eq "names/list_escaped" 5 "$(grep -c -F -e '/deleg/e\x1b[2Jx ' -e '/deleg/c\x0d\x09l ' \
	-e '/deleg/k\xc2\x9bm ' -e '/deleg/b\xff\xfe ' -e '/deleg/q"u\\o\x09te ' /tmp/list.out)"
tslackctl list --json >/tmp/list.json
eq "names/json_ascii" 0 "$(raw_bytes </tmp/list.json)"
# Not UTF-8: the bytes, as journalctl -o json writes them.
eq "names/json_bytes" 1 \
	"$(grep -c -F '"path": [ 47, 100, 101, 108, 101, 103, 47, 98, 255, 254 ], "id": ' /tmp/list.json)"
eq "names/json_escapes" "1 1 1" "$(for s in '"/deleg/e\u001b[2Jx"' '"/deleg/c\r\tl"' \
	'"/deleg/k\u009bm"'; do grep -c -F "$s" /tmp/list.json; done | xargs)"
in_cg_bg "deleg/$esc" sh -c 'while :; do usleep 20000; done'
loop=$!
poll 10 grep -q deleg "/proc/$loop/cgroup"
tslackctl get --pid $loop >/tmp/pid.out
eq "names/get_pid" "0 1" "$(raw_bytes </tmp/pid.out) $(grep -c -F ' /deleg/e\x1b[2Jx' /tmp/pid.out)"
tslackctl top -b -n 1 -d 1 --depth=2 >/tmp/top.out
tslackctl top -b -n 1 -d 1 --depth=2 --json >>/tmp/top.out
eq "names/top" "0 2" "$(raw_bytes </tmp/top.out) $(grep -c -F -e '/deleg/e\x1b[2Jx ' \
	-e '"/deleg/e\u001b[2Jx"' /tmp/top.out)"
kill $loop
eq "names/stats" '/deleg/b\xff\xfe (id' \
	"$(tslackctl stats --for 1s "deleg/$bad" | head -n 1 | cut -d' ' -f1,2)"
undelegate

# A small map: a user's cgroups under a minimum leave room for root's writes.
tslackctl detach
tslackctl attach --max-cgroups=4
delegate
mkdir -p "$CG/other"
tslackctl set deleg 20ms
user_mkdirs 10
tslackctl set other 1ms
eq "map/root_write_after_user_flood" "0 2" "$? $(count)"
undelegate
rmdir "$CG/other"
tslackctl detach
tslackctl attach

# A container: its cgroup namespace's root is /ns/c, and /ns above it has
# a minimum that the kernel applies all the same.
mkdir -p "$CG/ns/c"
tslackctl set ns 20ms
in_ns() { in_cg ns/c tslack-probe in-cgroupns "$@"; }
eq "ns/get_root" 20000000 "$(in_ns tslackctl get / | sed -n 's/^effective_slack_ns //p')"
eq "ns/kernel_agrees" 20000000 "$(slack_in ns/c)"
eq "ns/get_pid" "20ms" "$(in_ns sh -c 'tslackctl get --pid $$' | awk 'NR == 2 { print $4 }')"
eq "ns/list_names_outside" 1 \
	"$(in_ns tslackctl list | grep -c '^(outside this cgroup namespace) .* 20ms *- *20ms$')"
in_ns tslackctl check --fix >/dev/null
eq "ns/check_fix_keeps_outside" "0 1" "$? $(count)"
# Only the kernel's ESTALE or ENOENT means gone: out of descriptors
# (EMFILE, at each point of the opens), check says so and --fix deletes
# nothing. (EPERM, without CAP_DAC_READ_SEARCH, takes the same path; not
# tried here.)
rm -f /tmp/emfile.err
for n in 4 5 6 7 8 9 10 11 12; do
	in_ns sh -c 'ulimit -n $1; exec tslackctl check --fix' sh $n >/dev/null 2>>/tmp/emfile.err
done
eq "ns/check_fix_emfile_keeps" "1 yes" \
	"$(count) $(grep -q 'cannot tell whether its cgroup exists: Too many open files' \
		/tmp/emfile.err && echo yes)"

# get --pid takes a pid of the caller's namespace: with /proc of another
# (unshare --pid without --mount-proc) it refuses rather than show
# another process; with its own it finds the process.
eq "pidns/get_pid_foreign_proc" \
	"1 tslackctl: /proc is not this pid namespace's (mount one, as unshare --mount-proc does): cannot find process 1" \
	"$(out=$(unshare -p -f sh -c 'exec tslackctl get --pid 1' 2>&1 >/dev/null); echo "$? $out")"
eq "pidns/get_pid_own_proc" "1 /ns/c" "$(in_cg ns/c unshare -p -f --mount-proc \
	sh -c 'exec tslackctl get --pid 1' | awk 'NR == 2 { print $1, $5 }')"
tslackctl set ns 0
rmdir "$CG/ns/c" "$CG/ns"

# Output that cannot be written is an error, not exit 0.
mkdir -p "$CG/o"
eq "out/full_disk" "1 tslackctl: write error: No space left on device" \
	"$(tslackctl get o 2>/dev/null >/dev/full; echo $?) $(tslackctl get o 2>&1 >/dev/full)"
eq "cli/option_takes_no_value" "tslackctl: option '--json' takes no value" \
	"$(tslackctl list --json=yes 2>&1 | head -n 1)"

# stats --slack puts back what it found, but not over what someone else
# wrote during the trial.
tslackctl set o 2ms
tslackctl stats --for 3s --slack 30ms o >/dev/null 2>/tmp/stats.err &
stats=$!
poll 10 sh -c '[ "$(tslackctl get o | head -n 1)" = "min_slack_ns 30000000" ]'
# Recorded as a trial, so that no other writer takes it for a setting.
trial_rec=/run/tslack/trial/$(stat -c %i "$CG/o")
eq "stats/trial_recorded" "30000000 2000000" "$(cat "$trial_rec" 2>&1)"
tslackctl set o 7ms
[ -e "$trial_rec" ] && fail stats/set_ends_trial "$(cat "$trial_rec")" || pass stats/set_ends_trial
wait $stats
eq "stats/keeps_value_written_meanwhile" "0 7000000" "$? $(min o)"
eq "stats/says_it_left_it" "tslackctl: /o: min_slack_ns was changed during the trial: left as it is" \
	"$(head -n 1 /tmp/stats.err)"
tslackctl stats --for 1s --slack 30ms o >/dev/null
eq "stats/restores_its_own" "0 7000000" "$? $(min o)"
[ -e "$trial_rec" ] && fail stats/trial_forgotten "$(cat "$trial_rec")" || pass stats/trial_forgotten
rmdir "$CG/o"

# A user asks status: bpffs here is root's alone, so it cannot tell (exit
# 4); nothing more is read on its behalf. Its own sleeps in its delegated
# subtree take the slack like everyone's.
eq "unpriv/status_as_user" \
	"4 tslackctl: /sys/fs/bpf/tslack: permission denied (needs root: CAP_BPF and CAP_SYS_ADMIN)" \
	"$(out=$(tslack-probe as-user 1000 tslackctl status 2>&1); echo "$? $out")"
delegate
tslackctl set deleg 30ms
eq "unpriv/own_sleep_slack" 0 "$(cd /tmp &&
	in_cg deleg tslack-probe as-user 1000 tslack-probe sleeps user 30000000 |
	grep -c '^FAIL')"
undelegate
tslackctl detach
exit 0
