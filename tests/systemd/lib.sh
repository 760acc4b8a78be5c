# Helpers for the tests in the systemd guest (vmtest/run --systemd);
# sourced. Sessions are opened as a login opens them, through PAM and
# pam_systemd (runuser -l), so logind, the session scopes and user@UID.service
# are the real ones; commands then run inside a session as its user.
# shellcheck shell=sh
. /usr/local/lib/tslack/harness.sh

# The package starts tslackd at boot: each test starts it itself, with
# its own configuration, or not at all.
systemctl stop tslackd.service 2>/dev/null

# Per-session state (a FIFO, commands, their output) and probe files. Not
# in /tmp: there fs.protected_regular stops root's redirections into a file
# a user owns, and services with PrivateTmp= see another /tmp.
SESSIONS=/run/tslack-test/sessions
PROBES=/run/tslack-test/probes

# q WORD: WORD quoted for sh, to build command lines that run elsewhere.
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

uid_of() { id -u "${1%%:*}"; }

# A session is named USER or USER:TAG (two sessions of one user).
session_dir() { echo "$SESSIONS/$1"; }

# session_open SESSION [TYPE [VT]]: log SESSION's user in with `runuser -l`,
# asking pam_systemd for what a display manager asks: class user, type
# TYPE (default wayland; logind lets only graphical sessions set their idle
# hint). Without them runuser, like su and cron, makes a background session
# (Class=background, Type=unspecified): TYPE background asks for that. The
# login shell stays and runs
# each command sent to it (session_run), inside the session: its scope, its
# XDG_SESSION_ID, XDG_RUNTIME_DIR and bus address. Returns once logind has
# made the session and user@UID.service is up (pam_systemd waits for both).
# With VT, the session is on seat0's virtual terminal ttyVT, as a display
# manager opens one: logind makes it the seat's active session when that
# terminal is switched to (loginctl activate), and the others background.
session_open() {
	_d=$(session_dir "$1")
	_u=${1%%:*}
	rm -rf "$_d"
	mkdir -p "$_d"
	mkfifo "$_d/in"
	chown -R "$_u:" "$_d"
	chmod 0755 "$_d"
	# The login shell's loop. Each line on the FIFO is the number N of a
	# script cmd.N to run; out.N and rc.N are its output and status.
	# The FIFO is opened read-write so that it never reads end of file.
	_loop="cd $_d || exit 1
exec 3<>in
env >env
echo \$\$ >pid
echo \"\$XDG_SESSION_ID\" >id.tmp && mv id.tmp id
while read -r n <&3; do
	[ \"\$n\" = exit ] && break
	sh cmd.\$n >out.\$n 2>&1 </dev/null
	echo \$? >rc.\$n.tmp && mv rc.\$n.tmp rc.\$n
done"
	_in=/dev/null _type=${2:-wayland} _class=user
	[ -n "${3-}" ] && _in=/dev/tty$3
	[ "$_type" = background ] && _type= _class=
	XDG_SESSION_TYPE=$_type XDG_SESSION_CLASS=$_class \
		${3:+env XDG_SEAT=seat0 XDG_VTNR=$3} \
		runuser -l "$_u" -c "$_loop" <"$_in" >"$_d/log" 2>&1 &
	_rpid=$!
	echo $_rpid >"$_d/runuser.pid"
	poll 30 eval 'test -s "$_d/id" || ! kill -0 $_rpid 2>/dev/null'
	if [ "$(cat "$_d/id" 2>/dev/null)" = "" ]; then
		echo "session_open $1: no session: $(cat "$_d/log")" >&2
		kill "$_rpid" 2>/dev/null
		: >"$_d/closed"
		return 1
	fi
}

# session_id SESSION: logind's id of the session (as in session-ID.scope).
session_id() { cat "$(session_dir "$1")/id"; }

# session_pid SESSION: the pid of its login shell.
session_pid() { cat "$(session_dir "$1")/pid"; }

# session_scope SESSION: the session's cgroup, as tslackctl takes it.
session_scope() {
	echo "/user.slice/user-$(uid_of "$1").slice/session-$(session_id "$1").scope"
}

# session_run SESSION COMMAND-LINE: run COMMAND-LINE with sh in the
# session, as its user; print its output and return its status (124 if it
# did not finish within 30 s).
session_run() {
	_d=$(session_dir "$1")
	_n=$(($(cat "$_d/seq" 2>/dev/null || echo 0) + 1))
	echo "$_n" >"$_d/seq"
	printf '%s\n' "$2" >"$_d/cmd.$_n"
	# A FIFO without its reader would block the writer forever.
	kill -0 "$(cat "$_d/pid")" 2>/dev/null &&
		timeout 5 sh -c 'echo "$1" >"$2"' sh "$_n" "$_d/in" ||
		{ echo "session_run $1: the session's shell is gone" >&2; return 124; }
	poll 30 test -e "$_d/rc.$_n" || { echo "session_run $1: timed out: $2" >&2; return 124; }
	cat "$_d/out.$_n"
	return "$(cat "$_d/rc.$_n")"
}

# session_spawn SESSION COMMAND-LINE: the same in the background, as a
# program the user started in the session; session_close stops it.
session_spawn() {
	session_run "$1" "{ $2; } </dev/null >/dev/null 2>&1 & echo \$! >>bg"
}

# session_close SESSION: log out: stop what session_spawn started, end the
# login shell (runuser then closes the PAM session) and wait until the
# session's scope is gone (Debian keeps KillUserProcesses=no: a scope with
# processes left would stay, "closing"). session_id still answers after.
session_close() {
	_d=$(session_dir "$1")
	[ -e "$_d/closed" ] && return 0
	_cg=$CG$(session_scope "$1")
	if [ -f "$_d/bg" ]; then
		# shellcheck disable=SC2046 # one pid a line
		kill $(cat "$_d/bg") 2>/dev/null
	fi
	kill -0 "$(cat "$_d/pid")" 2>/dev/null && timeout 5 sh -c 'echo exit >"$1"' sh "$_d/in"
	_rpid=$(cat "$_d/runuser.pid")
	poll 30 eval '! kill -0 "$_rpid" 2>/dev/null' || kill "$_rpid"
	wait "$_rpid" 2>/dev/null
	poll 30 test ! -d "$_cg" || { echo "session_close $1: $_cg is still there" >&2; return 1; }
	: >"$_d/closed"
}

# user_session USER: one of USER's open sessions (for what only needs to
# run as USER inside some session); fails if USER has none.
user_session() {
	for _s in "$SESSIONS/$1" "$SESSIONS/$1":*; do
		[ -d "$_s" ] && [ ! -e "$_s/closed" ] && { echo "${_s##*/}"; return 0; }
	done
	echo "$1 has no open session" >&2
	return 1
}

# user_app USER UNIT COMMAND-LINE: start COMMAND-LINE as a service UNIT of
# USER's own systemd (user@UID.service), with systemd-run --user from
# inside one of USER's open sessions, as a desktop starts an app.
user_app() {
	_uid=$(uid_of "$1")
	_s=$(user_session "$1") || return 1
	session_run "$_s" "XDG_RUNTIME_DIR=\${XDG_RUNTIME_DIR:-/run/user/$_uid} \
DBUS_SESSION_BUS_ADDRESS=\${DBUS_SESSION_BUS_ADDRESS:-unix:path=/run/user/$_uid/bus} \
systemd-run --user --quiet --collect --unit=$(q "$2") -- sh -c $(q "$3")"
}

# user_unit_prop USER UNIT PROPERTY: PROPERTY of a unit of USER's systemd
# (MainPID, ControlGroup, ActiveState...).
user_unit_prop() {
	_s=$(user_session "$1") || return 1
	session_run "$_s" "systemctl --user show -P $(q "$3") $(q "$2")"
}

# service_start UNIT COMMAND-LINE: a system service, with systemd-run.
service_start() {
	systemd-run --quiet --collect --unit="$1" -- sh -c "$2"
}

# probe_file NAME OWNER: a file that OWNER's process can write and root
# can read, for probe_cmd; prints its path.
probe_file() {
	mkdir -p "$PROBES"
	_f=$PROBES/$1
	: >"$_f"
	chown "$2" "$_f"
	chmod 0644 "$_f"
	echo "$_f"
}

# probe_cmd FILE: a command line that becomes a long-running process
# writing its effective slack to FILE after each of its 100 ms sleeps.
# Users cannot read tracefs: the command names the event (timer_slack.h).
probe_cmd() {
	echo "TSLACK_HRTIMER_START=$(q "$TSLACK_HRTIMER_START") exec tslack-probe watch 1000000 100 >$(q "$1")"
}

# has_lines FILE N: FILE has at least N lines (a probe reported N times).
has_lines() { [ "$(wc -l <"$1")" -ge "$2" ]; }

# slack_of FILE: the probe's latest line, its current effective slack (ns).
slack_of() { tail -n 1 "$1"; }

# wait_slack FILE WANT: wait (up to 10 s) until the probe writing FILE
# reports WANT; print what it reports last, and fail if it is not WANT.
wait_slack() {
	_wf=$1 _ww=$2
	poll 10 eval '[ "$(slack_of "$_wf")" = "$_ww" ]'
	_rc=$?
	slack_of "$_wf"
	return $_rc
}

# expect_slack NAME WANT FILE: check NAME, that the process writing FILE
# sleeps with WANT (after waiting for it up to 10 s).
expect_slack() {
	_got=$(wait_slack "$3" "$2")
	eq "$1" "$2" "$_got"
}

# tslackd_config: stdin becomes tslackd's whole configuration (no drop-ins).
tslackd_config() {
	mkdir -p /etc/tslack/tslackd.conf.d
	rm -f /etc/tslack/tslackd.conf.d/*.conf
	cat >/etc/tslack/tslackd.conf
}

# session_close_all: log out every session the test opened and left open.
session_close_all() {
	for _s in "$SESSIONS"/*; do
		[ -d "$_s" ] && session_close "${_s##*/}"
	done
}

