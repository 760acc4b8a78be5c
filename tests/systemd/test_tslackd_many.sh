#!/bin/sh
# In the systemd guest: a machine with 200 sessions, all idle (100 logins
# of alice, 100 of bob, through PAM as a display manager logs in; each
# sets its own idle hint). The system bus lets a connection wait for at
# most 128 replies: tslackd keeps its calls to logind and systemd to a
# few at a time (budget.h), so that every session is read and gets its
# slack, and after logout none is left behind.
. /usr/local/lib/tslack/systemd-lib.sh
plan 7

N=100			# logins per user
IDLE=30000000
DIR=/run/tslack-test/many
LOGIN1=org.freedesktop.login1

cleanup() {
	# shellcheck disable=SC2046 # one pid a line
	[ -f "$DIR/pids" ] && kill $(cat "$DIR/pids") 2>/dev/null
	systemctl stop tslackd.service
	rm -rf "$DIR"
}
trap cleanup EXIT

tslackd_config <<CONF
[Slack]
Idle=30ms
CONF

rm -rf "$DIR"
mkdir -p "$DIR"
chmod 1777 "$DIR"

# login USER TAG: a graphical login that sets its session idle, then
# sleeps; its sleep's pid goes to $DIR/TAG (what logout kills).
login() {
	XDG_SESSION_TYPE=wayland XDG_SESSION_CLASS=user runuser -l "$1" -c \
		"busctl call $LOGIN1 /org/freedesktop/login1/session/auto $LOGIN1.Session \
SetIdleHint b true && echo \$\$ >$DIR/$2 && exec sleep 100000" </dev/null >/dev/null 2>&1 &
}

# How many logins have got as far as their sleep.
logged_in() {
	set -- "$DIR"/[ab]*
	if [ -e "$1" ]; then echo $#; else echo 0; fi
}
# sessions: how many logind lists, or "unknown" when it does not answer
# (a busy logind times out: that is not "none left").
sessions() {
	_s=$(loginctl list-sessions --no-legend) || { echo unknown; return; }
	printf '%s' "$_s" | grep -c .
}
idle_sessions() {
	# shellcheck disable=SC2046 # one id a word
	loginctl show-session -P IdleHint $(loginctl list-sessions --no-legend |
		awk '{ print $1 }') 2>/dev/null | grep -c yes
}
# The sessions' scopes in the map with the idle minimum.
scopes_set() {
	tslackctl list --json | tr '{' '\n' | grep 'session-[^"]*\.scope"' |
		grep -c "\"min_slack_ns\": *${IDLE}[,}]"
}
scopes_held() { tslackctl list --json | tr '{' '\n' | grep -c 'session-[^"]*\.scope"'; }

# In batches of 20, each waited for.
i=0
while [ $i -lt $N ]; do
	login alice "a$i"
	login bob "b$i"
	i=$((i + 1))
	[ $((i % 10)) = 0 ] && poll 120 eval '[ "$(logged_in)" -ge $((2 * i)) ]'
done
cat "$DIR"/[ab]* >"$DIR/pids"
poll 60 eval '[ "$(idle_sessions)" -ge $((2 * N)) ]'
eq many/idle_sessions $((2 * N)) "$(idle_sessions)"

t0=$(journal_mark)
start=$(date +%s%N)
systemctl start tslackd.service
poll 120 eval '[ "$(scopes_set)" = $((2 * N)) ]'
ms=$((($(date +%s%N) - start) / 1000000))
eq many/every_scope_set $((2 * N)) "$(scopes_set)"
pid=$(systemctl show -P MainPID tslackd.service)
echo "# $((2 * N)) sessions set in $ms ms after start; tslackd CPU $(($(awk '{ print $14 + $15 }' "/proc/$pid/stat") * 10)) ms"
user_min() {
	tslackctl get --json "/user.slice/user-$1.slice/user@$1.service" | tr -d '\n' |
		sed -n 's/.*"min_slack_ns": *\([0-9]*\).*/\1/p'
}
eq many/users_set "$IDLE $IDLE" "$(user_min 1000) $(user_min 1001)"
eq many/no_read_error "" "$(journal_since "$t0" err)"

# A refresh with all of them: SetIdleHint from one more session's shell.
t1=$(journal_mark)
kill -HUP "$pid"
poll 30 eval 'journal_since "$t1" | grep -q "configuration reloaded"'
sleep 3
eq many/refresh_no_error "" "$(journal_since "$t1" err)"

# Logout: every session scope goes, and so does its setting.
# shellcheck disable=SC2046 # one pid a line
kill $(cat "$DIR/pids")
poll 120 eval '[ "$(sessions)" = 0 ]'
eq many/logged_out 0 "$(sessions)"
poll 30 eval '[ "$(scopes_held)" = 0 ]'
eq many/none_left 0 "$(scopes_held)"
exit 0
