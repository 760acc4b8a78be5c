#!/usr/bin/env bash
# make kernel-deb from the test kernel's configuration, as make test runs
# it: the packages build from its build directory (no second kernel
# build), with a release of their own, and the image carries the hook and
# BTF. make test then boots this package's vmlinuz in the systemd guest.
# Prints PASS/FAIL lines for the summary.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/vmtest/lib.sh"
check() { if eval "$2"; then echo "PASS $1"; else echo "FAIL $1: $3"; fi; }
log=$(mktemp)
root=$(mktemp -d)
trap 'rm -rf "$log" "$root"' EXIT

if ! "$top/vmtest/build-kernel-deb" "$KBUILD/.config" >"$log" 2>&1; then
	echo "FAIL kernel-deb/build: $(grep -m1 -E 'error|Error' "$log" || tail -n 1 "$log")"
	exit 1
fi
release=$(cat "$KBUILD/include/config/kernel.release")
image=$(echo "$top"/build/kernel-deb/linux-image-"$release"_*.deb)
check kernel-deb/build '[ -f "$image" ]' "no linux-image-$release package: $(ls "$top/build/kernel-deb")"
check kernel-deb/release '[ "${release%-tslack}" != "$release" ]' "release $release"
check kernel-deb/same_build 'grep -q "building the kernel packages in $KBUILD\$" "$log"' \
	"$(grep -m1 'building the kernel packages' "$log")"
files=$(dpkg-deb -c "$image" 2>/dev/null | awk '{ print $NF }')
check kernel-deb/vmlinuz 'grep -qx "./boot/vmlinuz-$release" <<<"$files"' "$(head -c 300 <<<"$files")"
config=$(dpkg-deb --fsys-tarfile "$image" | tar -xO "./boot/config-$release" 2>/dev/null)
check kernel-deb/config 'grep -qx CONFIG_TIMER_SLACK_BPF=y <<<"$config" &&
	grep -qx CONFIG_DEBUG_INFO_BTF=y <<<"$config"' "hook or BTF missing from config-$release"
check kernel-deb/no_libc_dev '! ls "$top"/build/kernel-deb/linux-libc-dev_* >/dev/null 2>&1' \
	"linux-libc-dev would replace Debian's"

# Installed and removed with apt-get in a fresh Debian 12 root, as on a
# user's machine (minbase has no initramfs-tools or GRUB, whose hooks in
# /etc/kernel run there too).
if fresh_root "$root" >"$log" 2>&1; then
	cp "$image" "$root/tmp/"
	in_root "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "./tmp/${image##*/}" >"$log" 2>&1 </dev/null
	check kernel-deb/apt_install '[ -f "$root/boot/vmlinuz-$release" ]' "$(tail -n 2 "$log" | tr '\n' ' ')"
	in_root "$root" env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q \
		"linux-image-$release" >"$log" 2>&1 </dev/null
	check kernel-deb/apt_purge '[ ! -e "$root/boot/vmlinuz-$release" ] &&
		! in_root "$root" dpkg -L "linux-image-$release" >/dev/null 2>&1' "$(tail -n 2 "$log" | tr '\n' ' ')"
else
	echo "FAIL kernel-deb/root: $(tail -n 2 "$log" | tr '\n' ' ')"
fi
exit 0
