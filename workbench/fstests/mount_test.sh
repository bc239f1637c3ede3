#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's guard of make fstests, in the guest: mount(8) finds the
# helper mount.fuse.fusebpf and mounts each FUSE-BPF configuration of make
# fstests the way fstests does (fuse.fusebpf, source=DIR), fstests' own
# check finds it mounted there (the daemon's private mount point is gone:
# MNT is the one FUSE mount), a file made through the mount is in the
# lower directory and is backed (an xattr set through it lands on the lower
# file: ptfuse serves no xattrs, so a daemon node would fail), a hard link
# of it counts at once, and it unmounts cleanly (ptfuse exits).  A fourth
# test keeps what fstests no longer reaches: in ptfuse's own root (mounted
# directly), a link whose LINK reply backs the new name of a
# daemon node counts at once in the source.  TAP on stdout.
#   mount_test.sh SELFTESTS_DIR PTFUSE
# SELFTESTS_DIR has fusebpf and fuse_trivial.bpf.o (samples/fuse's, built
# there by the selftests' Makefile).  Runs in a mount namespace of its
# own: the helper goes on a tmpfs over /usr/sbin there.
set -uo pipefail
if [ "${MOUNT_TEST_NS:-}" != 1 ]; then
	exec env MOUNT_TEST_NS=1 unshare -m --propagation private "$0" "$@"
fi
st=$1 ptfuse=$2
here=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d /tmp/fstests-mount.XXXXXX)

echo "TAP version 13"
echo "1..4"
mkdir -p "$T/sbin" "$T/lower/d" "$T/mnt" "$T/reg"
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
	rm -f "$T/lower/d/f" "$T/lower/d/g" "$T/lower/d/g2"
	if ! mount -t fuse.fusebpf -o "source=$T/lower/d,allow_other,$opts" fusebpf-test "$T/mnt"; then
		why="mount failed"
	else
		# fstests' _check_if_dev_already_mounted, and its type check
		line=$(findmnt -rncv -S fusebpf-test -o SOURCE,TARGET,FSTYPE)
		[ "$line" = "fusebpf-test $T/mnt fuse" ] || why="findmnt: $line"
		line=$(findmnt -rn -t fuse -o TARGET | xargs)
		[ "$line" = "$T/mnt" ] || why+=" FUSE mounts: $line"
		pid=$(pgrep -x ptfuse || true)
		echo data > "$T/mnt/f" && [ "$(cat "$T/lower/d/f")" = data ] || why+=" file not in the lower"
		setfattr -n user.fstests -v backed "$T/mnt/f" &&
			[ "$(getfattr --absolute-names --only-values -n user.fstests "$T/lower/d/f")" = backed ] ||
			why+=" f is not backed (no xattr through it)"
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

# ptfuse -b mounted directly: its root and what CREATE makes there are
# daemon nodes; LINK's reply backs the new name (667035c)
why='' pid=''
rm -f "$T/lower/d/g" "$T/lower/d/g2"
if "$ptfuse" -b -n fusebpf-test -o allow_other "$T/lower/d" "$T/mnt" > /dev/null; then
	pid=$(pgrep -x ptfuse || true)
	touch "$T/mnt/g" && ln "$T/mnt/g" "$T/mnt/g2" || why+=" touch or ln failed"
	nl=$(stat -c %h "$T/mnt/g")
	[ "$nl" = 2 ] || why+=" g has $nl links after ln, not 2"
	umount "$T/mnt" || why+=" umount failed"
	if [ -n "$pid" ]; then
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		! kill -0 "$pid" 2>/dev/null || why+=" ptfuse $pid did not exit"
	fi
else
	why=" ptfuse failed"
fi
if [ -z "$why" ]; then echo "ok 4 daemon-root-link"; else echo "not ok 4 daemon-root-link:$why"; fi
umount /usr/sbin "$T/sbin"
rm -rf "$T"