# session_prop SESSION PROPERTY: logind's PROPERTY of the session.
session_prop() { loginctl show-session -P "$2" "$(session_id "$1")"; }

# prop_is SESSION PROPERTY WANT: wait (up to 10 s) until logind says WANT.
prop_is() {
	_ps=$1 _pp=$2 _pw=$3
	poll 10 eval '[ "$(session_prop "$_ps" "$_pp")" = "$_pw" ]'
}

# journal_mark: tslackd's last entry in the journal (it must have one),
# for journal_since.
journal_mark() {
	journalctl -q -u tslackd.service -n 1 --show-cursor -o cat | sed -n 's/^-- cursor: //p'
}

# journal_since MARK [err]: tslackd's messages logged after MARK, one a
# line; with err, only those at error priority or above. The same match
# (-u) as journal_mark's and no -p: with a match that the cursor's own
# entry fails, journalctl 252 was seen to drop the first entry after it.
journal_since() {
	journalctl -q -u tslackd.service --after-cursor="$1" -o export |
		awk -v max="$([ "${2-}" = err ] && echo 3 || echo 7)" '
			BEGIN { p = 9 }
			/^PRIORITY=/ { p = substr($0, 10) + 0 }
			/^MESSAGE=/ { m = substr($0, 9) }
			/^$/ { if (m != "" && p <= max) print m; p = 9; m = "" }
			END { if (m != "" && p <= max) print m }'
}

