#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Share test programs out between N guests: print "LANE PROGRAM" lines,
# the longest program first to the lane with the least time so far.
#   lanes.sh N PROGRAM...
# The costs are the seconds each program took in a guest of the debug kernel
# (TCG, two vCPUs, two guests at once: the cold run check-20261207-161932),
# plus 5 s of kselftest's runner around each; a program not listed counts 60.
set -euo pipefail
declare -A cost=(
	[passthrough_io_test]=193 [passthrough_stress_test]=176
	[passthrough_inject_test]=172 [bpf_filter_test]=116
	[fusebpf_viewd_test.sh]=81 [passthrough_diff_test]=78
	[passthrough_test]=70 [daemon_bpf_test]=69 [daemon_filter_test]=66
	[fusebpf_test.sh]=66 [fstests_mount]=57
	[passthrough_harden_test]=35 [fuse_daemon_test]=31
	[filter_harden_test]=27 [passthrough_fault_test]=21
	[daemon_harden_test]=13
)
n=$1
shift
declare -a load
for ((l = 1; l <= n; l++)); do load[l]=0; done
for p in "$@"; do echo "${cost[$p]:-60} $p"; done | sort -k1,1nr -k2 |
while read -r c p; do
	best=1
	for ((l = 2; l <= n; l++)); do
		[ "${load[l]}" -lt "${load[best]}" ] && best=$l
	done
	load[best]=$(( load[best] + c ))
	echo "$best $p"
done
