#!/bin/sh
# tslackd against what a user chooses: cgroup names. alice owns her
# user@1000.service subtree (systemd delegates it) and names cgroups there
# as she likes: with a newline, with what looks like a record of tslackd's
# state file aimed at a system service's cgroup. While her session is idle
# tslackd exempts them (their names match the exemption glob) and records
# them; then it is killed and restarted. It must start, undo exactly what
# it set and nothing else. Then state files that tslackd did not write as
# they are (an older format, damaged lines): logged at error priority, and
# not one write made from them.
. /usr/local/lib/tslack/systemd-lib.sh
plan 18

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
	find "$U" -depth -mindepth 1 -type d \( -path "$U/x?*" -o -path "$U/y?*" -o \
		-path "$U/exempt-new?line.service" \) -exec rmdir {} \; 2>/dev/null
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

# journal_err SINCE PATTERN: tslackd logged a line matching PATTERN at
# error priority since SINCE (seconds since the epoch); waits for journald.
journal_err() {
	_js=$1 _jp=$2
	poll 10 eval 'journalctl -q -u tslackd.service -p err --since "@$_js" -o cat |
		grep -q -e "$_jp"'
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

# alice, in her session, makes the cgroups. Each is cut by newlines into
# what the old state file read as records: "applied min VICTIM 500000000 0
# 0 /system.slice/sys-victim.service" (the victim's minimum is 0, so
# undoing it "puts back" 500 ms), and "applied min 1 0 500000000 /"
# (the root cgroup).
session_run alice "V=$victim U=$(q "$U")"'
set -e
a=$(printf "x\napplied min %s 500000000 0 0 " "$V")
b=$(printf "sys-victim.service\nx")
mkdir -p "$U/$a/system.slice/$b/exempt-a.service"
c=$(printf "y\napplied min 1 0 500000000 ")
d=$(printf "\nz")
mkdir -p "$U/$c/$d/exempt-b.service"
e=$(printf "exempt-new\nline.service")
mkdir "$U/$e"
stat -c %i "$U/$a/system.slice/$b/exempt-a.service" "$U/$c/$d/exempt-b.service" "$U/$e"
' >"$PROBES/names-leaves" && pass names/made_by_alice ||
	fail names/made_by_alice "$(cat "$PROBES/names-leaves")"
leaves=$(cat "$PROBES/names-leaves")
eq names/three_cgroups 3 "$(echo "$leaves" | grep -c -E '^[0-9]+$')"

session_run alice "/usr/local/sbin/tslackd --set-idle yes" | sed 's/^/# /'
expect_slack idle/session "$IDLE" "$a"
if poll 10 all_held; then
	pass idle/crafted_exempted
else
	fail idle/crafted_exempted "$(tslackctl list)"
fi
# One line per record, whatever the names: none of hers became a line.
bad=$(grep -v -E '^(tslackd-state|session|applied) ' "$STATE"; grep -E "^applied min ($victim|1) " "$STATE")
eq state/no_line_of_hers "" "$bad"
if tslackd --status | grep -q -F 'exempt-new\x0aline.service'; then
	pass status/escaped
else
	fail status/escaped "$(tslackd --status)"
fi

# Killed and restarted while she is idle: the same entries, no other.
before=$(map_state)
restart_killed && pass sigkill/restarted || fail sigkill/restarted "$(systemctl status tslackd.service)"
eq sigkill/map_unchanged "$before" "$(map_state)"
map_has "$victim" && fail sigkill/victim_untouched "$(tslackctl list)" ||
	pass sigkill/victim_untouched
expect_slack sigkill/victim_slack "$DEFAULT" "$sys"

# Active again: everything it set is undone, her cgroups' too.
session_run alice "/usr/local/sbin/tslackd --set-idle no" | sed 's/^/# /'
expect_slack active/session "$DEFAULT" "$a"
if poll 10 map_empty; then pass active/all_undone; else fail active/all_undone "$(tslackctl list)"; fi

# A state file an older tslackd left (raw paths: her line is a record
# there) is not read: logged, and nothing is written.
systemctl stop tslackd.service
printf 'tslackd 1\napplied max 7 0 1 0 /user.slice/x\napplied min %s 500000000 0 0 /system.slice/sys-victim.service\n' \
	"$victim" >"$STATE"
t0=$(date +%s)
systemctl start tslackd.service
eq oldfile/started active "$(systemctl is-active tslackd.service)"
journal_err "$t0" "not written by this version" && pass oldfile/logged_as_error ||
	fail oldfile/logged_as_error "$(journalctl -q -u tslackd.service --since "@$t0" -o cat)"
if map_empty; then pass oldfile/nothing_written; else fail oldfile/nothing_written "$(tslackctl list)"; fi

# Damaged lines: a bad escape, a path with "..", an extra token, a
# truncated last line; and a well-formed one whose path is not its id's
# cgroup. Each is logged, none is acted on.
systemctl stop tslackd.service
v="applied min $victim 500000000 0"
printf '%s\n' "tslackd-state 2 1" "$v /system.slice/sys-victim.servic\\e" \
	"$v /system.slice/../system.slice/sys-victim.service" \
	"$v /system.slice/sys-victim.service x" "$v /user.slice" >"$STATE"
printf '%s' "$v /system.slice/sys-victim.service" >>"$STATE"
t0=$(date +%s)
systemctl start tslackd.service
eq damaged/started active "$(systemctl is-active tslackd.service)"
if journal_err "$t0" ':6: not a record' &&
	[ "$(journalctl -q -u tslackd.service -p err --since "@$t0" -o cat | grep -c 'not a record')" = 4 ]; then
	pass damaged/logged_as_errors
else
	fail damaged/logged_as_errors "$(journalctl -q -u tslackd.service --since "@$t0" -o cat)"
fi
if map_empty; then pass damaged/nothing_written; else fail damaged/nothing_written "$(tslackctl list)"; fi
