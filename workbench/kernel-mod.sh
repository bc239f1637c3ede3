#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the second kernel of make check, FUSE as a module, in
# $WORKDIR/build-mod: Kconfig.fragment without its CONFIG_FUSE_FS and
# KASAN lines, plus workbench/Kconfig.module.  fs/fuse/fuse.ko is loaded
# from the build directory by the guest.
set -euo pipefail
. "$(dirname "$0")/common.sh"

frag=$WORKDIR/Kconfig.module
{
	sed -e '/^CONFIG_FUSE_FS=/d' -e '/^CONFIG_KASAN/d' "$TOP/Kconfig.fragment"
	cat "$TOP/workbench/Kconfig.module"
} > "$frag.new"
cmp -s "$frag.new" "$frag" && rm "$frag.new" || mv "$frag.new" "$frag"
KFRAGMENT=$frag BUILD=$WORKDIR/build-mod "$TOP/workbench/kernel.sh"
