#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The workbench's own tests, run on the host before anything is built:
# each writes TAP to $WORKDIR/host-tap/host-NAME.tap (and its status to
# .rc), which check.sh counts with the guest's.  Never fails make: a
# failure is counted in the verdict, after the build and guest run.
. "$(dirname "$0")/common.sh"
out=$WORKDIR/host-tap
rm -rf "$out"
mkdir -p "$out"
for t in logscan verdict lanes deps series; do
	"$TOP/workbench/test-$t.sh" > "$out/host-$t.tap" 2>&1
	echo $? > "$out/host-$t.rc"
done
exit 0
