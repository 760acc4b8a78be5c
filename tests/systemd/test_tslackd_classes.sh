#!/bin/sh
# In the systemd guest: tslackd against a fake logind and systemd, on a
# bus of its own (a dbus-daemon with the system bus's limit of 128 pending
# replies per connection), for what the guest's systemd (252) does not
# make: systemd 256's session classes, and calls that fail. Sessions of
# class manager (user@UID.service's own) and background-light get no
# slack and do not keep their user's apps fast; user-light and
# user-early are logins like user. A call that fails (a session's
# GetAll, a scope's GetUnit) leaves out only that session; one that was
# read before keeps what it had. And 200 sessions more than the bus's 128
# are read, every one. The cgroups are real, made for the test.
. /usr/local/lib/tslack/systemd-lib.sh
plan 11

DIR=/run/tslack-test/classes
FAKE=/tslack-fake	# the fake units' cgroups
IDLE=30000000
N=200

pid='' bus='' fake=''
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid"
	[ -n "$fake" ] && kill "$fake" 2>/dev/null
	[ -n "$bus" ] && kill "$bus" 2>/dev/null
	find "$CG$FAKE" -depth -type d -exec rmdir {} + 2>/dev/null
	rm -rf "$DIR"
}
trap cleanup EXIT

rm -rf "$DIR"
mkdir -p "$DIR/conf"
printf '[Slack]\nIdle=30ms\n' >"$DIR/conf/tslackd.conf"

# The sessions: ID UID USER CLASS IDLE SCOPE (- for none). uid 2000 has
# an idle user session beside an active manager session and an idle
# background-light one; g1's scope is a unit systemd fails to look up.
{
	echo "c1 2000 u2000 user 1 c1.scope"
	echo "m1 2000 u2000 manager 0 -"
	echo "b1 2000 u2000 background-light 1 b1.scope"
	echo "l1 2001 u2001 user-light 1 l1.scope"
	echo "e1 2002 u2002 user-early 1 e1.scope"
	echo "f1 2003 u2003 user 1 f1.scope"
	echo "g1 2004 u2004 user 1 g1-broken.scope"
	echo "h1 2005 u2005 user 1 h1.scope"
	i=0
	while [ $i -lt $N ]; do
		echo "n$i 3000 u3000 user 1 n$i.scope"
		i=$((i + 1))
	done
} >"$DIR/sessions"
echo f1 >"$DIR/fail"	# sessions whose GetAll fails
for u in $(awk '{ print $6 }' "$DIR/sessions" | grep -v '^-$') \
	user@2000.service user@2001.service user@2002.service user@2003.service \
	user@2004.service user@2005.service user@3000.service; do
	mkdir -p "$CG$FAKE/$u"
done

cat >"$DIR/fake.py" <<'PY'
import sys
import dbus
import dbus.service
import dbus.mainloop.glib
from gi.repository import GLib

L = 'org.freedesktop.login1'
S = 'org.freedesktop.systemd1'
PROPS = 'org.freedesktop.DBus.Properties'
d, fakecg = sys.argv[1], sys.argv[2]
dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection('unix:path=' + d + '/socket')
sessions = {}
order = []
for line in open(d + '/sessions'):
    sid, uid, user, cls, idle, scope = line.split()
    sessions[sid] = dict(uid=int(uid), user=user, cls=cls, idle=idle == '1',
                         scope='' if scope == '-' else scope)
    order.append(sid)


def failing():
    return open(d + '/fail').read().split()


class Manager(dbus.service.Object):
    @dbus.service.method(L + '.Manager', out_signature='a(susso)')
    def ListSessions(self):
        return [(i, dbus.UInt32(sessions[i]['uid']), sessions[i]['user'], '',
                 dbus.ObjectPath('/org/freedesktop/login1/session/' + i)) for i in order]


class Session(dbus.service.FallbackObject):
    @dbus.service.method(PROPS, in_signature='s', out_signature='a{sv}',
                         rel_path_keyword='rel')
    def GetAll(self, iface, rel):
        sid = rel.strip('/')
        if sid in failing():
            raise dbus.exceptions.DBusException('fake failure',
                                                name='org.freedesktop.DBus.Error.Failed')
        s = sessions[sid]
        return {'Id': sid, 'Class': s['cls'], 'State': 'active', 'Scope': s['scope'],
                'IdleHint': dbus.Boolean(s['idle']), 'LockedHint': dbus.Boolean(False),
                'Active': dbus.Boolean(True)}


