#!/bin/sh
# tslackd against what a user chooses: cgroup names. alice owns her
# user@1000.service subtree (systemd delegates it) and names cgroups there
# as she likes: any byte but a slash, a NUL and a newline (the kernel
# refuses a newline). Hers hold terminal escapes, a carriage return and
# what looks like a record, a backslash and "\x2f", a tab, spaces, UTF-8
# and a byte that is no UTF-8. While her session is idle tslackd exempts
# them (their names match the exemption glob) and records them: the state
# file, tslackd --status and the journal show them escaped, never raw.
# Then tslackd is killed and restarted: it must start, undo exactly what
# it set and nothing else. Then state files that tslackd did not write as
# they are (an older format whose record aims at a system service, damaged
# lines): logged at error priority, and not one write made from them.
. /usr/local/lib/tslack/systemd-lib.sh
plan 20

DEFAULT=50000
IDLE=30000000
STATE=/run/tslackd/state
U=$CG/user.slice/user-1000.slice/user@1000.service

tslackd_config <<CONF
[Slack]
Idle=30ms

[Exempt]
Units=exempt-*.service
CONF

# Her cgroups, deepest first (as root: she may be logged out by then).
remove_crafted() {
	find "$U" -depth -mindepth 1 -type d \( -path "$U/exempt-*" -o -path "$U/a b" -o \
		-path "$U/a b/*" \) -exec rmdir {} \; 2>/dev/null
}

cleanup() {
	remove_crafted
	systemctl stop sys-victim.service 2>/dev/null
	session_close_all
	systemctl stop tslackd.service
}
trap cleanup EXIT

map_empty() { [ -z "$(tslackctl list --json | tr -d '[] \n')" ]; }

# map_has ID: the map holds an entry for cgroup ID.
map_has() {
	# shellcheck disable=SC2046 # the bytes are meant to split
	bpftool map lookup pinned "$MAP" key $(le64 "$1") >/dev/null 2>&1
}

# journal_err MARK PATTERN: tslackd logged a line matching PATTERN at
# error priority after MARK (journal_mark); waits for journald.
journal_err() {
	_js=$1 _jp=$2
	poll 10 eval 'journal_since "$_js" err | grep -q -e "$_jp"'
}

# all_held: the map holds an entry for each of her cgroups.
all_held() {
	for _l in $leaves; do
		map_has "$_l" || return 1
	done
}

# restart_killed: SIGKILL tslackd and wait for systemd's restart to be
# ready (Type=notify: after its first refresh).
restart_killed() {
	_pid=$(systemctl show -P MainPID tslackd.service)
	systemctl kill -s KILL tslackd.service
	poll 20 eval '[ "$(systemctl show -P MainPID tslackd.service)" != "$_pid" ] &&
		[ "$(systemctl is-active tslackd.service)" = active ]'
}

systemctl start tslackd.service
session_open alice
a=$(probe_file names-alice alice)
sys=$(probe_file names-victim root)
session_spawn alice "$(probe_cmd "$a")"
service_start sys-victim.service "$(probe_cmd "$sys")"
victim=$(stat -c %i "$CG/system.slice/sys-victim.service")

# alice, in her session, makes the cgroups; a name with a newline is
# refused by the kernel (cgroup_mkdir(): /proc/PID/cgroup must stay
# parsable).
session_run alice "U=$(q "$U")"'
set -e
n1=$(printf "exempt-\033[2J\033[H\rapplied min 1 0 500000000 \\\\x2f.service")
n2=$(printf "exempt-tab\there \303\251\377.service")
mkdir "$U/$n1" "$U/$n2"
mkdir -p "$U/a b/exempt-c.service"
stat -c %i "$U/$n1" "$U/$n2" "$U/a b/exempt-c.service"
' >"$PROBES/names-leaves" && pass names/made_by_alice ||
	fail names/made_by_alice "$(cat "$PROBES/names-leaves")"
leaves=$(cat "$PROBES/names-leaves")
eq names/three_cgroups 3 "$(echo "$leaves" | grep -c -E '^[0-9]+$')"
nl=$(session_run alice "mkdir $(q "$U")/\"\$(printf 'exempt-\\nx.service')\" 2>&1")
case $nl in
*"Invalid argument"*) pass names/newline_refused ;;
*) fail names/newline_refused "$nl" ;;
esac

