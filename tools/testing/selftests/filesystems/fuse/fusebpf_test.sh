#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fusebpf command: a no-daemon FUSE-BPF view of a tmpfs lower filtered
# by fuse_count.bpf.o, its entry in "fusebpf list", its counters, mounts by
# name, a second registration of the name refused, then unmount and
# unregister.  Runs as root; fusebpf and fuse_count.bpf.o (samples/fuse,
# built into the selftests output directory) are taken from the directory
# of this script.  TAP.

dir=$(dirname "$(realpath "$0")")
fusebpf=$dir/fusebpf
obj=$dir/fuse_count.bpf.o
name=count			# the .name of fuse_count.c's fuse_ops
pins=/sys/fs/bpf/fusebpf
aside=$pins/${name}_aside
plan=10
n=0
failed=0
registered=0

echo "TAP version 13"
echo "1..$plan"

if [ "$(id -u)" != 0 ]; then
	for n in $(seq $plan); do
		echo "ok $n - fusebpf # SKIP needs root"
	done
	exit 0
fi

tmp=$(mktemp -d /tmp/fusebpf_test.XXXXXX) || exit 1
lower=$tmp/lower
mnt=$tmp/mnt
mnt2=$tmp/mnt2

cleanup() {
	mountpoint -q "$mnt2" && umount "$mnt2"
	mountpoint -q "$mnt" && umount "$mnt"
	if [ -d "$aside" ]; then
		[ -d "$pins/$name" ] && "$fusebpf" unregister "$name"
		mv "$aside" "$pins/$name"
	fi
	[ $registered = 1 ] && [ -d "$pins/$name" ] &&
		"$fusebpf" unregister "$name"
	mountpoint -q "$lower" && umount "$lower"
	rm -rf "$tmp"
} >/dev/null 2>&1
trap cleanup EXIT

# run DESCRIPTION COMMAND...: one TAP line; the output as a comment if not ok
run() {
	local desc=$1 rc

	shift
	"$@" > "$tmp/out" 2>&1
	rc=$?
	n=$((n + 1))
	if [ $rc = 0 ]; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc"
		failed=$((failed + 1))
		sed 's/^/# /' "$tmp/out"
	fi
}

# raw_mount MNT: mount(2) the lower at MNT with root_bpf=$name, as fusebpf
# does; prints the errno's name if it fails
raw_mount() {
	python3 - "$lower" "$1" "$name" <<'EOF'
import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
opts = "root_dir=%d,no_daemon,root_bpf=%s" % (fd, sys.argv[3])
if libc.mount(b"fusebpf", sys.argv[2].encode(), b"fuse", 0, opts.encode()):
    print(errno.errorcode.get(ctypes.get_errno(), ctypes.get_errno()))
    sys.exit(1)
EOF
}

# The lines of "fusebpf list" naming $name
listed() {
	"$fusebpf" list | awk -v n="$name" 'NR > 1 && $3 == n'
}

# Wait up to 10 s for "fusebpf list" not to show $name: links are freed
# from a work item, so that a test that just exited may hold it still.
unlisted() {
	local out

	for _ in $(seq 50); do
		out=$(listed) || return 1
		[ -z "$out" ] && return 0
		sleep 0.2
	done
	echo "$out"
	return 1
}

t_mount() {
	if [ ! -x "$fusebpf" ] || [ ! -f "$obj" ]; then
		echo "no $fusebpf or $obj"
		return 1
	fi
	unlisted || echo "$name is registered already"
	"$fusebpf" mount "$obj" "$lower" "$mnt" || return 1
	registered=1
	mountpoint -q "$mnt" && [ -e "$pins/$name/link" ]
}

t_visible() {
	local in_lower in_mnt

	# The guest has no /dev/fd for <(...): compare the listings as strings
	in_lower=$(cd "$lower" && find . | sort) || return 1
	in_mnt=$(cd "$mnt" && find . | sort) || return 1
	[ "$in_lower" = "$in_mnt" ] &&
		cmp "$lower/a" "$mnt/a" && cmp "$lower/dir/c" "$mnt/dir/c" &&
		[ "$(readlink "$mnt/l")" = a ]
}

t_list() {
	local out

	out=$(listed) || return 1
	echo "$out"
	[ "$(echo "$out" | awk '$5 == "yes"' | wc -l)" = 1 ]
}

t_counters() {
	local out

	stat "$mnt/a" "$mnt/dir/c" "$mnt/dir" > /dev/null &&
		ls -lR "$mnt" > /dev/null || return 1
	stat "$mnt/missing" > /dev/null 2>&1
	out=$("$fusebpf" counters "$name") || return 1
	echo "$out"
	echo "$out" | awk '$2 == "LOOKUP" { l = 1 } $2 == "GETATTR" { g = 1 }
			   END { exit !(l && g) }'
}

t_by_name() {
	raw_mount "$mnt2" && cmp "$lower/a" "$mnt2/a" && umount "$mnt2"
}

# A second load of the object: fusebpf sees the pins of the first
t_second_refused() {
	if "$fusebpf" mount "$obj" "$lower" "$mnt2"; then
		"$fusebpf" umount "$mnt2"
		return 1
	fi
	! mountpoint -q "$mnt2" && [ -e "$pins/$name/link" ] &&
		cmp "$lower/a" "$mnt/a"
}

# The same without the pins: the kernel refuses the name, fusebpf undoes
t_second_eexist() {
	local out rc=0

	mv "$pins/$name" "$aside" || return 1
	if out=$("$fusebpf" mount "$obj" "$lower" "$mnt2" 2>&1); then
		"$fusebpf" umount -n "$name" "$mnt2"
		rc=1
	fi
	echo "$out"
	echo "$out" | grep -q "File exists" || rc=1
	mountpoint -q "$mnt2" && rc=1
	[ -e "$pins/$name" ] && { echo "pins left behind"; rc=1; }
	mv "$aside" "$pins/$name" || rc=1
	return $rc
}

t_umount() {
	"$fusebpf" umount -n "$name" "$mnt" || return 1
	! mountpoint -q "$mnt" && [ ! -e "$pins/$name" ]
}

t_by_name_gone() {
	local out

	out=$(raw_mount "$mnt2") && umount "$mnt2"
	echo "$out"
	[ "$out" = ENOENT ]
}

mkdir -p "$lower" "$mnt" "$mnt2" &&
	mount -t tmpfs -o mode=0755 fusebpf_lower "$lower" &&
	mkdir "$lower/dir" &&
	echo alpha > "$lower/a" &&
	echo gamma > "$lower/dir/c" &&
	ln -s a "$lower/l" || echo "# could not make the lower at $lower"

run "fusebpf mount registers and mounts $name" t_mount
run "the lower's files are seen through the mount" t_visible
run "fusebpf list shows $name, pinned" t_list
run "fusebpf counters shows LOOKUP and GETATTR calls" t_counters
run "a mount by name (root_bpf=$name) works while registered" t_by_name
run "a second registration of $name is refused" t_second_refused
run "the kernel refuses $name twice (EEXIST), fusebpf undoes it" \
	t_second_eexist
run "fusebpf umount -n unmounts and unregisters" t_umount
run "fusebpf list no longer shows $name" unlisted
run "a mount by name fails with ENOENT once unregistered" t_by_name_gone

[ $failed = 0 ]
