#!/bin/sh
# tslackd's rules (slack.d): settings declared in files that hold for every
# cgroup a glob names, whenever it exists. A system service that is there
# at start; one started later, and started again (a new cgroup, a new id),
# with how many of its sleeps went without the rule; a cap and a minimum in
# a user's apps meeting her idle session's minimum (one answer per
# cgroup, the largest minimum, the cap over it); a rule on a session's own
# scope; --status naming each setting's source; masking of /usr/lib by
# /etc; reload adding and removing rules; a bad line refused (named by
# --check-config, the running rules kept); stop undoing all of it; and a
# user making many cgroups that a rule's glob matches (bounded, logged once).
. /usr/local/lib/tslack/systemd-lib.sh
plan 30

DEFAULT=50000
IDLE=30000000
RULE=20000000
SLOW=40000000
SCOPE=10000000
ETC=/etc/tslack/slack.d
RUN=/run/tslack/slack.d
LIB=/usr/lib/tslack/slack.d
U=$CG/user.slice/user-1000.slice/user@1000.service

tslackd_config <<CONF
[Slack]
Idle=30ms
CONF
mkdir -p $ETC $RUN $LIB
rm -f $ETC/*.conf $RUN/*.conf $LIB/*.conf

cleanup() {
	rm -f $ETC/*.conf $RUN/*.conf $LIB/*.conf
	# Purge (test_zz_purge) must find /etc/tslack as the package left it.
	rmdir $ETC $RUN /run/tslack $LIB /usr/lib/tslack 2>/dev/null
	for s in rule-a rule-b rule-c rule-d; do systemctl stop $s.service 2>/dev/null; done
	[ -d "$U/hostile.slice" ] && find "$U/hostile.slice" -depth -type d -exec rmdir {} \;
	session_close_all
	systemctl stop tslackd.service
}
trap cleanup EXIT

map_empty() { [ -z "$(tslackctl list --json | tr -d '[] \n')" ]; }

cat >$ETC/50-test.conf <<RULES
# a system service, and those started later
/system.slice/rule-a.service 20ms
/system.slice/rule-[bc].service 20ms
# alice's apps: a cap and a minimum; her sessions' scopes
/user.slice/*/user@*.service/app.slice/rule-cap*  -  1ns
/user.slice/*/user@*.service/app.slice/rule-slow* 40ms
/user.slice/user-1000.slice/session-*.scope 10ms
RULES
# Masked by /etc's file of the same name: never read.
printf '/system.slice/rule-d.service 20ms\n' >$LIB/50-test.conf

pa=$(probe_file rule-a root)
service_start rule-a.service "$(probe_cmd "$pa")"
out=$(tslackd --check-config)
if printf '%s\n' "$out" | grep -q -x '/system.slice/rule-a.service 20ms' &&
	printf '%s\n' "$out" | grep -q "^# rule:$ETC/50-test.conf:2\$" &&
	! printf '%s\n' "$out" | grep -q rule-d; then
	pass check/lists_rules
else
	fail check/lists_rules "$out"
fi
systemctl start tslackd.service
expect_slack start/existing_unit "$RULE" "$pa"
eq start/status_source "rule:$ETC/50-test.conf:2" "$(status_source /system.slice/rule-a.service)"

# A unit started later gets it as its cgroup appears: a new cgroup wakes
# tslackd (inotify on /system.slice), and new-cgroup walks are at most
# 1 s apart, so the bound is 1 s; here the probe's 100 ms sleeps are
# counted.
# within_bound NAME WHAT FILE: the probe writing FILE slept with the rule's
# slack within ten of its 100 ms sleeps (the bound is 1 s).
within_bound() {
	_n=$(sleeps_before "$3" "$RULE")
	echo "# $2: $_n sleeps of 100 ms before the rule held"
	if [ "$_n" != never ] && [ "$_n" -le 10 ]; then
		pass "$1"
	else
		fail "$1" "$_n: $(tr '\n' ' ' <"$3")"
	fi
}
pb=$(probe_file rule-b root)
service_start rule-b.service "$(probe_cmd "$pb")"
within_bound new/unit_gets_rule "a new unit" "$pb"
id1=$(stat -c %i "$CG/system.slice/rule-b.service")
systemctl stop rule-b.service
poll 10 test ! -d "$CG/system.slice/rule-b.service"
pb=$(probe_file rule-b2 root)
service_start rule-b.service "$(probe_cmd "$pb")"
id2=$(stat -c %i "$CG/system.slice/rule-b.service")
[ "$id1" != "$id2" ] && pass restart/new_cgroup || fail restart/new_cgroup "$id1 = $id2"
within_bound restart/unit_gets_rule "the unit started again" "$pb"
pd=$(probe_file rule-d root)
service_start rule-d.service "$(probe_cmd "$pd")"
poll 10 has_lines "$pd" 5
eq mask/usr_lib_masked "$DEFAULT" "$(slack_of "$pd")"

# alice: her scope's rule, her apps' cap and minimum, then idle.
session_open alice
s=$(probe_file rule-shell alice)
cap=$(probe_file rule-cap alice)
slow=$(probe_file rule-slow alice)
app=$(probe_file rule-app alice)
session_spawn alice "$(probe_cmd "$s")"
user_app alice rule-cap.service "$(probe_cmd "$cap")"
user_app alice rule-slow.service "$(probe_cmd "$slow")"
user_app alice rule-plain.service "$(probe_cmd "$app")"
eq user/app_slice "/user.slice/user-1000.slice/user@1000.service/app.slice/rule-slow.service" \
	"$(user_unit_prop alice rule-slow.service ControlGroup)"
expect_slack user/scope_rule "$SCOPE" "$s"
expect_slack user/slow_rule "$SLOW" "$slow"
expect_slack user/plain_app "$DEFAULT" "$app"
session_run alice "/usr/sbin/tslackd --set-idle yes" | sed 's/^/# /'
expect_slack idle/session_wins_over_rule "$IDLE" "$s"
eq idle/status_source "session:$(session_id alice):idle" "$(status_source "$(session_scope alice)")"
expect_slack idle/user_app "$IDLE" "$app"
expect_slack idle/rule_cap_wins "$DEFAULT" "$cap"
expect_slack idle/larger_rule_min_wins "$SLOW" "$slow"
session_run alice "/usr/sbin/tslackd --set-idle no" | sed 's/^/# /'
expect_slack active/scope_rule_again "$SCOPE" "$s"

# Reload: a rule taken out is undone, one in /run is added.
sed -i '/rule-a.service/d' $ETC/50-test.conf
printf '/system.slice/rule-d.service 20ms\n' >$RUN/70-run.conf
systemctl reload tslackd.service
expect_slack reload/removed_undone "$DEFAULT" "$pa"
expect_slack reload/run_rule_added "$RULE" "$pd"

# A bad line: --check-config names it, reload keeps the running rules.
printf '/system.slice/rule-a.service 20ms\n/system.slice/x 1min\n' >$ETC/60-bad.conf
out=$(tslackd --check-config 2>&1)
rc=$?
case "$rc $out" in
"1 "*"$ETC/60-bad.conf:2: MIN '1min': at most 500ms"*) pass bad/check_names_line ;;
*) fail bad/check_names_line "$rc $out" ;;
esac
t0=$(journal_mark)
systemctl reload tslackd.service
if poll 10 eval 'journal_since "$t0" err | grep -q "60-bad.conf:2: "'; then
	pass bad/reload_logged
else
	fail bad/reload_logged "$(journal_since "$t0")"
fi
poll 10 has_lines "$pa" $(($(wc -l <"$pa") + 3))
eq bad/new_rules_not_used "$DEFAULT" "$(slack_of "$pa")"
eq bad/old_rules_kept "$RULE" "$(slack_of "$pb")"
rm $ETC/60-bad.conf

# A user making many cgroups (600) a glob matches: at most 512 get it,
# said once; tslackd stays small and the others' settings stay.
printf '/user.slice/*/user@*.service/hostile.slice/* 5ms\n' >$ETC/80-hostile.conf
systemctl reload tslackd.service
t0=$(journal_mark)
session_run alice "mkdir $(q "$U")/hostile.slice && cd $(q "$U")/hostile.slice && i=0 &&
	while [ \$i -lt 600 ]; do mkdir c\$i; i=\$((i + 1)); done" | sed 's/^/# /'
poll 10 eval '[ "$(journal_since "$t0" | grep -c "matches too many cgroups")" -ge 1 ]'
session_run alice "/usr/sbin/tslackd --set-idle yes" | sed 's/^/# /'
expect_slack hostile/idle_still_works "$IDLE" "$s"
eq hostile/logged_once 1 "$(journal_since "$t0" | grep -c "matches too many cgroups")"
held=$(tslackctl list | grep -c hostile.slice/)
rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$(systemctl show -P MainPID tslackd.service)/status")
echo "# 600 cgroups made, $held held; tslackd's VmRSS: $rss kB"
[ "$held" -le 512 ] && [ "$held" -ge 1 ] && pass hostile/bounded ||
	fail hostile/bounded "$held held"
[ "$rss" -lt 65536 ] && pass hostile/small "VmRSS ${rss} kB" || fail hostile/small "VmRSS ${rss} kB"
expect_slack hostile/others_kept "$RULE" "$pb"

# Stop undoes everything, rules' settings too.
systemctl stop tslackd.service
expect_slack stop/rule_undone "$DEFAULT" "$pb"
if map_empty; then pass stop/map_empty; else fail stop/map_empty "$(tslackctl list | head)"; fi
