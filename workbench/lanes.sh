#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Share test programs out between N guests: print "LANE PROGRAM" lines,
# the longest program first to the lane with the least time so far.
#   lanes.sh N PROGRAM...
# The costs are the seconds each program took in a guest of the debug kernel
# (TCG, one vCPU, two guests at once: check-20261207-152432), plus 7 s of
# kselftest's runner around each; a program not listed counts 60.
set -euo pipefail
declare -A cost=(
	[passthrough_io_test]=199 [passthrough_stress_test]=192
	[passthrough_inject_test]=192 [bpf_filter_test]=155
	[passthrough_diff_test]=123 [fusebpf_viewd_test.sh]=105
	[daemon_filter_test]=87 [passthrough_test]=79 [fstests_mount]=71
	[daemon_bpf_test]=69 [fusebpf_test.sh]=60
	[passthrough_harden_test]=39 [fuse_daemon_test]=33
	[passthrough_fault_test]=23 [filter_harden_test]=23
	[daemon_harden_test]=14
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
