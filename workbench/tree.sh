#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Assemble the patched kernel tree outside the checkout, or write edits made
# there back into patches/.
#
#   tree.sh assemble   pristine 6.12 + patches/series + new files (symlinked)
#   tree.sh refresh    edits in $TREE to upstream files -> patches/
#                      (PATCH=name.patch puts edits of files no patch touches
#                      yet into that patch, creating it if needed)
#
# Assembling copies a file into the tree only when its content changes, so
# the kernel build stays incremental.
set -euo pipefail
. "$(dirname "$0")/common.sh"

# Kernel paths held by the checkout: files below top-level directories that
# the upstream tree has too.
new_files() {
	local d
	for d in "$TOP"/*/; do
		d=$(basename "$d")
		case " $NON_KERNEL_DIRS " in *" $d "*) continue ;; esac
		[ -d "$PRISTINE/$d" ] || continue
		(cd "$TOP" && find "$d" -type f ! -name '*.orig' ! -name '*.rej')
	done | sort
}

series() {
	[ -f "$TOP/patches/series" ] || return 0
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/patches/series"
}

# Files a patch touches, from its +++ lines.
patch_files() {
	sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$1" | sort -u
}

# Apply one patch of the series in $1; a patch with no diff yet is a no-op.
apply_patch() {
	grep -q '^+++ ' "$2" || return 0
	patch -d "$1" -p1 -s -f --no-backup-if-mismatch < "$2" ||
		die "patches/$(basename "$2") does not apply"
}

ensure_pristine() {
	if [ ! -f "$PRISTINE/Makefile" ]; then
		[ -n "$SRC_TARBALL" ] || die "no /usr/src/linux-source-6.12.tar.*: apt-get install linux-source-6.12"
		say "extracting $SRC_TARBALL"
		rm -rf "$PRISTINE.tmp"
		mkdir -p "$PRISTINE.tmp"
		tar -xf "$SRC_TARBALL" -C "$PRISTINE.tmp" --strip-components=1
		mv "$PRISTINE.tmp" "$PRISTINE"
	fi
	if [ ! -f "$TREE/Makefile" ]; then
		say "copying the pristine tree to $TREE"
		rm -rf "$TREE"
		cp -a "$PRISTINE" "$TREE"
		rm -rf "$STATE"
	fi
	mkdir -p "$STATE"
	say "base: Linux $(make -s -C "$PRISTINE" kernelversion 2>/dev/null) ($(basename "$SRC_TARBALL"))"
}

# Insert the checkout's MAINTAINERS entry (or the entry in file $2) before
# the upstream FUSE entry, so it sits in alphabetical order.
apply_maintainers() {
	local stage=$1 entry=${2:-$TOP/MAINTAINERS}
	[ -f "$entry" ] || return 0
	awk -v entry="$entry" '
		/^FUSE: FILESYSTEM IN USERSPACE$/ && !done {
			while ((getline l < entry) > 0) print l
			print ""
			done = 1
		}
		{ print }
		END { if (!done) exit 1 }' "$PRISTINE/MAINTAINERS" > "$stage/MAINTAINERS" ||
		die "MAINTAINERS: anchor entry not found"
}

# Put $src at $TREE/$f unless the content is already there.
install_file() {
	local src=$1 f=$2
	if [ -L "$TREE/$f" ] || ! cmp -s "$src" "$TREE/$f"; then
		rm -f "$TREE/$f"
		mkdir -p "$(dirname "$TREE/$f")"
		cp "$src" "$TREE/$f"
		echo "  updated $f"
	fi
}

# Apply the series to pristine copies of the files it touches, in $1, with
# the MAINTAINERS entry; the files are listed in $1.files.
stage_series() {
	local stage=$1 p f
	: > "$stage.files"
	for p in $(series); do
		[ -f "$TOP/patches/$p" ] || die "patches/series names missing $p"
		for f in $(patch_files "$TOP/patches/$p"); do
			if [ ! -e "$stage/$f" ] && [ -f "$PRISTINE/$f" ]; then
				mkdir -p "$(dirname "$stage/$f")"
				cp "$PRISTINE/$f" "$stage/$f"
			fi
			echo "$f" >> "$stage.files"
		done
		apply_patch "$stage" "$TOP/patches/$p"
	done
	apply_maintainers "$stage"
	[ -f "$stage/MAINTAINERS" ] && echo MAINTAINERS >> "$stage.files"
	sort -u -o "$stage.files" "$stage.files"
}

assemble() {
	ensure_pristine
	local stage=$WORKDIR/stage f
	rm -rf "$stage"
	mkdir -p "$stage"
	stage_series "$stage"

	while read -r f; do
		install_file "$stage/$f" "$f"
	done < "$stage.files"

	# Files patched before but not any more go back to pristine.
	if [ -f "$STATE/patched" ]; then
		comm -23 "$STATE/patched" "$stage.files" | while read -r f; do
			if [ -f "$PRISTINE/$f" ]; then
				install_file "$PRISTINE/$f" "$f"
			else
				rm -f "$TREE/$f"
				echo "  removed $f"
			fi
		done
	fi
	cp "$stage.files" "$STATE/patched"

	# New files: symlinks into the checkout, so an edit on either side
	# is an edit of the one file.  A link pointed here from another
	# checkout (a CI clone) must not leave objects built from that one
	# looking newer than this file: the file's mtime is made now.
	new_files > "$stage.links"
	while read -r f; do
		[ -f "$PRISTINE/$f" ] &&
			die "$f exists upstream: change it through a patch, not a copy"
		if [ "$(readlink "$TREE/$f" 2>/dev/null)" != "$TOP/$f" ]; then
			mkdir -p "$(dirname "$TREE/$f")"
			ln -sfn "$TOP/$f" "$TREE/$f"
			touch "$TOP/$f"
			echo "  linked $f"
		fi
	done < "$stage.links"
	if [ -f "$STATE/links" ]; then
		comm -23 "$STATE/links" "$stage.links" | while read -r f; do
			if [ -L "$TREE/$f" ]; then
				rm -f "$TREE/$f"
				echo "  unlinked $f"
			fi
		done
	fi
	cp "$stage.links" "$STATE/links"
	# Edits not yet written back keep the stamp older than them, so that
	# make refresh still finds them.
	if [ -z "$(edited_files)" ]; then
		touch "$STATE/stamp"
	else
		edited_files | sed 's/^/  edited, in no patch yet (make refresh PATCH=...): /' >&2
	fi
	rm -rf "$stage" "$stage.files" "$stage.links"
	say "tree ready: $TREE"
}

# Upstream files edited in the tree since the last assembly that no patch
# touches yet.
edited_files() {
	[ -f "$STATE/stamp" ] || return 0
	(cd "$TREE" && find . -path ./.git -prune -o -type f -newer "$STATE/stamp" -print) |
	sed 's|^\./||' | sort | while read -r f; do
		[ -f "$PRISTINE/$f" ] || { echo "note: $f is not upstream: move it into the checkout" >&2; continue; }
		grep -qxF "$f" "$STATE/patched" 2>/dev/null && continue
		cmp -s "$PRISTINE/$f" "$TREE/$f" || echo "$f"
	done
}

# Write one file's diff in the series' format.
file_diff() {
	local old=$1 new=$2 f=$3
	local a=a/$f b=b/$f
	[ -e "$old" ] || { old=/dev/null; a=/dev/null; }
	if ! cmp -s "$old" "$new"; then
		echo "diff --git a/$f b/$f"
		diff -up --label "$a" --label "$b" "$old" "$new" || true
	fi
}

refresh() {
	ensure_pristine
	local stage=$WORKDIR/refresh p f tmp extra
	rm -rf "$stage"
	mkdir -p "$stage/before" "$stage/after"
	tmp=$stage/new.patch

	# Upstream files edited in the tree that no patch touches yet.
	extra=$stage/extra
	: > "$extra"
	edited_files > "$extra"
	if [ -s "$extra" ]; then
		[ -n "${PATCH:-}" ] || { sed 's/^/  edited, in no patch: /' "$extra" >&2;
			die "name the patch to hold them: make refresh PATCH=NNNN-name.patch"; }
		if [ ! -f "$TOP/patches/$PATCH" ]; then
			printf 'Subject: %s\n\n---\n' "${PATCH%.patch}" > "$TOP/patches/$PATCH"
			echo "$PATCH" >> "$TOP/patches/series"
		fi
	fi

	# Replay the series; each file's last patch takes the tree's content.
	for p in $(series); do
		{
			patch_files "$TOP/patches/$p"
			if [ "$p" = "${PATCH:-}" ]; then cat "$extra"; fi
		} | sort -u > "$stage/files"
		while read -r f; do
			mkdir -p "$(dirname "$stage/before/$f")" "$(dirname "$stage/after/$f")"
			[ -e "$stage/before/$f" ] || { [ -f "$PRISTINE/$f" ] && cp "$PRISTINE/$f" "$stage/before/$f"; } || true
			if [ -e "$stage/before/$f" ]; then cp "$stage/before/$f" "$stage/after/$f"; else rm -f "$stage/after/$f"; fi
		done < "$stage/files"
		apply_patch "$stage/after" "$TOP/patches/$p"
		# Header: everything before the first diff.
		awk '/^(diff |--- a\/|Index: )/ { exit } { print }' "$TOP/patches/$p" > "$tmp"
		while read -r f; do
			local last=$p q
			for q in $(series); do
				patch_files "$TOP/patches/$q" | grep -qxF "$f" && last=$q
			done
			if [ "$p" = "${PATCH:-}" ] && grep -qxF "$f" "$extra"; then last=$p; fi
			if [ "$last" = "$p" ]; then cp "$TREE/$f" "$stage/after/$f"; fi
			file_diff "$stage/before/$f" "$stage/after/$f" "$f" >> "$tmp"
			cp "$stage/after/$f" "$stage/before/$f"
		done < "$stage/files"
		if ! cmp -s "$tmp" "$TOP/patches/$p"; then
			cp "$tmp" "$TOP/patches/$p"
			echo "  refreshed patches/$p"
		fi
	done
	if [ -s "$extra" ]; then
		cat "$extra" >> "$STATE/patched"
		sort -u -o "$STATE/patched" "$STATE/patched"
	fi
	rm -rf "$stage"
}

# Sourced by series.sh for the functions above.
[ -n "${TREE_SH_LIB:-}" ] && return 0

case "${1:-}" in
assemble) assemble ;;
refresh) refresh ;;
*) die "usage: $0 assemble|refresh" ;;
esac
