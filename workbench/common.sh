# SPDX-License-Identifier: GPL-2.0
# Shared settings of the workbench scripts; sourced, never run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORKDIR=${WORKDIR:-${XDG_CACHE_HOME:-/var/cache}/fuse-bpf}
SRC_TARBALL=${SRC_TARBALL:-$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | head -n1)}
PRISTINE=$WORKDIR/pristine
TREE=$WORKDIR/linux
BUILD=${BUILD:-$WORKDIR/build}
# make selftests builds them with kselftest's Makefile (O=$WORKDIR/build)
# and installs them in $KSFT: run_kselftest.sh runs them in the guest.
SELFTESTS=$WORKDIR/build/kselftest/filesystems/fuse
KSFT=$WORKDIR/kselftest
SELFTESTS_SRC=$TREE/tools/testing/selftests/filesystems/fuse
# The user tools, reply library and sample filters (samples/fuse/Makefile)
SAMPLES_SRC=$TREE/samples/fuse
TOOLS_BIN=$SELFTESTS/tools/sbin
STATE=$WORKDIR/state
JOBS=${JOBS:-$(( $(nproc) + 1 ))}
CLANG=${CLANG:-clang-19}
LLVM_STRIP=${LLVM_STRIP:-llvm-strip-19}

# Top-level directories of this checkout that are not kernel paths.
NON_KERNEL_DIRS="workbench patches .ci .git bench demo"

die() { echo "error: $*" >&2; exit 1; }

# Write to file $3 the configuration of tinyconfig plus the fragment files
# after it, for source tree $1 and build directory $2 (whose .config is
# left alone).
tiny_config() {
	local src=$1 build=$2 out=$3 tmp
	shift 3
	tmp=$(mktemp -d)
	make -s -C "$src" O="$build" CC="ccache gcc" HOSTCC="ccache gcc" \
		KCONFIG_CONFIG="$tmp/config" tinyconfig > /dev/null
	(cd "$src" && KCONFIG_CONFIG="$tmp/config" \
		scripts/kconfig/merge_config.sh -m -O "$tmp" "$tmp/config" "$@" > /dev/null)
	make -s -C "$src" O="$build" CC="ccache gcc" HOSTCC="ccache gcc" \
		KCONFIG_CONFIG="$tmp/config" olddefconfig > /dev/null
	mv "$tmp/config" "$out"
	rm -rf "$tmp"
}
say() { echo "==> $*" >&2; }
export CCACHE_DIR=${CCACHE_DIR:-$WORKDIR/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
