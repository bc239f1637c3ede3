#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the guest: the selftests through kselftest's own runner
# (run_kselftest.sh of the installed tree KSFT_DIR; its output, in which
# each program's TAP is nested, goes to $wbrun/kselftest.tap, split per
# program by workbench/verdict.py on the host), then fstests_mount
# (workbench/fstests/mount_test.sh, TAP file in $wbrun/tap), then a final
# kmemleak scan into $wbrun/kmemleak.txt.
#   guest-tests.sh KSFT_DIR SELFTEST_BUILD_DIR [TEST...]
# FUSE_KO=path: load that fuse.ko first (the kernel with FUSE as a module).
# wbkmod (set by workbench/vm.sh): the fuse.ko the guest loaded at boot.
# TEST_TIMEOUT=s: each program's timeout instead of the settings file's.
ksft=$1 dir=$2; shift 2
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
[ ${#tests[@]} = 0 ] && tests=(--all fstests_mount)
sel=() fst=0
for t in "${tests[@]}"; do
	case $t in
	--all) sel+=(-c filesystems/fuse) ;;
	fstests_mount) fst=1 ;;
	*) sel+=(-t "filesystems/fuse:$t") ;;
	esac
done
# now VAR: the guest's uptime in seconds into VAR, for $wbrun/times ("NAME
# START END" in seconds since boot: where a lane's time goes).  No $(...):
# a fork costs the emulated guest about 0.2 s.
now() { local u; read -r u _ < /proc/uptime; printf -v "$1" %s "${u%.*}"; }
t0=0 t1=0
now t1
echo "boot 0 $t1" > "$wbrun/times"
if [ ${#sel[@]} -gt 0 ]; then
	"$ksft/run_kselftest.sh" ${TEST_TIMEOUT:+-o "$TEST_TIMEOUT"} "${sel[@]}" 2>&1 |
	while IFS= read -r line; do
		printf '%s\n' "$line"
		case $line in
		"# selftests: "*) now t0 ;;
		"ok "*" selftests: "*|"not ok "*" selftests: "*)
			prog=${line#* selftests: *: }
			now t1
			echo "${prog%% *} $t0 $t1" >> "$wbrun/times" ;;
		esac
	done | tee "$wbrun/kselftest.tap"
fi
# The workbench's own guest test: make fstests' mount helper (ptfuse:
# built by workbench/check.sh beside the selftests)
if [ $fst = 1 ]; then
	echo "# ---- fstests_mount"
	now t0
	(cd /tmp && timeout -k 5 "${TEST_TIMEOUT:-900}" \
		"$(dirname "$0")/fstests/mount_test.sh" "$dir" "$dir/../ptfuse") \
		> "$out/fstests_mount.tap" 2>&1
	rc=$?
	cat "$out/fstests_mount.tap"
	now t1
	echo "# ---- fstests_mount: exit $rc in $((t1 - t0))s"
	echo "fstests_mount $t0 $t1" >> "$wbrun/times"
	echo "$rc" > "$out/fstests_mount.rc"
fi
if [ -w $kml ]; then
	sleep 6		# kmemleak only reports objects older than 5 s
	echo scan > $kml
	echo scan > $kml
	cat $kml > "$wbrun/kmemleak.txt"
fi
now t1
echo "total 0 $t1" >> "$wbrun/times"
exit 0
