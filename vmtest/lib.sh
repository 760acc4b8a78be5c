# Shared settings for the vmtest scripts; sourced, not run.
# shellcheck shell=bash

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The kernel tree, its build output and the tools built from it live here,
# outside the repository. Set TSLACK_CACHE to move them.
CACHE=${TSLACK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tslack}
# Two kernel lines: TSLACK_KERNEL=6.12 (the default: make test and the
# packages), Debian's linux-source-6.12 with the backport of
# kernel-patch/6.12/; TSLACK_KERNEL=7.3 (make kernel-next, test-next),
# trixie-backports' linux-source-7.3 with the series of kernel-patch/,
# each in a tree and a build directory of its own.
KLINE=${TSLACK_KERNEL:-6.12}
case $KLINE in
6.12)
	KSRC=$CACHE/linux-source-6.12
	KBUILD=$CACHE/build
	KTARBALL=${TSLACK_KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
	DEFAULT_PATCH_DIR=$TOP/kernel-patch/6.12
	;;
7.3)
	KSRC=$CACHE/linux-source-7.3
	KBUILD=$CACHE/build-7.3
	# Unpacked from trixie-backports' package (fetch_source_7_3 in build-kernel).
	KTARBALL=${TSLACK_KERNEL_TARBALL:-$CACHE/debian-source/linux-source-7.3.tar.xz}
	DEFAULT_PATCH_DIR=$TOP/kernel-patch
	;;
*)
	printf 'vmtest: error: TSLACK_KERNEL=%s: 6.12 or 7.3\n' "$KLINE" >&2
	exit 2
	;;
esac
FRAGMENTS=("$TOP/vmtest/config.fragment")
[ "$KLINE" = 7.3 ] && FRAGMENTS+=("$TOP/vmtest/config-next.fragment")
# libbpf and bpftool (make passes its TOOLS, as TSLACK_TOOLS).
TOOLS=${TSLACK_TOOLS:-$CACHE/tools}
JOBS=$(($(nproc) + 1))
# The series to build: every patch of the line's directory but the cover
# letter. make bisect-check points PATCH_DIR at a prefix of it.
PATCH_DIR=${TSLACK_PATCH_DIR:-$DEFAULT_PATCH_DIR}
series() { ls "$PATCH_DIR"/[0-9][0-9][0-9][0-9]-*.patch 2>/dev/null | grep -v '/0000-' || true; }
# Fixes posted upstream, not part of the series, that both lines build on
# (the patched and the vanilla kernel alike: kernel-patch/base/README).
BASE_DIR=$TOP/kernel-patch/base
base_series() { ls "$BASE_DIR"/[0-9][0-9][0-9][0-9]-*.patch 2>/dev/null || true; }

log() { printf 'vmtest: %s\n' "$*" >&2; }
die() { printf 'vmtest: error: %s\n' "$*" >&2; exit 1; }

