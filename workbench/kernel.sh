#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Configure and build bzImage from tinyconfig + Kconfig.fragment (+ the files
# named in $EXTRA_FRAGMENTS) in $BUILD, with ccache.  The .config is only
# rewritten when the fragments change, so rebuilds stay incremental.
#   KFRAGMENT=file  use that fragment instead of Kconfig.fragment
#   BUILD=dir       build there instead of $WORKDIR/build (make bench:
#                   KFRAGMENT=workbench/bench/Kconfig.bench BUILD=$WORKDIR/build-bench)
set -euo pipefail
. "$(dirname "$0")/common.sh"

[ -f "$TREE/Makefile" ] || die "no tree: run make tree"
mkdir -p "$BUILD"
frags="${KFRAGMENT:-$TOP/Kconfig.fragment} ${EXTRA_FRAGMENTS:-}"
sum=$(cat $frags "$TOP/workbench/kernel.sh" "$TOP/workbench/common.sh" | sha256sum | cut -d' ' -f1)

kmake() {
	make -s -C "$TREE" O="$BUILD" CC="ccache gcc" HOSTCC="ccache gcc" "$@"
}

if [ "$(cat "$BUILD/.fragment-sum" 2>/dev/null)" != "$sum" ] || [ ! -f "$BUILD/.config" ]; then
	say "configuring $BUILD"
	tmp=$(mktemp -d)
	tiny_config "$TREE" "$BUILD" "$tmp/config" $frags
	# Every option asked for must have landed.
	bad=0
	for f in $frags; do
		while IFS= read -r line; do
			case "$line" in
			CONFIG_*=n) want="# ${line%=n} is not set"
				grep -qxF "$want" "$tmp/config" || ! grep -q "^${line%=n}=" "$tmp/config" ||
					{ echo "  not honoured: $line" >&2; bad=1; } ;;
			CONFIG_*=*) grep -qxF "$line" "$tmp/config" ||
					{ echo "  not honoured: $line (got: $(grep "^${line%%=*}=" "$tmp/config" || echo unset))" >&2; bad=1; } ;;
			esac
		done < "$f"
	done
	[ $bad = 0 ] || die "Kconfig fragment not satisfied"
	cmp -s "$tmp/config" "$BUILD/.config" || cp "$tmp/config" "$BUILD/.config"
	rm -rf "$tmp"
	echo "$sum" > "$BUILD/.fragment-sum"
fi

say "building bzImage in $BUILD (-j$JOBS)"
start=$(date +%s)
kmake -j"$JOBS" bzImage
# The guest loads modules from $BUILD itself (workbench/kernel-mod.sh)
if grep -qx CONFIG_MODULES=y "$BUILD/.config"; then
	kmake -j"$JOBS" modules
fi
kmake headers_install INSTALL_HDR_PATH="$BUILD/usr" >/dev/null
say "kernel $(cat "$BUILD/include/config/kernel.release") built in $(( $(date +%s) - start ))s"