t0=$(journal_mark)
session_run alice "/usr/sbin/tslackd --set-idle yes" | sed 's/^/# /'
expect_slack idle/session "$IDLE" "$a"
if poll 10 all_held; then
	pass idle/crafted_exempted
else
	fail idle/crafted_exempted "$(tslackctl list)"
fi
# One line per record, whatever the names: nothing but printable ASCII.
bad=$(LC_ALL=C grep -n -v -E '^(tslackd-state|session|applied) [!-~ ]*$' "$STATE")
eq state/printable_records "" "$bad"
status=$(tslackd --status)
if printf '%s\n' "$status" | grep -q -F 'exempt-\x1b[2J\x1b[H\x0dapplied\x20min\x201\x200\x20500000000\x20\\x2f.service' &&
	printf '%s\n' "$status" | grep -q -F 'exempt-tab\x09here\x20\xc3\xa9\xff.service' &&
	printf '%s\n' "$status" | grep -q -F '/a\x20b/exempt-c.service' &&
	! printf '%s\n' "$status" | LC_ALL=C grep -q '[^ -~]'; then
	pass status/escaped
else
	fail status/escaped "$status"
fi
# The journal too: a name makes no terminal escape or line of its own there.
log=$(journal_since "$t0" | grep 'max_slack_ns 1ns')
if printf '%s\n' "$log" | grep -q -F 'exempt-\x1b[2J' &&
	! printf '%s\n' "$log" | LC_ALL=C grep -q '[^ -~]'; then
	pass journal/escaped
else
	fail journal/escaped "$(printf '%s\n' "$log" | od -c | head -n 20)"
fi

# Killed and restarted while she is idle: the same entries, no other.
before=$(map_state)
restart_killed && pass sigkill/restarted || fail sigkill/restarted "$(systemctl status tslackd.service)"
eq sigkill/map_unchanged "$before" "$(map_state)"
map_has "$victim" && fail sigkill/victim_untouched "$(tslackctl list)" ||
	pass sigkill/victim_untouched
expect_slack sigkill/victim_slack "$DEFAULT" "$sys"

# Active again: everything it set is undone, her cgroups' too.
session_run alice "/usr/sbin/tslackd --set-idle no" | sed 's/^/# /'
expect_slack active/session "$DEFAULT" "$a"
if poll 10 map_empty; then pass active/all_undone; else fail active/all_undone "$(tslackctl list)"; fi

# A state file an older tslackd left (raw paths: her line is a record
# there) is not read: logged, and nothing is written.
systemctl stop tslackd.service
printf 'tslackd 1\napplied max 7 0 1 0 /user.slice/x\napplied min %s 500000000 0 0 /system.slice/sys-victim.service\n' \
	"$victim" >"$STATE"
t0=$(journal_mark)
systemctl start tslackd.service
eq oldfile/started active "$(systemctl is-active tslackd.service)"
journal_err "$t0" "not written by this version" && pass oldfile/logged_as_error ||
	fail oldfile/logged_as_error "$(journal_since "$t0")"
if map_empty; then pass oldfile/nothing_written; else fail oldfile/nothing_written "$(tslackctl list)"; fi

# Damaged lines: a bad escape, a path with "..", an extra token, a
# truncated last line; and a well-formed one whose path is not its id's
# cgroup. Each is logged, none is acted on.
systemctl stop tslackd.service
v="applied min $victim 500000000 0 0"
printf '%s\n' "tslackd-state 4 1" "$v /system.slice/sys-victim.servic\\e rule:x" \
	"$v /system.slice/../system.slice/sys-victim.service rule:x" \
	"$v /system.slice/sys-victim.service rule:x x" "$v /user.slice rule:x" >"$STATE"
printf '%s' "$v /system.slice/sys-victim.service rule:x" >>"$STATE"
t0=$(journal_mark)
systemctl start tslackd.service
eq damaged/started active "$(systemctl is-active tslackd.service)"
bad_lines() { journal_since "$t0" err | grep -c 'not a record'; }
if poll 10 eval '[ "$(bad_lines)" = 4 ]'; then
	pass damaged/logged_as_errors
else
	fail damaged/logged_as_errors "$(bad_lines) at error priority: $(journal_since "$t0")"
fi
if map_empty; then pass damaged/nothing_written; else fail damaged/nothing_written "$(tslackctl list)"; fi
