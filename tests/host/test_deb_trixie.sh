#!/usr/bin/env bash
# Debian 13's package (make deb-trixie): built in a trixie root with
# trixie's own libbpf-dev, bpftool and debhelper, lintian (trixie's) finds
# no error or warning, and it is what Debian 13 wants: units in
# /usr/lib/systemd/system, libbpf the system's shared libbpf1 (no bundled
# copy, no Built-Using), a version above Debian 12's. The guests install it
# (vmtest/run-pertask-tests, vmtest/run-systemd-tests). Prints PASS/FAIL
# lines for the summary. Needs root (mmdebstrap, chroot).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
check() { if eval "$2"; then echo "PASS $1"; else echo "FAIL $1: $3"; fi; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

out=$top/build/deb/trixie
v12=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
if ! "$top/vmtest/build-deb" --suite trixie >"$work/build.log" 2>&1; then
	echo "FAIL deb13/build: $(grep -v '^[IPN]: ' "$work/build.log" | tail -n 3 | tr '\n' ' ')"
	exit 1
fi
echo "PASS deb13/build"
deb=$(ls "$out"/tslack_*_amd64.deb)
check deb13/lintian_clean '! grep -q "^[EW]: " "$out/lintian.txt"' \
	"$(grep '^[EW]: ' "$out/lintian.txt" | head -n 3 | tr '\n' ' ')"
v13=$(dpkg-deb -f "$deb" Version)
check deb13/version_above_12 'dpkg --compare-versions "$v13" gt "$v12"' "$v13 is not above $v12"
dpkg-deb -c "$deb" | awk '{ print $6 }' >"$work/files"
check deb13/usr_lib_units '[ "$(grep -c "^./usr/lib/systemd/system/tslack.*\.service$" "$work/files")" = 3 ] &&
	! grep -q "^./lib/" "$work/files"' "$(grep 'systemd/system/.' "$work/files" | tr '\n' ' ')"
depends=$(dpkg-deb -f "$deb" Depends)
check deb13/shared_libbpf 'echo "$depends" | grep -q "libbpf1 (>= 1:1\." &&
	! echo "$depends" | grep -q -w -e libelf1 -e zlib1g' "Depends: $depends"
check deb13/no_built_using '[ -z "$(dpkg-deb -f "$deb" Built-Using)" ]' \
	"Built-Using: $(dpkg-deb -f "$deb" Built-Using)"
dpkg-deb -x "$deb" "$work/x"
for p in tslackctl tslackd; do
	check "deb13/${p}_links_libbpf" 'readelf -d "$work/x/usr/sbin/$p" | grep -q "NEEDED.*\[libbpf\.so\.1\]"' \
		"$p does not link libbpf.so.1: $(readelf -d "$work/x/usr/sbin/$p" | grep NEEDED | tr -s ' ' | tr '\n' ' ')"
done
check deb13/no_build_path '! grep -q "^I: .*file-references-package-build-path" "$out/lintian.txt"' \
	"$(grep 'build-path' "$out/lintian.txt" | tr '\n' ' ')"
