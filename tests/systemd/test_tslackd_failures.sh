#!/bin/sh
# tslackd when things fail. A map write it cannot make (the map is full:
# here a small one, attach --max-cgroups=8, filled with bpftool) is logged
# at error priority, not recorded as held, and made by the retry once
# there is room. And when its inotify queue overflows (here
# fs.inotify.max_queued_events=0: every event is lost), the subtrees are
# walked again: an exempt app started in an idle session is still
# exempted.
. /usr/local/lib/tslack/systemd-lib.sh
plan 10

DEFAULT=50000
IDLE=30000000
FAKE=$((1 << 40))	# ids of no cgroup: room in the map taken

tslackd_config <<CONF
[Slack]
Idle=30ms

[Exempt]
Units=exempt-*.service
CONF

queued=$(sysctl -n fs.inotify.max_queued_events)
cleanup() {
	sysctl -q -w fs.inotify.max_queued_events="$queued"
	session_close_all
	systemctl stop tslackd.service
	tslackctl detach
	tslackctl attach
}
trap cleanup EXIT

# fill: take every free entry of the map with one of no cgroup.
fill() {
	_i=0
	# shellcheck disable=SC2046 # the bytes are meant to split
	while bpftool map update pinned "$MAP" key $(le64 $((FAKE + _i))) \
		value $(le64 1000) $(le64 0) 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -lt 64 ] || return 1
	done
	echo $_i
}

# unfill N: give back the N entries fill took.
unfill() {
	_i=0
	while [ $_i -lt "$1" ]; do
		# shellcheck disable=SC2046
		bpftool map delete pinned "$MAP" key $(le64 $((FAKE + _i)))
		_i=$((_i + 1))
	done
}

hint() { session_run "$1" "/usr/sbin/tslackd $2" | sed 's/^/# /'; }

# A small map, full before alice is idle.
tslackctl detach
tslackctl attach --max-cgroups=8 && pass full/small_map || fail full/small_map "attach failed"
systemctl start tslackd.service
session_open alice
a=$(probe_file fail-alice alice)
app=$(probe_file fail-app alice)
session_spawn alice "$(probe_cmd "$a")"
user_app alice fail-app.service "$(probe_cmd "$app")"
taken=$(fill)
eq full/filled 8 "$taken"

t0=$(journal_mark)
hint alice "--set-idle yes"
if poll 10 eval 'journal_since "$t0" err | grep -q "session-$(session_id alice).scope: setting min_slack_ns to 30ms: "'; then
	pass full/logged_as_error
else
	fail full/logged_as_error "$(journal_since "$t0")"
fi
# Not made, so not held: --status lists no setting of hers.
poll 5 eval 'tslackd --status | grep -q "$(session_id alice) .* idle "'
eq full/not_held "" "$(tslackd --status | grep '^min ')"
eq full/not_applied "$DEFAULT" "$(slack_of "$a")"

# Room again: the retry (every 10 s) makes the writes.
unfill "$taken"
t1=$(date +%s)
if poll 15 eval '[ "$(slack_of "$a")" = "$IDLE" ]'; then
	pass full/retried "in $(($(date +%s) - t1)) s"
else
	fail full/retried "$(slack_of "$a") after 15 s: $(tslackctl list)"
fi
expect_slack full/user_app "$IDLE" "$app"
hint alice "--set-idle no"
expect_slack full/active_again "$DEFAULT" "$a"

# Every inotify event lost from tslackd's start on: only IN_Q_OVERFLOW.
sysctl -q -w fs.inotify.max_queued_events=0
systemctl restart tslackd.service
sysctl -q -w fs.inotify.max_queued_events="$queued"
hint alice "--set-idle yes"
expect_slack overflow/idle "$IDLE" "$app"
late=$(probe_file fail-late alice)
user_app alice exempt-overflow.service "$(probe_cmd "$late")"
expect_slack overflow/exempt_app_started_later "$DEFAULT" "$late"
