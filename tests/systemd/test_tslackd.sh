#!/bin/sh
# tslackd under systemd, as a desktop runs it: two users' sessions made
# through pam_systemd, an idle and a locked hint set from inside a session
# (tslackd --set-idle, as a compositor's idle hook), apps under
# user@UID.service, an exempted app, a system service; the slack each
# process sleeps with, read by the process itself. Then what must not leave
# slack behind: stop, restart, SIGKILL, reload, logout.
. /usr/local/lib/tslack/systemd-lib.sh
plan 43

DEFAULT=50000		# every process's own slack: init's
IDLE=30000000
LOCKED=60000000
RELOADED=40000000

tslackd_config <<CONF
[Slack]
Idle=30ms
Locked=60ms

[Exempt]
Units=exempt-*.service
CONF

# hint SESSION OPTION...: tslackd --set-idle/--set-locked from inside the
# session, as a compositor's idle hook runs it (sbin is not in a user's PATH).
hint() {
	_s=$1
	shift
	session_run "$_s" "/usr/sbin/tslackd $*" | sed 's/^/# /'
}

# Nothing left in the map but what the test itself set.
map_empty() { [ -z "$(tslackctl list --json | tr -d '[] \n')" ]; }

systemctl start tslackd.service
eq daemon/started active "$(systemctl is-active tslackd.service)"

session_open alice
session_open bob
a=$(probe_file alice-shell alice)
b=$(probe_file bob-shell bob)
app=$(probe_file alice-app alice)
ex=$(probe_file alice-exempt alice)
sys=$(probe_file system root)
session_spawn alice "$(probe_cmd "$a")"
session_spawn bob "$(probe_cmd "$b")"
user_app alice app-probe.service "$(probe_cmd "$app")"
user_app alice exempt-audio.service "$(probe_cmd "$ex")"
service_start sys-probe.service "$(probe_cmd "$sys")"
expect_slack active/session "$DEFAULT" "$a"

# Idle from inside the session, as swayidle would run it.
hint alice --set-idle yes
expect_slack idle/session "$IDLE" "$a"
expect_slack idle/user_app "$IDLE" "$app"
expect_slack idle/exempt_app "$DEFAULT" "$ex"
expect_slack idle/other_session "$DEFAULT" "$b"
expect_slack idle/system_service "$DEFAULT" "$sys"
if tslackd --status | grep -q "^$(session_id alice) .* idle .* 30ms"; then
	pass idle/status
else
	fail idle/status "$(tslackd --status)"
fi

# An exempt unit that starts while the session is idle is exempted too.
late=$(probe_file alice-late alice)
user_app alice exempt-late.service "$(probe_cmd "$late")"
expect_slack idle/exempt_app_started_later "$DEFAULT" "$late"

hint alice --set-locked yes
expect_slack locked/session "$LOCKED" "$a"
expect_slack locked/user_app "$LOCKED" "$app"

hint alice --set-locked no
hint alice --set-idle no
expect_slack active_again/session "$DEFAULT" "$a"
expect_slack active_again/user_app "$DEFAULT" "$app"
if poll 5 map_empty; then pass active_again/map_empty; else fail active_again/map_empty "$(tslackctl list)"; fi

# A second session of alice stays active: her apps are not slowed.
session_open alice:2
hint alice --set-idle yes
expect_slack two_sessions/idle_one "$IDLE" "$a"
expect_slack two_sessions/user_app_kept "$DEFAULT" "$app"
session_close alice:2
expect_slack two_sessions/other_logged_out "$IDLE" "$app"

# A background session of hers (cron and su make those) neither gets slack
# nor keeps her apps fast.
session_open alice:cron background
eq background/class background "$(session_prop alice:cron Class)"
cron=$(probe_file alice-cron alice)
session_spawn alice:cron "$(probe_cmd "$cron")"
# Once bob's lock is seen, tslackd has seen the new session too.
hint bob --set-locked yes
expect_slack background/a_refresh_after "$LOCKED" "$b"
poll 10 has_lines "$app" $(($(wc -l <"$app") + 3))
eq background/user_app_still_idle "$IDLE" "$(slack_of "$app")"
eq background/no_slack_of_its_own "$DEFAULT" "$(slack_of "$cron")"
hint bob --set-locked no
expect_slack background/bob_unlocked "$DEFAULT" "$b"
session_close alice:cron

# Stop undoes everything, start does it again.
systemctl stop tslackd.service
expect_slack stop/session_restored "$DEFAULT" "$a"
if map_empty; then pass stop/map_empty; else fail stop/map_empty "$(tslackctl list)"; fi
systemctl start tslackd.service
expect_slack start/idle_again "$IDLE" "$a"

# Reload: a new drop-in is used; a wrong one is refused and changes nothing.
printf '[Slack]\nIdle=40ms\n' >/etc/tslack/tslackd.conf.d/50-test.conf
systemctl reload tslackd.service
expect_slack reload/new_value "$RELOADED" "$a"
printf '[Slack]\nIdle=1min\n' >/etc/tslack/tslackd.conf.d/60-wrong.conf
systemctl reload tslackd.service
expect_slack reload/wrong_refused "$RELOADED" "$a"
eq reload/still_running active "$(systemctl is-active tslackd.service)"
rm /etc/tslack/tslackd.conf.d/50-test.conf /etc/tslack/tslackd.conf.d/60-wrong.conf
systemctl reload tslackd.service
expect_slack reload/back "$IDLE" "$a"

# SIGKILL while idle: systemd restarts it, and the new one knows what the
# killed one set (else it would take 30 ms for what was there before).
pid=$(systemctl show -P MainPID tslackd.service)
systemctl kill -s KILL tslackd.service
poll 20 eval '[ "$(systemctl show -P MainPID tslackd.service)" != "$pid" ] &&
	[ "$(systemctl is-active tslackd.service)" = active ]'
eq sigkill/restarted active "$(systemctl is-active tslackd.service)"
expect_slack sigkill/still_idle "$IDLE" "$a"
hint alice --set-idle no
expect_slack sigkill/active_restored "$DEFAULT" "$a"
expect_slack sigkill/user_app_restored "$DEFAULT" "$app"

# A value someone else writes while tslackd holds the field is theirs to keep.
hint alice --set-idle yes
expect_slack others/idle "$IDLE" "$a"
tslackctl set "$(session_scope alice)" 5ms
hint alice --set-idle no
expect_slack others/value_kept 5000000 "$a"
tslackctl set "$(session_scope alice)" 0

# tslack detached and attached again by hand while alice is idle: the new
# policy's empty map gets what tslackd holds as soon as it is in place.
hint alice --set-idle yes
expect_slack reattach/idle "$IDLE" "$a"
tslackctl detach
expect_slack reattach/detached "$DEFAULT" "$a"
# A refresh while detached fails, and waits for the attach.
systemctl reload tslackd.service
tslackctl attach
expect_slack reattach/held_again "$IDLE" "$a"
expect_slack reattach/user_app "$IDLE" "$app"
expect_slack reattach/exempt_app "$DEFAULT" "$ex"

# Logout of an idle session: nothing of it stays in the map.
hint alice --set-idle yes
expect_slack logout/idle "$IDLE" "$a"
session_close alice
if poll 10 eval 'tslackctl check >/dev/null 2>&1 && ! tslackd --status | grep -q "session-$(session_id alice).scope"'; then
	pass logout/nothing_stale
else
	fail logout/nothing_stale "$(tslackctl check 2>&1; tslackd --status)"
fi

systemctl stop tslackd.service
if map_empty; then pass end/map_empty; else fail end/map_empty "$(tslackctl list)"; fi
session_close bob
