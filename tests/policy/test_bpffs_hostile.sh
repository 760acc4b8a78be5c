#!/bin/sh
# bpffs world-writable (mode 1777: what mount makes without mode=, by hand
# or in a container), and uid 1000 making tslack's names first: a symlink
# to root's files as a dead attach's leftover, as the pin directory and as
# the next attach's own directory; a pin directory of its own, locked.
# Root's tslackctl follows none of them, uses none, says what it found in
# one line, and never hangs; no user can hold root's lock.
. /usr/local/lib/tslack/harness.sh
plan 7

B=/sys/fs/bpf
U="tslack-probe as-user 1000"
# Seconds before a tslackctl command counts as hung (TCG is slow).
T=60
# Root's files, named like pins, where the users' symlinks point: the
# pin directory's names but "policy", so that its absence reads as what
# a killed detach leaves.
VICTIM=/tmp/victim VICTIM2=/tmp/victim2
ALL="effective invalidate mkdir policy query rmdir settings"
ALL2="effective invalidate mkdir query rmdir settings"
mkdir -p "$VICTIM" "$VICTIM2" "$CG/bh"
for f in $ALL; do echo root >"$VICTIM/$f"; done
for f in $ALL2; do echo root >"$VICTIM2/$f"; done
left() { echo $(ls "$1"); }
# first_line COMMAND...: its exit status and its first line on stderr.
first_line() {
	_out=$(timeout $T "$@" 2>&1 >/dev/null)
	echo "$? $(echo "$_out" | head -n 1)"
}
not_ours() { echo "tslackctl: $B/$1: $2, not made by tslackctl: $3"; }
not_attached="tslackctl: tslack is not attached: run 'tslackctl attach' first"

tslackctl detach
mount_opts=$(awk -v b=$B '$2 == b { print $4 }' /proc/mounts)
umount $B && mount -t bpf -o mode=1777 bpf $B ||
	{ echo "cannot remount $B with mode=1777"; exit 1; }
# Not relied upon: a container or distribution may not set it.
protected=$(cat /proc/sys/fs/protected_symlinks)
echo 0 >/proc/sys/fs/protected_symlinks

# A symlink named like the leftover of a dead attach: left alone.
true &
dead=$!
wait $dead
$U ln -s "$VICTIM" "$B/tslack-attaching-$dead"
msg=$(not_ours "tslack-attaching-$dead" "a symbolic link" "left alone")
eq hostile/dead_attach_symlink "0 $msg|0 $msg|$ALL|link" \
	"$(first_line tslackctl attach)|$(first_line tslackctl detach)|$(left "$VICTIM")|$(
		[ -L "$B/tslack-attaching-$dead" ] && echo link)"
rm "$B/tslack-attaching-$dead"

# A symlink as the pin directory: refused, never locked nor emptied.
$U ln -s "$VICTIM2" "$B/tslack"
eq hostile/pin_dir_symlink \
	"1 $(not_ours tslack "a symbolic link" "remove it and attach again")|1 $not_attached|0 $(not_ours tslack "a symbolic link" "left alone")|$ALL2" \
	"$(first_line tslackctl attach)|$(first_line tslackctl set bh 1ms)|$(first_line tslackctl detach)|$(left "$VICTIM2")"
rm "$B/tslack"

# A pin directory a user made first, and holds locked: nothing waits on
# it, nothing is removed from it.
$U mkdir "$B/tslack" "$B/tslack/mine"
$U tslack-probe lock "$B/tslack" sleep 600 &
holder=$!
ino=$(stat -c %i "$B/tslack")
poll 10 grep -q ":$ino " /proc/locks || echo "# the user's lock was not seen in /proc/locks"
eq hostile/user_pin_dir_attach \
	"1 $(not_ours tslack "a directory of uid 1000" "remove it and attach again")" \
	"$(first_line tslackctl attach)"
eq hostile/user_pin_dir_set "1 $not_attached" "$(first_line tslackctl set bh 1ms)"
eq hostile/user_pin_dir_detach \
	"0 $(not_ours tslack "a directory of uid 1000" "left alone")|mine" \
	"$(first_line tslackctl detach)|$(left "$B/tslack")"
kill "$holder"
wait "$holder" 2>/dev/null
$U rm -r "$B/tslack"

# The next attach's own directory, made first by a user who guessed its
# pid (here: the shell that becomes tslackctl): refused, nothing attached.
out=$(timeout $T sh -c 'echo $$; tslack-probe as-user 1000 ln -s "$1" "$2-$$" &&
	exec tslackctl attach' sh "$VICTIM" "$B/tslack-attaching" 2>&1)
rc=$?
pid=$(echo "$out" | head -n 1)
msg=$(not_ours "tslack-attaching-$pid" "a symbolic link" "remove it and attach again")
rm -f "$B/tslack-attaching-$pid"
eq hostile/attach_dir_symlink "1|$msg|$ALL|0|" \
	"$rc|$(echo "$out" | sed -n 2p)|$(left "$VICTIM")|$(first_line tslackctl attach | cut -c1)|$(
		ls $B | grep -v '^tslack$')"

# Root's pin directory, now attached: no user may open it to lock it,
# nor rename it away (the sticky bit); root's commands never wait.
eq hostile/user_cannot_lock "1|1|0 " \
	"$($U tslack-probe lock "$B/tslack" true 2>/dev/null; echo $?)|$(
		$U mv "$B/tslack" "$B/mine" 2>/dev/null; echo $?)|$(first_line tslackctl set bh 1ms)"

tslackctl detach
rmdir "$CG/bh"
rm -r "$VICTIM" "$VICTIM2"
echo "$protected" >/proc/sys/fs/protected_symlinks
# As the other tests expect it: as the guest's init mounted it, empty.
umount $B && mount -t bpf -o "$mount_opts" bpf $B &&
	[ "$(awk -v b=$B '$2 == b { print $4 }' /proc/mounts)" = "$mount_opts" ] ||
	{ echo "cannot mount $B back with $mount_opts"; exit 1; }
exit 0
