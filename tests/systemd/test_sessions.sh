#!/bin/sh
# In the systemd guest: the plumbing that a user's login relies on and
# that a session-aware daemon will build on. Logins through PAM and
# pam_systemd, their scopes and user@UID.service; idle and locked hints
# set from inside a session; tslack.service attached before any login; a
# session scope's slack reaching its processes and nobody else's; and a
# logout leaving no setting behind.
. /usr/local/lib/tslack/systemd-lib.sh
plan 26

LOGIN1=org.freedesktop.login1
hint() { echo "busctl call $LOGIN1 /org/freedesktop/login1/session/auto $LOGIN1.Session $1 b $2"; }
cg_of() { sed -n 's/^0:://p' "/proc/$1/cgroup"; }
mono() { systemctl show -P "$2" "$1"; }

cleanup() {
	systemctl stop tslack-test-svc.service 2>/dev/null
	session_close_all
}
trap cleanup EXIT

# (a) Two users log in.
session_open alice && pass sessions/open_alice || fail sessions/open_alice "no session"
session_open bob && pass sessions/open_bob || fail sessions/open_bob "no session"
a=$(session_id alice) b=$(session_id bob)
# Their login sessions; from systemd 256 logind also lists each user's
# manager (user@UID.service) as a session of class manager.
eq sessions/listed "$a 1000 alice|$b 1001 bob" \
	"$(loginctl list-sessions --no-legend | awk '{ print $1, $2, $3 }' |
		while read -r id uid user; do
			case $(loginctl show-session -P Class "$id") in manager*) ;; *) echo "$id $uid $user" ;; esac
		done | sort | paste -s -d '|')"
eq sessions/alice_scope "/user.slice/user-1000.slice/session-$a.scope session-$a.scope" \
	"$(cg_of "$(session_pid alice)") $(session_prop alice Scope)"
eq sessions/bob_scope "/user.slice/user-1001.slice/session-$b.scope session-$b.scope" \
	"$(cg_of "$(session_pid bob)") $(session_prop bob Scope)"
# Seatless, as over ssh, yet active: logind calls every session without a
# seat active. Type and class are what session_open asked pam_systemd for.
eq sessions/alice_props "wayland user yes active no" \
	"$(for p in Type Class Active State Remote; do session_prop alice $p; done | paste -s -d ' ')"
eq sessions/user_manager "active active" \
	"$(systemctl is-active user@1000.service) $(systemctl is-active user@1001.service)"

# (b) An app that alice's desktop starts lives in her user manager.
app=$(probe_file alice-app alice)
user_app alice tslack-test-app.service "$(probe_cmd "$app")"
pid=$(user_unit_prop alice tslack-test-app.service MainPID)
eq user/app_cgroup "/user.slice/user-1000.slice/user@1000.service/app.slice/tslack-test-app.service" \
	"$(cg_of "$pid" 2>&1)"

# (c) Idle and locked hints, sent from inside the session as a compositor
# sends them (session/auto is the caller's session).
session_run alice "$(hint SetIdleHint true)" >/dev/null
prop_is alice IdleHint yes && pass hints/idle_set ||
	fail hints/idle_set "IdleHint=$(session_prop alice IdleHint)"
eq hints/idle_other_session no "$(session_prop bob IdleHint)"
session_run alice "$(hint SetIdleHint false)" >/dev/null
prop_is alice IdleHint no && pass hints/idle_cleared ||
	fail hints/idle_cleared "IdleHint=$(session_prop alice IdleHint)"
session_run alice "$(hint SetLockedHint true)" >/dev/null
prop_is alice LockedHint yes && pass hints/locked_set ||
	fail hints/locked_set "LockedHint=$(session_prop alice LockedHint)"
session_run alice "$(hint SetLockedHint false)" >/dev/null
prop_is alice LockedHint no && pass hints/locked_cleared ||
	fail hints/locked_cleared "LockedHint=$(session_prop alice LockedHint)"
# A text login has no idle hint: logind refuses it, whoever asks.
session_open bob:tty tty
# (systemd 257 words it "on non-graphical and non-user sessions").
refused=$(session_run bob:tty "$(hint SetIdleHint true)")
case $refused in
"Call failed: Idle hint control is not supported on non-graphical"*) pass hints/tty_refused ;;
*) fail hints/tty_refused "got '$refused'" ;;
esac
session_close bob:tty

# (d) tslack.service attached the policy before the first session (no
# getty here: alice's). test_package.sh checks that it was at boot, before
# logins were allowed.
t=$(mono tslack.service ActiveEnterTimestampMonotonic)
s=$(session_prop alice TimestampMonotonic)
[ "$t" -gt 0 ] && [ "$t" -lt "$s" ] && pass unit/before_first_session ||
	fail unit/before_first_session "tslack active at $t us, alice's session at $s us"

# (e) A minimum on alice's session scope reaches her session's processes
# only: not bob's session, not a system service, not her apps (they are
# in user@1000.service, not in the scope).
sa=$(probe_file alice-session alice)
sb=$(probe_file bob-session bob)
sv=$(probe_file service root)
session_spawn alice "$(probe_cmd "$sa")"
session_spawn bob "$(probe_cmd "$sb")"
service_start tslack-test-svc.service "$(probe_cmd "$sv")"
for f in "$sa" "$sb" "$sv" "$app"; do
	wait_slack "$f" 50000 >/dev/null
done
eq slack/defaults "50000 50000 50000 50000" \
	"$(slack_of "$sa") $(slack_of "$sb") $(slack_of "$sv") $(slack_of "$app")"
tslackctl set "$(session_scope alice)" 20ms
eq slack/alice_session 20000000 "$(wait_slack "$sa" 20000000)"
# The others have slept a few times since.
for f in "$sb" "$sv" "$app"; do
	poll 10 has_lines "$f" $(($(wc -l <"$f") + 3))
done
eq slack/bob_session 50000 "$(slack_of "$sb")"
eq slack/service 50000 "$(slack_of "$sv")"
eq slack/alice_app 50000 "$(slack_of "$app")"
tslackctl set "$(session_scope alice)" 0
eq slack/restored 50000 "$(wait_slack "$sa" 50000)"

# (f) Logout: the scope goes, and its setting with it.
scope=$(session_scope alice)
tslackctl set "$scope" 5ms
eq logout/set_before "1" "$(tslackctl list | grep -c "^$scope ")"
session_close alice && pass logout/scope_removed || fail logout/scope_removed "$CG$scope is still there"
eq logout/no_session "" "$(loginctl list-sessions --no-legend | awk -v a="$a" '$1 == a')"
eq logout/no_stale_setting "0" "$(tslackctl list | grep -c "session-$a.scope")"
eq logout/check "0" "$(tslackctl check >/dev/null; echo $?)"
