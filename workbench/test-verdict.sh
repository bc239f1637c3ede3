#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# verdict.py's own test: the output of kselftest's runner, in which each
# program's TAP is nested behind '# ', must be counted per test, and a
# program that failed, timed out or never finished must fail the run.
# Prints TAP.
v=$(dirname "$0")/verdict.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0

# run NAME EXPECTED_LAST_LINE EXPECTED_RC: judge $tmp/NAME, a run directory
run() {
	local got rc
	python3 "$v" "$tmp/$1" > "$tmp/$1.out"
	rc=$?
	got=$(tail -n 1 "$tmp/$1.out")
	n=$((n + 1))
	if [ "$got" = "$2" ] && [ $rc = "$3" ]; then
		echo "ok $n verdict_$1"
	else
		echo "not ok $n verdict_$1 # want '$2' rc $3, got '$got' rc $rc"
		fail=1
	fi
}

# rundir NAME: a run directory whose kselftest.tap is stdin
rundir() {
	mkdir -p "$tmp/$1/tap"
	cat > "$tmp/$1/kselftest.tap"
}

pass_a='# selftests: filesystems/fuse: a_test
# TAP version 13
# 1..2
# # Starting 2 tests from 1 test cases.
# ok 1 global.one
# ok 2 global.two
# # PASSED: 2 / 2 tests passed.
ok 1 selftests: filesystems/fuse: a_test'

echo "TAP version 13"
echo "1..5"

{ echo "TAP version 13"; echo "1..2"; echo "# timeout set to 900"; echo "$pass_a"
  echo '# timeout set to 900
# selftests: filesystems/fuse: b.sh
# TAP version 13
# 1..1
# ok 1 b works
ok 2 selftests: filesystems/fuse: b.sh'; } | rundir pass
printf 'a_test\nb.sh\n' > "$tmp/pass/expected"
run pass "3 passed, 0 failed" 0

{ echo "TAP version 13"; echo "1..2"; echo "$pass_a"
  echo '# selftests: filesystems/fuse: c_test
# TAP version 13
# 1..2
# #  RUN           global.x ...
# # c_test.c:10:x:Expected 0 (0) == f() (-1)
# not ok 1 global.x
# ok 2 global.y
not ok 2 selftests: filesystems/fuse: c_test # exit=1'; } | rundir failed
run failed "3 passed, 1 failed" 1

{ echo "TAP version 13"; echo "1..1"
  echo '# selftests: filesystems/fuse: d_test
# TAP version 13
# 1..3
# ok 1 global.x
#
not ok 1 selftests: filesystems/fuse: d_test # TIMEOUT 900 seconds'; } | rundir timeout
run timeout "1 passed, 2 failed" 1

{ echo "TAP version 13"; echo "1..2"; echo "$pass_a"
  echo '# selftests: filesystems/fuse: e_test
# TAP version 13
# 1..1'; } | rundir crashed
printf 'a_test\ne_test\n' > "$tmp/crashed/expected"
run crashed "2 passed, 1 failed" 1

# The runner's ok with nothing nested (a program's TAP lost) is no pass
{ echo "TAP version 13"; echo "1..1"
  echo '# selftests: filesystems/fuse: f_test
ok 1 selftests: filesystems/fuse: f_test'; } | rundir silent
run silent "0 passed, 1 failed" 1
exit $fail
