# Shell helpers for the tests, stress and bench scripts in the VM; sourced.
# shellcheck shell=sh
CG=/sys/fs/cgroup
MAP=/sys/fs/bpf/tslack/settings

# plan N: this script makes N checks; tests/run-in-vm fails it otherwise.
plan() { echo "PLAN $1"; }
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }

# eq NAME WANT GOT
eq() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got '$3', want '$2'"; fi
}

# poll SECONDS COMMAND...: run COMMAND every 0.1 s until it succeeds; fail
# after SECONDS. TCG is slow: allow a few seconds, never sleep for fixed ones.
poll() {
	_tries=$(($1 * 10))
	shift
	while ! "$@"; do
		_tries=$((_tries - 1))
		[ "$_tries" -gt 0 ] || return 1
		sleep 0.1
	done
}

# For make bench: one "RESULT NAME VALUE..." line, which bench/run reads.
res() { echo "RESULT $*"; }
# bench_sleepers [PROC_SLACK_NS]: tslack-bench's 16 sleepers at 10 ms in
# /wk for $SECONDS_PER_RUN s, 2 s after the command before: without that
# pause the run right after an attach counted 10-15% fewer interrupts
# (deferred work of the attach, set or detach).
bench_sleepers() {
	sleep 2
	in_cg wk tslack-bench sleepers 16 "$SECONDS_PER_RUN" 10 "$@"
}

# in_cg CGROUP COMMAND...: run COMMAND in CGROUP (relative to $CG).
in_cg() {
	_cg=$1
	shift
	sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$CG/$_cg" "$@"
}

# in_cg_bg CGROUP COMMAND...: the same in the background; $! is COMMAND's
# pid (not a subshell's, as with "in_cg ... &"), so it can be moved.
in_cg_bg() {
	_cg=$1
	shift
	sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$CG/$_cg" "$@" &
}

# The effective slack the kernel reports to a task in CGROUP.
slack_in() { in_cg "$1" tslack-probe effective; }

# le64 N: the 8 bytes of N, little-endian, as bpftool takes them (-1 is
# U64_MAX).
le64() {
	_n=$1 _out=
	for _ in 1 2 3 4 5 6 7 8; do
		_out="$_out $((_n & 255))"
		_n=$((_n >> 8))
	done
	echo $_out
}

# map_write CGROUP MIN MAX: write CGROUP's setting as a script would, with
# bpftool alone.
map_write() {
	# shellcheck disable=SC2046 # the bytes are meant to split
	bpftool map update pinned "$MAP" key $(le64 "$(stat -c %i "$CG/$1")") \
		value $(le64 "$2") $(le64 "$3")
}

# Everything in the map, for checking that a command changed nothing.
map_state() { bpftool map dump pinned "$MAP" 2>&1 | sort; }

# expect_error NAME EXIT MESSAGE COMMAND...: COMMAND exits with EXIT, its
# first line on stderr is MESSAGE, and the map is as it was.
expect_error() {
	_name=$1 _rc=$2 _msg=$3
	shift 3
	_before=$(map_state)
	_got=$("$@" 2>&1 >/dev/null | head -n 1)
	_got_rc=$("$@" >/dev/null 2>&1; echo $?)
	_after=$(map_state)
	if [ "$_got_rc" != "$_rc" ]; then
		fail "$_name" "exit $_got_rc, want $_rc ($_got)"
	elif [ "$_got" != "$_msg" ]; then
		fail "$_name" "said '$_got', want '$_msg'"
	elif [ "$_before" != "$_after" ]; then
		fail "$_name" "the map changed"
	else
		pass "$_name"
	fi
}

# Expected outputs, pinned as util-linux's tests pin theirs: tests/expected/.
EXPECTED=/usr/local/lib/tslack/expected

# norm [VALUE NAME]...: stdin with each number VALUE (an id, a pid) written
# NAME, and what varies from run to run in --json output, rates ("12.3")
# and durations in seconds ("1.002"), written RATE and SECONDS.
norm() {
	_sed='s/\([^0-9.]\)[0-9][0-9]*\.[0-9][0-9][0-9]\([^0-9]\)/\1SECONDS\2/g'
	_sed="$_sed; s/\([^0-9.]\)[0-9][0-9]*\.[0-9]\([^0-9]\)/\1RATE\2/g"
	while [ $# -ge 2 ]; do
		_sed="$_sed; s/\([^0-9]\)$1\([^0-9]\)/\1$2\2/g"
		shift 2
	done
	sed "$_sed"
}

# expect_file NAME FILE GOT: GOT is what $EXPECTED/FILE holds.
expect_file() {
	if [ ! -f "$EXPECTED/$2" ]; then
		fail "$1" "no $EXPECTED/$2"
	elif [ "$(cat "$EXPECTED/$2")" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "got '$3', want '$(cat "$EXPECTED/$2")' ($2)"
	fi
}
