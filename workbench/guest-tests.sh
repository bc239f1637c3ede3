#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the guest: every selftest program, one TAP file each in
# $wbrun/tap, then a final kmemleak scan into $wbrun/kmemleak.txt.
#   guest-tests.sh SELFTEST_DIR [TEST...]
dir=$1; shift
out=$wbrun/tap
mkdir -p "$out"
kml=/sys/kernel/debug/kmemleak

# Whatever boot left behind is not ours to report.
if [ -w $kml ]; then echo scan > $kml; echo clear > $kml; fi
tests=("$@")
[ ${#tests[@]} -gt 0 ] || mapfile -t tests < "$dir/tests.list"
for t in "${tests[@]}"; do
	echo "# ---- $t"
	start=$(date +%s)
	(cd /tmp && timeout -k 5 "${TEST_TIMEOUT:-900}" "$dir/$t") > "$out/$t.tap" 2>&1
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