# mock_upower true|false: python3-dbusmock's UPower template on the system
# bus (root may own its name while UPOWER_POLICY is there), on battery or
# not; mock_upower_stop takes both away.
UPOWER_POLICY=/etc/dbus-1/system.d/tslack-test-upower.conf
mock_upower() {
	cat >$UPOWER_POLICY <<'XML'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <policy user="root"><allow own="org.freedesktop.UPower"/></policy>
  <policy context="default"><allow send_destination="org.freedesktop.UPower"/></policy>
</busconfig>
XML
	busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig
	systemd-run --quiet --unit=mock-upower.service -- \
		python3 -m dbusmock --system --template upower -p "{\"OnBattery\": $1}"
}

mock_upower_stop() {
	systemctl stop mock-upower.service 2>/dev/null
	rm -f $UPOWER_POLICY
	busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig
}

# sleeps_before FILE WANT: how many sleeps the probe writing FILE made
# before the first with WANT (its first line is its first sleep's slack);
# waits up to 10 s for it.
sleeps_before() {
	_sf=$1 _sw=$2
	poll 10 eval 'grep -q -x "$_sw" "$_sf"' || { echo never; return 1; }
	echo $(($(grep -n -x -m 1 "$_sw" "$_sf" | cut -d: -f1) - 1))
}

# status_source CGROUP: the sources tslackd --status gives for CGROUP's settings.
status_source() {
	tslackd --status | awk -v cg="$1" '$1 ~ /^(min|max)$/ { hit = ($4 == cg); next }
		hit && NF == 1 { print $1; hit = 0 }'
}
