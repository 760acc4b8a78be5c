#!/usr/bin/env bash
# The Debian package (make deb): lintian finds no error, it holds what it
# should, and it installs with apt into a fresh Debian 12 root, where the
# programs run and both units are enabled; purging it leaves nothing.
# Prints PASS/FAIL lines for the summary. Needs root (chroot, and
# mmdebstrap the first time: the root is cached in $TSLACK_CACHE, rebuilt
# when its recipe changes). No service is started: a policy-rc.d forbids
# it, and the chroot has no systemd running.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/vmtest/lib.sh"
cache=$CACHE
check() { if eval "$2"; then echo "PASS $1"; else echo "FAIL $1: $3"; fi; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
deb=$top/build/deb/tslack_${version}_amd64.deb
changes=$top/build/deb/tslack_${version}_amd64.changes

# build/deb is up to date when no file of the tree is newer than the .deb.
newer=
if [ -f "$deb" ] && [ -f "$changes" ]; then
	newer=$(cd "$top" && git ls-files -z --cached --others --exclude-standard 2>/dev/null |
		xargs -0 -r sh -c 'for f; do [ "$f" -nt "$0" ] && echo "$f"; done' "$deb" 2>/dev/null |
		head -n 1)
else
	newer=none
fi
if [ -n "$newer" ]; then
	if ! make -s -C "$top" deb >"$work/build.log" 2>&1; then
		echo "FAIL deb/build: $(grep -v '^[IPW]: ' "$work/build.log" | tail -n 3 | tr '\n' ' ')"
		exit 1
	fi
fi
echo "PASS deb/build"
# The package's BPF objects are built against dist/vmlinux.h, a snapshot:
# it must be the BTF of the kernel make test builds from the series. The
# same lines: a clean and an incremental build of one tree order some
# forward declarations differently.
[ -f "$top/bpf/vmlinux.h" ] &&
	check deb/vmlinux_snapshot \
		'cmp -s <(sort "$top/bpf/vmlinux.h") <(sort "$top/dist/vmlinux.h")' \
		"dist/vmlinux.h is not the built kernel's BTF: run 'make vmlinux-snapshot'"

lintian --fail-on error "$changes" >"$work/lintian.txt" 2>&1
rc=$?
check deb/lintian_no_error '[ $rc = 0 ] && ! grep -q "^E: " "$work/lintian.txt"' \
	"$(grep '^E: ' "$work/lintian.txt" | head -n 3 | tr '\n' ' ')"

want="./usr/sbin/tslackctl ./usr/sbin/tslackd ./usr/share/man/man8/tslackctl.8.gz
	./usr/share/man/man8/tslackd.8.gz ./usr/share/bash-completion/completions/tslackctl
	./etc/tslack/tslackd.conf ./lib/systemd/system/tslack.service
	./lib/systemd/system/tslackd.service ./lib/systemd/system/tslack-follow.service
	./usr/share/doc/tslack/copyright ./usr/share/doc/tslack/examples/slack.d/50-kubelet.conf
	./usr/share/doc/tslack/examples/slack.d/60-desktop.conf
	./usr/share/man/man5/tslackd.conf.5.gz ./usr/share/man/man5/tslack-slack.d.5.gz"
dpkg-deb -c "$deb" | awk '{ print $6 }' >"$work/files"
missing=
for f in $want; do grep -qx -- "$f" "$work/files" || missing="$missing $f"; done
check deb/files '[ -z "$missing" ]' "missing:$missing"
# bookworm's systemd looks in /lib; lintian 2.116 flags /usr/lib/systemd/system.
check deb/no_usr_lib_units '! grep -q "^./usr/lib/systemd/system/." "$work/files"' \
	"$(grep '^./usr/lib/systemd/system/.' "$work/files" | tr '\n' ' ')"
check deb/conffile '[ "$(dpkg-deb --ctrl-tarfile "$deb" |
	tar -xOf - ./conffiles)" = /etc/tslack/tslackd.conf ]' "conffiles is not /etc/tslack/tslackd.conf"
