# Shared settings for the vmtest scripts; sourced, not run.
# shellcheck shell=bash

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The kernel tree, its build output and the tools built from it live here,
# outside the repository. Set TSLACK_CACHE to move them.
CACHE=${TSLACK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tslack}
KSRC=$CACHE/linux-source-6.12
KBUILD=$CACHE/build
FRAGMENTS=("$TOP/vmtest/config.fragment")
TOOLS=$CACHE/tools
KTARBALL=${TSLACK_KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
JOBS=$(($(nproc) + 1))

log() { printf 'vmtest: %s\n' "$*" >&2; }
die() { printf 'vmtest: error: %s\n' "$*" >&2; exit 1; }

# --debug: the lockdep/KASAN variant, built beside the normal one.
use_debug_kernel() {
	KBUILD=$CACHE/build-debug
	FRAGMENTS+=("$TOP/vmtest/config-debug.fragment")
}
