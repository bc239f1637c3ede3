#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what the workbench needs from Debian; quiet when all is there.
# EXTRA_PKGS adds packages to the list (workbench/test-deps.sh uses it).
set -euo pipefail
pkgs="linux-source-6.12 build-essential bc bison flex libelf-dev libssl-dev
      zlib1g-dev libcap-dev libzstd-dev pahole dwarves ccache clang-19 llvm-19
      lld-19 qemu-system-x86 busybox-static python3 rsync cpio kmod xz-utils
      patch diffutils lz4 sparse git python3-ply python3-git python3-docutils e2fsprogs attr acl util-linux procps iproute2 stress-ng"
pkgs+=" ${EXTRA_PKGS:-}"

# The packages of $@ that dpkg does not have installed.  dpkg-query fails
# for a package it has never heard of: that is an answer here, not an
# error, so it is asked one package at a time and its status is kept.
missing_pkgs() {
	local p st
	for p in "$@"; do
		st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null) || st=
		[ "$st" = installed ] || echo "$p"
	done | sort -u | tr '\n' ' '
}

missing=$(missing_pkgs $pkgs)
missing=${missing% }
[ -n "$missing" ] || exit 0
echo "==> installing: $missing" >&2
sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq || echo "warning: apt-get update failed; installing from the lists there are" >&2
if ! $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null; then
	echo "error: apt-get could not install: $missing" >&2
	echo "error: the workbench needs Debian 12 with a reachable package mirror, as root or with sudo" >&2
	exit 1
fi
