#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make series-check: the mailed series as a maintainer would take it.
#
#  - make series, into $SC/patches;
#  - git am of each patch on pristine 6.12 in a scratch git repository
#    ($SC/linux, made once, reset to its base commit on each run);
#  - after each patch: scripts/checkpatch.pl --strict on the patch, a
#    build (tinyconfig + Kconfig.fragment without its debug options,
#    CONFIG_FUSE_BPF=y once the patch that adds it is in), and make C=2 W=1
#    (sparse and extra warnings) on the directories the patch touches;
#    warnings are compared with those of the pristine tree;
#  - after the last: a build with FUSE as a module, scripts/kernel-doc on
#    the series' new sources and headers (every function they declare in a
#    header or export is documented), and a comparison of the result with
#    the tree make tree assembles for make check.
#
# Prints a table, one row per patch, and fails if any cell failed.
# The builds use ccache and their own build directories in $SC, so a second
# run only rebuilds what the series changed.
set -euo pipefail
. "$(dirname "$0")/common.sh"
TREE_SH_LIB=1 . "$(dirname "$0")/tree.sh"

SC=$WORKDIR/series-check
REPO=$SC/linux
PATCHES=$SC/patches
LOGS=$SC/logs
B=$SC/build
BMOD=$SC/build-mod
FAILED=0

# Kconfig.fragment without what only the guest's debugging needs.
# FUSE is built in here (make check's kernel has it as a module).
fragment() {
	grep -v -E '^CONFIG_(KASAN|DEBUG_KMEMLEAK|PROVE_LOCKING|DEBUG_LOCKDEP|DEBUG_INFO|FAULT_INJECTION|FAIL|FUSE_FS=)' \
		"$TOP/Kconfig.fragment"
	echo "CONFIG_DEBUG_INFO_NONE=y"
	echo "CONFIG_FUSE_FS=y"
}

kmake() {
	local b=$1
	shift
	make -s -C "$REPO" O="$b" CC="ccache gcc" HOSTCC="ccache gcc" "$@"
}

# (Re)configure build directory $1 from tinyconfig and the fragment files
# given after it; .config is only replaced when it changes.  merge_config.sh
# warns of options a patch has not added yet: into the log.
configure() {
	local b=$1 tmp
	shift
	mkdir -p "$b"
	tmp=$(mktemp)
	tiny_config "$REPO" "$b" "$tmp" "$@" 2>> "$LOGS/config.log"
	cmp -s "$tmp" "$b/.config" || cp "$tmp" "$b/.config"
	rm -f "$tmp"
}

# Warnings and errors of a build log, without line numbers and build paths,
# so that those of two trees compare.
warnings() {
	sed -n -E 's@^(\.\./|/[^ :]*/linux/)?([^ :]+):[0-9]+(:[0-9]+)?: +(warning|error): *@\2: \4: @p' "$1" |
		sort
}

# Directories to run sparse and W=1 on for the files a patch touches.
touched_dirs() {
	local f
	for f in "$@"; do
		case "$f" in
		fs/*.[ch] | kernel/*.[ch]) dirname "$f" ;;
		include/uapi/linux/fuse.h | include/linux/bpf_fuse.h) echo fs/fuse; echo kernel/bpf ;;
		include/linux/bpf*.h | include/uapi/linux/bpf.h) echo kernel/bpf ;;
		esac
	done | sort -u
}

# Sparse and W=1 warnings of directories $@ in build directory $B.
sparse_w1() {
	local d log=$1
	shift
	: > "$log"
	for d in "$@"; do
		kmake "$B" -k -j"$JOBS" C=2 W=1 "$d/" >> "$log" 2>&1 || true
	done
}

init_repo() {
	if [ ! -d "$REPO/.git" ]; then
		say "making the scratch git repository $REPO (once)"
		rm -rf "$REPO"
		cp -a "$PRISTINE" "$REPO"
		git -C "$REPO" init -q
		# Debian's .gitignore ends with /*: add the whole tree anyway
		git -C "$REPO" add -A -f
		git -C "$REPO" -c user.name=base -c user.email=base@base \
			commit -q -m "Linux $(make -s -C "$PRISTINE" kernelversion)"
		git -C "$REPO" tag base
	fi
	git -C "$REPO" am --abort > /dev/null 2>&1 || true
	git -C "$REPO" reset -q --hard base
	git -C "$REPO" clean -q -fdx
}

# The checkpatch types mail file $1 lets pass (its Checkpatch-ignore:)
checkpatch_ignores() {
	awk '/^$/ { exit } sub(/^Checkpatch-ignore:[ \t]*/, "")' "$1" | tr -d ' '
}