class Systemd(dbus.service.Object):
    @dbus.service.method(S + '.Manager', in_signature='s', out_signature='o')
    def GetUnit(self, name):
        if 'broken' in name:
            raise dbus.exceptions.DBusException('fake failure',
                                                name='org.freedesktop.DBus.Error.Failed')
        return dbus.ObjectPath('/org/freedesktop/systemd1/unit/u' + name.encode().hex())


class Unit(dbus.service.FallbackObject):
    @dbus.service.method(PROPS, in_signature='ss', out_signature='v',
                         rel_path_keyword='rel')
    def Get(self, iface, prop, rel):
        return dbus.String(fakecg + '/' + bytes.fromhex(rel.strip('/')[1:]).decode())


Manager(bus, '/org/freedesktop/login1')
Session(bus, '/org/freedesktop/login1/session')
Systemd(bus, '/org/freedesktop/systemd1')
Unit(bus, '/org/freedesktop/systemd1/unit')
# Owned for as long as these are referenced.
names = [dbus.service.BusName(L, bus), dbus.service.BusName(S, bus)]
open(d + '/ready', 'w').close()
GLib.MainLoop().run()
PY

# The system bus's limits, dbus-daemon's defaults for it: 128 replies.
cat >"$DIR/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <listen>unix:path=$DIR/socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
  <limit name="max_replies_per_connection">128</limit>
</busconfig>
CONF
bus=$(dbus-daemon --config-file="$DIR/bus.conf" --fork --print-pid)
python3 "$DIR/fake.py" "$DIR" "$FAKE" 2>"$DIR/fake.log" &
fake=$!
poll 30 test -e "$DIR/ready" || echo "# the fake did not start: $(cat "$DIR/fake.log")"

DBUS_SYSTEM_BUS_ADDRESS="unix:path=$DIR/socket" \
	tslackd --config-dir "$DIR/conf" --state "$DIR/state" 2>"$DIR/log" &
pid=$!

min_of() {
	echo "$(tslackctl get --json "$FAKE/$1" | tr -d '\n' |
		sed -n 's/.*"min_slack_ns": *\([0-9]*\).*/\1/p')"
}
mins() { for _u in "$@"; do min_of "$_u"; done | paste -s -d ' '; }
many_set() {
	tslackctl list --json | tr '{' '\n' | grep "$FAKE/n[0-9]*\.scope\"" |
		grep -c "\"min_slack_ns\": *${IDLE}[,}]"
}

poll 60 eval '[ "$(many_set)" = $N ]'
eq classes/many_read "$N" "$(many_set)"
eq classes/user_session "$IDLE" "$(min_of c1.scope)"
# The manager session (active, never idle) does not keep u2000's apps
# fast; background-light gets nothing.
eq classes/manager_not_counted "$IDLE" "$(min_of user@2000.service)"
eq classes/background_light "0" "$(min_of b1.scope)"
eq classes/light_and_early "$IDLE $IDLE $IDLE $IDLE" \
	"$(mins l1.scope user@2001.service e1.scope user@2002.service)"
eq classes/failed_left_out "0 0 0 0" \
	"$(mins f1.scope user@2003.service g1-broken.scope user@2004.service)"
grep -q "reading session f1: GetAll: fake failure" "$DIR/log" &&
	grep -q "reading session g1: the cgroup of g1-broken.scope: fake failure" "$DIR/log" &&
	pass classes/failures_logged || fail classes/failures_logged "$(cat "$DIR/log")"
grep -q "reading logind's sessions" "$DIR/log" &&
	fail classes/no_whole_failure "$(grep "reading logind's sessions" "$DIR/log")" ||
	pass classes/no_whole_failure

# h1, read before, fails now: it keeps its slack; f1, read now, gets it.
echo h1 >"$DIR/fail"
: >"$DIR/log.mark"
kill -HUP "$pid"
poll 30 eval '[ "$(min_of f1.scope)" = $IDLE ]'
eq classes/read_later "$IDLE" "$(min_of f1.scope)"
poll 10 grep -q "reading session h1" "$DIR/log"
eq classes/failed_keeps "$IDLE $IDLE" "$(mins h1.scope user@2005.service)"

# Stopped: everything it set undone, the fake cgroups' too.
kill "$pid"
wait "$pid"
pid=
eq classes/stopped_clean 0 "$(tslackctl list --json | tr "{" "\n" | grep -c "$FAKE/")"
exit 0
