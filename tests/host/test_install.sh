#!/usr/bin/env bash
# make install into a DESTDIR on the host: every file lands where PREFIX
# says, the unit points at the installed tslackctl and passes
# systemd-analyze verify, the completion parses, and uninstall removes
# it all. Prints PASS/FAIL lines for the summary; runs nothing it installs
# but tslackctl --version.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
check() { if eval "$2"; then echo "PASS $1"; else echo "FAIL $1: $3"; fi; }

if ! make -s -C "$top" install DESTDIR="$dest" PREFIX=/usr >"$dest.log" 2>&1; then
	echo "FAIL install/make: $(tail -n 3 "$dest.log" | tr '\n' ' ')"
	rm -f "$dest.log"
	exit 1
fi
rm -f "$dest.log"
files="usr/sbin/tslackctl usr/share/man/man8/tslackctl.8
	usr/share/bash-completion/completions/tslackctl usr/lib/systemd/system/tslack.service
	usr/sbin/tslackd usr/share/man/man8/tslackd.8 usr/lib/systemd/system/tslackd.service
	usr/lib/systemd/system/tslack-follow.service etc/tslack/tslackd.conf
	usr/share/doc/tslack/examples/slack.d/50-kubelet.conf"
missing=
for f in $files; do [ -f "$dest/$f" ] || missing="$missing $f"; done
check install/files '[ -z "$missing" ]' "missing:$missing"
check install/version '"$dest/usr/sbin/tslackctl" --version | grep -q "^tslackctl "' \
	"tslackctl --version: $("$dest/usr/sbin/tslackctl" --version 2>&1)"
unit=$dest/usr/lib/systemd/system/tslack.service
check install/unit_paths 'grep -qx "ExecStart=/usr/sbin/tslackctl attach" "$unit" &&
	grep -qx "ExecStop=/usr/sbin/tslackctl detach" "$unit" &&
	grep -qx "ExecCondition=/usr/sbin/tslackctl supported" "$unit"' "$(grep ^Exec "$unit")"
dunit=$dest/usr/lib/systemd/system/tslackd.service
check install/daemon_unit_paths 'grep -qx "ExecStart=/usr/sbin/tslackd" "$dunit" &&
	grep -qx "ExecCondition=/usr/sbin/tslackctl supported" "$dunit"' \
	"$(grep ^Exec "$dunit")"
if command -v systemd-analyze >/dev/null; then
	# The units name /usr/sbin: verify them against the DESTDIR's.
	for u in tslack tslack-follow tslackd; do
		sed "s|/usr/sbin/|$dest/usr/sbin/|" "$dest/usr/lib/systemd/system/$u.service" \
			>"$dest/$u.service"
	done
	out=$(cd "$dest" && MANPATH=$dest/usr/share/man \
		systemd-analyze verify "$dest/tslack.service" "$dest/tslack-follow.service" \
		"$dest/tslackd.service" 2>&1 | grep -v '^$')
	check install/unit_verifies '[ -z "$out" ]' "$out"
else
	echo "FAIL install/unit_verifies: no systemd-analyze on this machine"
fi
# The shipped configuration is the defaults, commented out: it reads back as them.
check install/config_defaults \
	'[ "$("$dest/usr/sbin/tslackd" --check-config --config-dir "$dest/etc/tslack")" = \
	   "$("$dest/usr/sbin/tslackd" --check-config --config-dir /nonexistent)" ]' \
	"$("$dest/usr/sbin/tslackd" --check-config --config-dir "$dest/etc/tslack" 2>&1 | head -n 2)"
# The example rules, copied into a slack.d as the README says, read back as
# the one rule they hold (tests/systemd/test_rules_kubelet.sh applies them).
mkdir -p "$dest/kubelet/slack.d"
cp "$dest/usr/share/doc/tslack/examples/slack.d/50-kubelet.conf" "$dest/kubelet/slack.d/"
got=$("$dest/usr/sbin/tslackd" --check-config --config-dir "$dest/kubelet" 2>&1 |
	awk -v f="# rule:$dest/kubelet/slack.d/50-kubelet.conf:" 'index($0, f) == 1 { getline; print }')
check install/example_kubelet '[ "$got" = "/kubepods.slice/kubepods-besteffort.slice 50ms" ]' \
	"rules read: '$got'"
rm -rf "$dest/kubelet"
# The desktop example: every one of its 11 rules reads back.
mkdir -p "$dest/desktop/slack.d"
cp "$dest/usr/share/doc/tslack/examples/slack.d/60-desktop.conf" "$dest/desktop/slack.d/"
got=$("$dest/usr/sbin/tslackd" --check-config --config-dir "$dest/desktop" 2>&1 |
	grep -c "^# rule:$dest/desktop/slack.d/60-desktop.conf:")
check install/example_desktop '[ "$got" = 11 ]' "rules read: $got"
rm -rf "$dest/desktop"
# What the installed completion offers, through bash-completion itself.
complete_line() {
	bash -c 'source /usr/share/bash-completion/bash_completion && source "$1" &&
		COMP_LINE=$2 && read -ra COMP_WORDS <<<"$COMP_LINE" &&
		{ [ "${COMP_LINE: -1}" != " " ] || COMP_WORDS+=(""); } &&
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) COMP_POINT=${#COMP_LINE} &&
		_tslackctl && echo "${COMPREPLY[*]}"' sh \
		"$dest/usr/share/bash-completion/completions/tslackctl" "$1"
}
got="$(complete_line "tslackctl st")|$(complete_line "tslackctl top --sort ")"
check install/completion '[ "$got" = "status stats|wakeups path slack" ]' "offered '$got'"
for m in man8/tslackctl.8 man8/tslackd.8 man5/tslackd.conf.5 man5/tslack-slack.d.5; do
	page=$(basename "$m")
	check "install/man_page_${page%.*}" \
		'[ -f "$dest/usr/share/man/$m" ] &&
		 ! man -l --warnings "$dest/usr/share/man/$m" 2>&1 >/dev/null | grep -q .' \
		"$(man -l --warnings "$dest/usr/share/man/$m" 2>&1 >/dev/null | head -n 2)"
done
make -s -C "$top" uninstall DESTDIR="$dest" PREFIX=/usr
left=$(find "$dest/usr" -type f)
check install/uninstall '[ -z "$left" ]' "left: $left"
