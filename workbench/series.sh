#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make series: the mailable patch series, as git format-patch output with a
# cover letter, in $SERIES_DIR (default out/series of the checkout).
#
# patches/mail/NN-*.txt lists the mailed patches in order.  Each starts
# with header lines, then a blank line and the commit message body:
#   Subject: the subject line
#   Quilt:   patches of patches/series it carries (in series order)
#   Files:   new files of the checkout it adds (a path ending in / is a
#            directory)
#   Checkpatch-ignore: checkpatch types make series-check lets pass in this
#            patch (the reasons go on "# " lines of the header)
#   Fixes: / Cc: / other trailers, put before the Signed-off-by
# A patch with one Quilt: patch and no body takes that patch's text.
# patches/mail/cover.txt is the cover letter (Subject: line, blank, text).
#
# Every quilt patch and every new file must be in exactly one mailed patch,
# and the quilt patches in the order of patches/series: the series applied
# is then the tree make tree assembles (series-check.sh compares them).
#
# The checkout's MAINTAINERS entry grows with the series: each patch that
# adds files adds the F: lines that match them (checkpatch asks that of a
# patch adding files), the first one the whole entry.
#
# Identity: SERIES_AUTHOR="Name <address>", default the checkout's git
# user.name and user.email; it is the author and the Signed-off-by.
set -euo pipefail
. "$(dirname "$0")/common.sh"
TREE_SH_LIB=1 . "$(dirname "$0")/tree.sh"

OUT=${SERIES_DIR:-$TOP/out/series}
MAIL=$TOP/patches/mail
SRC=$WORKDIR/series-src

author() {
	local a=${SERIES_AUTHOR:-}
	if [ -z "$a" ]; then
		local n e
		n=$(git -C "$TOP" config user.name || true)
		e=$(git -C "$TOP" config user.email || true)
		[ -n "$n" ] && [ -n "$e" ] ||
			die "no identity: set SERIES_AUTHOR=\"Name <address>\" or git config user.name/user.email"
		a="$n <$e>"
	fi
	case "$a" in
	*@localhost*|*@example.com\>|*@example.org\>|*@example.net\>|*@*.invalid\>)
		die "SERIES_AUTHOR \"$a\" is a placeholder address" ;;
	esac
	[[ "$a" =~ ^[^\<\>]+\ \<[^@\<\>\ ]+@[^@\<\>\ ]+\.[^@\<\>\ ]+\>$ ]] ||
		die "SERIES_AUTHOR \"$a\" is not \"Name <user@domain>\""
	echo "$a"
}

# The header field $2 of mail file $1 (all its values, one per line).
field() {
	awk -v f="$2:" '/^$/ { exit } $1 == f { sub(/^[^:]*:[ \t]*/, ""); print }' "$1"
}

# The body of mail file $1, or of its one quilt patch when it has none.
body() {
	local q
	if [ -n "$(awk 'p { print } /^$/ { p = 1 }' "$1" | tr -d '[:space:]')" ]; then
		awk 'p { print } /^$/ { p = 1 }' "$1"
		return
	fi
	q=$(field "$1" Quilt)
	[ "$(echo "$q" | wc -w)" = 1 ] || die "$(basename "$1"): no body, and not one quilt patch"
	# The quilt patch's text: after its Subject: line, up to "---".
	awk '/^---$/ { exit } s { print } /^Subject:/ { s = 1 }' "$TOP/patches/$q" |
		sed -e '/^Signed-off-by:/d' | sed -e '/./,$!d'
}

mail_files() {
	ls "$MAIL"/[0-9]*.txt 2>/dev/null | sort
}

# Check that the mail files cover the quilt series and the new files once,
# in order.
check_cover() {
	local m f n
	[ -n "$(mail_files)" ] || die "no patches/mail/NN-*.txt"
	for m in $(mail_files); do
		for f in $(field "$m" Quilt); do echo "$f"; done
	done > "$SRC.quilt"
	series | cmp -s - "$SRC.quilt" ||
		die "the Quilt: lines of patches/mail/ are not patches/series in order:
$(diff <(series) "$SRC.quilt" | sed -n 's/^[<>]/  &/p')"
	new_files | sort > "$SRC.want"
	for m in $(mail_files); do
		for f in $(field "$m" Files); do
			case "$f" in
			*/) n=$(grep -c "^$f" "$SRC.want" || true)
			    [ "$n" -gt 0 ] || die "$(basename "$m"): no new file below $f"
			    grep "^$f" "$SRC.want" ;;
			*) grep -qxF "$f" "$SRC.want" || die "$(basename "$m"): $f is not a new file of the checkout"
			   echo "$f" ;;
			esac
		done
	done | sort > "$SRC.have"
	[ -z "$(uniq -d "$SRC.have")" ] || die "in two mailed patches: $(uniq -d "$SRC.have" | tr '\n' ' ')"
	[ -z "$(comm -23 "$SRC.want" "$SRC.have")" ] ||
		die "in no mailed patch: $(comm -23 "$SRC.want" "$SRC.have" | tr '\n' ' ')"
	rm -f "$SRC.quilt" "$SRC.want" "$SRC.have"
}

