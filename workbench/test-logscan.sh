#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The log scanner's own test: each sample log must give the report kind
# named here, and the clean log none.  Prints TAP.
cd "$(dirname "$0")/samples" || exit 1
expect="clean: warn:warn bug:bug oops:bug lockdep:lockdep kasan:kasan kmemleak:kmemleak hung:hung sleep:bug list:bug rcu:hung"
n=0 fail=0
echo "TAP version 13"
echo "1..$(echo $expect | wc -w)"
for e in $expect; do
	name=${e%%:*} want=${e#*:}
	n=$((n + 1))
	out=$(python3 ../logscan.py "$name.log")
	rc=$?
	got=$(echo "$out" | sed -n 's/^--- kernel report (\([a-z]*\)).*/\1/p' | sort -u | tr '\n' ' ')
	got=${got% }
	if { [ -z "$want" ] && [ $rc = 0 ] && [ -z "$got" ]; } ||
	   { [ -n "$want" ] && [ $rc = 1 ] && [ "$got" = "$want" ]; }; then
		echo "ok $n logscan_$name"
	else
		echo "not ok $n logscan_$name # want '$want' got '$got' (rc $rc)"
		fail=1
	fi
done
exit $fail
