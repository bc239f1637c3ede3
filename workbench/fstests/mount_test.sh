#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's guard of make fstests, in the guest: mount(8) finds the
# helper mount.fuse.fusebpf and mounts each FUSE-BPF configuration of make
# fstests the way fstests does (fuse.fusebpf, source=DIR), a file made
# through the mount is in the lower directory, a hard link of it counts
# at once, and it unmounts cleanly (ptfuse exits).  TAP on stdout.
#   mount_test.sh SELFTESTS_DIR PTFUSE
# SELFTESTS_DIR has fusebpf and fuse_trivial.bpf.o.  Runs in a mount
# namespace of its own: the helper goes on a tmpfs over /usr/sbin there.
set -uo pipefail
if [ "${MOUNT_TEST_NS:-}" != 1 ]; then
	exec env MOUNT_TEST_NS=1 unshare -m --propagation private "$0" "$@"
fi
st=$1 ptfuse=$2
here=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d /tmp/fstests-mount.XXXXXX)

echo "TAP version 13"
echo "1..3"
mkdir -p "$T/sbin" "$T/lower" "$T/mnt" "$T/reg"
mount --bind /usr/sbin "$T/sbin"
mount -t tmpfs -o mode=755 sbin /usr/sbin
ln -s "$T"/sbin/* /usr/sbin/
cp "$here/mount.fuse.fusebpf" /usr/sbin/

# Configuration 3's filter: registered by fusebpf, unregistered at the end
filter=0
if "$st/fusebpf" mount "$st/fuse_trivial.bpf.o" "$T/lower" "$T/reg" &&
   "$st/fusebpf" umount "$T/reg"; then
	filter=1
fi

n=0
check() { # NAME OPTIONS
	local name=$1 opts=$2 why= line pid= nl
	n=$(( n + 1 ))
	rm -f "$T/lower/f" "$T/lower/g" "$T/lower/g2"
	if ! mount -t fuse.fusebpf -o "source=$T/lower,allow_other,$opts" fusebpf-test "$T/mnt"; then
		why="mount failed"
	else
		line=$(findmnt -n -o SOURCE,FSTYPE "$T/mnt")
		[ "$(echo $line)" = "fusebpf-test fuse" ] || why="findmnt: $line"
		pid=$(pgrep -x ptfuse || true)
		echo data > "$T/mnt/f" && [ "$(cat "$T/lower/f")" = data ] || why+=" file not in the lower"
		# generic/002's first step: a link shows in the source's count at once
		touch "$T/mnt/g" && ln "$T/mnt/g" "$T/mnt/g2" || why+=" touch or ln failed"
		nl=$(stat -c %h "$T/mnt/g")
		[ "$nl" = 2 ] || why+=" g has $nl links after ln, not 2"
		umount "$T/mnt" || why+=" umount failed"
		! findmnt "$T/mnt" > /dev/null || why+=" still mounted"
		if [ -n "$pid" ]; then
			for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
			! kill -0 "$pid" 2>/dev/null || why+=" ptfuse $pid did not exit"
		fi
	fi
	if [ -z "$why" ]; then echo "ok $n $name"; else echo "not ok $n $name:$why"; fi
}
check fusebpf ""
if [ $filter = 1 ]; then
	check bpf-trivial root_bpf=trivial
	"$st/fusebpf" unregister trivial
else
	echo "not ok 2 bpf-trivial: cannot register fuse_trivial.bpf.o"
	n=2
fi
check daemon-backing "daemon=$ptfuse"
umount /usr/sbin "$T/sbin"
rm -rf "$T"