# The patches/mail file of patch number $1 (0001: the first).
mail_file() {
	ls "$TOP"/patches/mail/[0-9]*.txt | sort | sed -n "$((10#$1))p"
}

row() {
	printf '%-4s %-62s %-5s %-9s %-9s %-12s %s\n' "$@"
}

# The sparse/W=1 baseline of the pristine tree, for the directories any
# patch touches.
baseline() {
	local dirs
	dirs=$(for p in "$PATCHES"/0*.patch; do
		[ "$(basename "$p")" = 0000-cover-letter.patch ] && continue
		touched_dirs $(sed -n 's|^+++ b/||p' "$p")
	done | sort -u)
	say "pristine baseline: build, sparse and W=1 on $(echo $dirs)"
	configure "$B" <(fragment)
	kmake "$B" -j"$JOBS" bzImage > "$LOGS/base-build.log" 2>&1 || die "the pristine tree does not build: $LOGS/base-build.log"
	sparse_w1 "$LOGS/base-sparse.log" $dirs
	{ warnings "$LOGS/base-build.log"; warnings "$LOGS/base-sparse.log"; } | sort > "$SC/baseline.warn"
}

check_patch() {
	local p=$1 n=$2 subject files dirs cp=ok build=ok sp=- fusebpf t0 new ign unbuilt
	subject=$(sed -n 's/^Subject: \[PATCH [0-9]*\/[0-9]*\] //p' "$p" | head -n1)
	files=$(sed -n 's|^+++ b/||p' "$p")
	touch "$SC/am.stamp"
	sleep 1	# objects built after this are newer than the stamp
	if ! git -C "$REPO" am -q --whitespace=error-all "$p" > "$LOGS/$n-am.log" 2>&1; then
		row "$n" "${subject:0:62}" "FAIL" - - - "git am: $LOGS/$n-am.log"
		FAILED=1
		return 1
	fi
	# The Fixes: ids are upstream's, which the scratch repository has no
	# history of.  spdxcheck.py wants Debian's python3 (python3-ply).
	ign=$(checkpatch_ignores "$(mail_file "$n")")
	(cd "$REPO" && PATH=/usr/bin:$PATH scripts/checkpatch.pl --strict \
		--ignore "UNKNOWN_COMMIT_ID${ign:+,$ign}" -q "$p") > "$LOGS/$n-checkpatch.log" 2>&1 || cp=FAIL
	[ -s "$LOGS/$n-checkpatch.log" ] && cp=FAIL
	[ "$cp" = ok ] && [ -n "$ign" ] && cp="ok*"
	t0=$(date +%s)
	configure "$B" <(fragment)
	fusebpf=$(grep -q '^config FUSE_BPF$' "$REPO/fs/fuse/Kconfig" && echo y || echo -)
	if [ "$fusebpf" = y ] && ! grep -qx CONFIG_FUSE_BPF=y "$B/.config"; then
		build="FAIL(cfg)"
	elif ! kmake "$B" -j"$JOBS" bzImage > "$LOGS/$n-build.log" 2>&1; then
		build=FAIL
	fi
	build="$build $(( $(date +%s) - t0 ))s"
	dirs=$(touched_dirs $files)
	if [ -n "$dirs" ] && [[ "$build" == ok* ]]; then
		sparse_w1 "$LOGS/$n-sparse.log" $dirs
		new=$( { warnings "$LOGS/$n-build.log"; warnings "$LOGS/$n-sparse.log"; } | sort |
			comm -13 "$SC/baseline.warn" -)
		if [ -n "$new" ]; then
			sp="FAIL($(echo "$new" | wc -l))"
			echo "$new" > "$LOGS/$n-new-warnings.log"
		else
			sp=ok
		fi
	elif [[ "$build" == ok* ]]; then
		new=$(warnings "$LOGS/$n-build.log" | comm -13 "$SC/baseline.warn" -)
		[ -z "$new" ] || { sp="FAIL($(echo "$new" | wc -l))"; echo "$new" > "$LOGS/$n-new-warnings.log"; }
	fi
	# New C files no Makefile builds yet (patches 4-9: patch 10 wires them):
	# their objects, if any, are from an earlier run
	unbuilt=$(git -C "$REPO" diff --name-only --diff-filter=A HEAD~1 HEAD -- '*.c' | grep -v '^tools/' |
		while read -r f; do [ "$B/${f%.c}.o" -nt "$SC/am.stamp" ] || echo "$f"; done | wc -l)
	[ "$unbuilt" = 0 ] || dirs="$dirs ($unbuilt new .c not built yet)"
	row "$n" "${subject:0:62}" ok "$cp" "$build" "$sp" "$(echo $dirs)"
	[[ "$cp" == ok* ]] && [[ "$build" == ok* ]] && [[ "$sp" == ok || "$sp" == - ]] || FAILED=1
}

