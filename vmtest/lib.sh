# Shared settings for the vmtest scripts; sourced, not run.
# shellcheck shell=bash

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The kernel tree, its build output and the tools built from it live here,
# outside the repository. Set TSLACK_CACHE to move them.
CACHE=${TSLACK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tslack}
KSRC=$CACHE/linux-source-6.12
KBUILD=$CACHE/build
FRAGMENTS=("$TOP/vmtest/config.fragment")
# libbpf and bpftool (make passes its TOOLS, as TSLACK_TOOLS).
TOOLS=${TSLACK_TOOLS:-$CACHE/tools}
KTARBALL=${TSLACK_KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
JOBS=$(($(nproc) + 1))
# The series to build: every patch of kernel-patch/ but the cover letter.
# make bisect-check points PATCH_DIR at a prefix of it.
PATCH_DIR=${TSLACK_PATCH_DIR:-$TOP/kernel-patch}
series() { ls "$PATCH_DIR"/[0-9][0-9][0-9][0-9]-*.patch | grep -v '/0000-'; }
# Fixes to 6.12 itself, not part of the series: both the patched and the
# vanilla kernel are built on them (kernel-patch/base/README).
BASE_DIR=$TOP/kernel-patch/base
base_series() { ls "$BASE_DIR"/[0-9][0-9][0-9][0-9]-*.patch 2>/dev/null || true; }

log() { printf 'vmtest: %s\n' "$*" >&2; }
die() { printf 'vmtest: error: %s\n' "$*" >&2; exit 1; }

# --debug: the lockdep/KASAN variant, built beside the normal one.
use_debug_kernel() {
	KBUILD=$CACHE/build-debug
	FRAGMENTS+=("$TOP/vmtest/config-debug.fragment")
}

# The machine's own apt sources file, which mmdebstrap pastes into a new
# root: no mirror is named here.
apt_sources() {
	local f
	for f in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	die "no apt sources file on this machine"
}

# forbid_service_starts ROOT: a policy-rc.d in ROOT, so that maintainer
# scripts run in a chroot there start nothing (invoke-rc.d,
# deb-systemd-invoke) on this machine.
forbid_service_starts() {
	printf '#!/bin/sh\nexit 101\n' >"$1/usr/sbin/policy-rc.d"
	chmod 0755 "$1/usr/sbin/policy-rc.d"
}

# fresh_root DIR: a fresh Debian 12 minbase root in DIR, from the machine's
# apt sources, where packages are installed as on a user's machine (see
# in_root), with libelf1, libjson-c5 and procps, tslack's dependencies
# outside minbase (libjson-c5 is optional: only cryptsetup and the like
# pull it in), already in so that installing needs no network. Made once with mmdebstrap and
# cached as a tarball, rebuilt when its recipe changes. Starting services
# is forbidden there. Needs root.
fresh_root() {
	local pkgs=libelf1,libjson-c5,procps cache=$CACHE/deb-root-bookworm recipe
	recipe="minbase bookworm packages $pkgs"
	if [ ! -f "$cache/root.tar" ] || [ "$(cat "$cache/recipe" 2>/dev/null)" != "$recipe" ]; then
		rm -rf "$cache.tmp" && mkdir -p "$cache.tmp"
		mmdebstrap --quiet --variant=minbase --include="$pkgs" bookworm \
			"$cache.tmp/root.tar" "$(apt_sources)" || return 1
		printf '%s\n' "$recipe" >"$cache.tmp/recipe"
		rm -rf "$cache" && mv "$cache.tmp" "$cache"
	fi
	mkdir -p "$1" && tar -C "$1" -xf "$cache/root.tar" && forbid_service_starts "$1"
}

# in_root DIR COMMAND...: COMMAND in the chroot DIR with a clean environment.
in_root() {
	local root=$1
	shift
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"
}
