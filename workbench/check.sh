#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: the host-side tests, then every selftest in one guest boot,
# then the verdict (TAP results and the kernel log scan).
#   check.sh [TEST...]    run only the named selftest programs
set -uo pipefail
. "$(dirname "$0")/common.sh"

rundir=$WORKDIR/runs/check-$(date +%Y%m%d-%H%M%S)
mkdir -p "$rundir/tap"
ln -sfn "$rundir" "$WORKDIR/runs/last"
say "run directory: $rundir"

# make check ran workbench/host-tests.sh before the build; their results
# are taken once, so that a later run never counts them again.
[ -d "$WORKDIR/host-tap" ] || "$TOP/workbench/host-tests.sh"
mv "$WORKDIR"/host-tap/* "$rundir/tap/" && rmdir "$WORKDIR/host-tap"

make -s -C "$SELFTESTS_SRC" OUTPUT="$SELFTESTS" list > "$SELFTESTS/tests.list" 2>/dev/null
if [ $# -gt 0 ]; then printf '%s\n' "$@"; else cat "$SELFTESTS/tests.list"; fi > "$rundir/expected"
start=$(date +%s)
"$TOP/workbench/vm.sh" -r "$rundir" -- "$TOP/workbench/guest-tests.sh" "$SELFTESTS" "$@"
vm_rc=$?
say "guest ran $(( $(date +%s) - start ))s under $(cat "$rundir/accel" 2>/dev/null)"
[ $vm_rc = 0 ] || echo "error: the VM run failed (status $vm_rc)"
"$TOP/workbench/verdict.py" "$rundir"
rc=$?
[ $vm_rc = 0 ] || rc=1
exit $rc
