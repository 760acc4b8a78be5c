#!/bin/sh
# tslackctl set on a cgroup that is being removed, 300 times. The policy
# deletes the entry of a removed cgroup, but a set may write it just after;
# set must see that and leave no stale entry (without that check, a run
# here left 2 in 300). Each set either works or says the cgroup is gone.
. /usr/local/lib/tslack/harness.sh
plan 2

tslackctl detach
tslackctl attach || { fail set_rmdir/attach "tslackctl attach failed"; exit 1; }
i=0 other=
while [ "$i" -lt 300 ]; do
	mkdir "$CG/race$i"
	rmdir "$CG/race$i" &
	out=$(tslackctl set "race$i" 5ms 2>&1)
	case $out in
	"" | *": no such cgroup" | *": removed while its setting was written") ;;
	*) other="$other$out|" ;;
	esac
	wait
	i=$((i + 1))
done
eq set_rmdir/only_known_outcomes "" "$other"
out=$(tslackctl check 2>&1)
rc=$?
eq set_rmdir/no_stale_entry "exit 0" "$(echo "$out" | grep stale)exit $rc"
tslackctl detach
exit 0
