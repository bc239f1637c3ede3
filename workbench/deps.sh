#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what the workbench needs from Debian; quiet when all is there.
set -euo pipefail
pkgs="linux-source-6.12 build-essential bc bison flex libelf-dev libssl-dev
      zlib1g-dev libcap-dev libzstd-dev pahole dwarves ccache clang-19 llvm-19
      lld-19 qemu-system-x86 busybox-static python3 rsync cpio kmod xz-utils
      patch diffutils e2fsprogs attr acl util-linux procps iproute2 stress-ng"
pkgs+=" ${EXTRA_PKGS:-}"
missing=$(dpkg-query -W -f='${Package} ${Status}\n' $pkgs 2>/dev/null |
	  awk '$4 != "installed" { print $1 }')
for p in $pkgs; do
	dpkg-query -W "$p" >/dev/null 2>&1 || missing+=" $p"
done
missing=$(echo $missing | tr ' ' '\n' | sort -u | tr '\n' ' ')
[ -n "${missing// /}" ] || exit 0
echo "==> installing:$missing" >&2
sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