check deb/shared_libs 'dpkg-deb -f "$deb" Depends | grep -q libelf1 &&
	dpkg-deb -f "$deb" Depends | grep -q zlib1g && dpkg-deb -f "$deb" Depends | grep -q libsystemd0 &&
	dpkg-deb -f "$deb" Depends | grep -q libjson-c5' \
	"Depends: $(dpkg-deb -f "$deb" Depends)"
# /bin/kill, tslackd.service's ExecReload.
check deb/depends_procps 'dpkg-deb -f "$deb" Depends | grep -q -w procps' \
	"Depends: $(dpkg-deb -f "$deb" Depends)"

root=$work/root
if ! fresh_root "$root" >"$work/root.log" 2>&1; then
	echo "FAIL deb/root: $(tail -n 3 "$work/root.log" | tr '\n' ' ')"
	exit 1
fi
cp "$deb" "$root/tmp/"

in_root "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	"./tmp/${deb##*/}" >"$work/apt.log" 2>&1 </dev/null
rc=$?
check deb/apt_install '[ $rc = 0 ] && in_root "$root" dpkg-query -W -f="\${Status}" tslack | grep -q "ok installed"' \
	"$(tail -n 3 "$work/apt.log" | tr '\n' ' ')"
check deb/tslackctl_help 'in_root "$root" tslackctl --help | head -n 1 | grep -q "^Usage: tslackctl "' \
	"$(in_root "$root" tslackctl --help 2>&1 | head -n 2 | tr '\n' ' ')"
check deb/tslackctl_version '[ "$(in_root "$root" tslackctl --version)" = "tslackctl $version" ]' \
	"'$(in_root "$root" tslackctl --version 2>&1)', want 'tslackctl $version'"
check deb/tslackd_version 'in_root "$root" tslackd --version | grep -q "$version"' \
	"'$(in_root "$root" tslackd --version 2>&1)'"
check deb/tslackd_help 'in_root "$root" tslackd --help | head -n 1 | grep -q "^Usage: tslackd"' \
	"$(in_root "$root" tslackd --help 2>&1 | head -n 2 | tr '\n' ' ')"
for u in tslack tslackd; do
	check "deb/enabled_$u" '[ "$(systemctl --root="$root" is-enabled $u.service 2>&1)" = enabled ]' \
		"is-enabled: $(systemctl --root="$root" is-enabled $u.service 2>&1)"
done
check deb/not_started '[ ! -e "$root/run/tslackd" ]' "/run/tslackd exists after the install"

# What tslackd would have left in /run, then purge.
mkdir -p "$root/run/tslackd" "$root/etc/tslack/tslackd.conf.d"
echo x >"$root/run/tslackd/state"
echo "[Slack]" >"$root/etc/tslack/tslackd.conf.d/50-local.conf"
in_root "$root" env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q tslack >"$work/purge.log" 2>&1 </dev/null
rc=$?
check deb/apt_purge '[ $rc = 0 ]' "$(tail -n 3 "$work/purge.log" | tr '\n' ' ')"
# Purged: dpkg lists no file of it and has no record of it left (or "un").
status=$(in_root "$root" dpkg-query -W -f='${db:Status-Abbrev}' tslack 2>/dev/null | tr -d ' ')
check deb/purged_dpkg '! in_root "$root" dpkg -L tslack >/dev/null 2>&1 && { [ -z "$status" ] || [ "$status" = un ]; }' \
	"dpkg still knows it: $(in_root "$root" dpkg-query -W -f='${Status}' tslack 2>&1)"
left=$(cd "$root" && ls -d etc/tslack run/tslackd usr/sbin/tslackctl usr/sbin/tslackd \
	lib/systemd/system/tslack*.service etc/systemd/system/*/tslack*.service \
	var/lib/systemd/deb-systemd-helper-enabled/tslack* \
	var/lib/systemd/deb-systemd-helper-enabled/*/tslack* 2>/dev/null | tr '\n' ' ')
check deb/purged_files '[ -z "$left" ]' "left: $left"