# Every function a header of the series declares, and every exported
# symbol of its new files, has a kernel-doc comment; kernel-doc -none is
# quiet on the new files.
check_kerneldoc() {
	local srcs hdrs changed names n missing=""
	srcs=$(cd "$REPO" && git diff --name-only --diff-filter=A base HEAD -- '*.c' '*.h' | grep -v '^tools/')
	hdrs=$(cd "$REPO" && git diff --name-only base HEAD -- '*.h' | grep -v '^tools/')
	changed=$(cd "$REPO" && git diff --name-only base HEAD -- '*.c' '*.h' | grep -v '^tools/')
	(cd "$REPO" && scripts/kernel-doc -none -Wall $srcs) > "$LOGS/kernel-doc.log" 2>&1 || true
	# Functions the series adds to headers: new lines "type name(" at
	# the start of a line (declarations and static inline definitions).
	names=$( { for h in $hdrs; do
			git -C "$REPO" diff base HEAD -- "$h" | sed -n -E 's/^\+(static inline )?[a-z_][a-z0-9_ *]*[ *]([a-z_][a-z0-9_]*)\(.*/\2/p'
		done
		for s in $srcs; do
			sed -n -E 's/^EXPORT_SYMBOL(_GPL)?\(([a-z0-9_]+)\);/\2/p' "$REPO/$s"
		done; } | sort -u)
	for n in $names; do
		# Stubs for !CONFIG_FUSE_BPF are documented at the real function.
		(cd "$REPO" && scripts/kernel-doc -rst -function "$n" $changed 2>/dev/null) |
			grep -q 'c:function::' || missing="$missing $n"
	done
	echo "$missing" | tr ' ' '\n' | sed '/^$/d' > "$LOGS/kernel-doc-missing.log"
	if [ -s "$LOGS/kernel-doc.log" ] || [ -s "$LOGS/kernel-doc-missing.log" ]; then
		echo "kernel-doc: FAIL: $(wc -l < "$LOGS/kernel-doc.log") warnings ($LOGS/kernel-doc.log), $(wc -l < "$LOGS/kernel-doc-missing.log") undocumented of $(echo $names | wc -w):$missing"
		FAILED=1
	else
		echo "kernel-doc: ok, $(echo $names | wc -w) functions declared in headers or exported, all documented; -none -Wall quiet on $(echo $srcs | wc -w) files"
	fi
	# The documentation: in the index, its file references resolve
	# (make refcheckdocs), and docutils parses it without a warning (it
	# has no Sphinx-only markup).
	local doc=Documentation/filesystems/fuse-bpf.rst why=""
	grep -qx '   fuse-bpf' "$REPO/Documentation/filesystems/index.rst" ||
		why="not in Documentation/filesystems/index.rst"
	(cd "$REPO" && scripts/documentation-file-ref-check 2>&1 | grep -F fuse-bpf) > "$LOGS/doc-ref.log" || true
	[ -s "$LOGS/doc-ref.log" ] && why="$why; broken references ($LOGS/doc-ref.log)"
	/usr/bin/python3 -m docutils --halt=warning --exit-status=warning "$REPO/$doc" /dev/null \
		> "$LOGS/docutils.log" 2>&1 || why="$why; docutils warnings ($LOGS/docutils.log)"
	if [ -n "$why" ]; then
		echo "documentation: FAIL: $doc: ${why#; }"
		FAILED=1
	else
		echo "documentation: ok, $doc is in the index, its references resolve, docutils parses it without a warning"
	fi
}

