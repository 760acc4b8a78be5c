#!/bin/sh
# tslackd and a seat's virtual terminals: two users logged in on seat0, as
# a display manager logs them in, each on a VT. The session on the VT that
# is switched to is active; the other is in the background (Active=no,
# with no idle hint) and sleeps with Idle=, its user's apps too, until its
# VT comes back.
. /usr/local/lib/tslack/systemd-lib.sh
plan 12

DEFAULT=50000
IDLE=30000000

tslackd_config <<CONF
[Slack]
Idle=30ms
CONF

cleanup() {
	session_close_all
	systemctl stop tslackd.service
}
trap cleanup EXIT

systemctl start tslackd.service
session_open alice wayland 2
session_open bob wayland 3
eq seat/two_sessions "alice seat0 2|bob seat0 3" \
	"$(for s in alice bob; do echo "$s $(session_prop $s Seat) $(session_prop $s VTNr)"; done |
		paste -s -d '|')"
a=$(probe_file vt-alice alice)
b=$(probe_file vt-bob bob)
app=$(probe_file vt-bob-app bob)
session_spawn alice "$(probe_cmd "$a")"
session_spawn bob "$(probe_cmd "$b")"
user_app bob vt-app.service "$(probe_cmd "$app")"

# Switch to alice's VT: bob's session goes to the background.
loginctl activate "$(session_id alice)"
prop_is bob Active no && prop_is alice Active yes && pass switch/alice_active ||
	fail switch/alice_active "alice Active=$(session_prop alice Active), bob $(session_prop bob Active)"
eq switch/bob_not_idle no "$(session_prop bob IdleHint)"
expect_slack switch/alice_session "$DEFAULT" "$a"
expect_slack switch/bob_background "$IDLE" "$b"
expect_slack switch/bob_app "$IDLE" "$app"
eq switch/status "background 30ms" \
	"$(tslackd --status | awk -v s="$(session_id bob)" '$1 == s { print $3, $4 }')"

# And back to bob's.
loginctl activate "$(session_id bob)"
expect_slack back/bob_session "$DEFAULT" "$b"
expect_slack back/bob_app "$DEFAULT" "$app"
expect_slack back/alice_background "$IDLE" "$a"

session_close alice
session_close bob
systemctl stop tslackd.service
eq end/map_empty "" "$(tslackctl list --json | tr -d '[] \n')"
eq end/not_running inactive "$(systemctl is-active tslackd.service)"
