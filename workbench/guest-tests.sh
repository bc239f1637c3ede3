#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the guest: every selftest program, one TAP file each in
# $wbrun/tap, and fstests_mount (workbench/fstests/mount_test.sh), then a
# final kmemleak scan into $wbrun/kmemleak.txt.
#   guest-tests.sh SELFTEST_DIR [TEST...]
# FUSE_KO=path: load that fuse.ko first (the kernel with FUSE as a module).
# wbkmod (set by workbench/vm.sh): the fuse.ko the guest loaded at boot.
dir=$1; shift
out=$wbrun/tap
mkdir -p "$out"
kml=/sys/kernel/debug/kmemleak

# FUSE_KO=path (the second kernel of make check MOD_TESTS=...), or the
# fuse.ko workbench/guest-init.sh loaded (wbkmod): one TAP result for it
if [ -n "${FUSE_KO:-}" ]; then
	insmod "$FUSE_KO" > "$out/insmod.log" 2>&1
elif [ -n "${wbkmod:-}" ]; then
	cp "$wbrun/insmod.log" "$out/insmod.log" 2>/dev/null
fi
if [ -n "${FUSE_KO:-}${wbkmod:-}" ]; then
	if grep -qw '^fuse' /proc/modules && grep -qw fuse /proc/filesystems; then
		printf 'TAP version 13\n1..1\nok 1 insmod fuse.ko\n' > "$out/insmod.tap"
	else
		printf 'TAP version 13\n1..1\nnot ok 1 insmod fuse.ko\n' > "$out/insmod.tap"
	fi
	cat "$out/insmod.log" "$out/insmod.tap" 2>/dev/null
	echo 0 > "$out/insmod.rc"
fi

# Whatever boot left behind is not ours to report.
if [ -w $kml ]; then echo scan > $kml; echo clear > $kml; fi
tests=("$@")
if [ ${#tests[@]} = 0 ]; then
	mapfile -t tests < "$dir/tests.list"
	tests+=(fstests_mount)
fi
for t in "${tests[@]}"; do
	echo "# ---- $t"
	start=$(date +%s)
	cmd=("$dir/$t")
	# The workbench's own guest test: make fstests' mount helper
	# (ptfuse: built by workbench/check.sh beside the selftests)
	[ "$t" = fstests_mount ] &&
		cmd=("$(dirname "$0")/fstests/mount_test.sh" "$dir" "$dir/../ptfuse")
	(cd /tmp && timeout -k 5 "${TEST_TIMEOUT:-900}" "${cmd[@]}") > "$out/$t.tap" 2>&1
	rc=$?
	cat "$out/$t.tap"
	echo "# ---- $t: exit $rc in $(( $(date +%s) - start ))s"
	echo "$rc" > "$out/$t.rc"
done
if [ -w $kml ]; then
	sleep 6		# kmemleak only reports objects older than 5 s
	echo scan > $kml
	echo scan > $kml
	cat $kml > "$wbrun/kmemleak.txt"
fi
exit 0