# The series applied is the tree make check builds.
check_same_tree() {
	local f n=0 bad=""
	make -s -C "$TOP" tree > /dev/null 2>&1 || die "make tree failed"
	for f in $(git -C "$REPO" diff --name-only base HEAD); do
		n=$((n + 1))
		cmp -s "$REPO/$f" "$TREE/$f" || bad="$bad $f"
	done
	for f in $(cat "$STATE/patched" "$STATE/links"); do
		git -C "$REPO" diff --quiet base HEAD -- "$f" && bad="$bad $f(not-in-series)"
	done
	if [ -n "$bad" ]; then
		echo "same tree: FAIL:$bad"
		FAILED=1
	else
		echo "same tree: ok, the $n files the series changes are those of make tree, and it changes all of them"
	fi
}

build_mod() {
	local t0
	t0=$(date +%s)
	configure "$BMOD" <(fragment) "$TOP/workbench/Kconfig.module" <(echo CONFIG_KASAN=n)
	if grep -qx CONFIG_FUSE_FS=m "$BMOD/.config" && grep -qx CONFIG_FUSE_BPF=y "$BMOD/.config" &&
	   kmake "$BMOD" -j"$JOBS" bzImage modules > "$LOGS/mod-build.log" 2>&1; then
		echo "module build (FUSE_FS=m, FUSE_BPF=y) after the last patch: ok $(( $(date +%s) - t0 ))s"
	else
		echo "module build (FUSE_FS=m, FUSE_BPF=y) after the last patch: FAIL ($LOGS/mod-build.log)"
		FAILED=1
	fi
}

main() {
	local p n start m ign
	start=$(date +%s)
	ensure_pristine
	command -v sparse > /dev/null || die "sparse is missing: make deps"
	mkdir -p "$SC"
	rm -rf "$LOGS"
	mkdir -p "$LOGS"
	SERIES_DIR=$PATCHES "$TOP/workbench/series.sh"
	init_repo
	baseline
	echo
	row "#" "patch" "am" "checkpatch" "build" "sparse/W=1" "dirs"
	for p in "$PATCHES"/0*.patch; do
		n=$(basename "$p" | cut -c1-4)
		[ "$n" = 0000 ] && continue
		check_patch "$p" "$n" || break
	done
	echo
	for m in "$TOP"/patches/mail/[0-9]*.txt; do
		ign=$(checkpatch_ignores "$m")
		[ -z "$ign" ] || echo "ok*: $(basename "$m") lets checkpatch types pass: $ign"
	done
	echo
	build_mod
	check_kerneldoc
	check_same_tree
	echo "series-check: $(( $(date +%s) - start ))s; logs in $LOGS"
	[ "$FAILED" = 0 ] || die "series-check failed"
	echo "series-check: passed"
}

main "$@"; exit	# one line: edits to this file while it runs are not read