# A git repository holding the pristine versions of every upstream file the
# series touches: the patches it formats carry the real blob ids, so that
# git am -3 can use them on a full tree.
init_src() {
	local p f
	rm -rf "$SRC"
	mkdir -p "$SRC"
	{ for p in $(series); do patch_files "$TOP/patches/$p"; done; echo MAINTAINERS; } |
	sort -u | while read -r f; do
		[ -f "$PRISTINE/$f" ] || continue
		mkdir -p "$(dirname "$SRC/$f")"
		cp "$PRISTINE/$f" "$SRC/$f"
	done
	git -C "$SRC" init -q
	git -C "$SRC" add -A
	GIT_AUTHOR_NAME=base GIT_AUTHOR_EMAIL=base GIT_COMMITTER_NAME=base GIT_COMMITTER_EMAIL=base \
		git -C "$SRC" commit -q -m "Linux $(make -s -C "$PRISTINE" kernelversion)"
	git -C "$SRC" tag base
}

# Does MAINTAINERS pattern $1 match a file of $SRC?
f_matches() {
	case "$1" in
	*/) [ -d "$SRC/$1" ] ;;
	*) compgen -G "$SRC/$1" > /dev/null ;;
	esac
}

# $SRC/MAINTAINERS: pristine, plus the checkout's entry with the F: lines
# that match files the series has added so far.
maintainers() {
	local entry=$SRC.entry l n=0
	[ -f "$TOP/MAINTAINERS" ] || return 0
	while IFS= read -r l; do
		case "$l" in
		F:*) f_matches "${l#F:*[[:space:]]}" || continue; n=$((n + 1)) ;;
		esac
		printf '%s\n' "$l"
	done < "$TOP/MAINTAINERS" > "$entry"
	[ "$n" -gt 0 ] && apply_maintainers "$SRC" "$entry"
	rm -f "$entry"
}

commit_one() {
	local m=$1 who=$2 p f msg
	for p in $(field "$m" Quilt); do
		patch -d "$SRC" -p1 -s -f --no-backup-if-mismatch < "$TOP/patches/$p" ||
			die "$(basename "$m"): patches/$p does not apply"
	done
	for f in $(field "$m" Files); do
		(cd "$TOP" && find "$f" -type f ! -name '*.orig' ! -name '*.rej') | while read -r p; do
			mkdir -p "$(dirname "$SRC/$p")"
			cp -L "$TOP/$p" "$SRC/$p"
		done
	done
	maintainers
	msg=$SRC.msg
	{
		field "$m" Subject
		echo
		body "$m" | sed -e :a -e '/^[[:space:]]*$/{$d;N;ba' -e '}'
		echo
		awk '/^$/ { exit } !/^(Subject|Quilt|Files|Checkpatch-ignore):/ && !/^#/' "$m"
		echo "Signed-off-by: $who"
	} > "$msg"
	git -C "$SRC" add -A
	git -C "$SRC" diff --cached --quiet && die "$(basename "$m"): changes nothing"
	git -C "$SRC" -c user.name="${who% <*}" -c user.email="$(echo "$who" | sed 's/.*<\(.*\)>/\1/')" \
		commit -q --author="$who" --cleanup=verbatim -F "$msg"
	rm -f "$msg"
}

main() {
	local who m n subject
	ensure_pristine
	who=$(author)
	check_cover
	init_src
	for m in $(mail_files); do
		commit_one "$m" "$who"
	done
	rm -rf "$OUT"
	mkdir -p "$OUT"
	n=$(git -C "$SRC" rev-list --count base..HEAD)
	git -C "$SRC" -c user.name="${who% <*}" -c user.email="$(echo "$who" | sed 's/.*<\(.*\)>/\1/')" \
		format-patch -q --cover-letter --full-index --no-signature --thread=shallow \
		-o "$OUT" base..HEAD
	# The cover letter's subject and blurb.
	subject=$(field "$MAIL/cover.txt" Subject)
	awk -v subj="$subject" -v blurb="$MAIL/cover.txt" '
		/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subj) }
		/^\*\*\* BLURB HERE \*\*\*$/ {
			p = 0
			while ((getline l < blurb) > 0) { if (p) print l; if (l == "") p = 1 }
			next
		}
		{ print }' "$OUT/0000-cover-letter.patch" > "$OUT/cover.tmp"
	mv "$OUT/cover.tmp" "$OUT/0000-cover-letter.patch"
	say "$n patches and a cover letter in $OUT (author: $who)"
}

main "$@"; exit	# one line: edits to this file while it runs are not read
