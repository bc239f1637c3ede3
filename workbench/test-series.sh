#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make series against make tree: the mailed series, applied to the pristine
# files it touches, must give exactly the files make tree assembles (the
# quilt series, the new files of the checkout, the MAINTAINERS entry).
# make series-check does the same on a full git tree with git am; this
# runs in seconds, in every make check.  Prints TAP.
. "$(dirname "$0")/common.sh"
TREE_SH_LIB=1 . "$(dirname "$0")/tree.sh"
set +eu +o pipefail	# tree.sh sets them; a test goes on after a failure

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
t() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2${3:+ # $3}"
		fail=1
	fi
}

# What make tree assembles, into $1: the series on pristine copies of the
# files it touches, MAINTAINERS, and copies of the new files.
expected() {
	local f
	stage_series "$1"
	rm -f "$1.files"
	new_files | while read -r f; do
		mkdir -p "$(dirname "$1/$f")"
		cp -L "$TOP/$f" "$1/$f"
	done
}

# The mailed series applied with git apply to pristine copies of the files
# it changes, into $2.
applied() {
	local p f
	for f in $(sed -n 's|^--- a/||p' "$1"/0*.patch | sort -u); do
		mkdir -p "$(dirname "$2/$f")"
		cp "$PRISTINE/$f" "$2/$f"
	done
	for p in "$1"/0*.patch; do
		[ "$(basename "$p")" = 0000-cover-letter.patch ] && continue
		(cd "$2" && git apply --whitespace=error-all "$p") || return 1
	done
}

echo "TAP version 13"
echo "1..5"
ensure_pristine 2> /dev/null
SERIES_DIR=$tmp/out "$TOP/workbench/series.sh" > "$tmp/series.log" 2>&1
rc=$?
t $rc series_generates "$(tail -n1 "$tmp/series.log")"

mkdir -p "$tmp/want" "$tmp/got"
expected "$tmp/want" > /dev/null 2>&1
applied "$tmp/out" "$tmp/got" > "$tmp/apply.log" 2>&1
t $? series_applies "$(tail -n1 "$tmp/apply.log")"

diff -r -q "$tmp/want" "$tmp/got" > "$tmp/diff" 2>&1
t $? series_is_the_tree "$(head -n3 "$tmp/diff" | tr '\n' ' ')"

# Every patch is signed off by its author, and none by a placeholder.
bad=""
for p in "$tmp/out"/0*.patch; do
	[ "$(basename "$p")" = 0000-cover-letter.patch ] && continue
	from=$(git mailinfo /dev/null /dev/null < "$p" |
		sed -n -e 's/^Author: //p' -e 's/^Email: \(.*\)/<\1>/p' | paste -sd' ')
	grep -qxF "Signed-off-by: $from" "$p" || bad="$bad $(basename "$p")"
	grep -q '@localhost' "$p" && bad="$bad $(basename "$p")(localhost)"
done
t "$([ -z "$bad" ] && echo 0 || echo 1)" series_signed_off "$bad"

# A placeholder identity is refused, before anything is written.
SERIES_AUTHOR="FUSE-BPF developers <fuse-bpf@localhost>" SERIES_DIR=$tmp/out2 \
	"$TOP/workbench/series.sh" > "$tmp/placeholder.log" 2>&1
rc=$?
t "$([ $rc != 0 ] && grep -q placeholder "$tmp/placeholder.log" && [ ! -e "$tmp/out2" ] && echo 0 || echo 1)" \
	series_refuses_placeholder_identity "rc $rc"
exit $fail
