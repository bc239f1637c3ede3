#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lanes.sh's own test: every program goes to exactly one lane, no lane is
# left empty, and the two longest programs never share a lane.  Prints TAP.
l=$(dirname "$0")/lanes.sh
n=0 fail=0
check() { # NAME CONDITION...
	local name=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n lanes_$name"; else echo "not ok $n lanes_$name"; fail=1; fi
}
progs="passthrough_stress_test passthrough_io_test passthrough_inject_test
bpf_filter_test passthrough_diff_test fusebpf_viewd_test.sh fstests_mount
daemon_bpf_test daemon_filter_test passthrough_test fusebpf_test.sh
passthrough_harden_test fuse_daemon_test passthrough_fault_test
filter_harden_test daemon_harden_test new_test"
# shellcheck disable=SC2086
out=$("$l" 2 $progs)
echo "TAP version 13"
echo "1..5"
check each_once [ "$(echo "$out" | awk '{print $2}' | sort)" = "$(echo $progs | tr ' ' '\n' | sort)" ]
check two_lanes [ "$(echo "$out" | awk '{print $1}' | sort -u | tr '\n' ' ')" = "1 2 " ]
# io and stress are the two longest (lanes.sh's costs): never in one lane
check longest_apart [ "$(echo "$out" | grep -E ' passthrough_(stress|io)_test$' | awk '{print $1}' | sort -u | wc -l)" = 2 ]
check one_lane [ "$("$l" 1 a b | awk '{print $1}' | sort -u)" = 1 ]
# shellcheck disable=SC2086
check three_lanes [ "$("$l" 3 $progs | awk '{print $1}' | sort -u | wc -l)" = 3 ]
exit $fail