# --debug: the lockdep/KASAN variant, built beside the normal one.
use_debug_kernel() {
	KBUILD=$KBUILD-debug
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

# suite_sources SUITE: the path of a sources file, made in the cache, for
# Debian's SUITE (trixie, trixie-backports, bookworm) with its updates and
# security suites, from the registry the machine's own sources name. The
# host's /etc/apt is read, never written: other suites go through
# suite_apt or mmdebstrap with this file.
suite_sources() {
	local suite=$1 base=${1%-backports} dir=$CACHE/apt/$1 uri sec
	uri=$(grep -v '^ *#' "$(apt_sources)" | grep -Eo 'https?://[^ ]+' | grep -v -- -security | head -n 1)
	sec=$(grep -v '^ *#' "$(apt_sources)" | grep -Eo 'https?://[^ ]+' | grep -- -security | head -n 1)
	mkdir -p "$dir"
	{
		printf 'Types: deb\nURIs: %s\nSuites: %s %s-updates' \
			"${uri:-http://deb.debian.org/debian}" "$base" "$base"
		[ "$suite" = "$base" ] || printf ' %s' "$suite"
		printf '\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n'
		printf 'Types: deb\nURIs: %s\nSuites: %s-security\nComponents: main\n' \
			"${sec:-http://deb.debian.org/debian-security}" "$base"
		printf 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n'
	} >"$dir/debian.sources"
	echo "$dir/debian.sources"
}

# suite_apt SUITE COMMAND [ARG]...: apt-get or apt-cache COMMAND with
# SUITE's sources and lists of the cache alone (suite_sources); lists
# are fetched when missing.
suite_apt() {
	local suite=$1 tool=apt-get dir=$CACHE/apt/$1 opts
	shift
	[ "$1" = cache ] && { tool=apt-cache; shift; }
	opts=(-o "Dir::Etc::sourcelist=$(suite_sources "$suite")" -o Dir::Etc::sourceparts=/nonexistent
		-o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache"
		-o "Dir::State::status=$dir/status" -o APT::Sandbox::User=root)
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	touch "$dir/status"
	if ! ls "$dir/lists/"*_InRelease >/dev/null 2>&1; then
		apt-get "${opts[@]}" -q update >&2 || return 1
	fi
	"$tool" "${opts[@]}" "$@"
}

# host_suite: bookworm on Debian 12 (and anything older or unknown),
# trixie on Debian 13 and later: which way this machine builds the package.
host_suite() {
	local v
	v=$(. /etc/os-release 2>/dev/null && echo "${VERSION_ID%%.*}")
	if [[ $v =~ ^[0-9]+$ ]] && [ "$v" -ge 13 ]; then echo trixie; else echo bookworm; fi
}

# deb_profiles SUITE: the build profiles of tslack's package on SUITE
# (debian/control): Debian 13's libbpf and bpftool are recent enough.
deb_profiles() {
	[ "$1" = bookworm ] || echo pkg.tslack.system-libbpf
}

# build_root SUITE PROFILES: print the path of a root of Debian SUITE in the
# cache where tslack's package builds (the buildd variant, lintian, and
# debian/control's Build-Depends for the build profiles PROFILES, as apt-get
# build-dep installs them). Made once with mmdebstrap, and again when its
# recipe (the suite, the profiles, debian/control) changes. Needs root.
build_root() {
	local suite=$1 profiles=$2 root=$CACHE/build-root-$1 recipe
	recipe="$suite $profiles $(sha256sum <"$TOP/debian/control" | cut -c1-16)"
	if [ "$(cat "$root.recipe" 2>/dev/null)" != "$recipe" ] || [ ! -d "$root" ]; then
		[ "$(id -u)" = 0 ] || die "building a Debian $suite build root needs root"
		command -v mmdebstrap >/dev/null || die "mmdebstrap not found (apt-get install mmdebstrap)"
		log "building a Debian $suite root for package builds in $root (about 2 minutes)"
		rm -rf "$root" "$root.recipe"
		mmdebstrap --quiet --variant=buildd --include=lintian \
			--customize-hook="mkdir -p \"\$1/tmp/src/debian\" && cp '$TOP/debian/control' '$TOP/debian/changelog' \"\$1/tmp/src/debian/\"" \
			--customize-hook="chroot \"\$1\" apt-get build-dep -y -q --no-install-recommends ${profiles:+-P $profiles} /tmp/src" \
			--customize-hook="rm -rf \"\$1/tmp/src\"" \
			"$suite" "$root" "$(suite_sources "$suite")" >&2 || { rm -rf "$root"; return 1; }
		echo "$recipe" >"$root.recipe"
	fi
	echo "$root"
}

# in_build_root ROOT COMMAND...: COMMAND in the build root ROOT, in a mount
# namespace of its own with /proc mounted, with a clean environment.
in_build_root() {
	local root=$1
	shift
	unshare --mount --fork sh -c 'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' "$root" \
		/usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/build LC_ALL=C.UTF-8 "$@"
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
