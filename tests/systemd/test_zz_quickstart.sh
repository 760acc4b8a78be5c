#!/bin/sh
# The README's quick start, as written, in the systemd guest on Debian's
# own kernel with the package installed as apt-get installs it: each line
# of its block of commands (without sudo: the tests run as root) must
# succeed; a setting must reach a service's threads and go; then the
# package's removal stops the units and detaches, every thread with its
# own slack back. Last in per-task mode's suite: it removes the package.
. /usr/local/lib/tslack/systemd-lib.sh
readme=/usr/local/lib/tslack/README.md
# The block after "Then:", one command a line.
cmds=$(awk '/^Then:$/ { on = 1; next } on && /^```$/ { if (inblock) exit; inblock = 1; next }
	inblock { print }' "$readme" | sed 's/^sudo //')
n=$(printf '%s\n' "$cmds" | grep -c .)
plan $((n + 4))

j=$(pidof systemd-journald)
own=$(cat /proc/"$j"/timerslack_ns)
i=0
printf '%s\n' "$cmds" | while IFS= read -r line; do
	i=$((i + 1))
	out=$(sh -c "$line" 2>&1 </dev/null)
	rc=$?
	echo "# \$ $line"
	printf '%s\n' "$out" | head -n 4 | sed 's/^/#   /'
	[ $rc = 0 ] && pass "quickstart/line_$i" || fail "quickstart/line_$i" "exit $rc: $line: $out"
	# After the second line, system.slice's 20 ms must reach the journal's threads.
	if [ $i = 2 ]; then
		poll 10 eval '[ "$(cat /proc/$j/timerslack_ns)" = 20000000 ]'
		eq quickstart/reached_service 20000000 "$(cat /proc/"$j"/timerslack_ns)"
	fi
done
eq quickstart/own_back "$own" "$(cat /proc/"$j"/timerslack_ns)"

# The quick start exempted the journal: raised again, then the removal.
tslackctl set --max --unit=systemd-journald.service 0
tslackctl set system.slice 20ms
poll 10 eval '[ "$(cat /proc/$j/timerslack_ns)" = 20000000 ]'
DEBIAN_FRONTEND=noninteractive apt-get remove -y -q tslack >/dev/null 2>&1
eq quickstart/removed_own_back "$own|inactive" \
	"$(cat /proc/"$j"/timerslack_ns)|$(systemctl is-active tslack.service)"
eq quickstart/removed_nothing_pinned "" "$(ls /sys/fs/bpf/tslack 2>/dev/null)"
exit 0
