#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make fstests, inside the guest: fstests' check on each configuration, one
# after the other, on the RAM disks /dev/ram0 (TEST) and /dev/ram1 (SCRATCH).
#   guest-fstests.sh FSTESTS TOOLS OUT CONFIG...
# FSTESTS is a built fstests tree, copied to a tmpfs first (a few tests
# write beside themselves: _link_out_file; results go to
# OUT/CONFIG/results through RESULT_BASE); TOOLS has ptfuse and fuse/
# (fusebpf, fuse_trivial.bpf.o); CONFIG is one of ext4 fusebpf bpf-trivial
# daemon-backing overlay.  The tests: FSTESTS_ARGS (check's arguments,
# e.g. "-g generic/quick" or test names), less those of
# workbench/fstests/exclude/CONFIG.  OUT/CONFIG/ gets config (fstests'
# local.config), check.out (check's output), seconds and status.
# FSTESTS_MOUNT_ONLY=1: mount and unmount TEST and SCRATCH of each
# configuration through fstests' own mount functions, run no test.
set -u
fst=$1 tools=$2 out=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
F=/run/fstests	# tmpfs (workbench/guest-init.sh)
mkdir -p "$out" $F/test $F/scratch $F/lower/test $F/lower/scratch $F/etc

log() { echo "fstests: $*"; }

# check reads its -E list through bash's <(...): /dev/fd, which only
# udev would have made
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd

# fstests' users (fsgqa, fsgqa2, 123456-fsgqa) in this guest only: the
# root filesystem is the host's, read-only
for f in passwd group shadow; do
	cp /etc/$f $F/etc/$f
done
uid=20000
for u in fsgqa fsgqa2 123456-fsgqa; do
	echo "$u:x:$uid:$uid::/tmp:/bin/bash" >> $F/etc/passwd
	echo "$u:x:$uid:" >> $F/etc/group
	echo "$u:*:19000:0:99999:7:::" >> $F/etc/shadow
	uid=$(( uid + 1 ))
done
for f in passwd group shadow; do
	mount --bind $F/etc/$f /etc/$f
done

# mount(8) finds helpers in /sbin only (/usr/sbin here): a tmpfs there with
# links to the real one's programs, and ours
mkdir -p $F/sbin
mount --bind /usr/sbin $F/sbin
mount -t tmpfs -o mode=755 sbin /usr/sbin
ln -s $F/sbin/* /usr/sbin/
cp "$here/mount.fuse.fusebpf" /usr/sbin/
chmod 755 /usr/sbin/mount.fuse.fusebpf

# The root filesystem is read-only: fstests runs from a copy
mkdir -p $F/src
tar -C "$fst" --exclude=./.git -cf - . | tar -C $F/src -xf - || log "cannot copy $fst"
fst=$F/src

fusebpf=$tools/fuse/fusebpf
# Configuration 3's filter, registered once: its mounts name it
if [[ " $* " == *" bpf-trivial "* ]]; then
	mkdir -p $F/reg/lower $F/reg/mnt
	if $fusebpf mount "$tools/fuse/fuse_trivial.bpf.o" $F/reg/lower $F/reg/mnt; then
		$fusebpf umount $F/reg/mnt
	else
		log "cannot register fuse_trivial"
	fi
fi

mkfs_ram() { # the two RAM disks, empty ext4
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 /dev/ram0 &&
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 /dev/ram1
}

# The lowers of the FUSE configurations: a directory of each RAM disk
lowers_up() {
	mount -t ext4 /dev/ram0 $F/lower/test && mount -t ext4 /dev/ram1 $F/lower/scratch &&
	mkdir $F/lower/test/d $F/lower/scratch/d
}
lowers_down() {
	umount $F/lower/test
	umount $F/lower/scratch
}

# local.config of CONFIG on stdout
config() {
	local opts=allow_other
	echo "export TEST_DIR=$F/test SCRATCH_MNT=$F/scratch"
	case $1 in
	ext4|overlay)
		echo "export FSTYP=ext4 TEST_DEV=/dev/ram0 SCRATCH_DEV=/dev/ram1"
		return ;;
	bpf-trivial) opts+=,root_bpf=trivial ;;
	daemon-backing) opts+=,daemon=$tools/ptfuse ;;
	esac
	echo "export FSTYP=fuse FUSE_SUBTYP=.fusebpf TEST_DEV=fusebpf-test SCRATCH_DEV=fusebpf-scratch"
	echo "export TEST_FS_MOUNT_OPTS=\"-o source=$F/lower/test/d,$opts\""
	echo "export MOUNT_OPTIONS=\"-o source=$F/lower/scratch/d,$opts\""
}

rc=0
for c in "$@"; do
	o=$out/$c
	mkdir -p "$o/results"
	config "$c" > "$o/config"
	log "configuration $c"
	cat "$o/config"
	mkfs_ram || { log "$c: mkfs failed"; rc=1; continue; }
	case $c in
	ext4|overlay) ;;
	*) lowers_up || { log "$c: lowers failed"; rc=1; continue; } ;;
	esac
	args=()
	[ "$c" = overlay ] && args+=(-overlay)
	[ -f "$here/exclude/$c" ] && args+=(-E "$here/exclude/$c")
	start=$(date +%s)
	if [ "${FSTESTS_MOUNT_ONLY:-0}" = 1 ]; then
		# fstests' own mount and unmount of TEST and SCRATCH
		(cd "$fst" && HOST_OPTIONS=$o/config RESULT_BASE=$o/results bash -c '
			here=$PWD tmp=/tmp/mount-only.$$
			. ./common/config && . ./common/rc || exit 1
			[ "$FSTYP" = fuse ] || exit 0
			_test_mount && _scratch_mount || exit 1
			findmnt -n -o SOURCE,TARGET,FSTYPE,OPTIONS "$TEST_DIR"
			findmnt -n -o SOURCE,TARGET,FSTYPE,OPTIONS "$SCRATCH_MNT"
			touch "$TEST_DIR/f" "$SCRATCH_MNT/f" || exit 1
			_test_unmount && _scratch_unmount || exit 1
			! findmnt "$TEST_DIR" >/dev/null && ! findmnt "$SCRATCH_MNT" >/dev/null') \
			> "$o/check.out" 2>&1
		st=$?
	else
		# shellcheck disable=SC2086
		(cd "$fst" && HOST_OPTIONS=$o/config RESULT_BASE=$o/results \
			./check -R xunit "${args[@]}" ${FSTESTS_ARGS:--g generic/quick}) \
			> "$o/check.out" 2>&1
		st=$?
	fi
	echo $(( $(date +%s) - start )) > "$o/seconds"
	echo $st > "$o/status"
	tail -n 5 "$o/check.out"
	log "$c: check exit $st in $(cat "$o/seconds")s"
	# whatever check left mounted
	for m in $F/test $F/scratch $F/test/ovl-mnt $F/scratch/ovl-mnt; do
		umount -R "$m" 2>/dev/null
	done
	case $c in
	ext4|overlay) ;;
	*) lowers_down ;;
	esac
done
exit $rc
