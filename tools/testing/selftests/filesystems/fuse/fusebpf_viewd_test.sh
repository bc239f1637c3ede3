#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fusebpf_viewd, the example daemon of fuse_bpf_reply.h: a view of a tmpfs
# lower whose top-level entries each uid sees by a policy file.  Root sees
# only what "*" sees, uid 1000 alice/ and uid 1001 bob/; each gets ENOENT
# for the other's; the policy is read again when it changes; what is below
# a visible entry is served by the kernel; umount stops the daemon with
# status 0.  Runs as root; fusebpf_viewd (samples/fuse, built into the
# selftests output directory) is taken from the directory of this script.
# TAP.

dir=$(dirname "$(realpath "$0")")
viewd=$dir/fusebpf_viewd
plan=13
n=0
failed=0
pid=

echo "TAP version 13"
echo "1..$plan"

if [ "$(id -u)" != 0 ]; then
	for n in $(seq $plan); do
		echo "ok $n - fusebpf_viewd # SKIP needs root"
	done
	exit 0
fi

cd / || exit 1
tmp=$(mktemp -d /tmp/fusebpf_viewd_test.XXXXXX) || exit 1
chmod 0755 "$tmp"		# the users below walk through it
lower=$tmp/lower
mnt=$tmp/mnt
policy=$tmp/policy

cleanup() {
	mountpoint -q "$mnt" && umount "$mnt"
	[ -n "$pid" ] && kill "$pid" && wait "$pid"
	mountpoint -q "$mnt" && umount -l "$mnt"
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

# as UID COMMAND...: run COMMAND as UID (and gid UID), without groups;
# a daemon that does not answer fails it rather than hanging the test
as() {
	local uid=$1

	shift
	timeout -k 2 10 setpriv --reuid="$uid" --regid="$uid" --clear-groups \
		-- "$@"
}

# expect_listing UID NAMES: UID lists NAMES (sorted, one space between)
expect_listing() {
	local out

	out=$(as "$1" ls "$mnt") || return 1
	out=${out//$'\n'/ }
	echo "uid $1 sees \"$out\", expected \"$2\""
	[ "$out" = "$2" ]
}

# enoent UID PATH: PATH does not exist for UID (ENOENT, not another error)
enoent() {
	local out

	out=$(as "$1" stat -c %n "$2" 2>&1) && { echo "$out"; return 1; }
	echo "$out"
	echo "$out" | grep -q "No such file or directory"
}

# reads UID PATH TEXT: UID reads TEXT from PATH
reads() {
	local out

	out=$(as "$1" cat "$2") || return 1
	echo "uid $1 read \"$out\" from $2, expected \"$3\""
	[ "$out" = "$3" ]
}

t_mount() {
	if [ ! -x "$viewd" ]; then
		echo "no $viewd"
		return 1
	fi
	command -v setpriv || return 1
	"$viewd" "$lower" "$mnt" "$policy" > /dev/null 2> "$tmp/daemon.log" &
	pid=$!
	for _ in $(seq 50); do
		if ! kill -0 "$pid" 2>/dev/null; then
			cat "$tmp/daemon.log"
			pid=
			return 1
		fi
		mountpoint -q "$mnt" && timeout -k 2 10 stat "$mnt" > /dev/null &&
			return 0
		sleep 0.2
	done
	cat "$tmp/daemon.log"
	return 1
}

t_root() {
	expect_listing 0 public && reads 0 "$mnt/public/file" public &&
		enoent 0 "$mnt/alice" && enoent 0 "$mnt/bob/file"
}

t_alice_reads() {
	reads 1000 "$mnt/alice/file" alice && reads 1000 "$mnt/public/file" public
}

t_bob_reads() {
	reads 1001 "$mnt/bob/file" bob && enoent 1001 "$mnt/alice/file"
}

# The dentry uid 1000 made is asked about again for root, then for 1000
t_per_walk() {
	as 1000 stat "$mnt/alice" > /dev/null && enoent 0 "$mnt/alice" &&
		enoent 1001 "$mnt/alice/file" && reads 1000 "$mnt/alice/file" alice
}

t_policy_edit() {
	sleep 0.1		# a new mtime, should the policy be that young
	echo "1000 bob" >> "$policy" || return 1
	expect_listing 1000 "alice bob public" &&
		reads 1000 "$mnt/bob/file" bob
}

t_policy_edit_others() {
	expect_listing 1001 "bob public" && enoent 1001 "$mnt/alice/file" &&
		expect_listing 0 public
}

# Below a visible entry the kernel serves everything: the daemon answers
# nothing there (it fails requests for nodes other than its root with EIO)
t_kernel_serves() {
	as 1000 sh -c "echo written > $mnt/alice/new && mkdir $mnt/alice/sub" ||
		return 1
	[ "$(cat "$lower/alice/new")" = written ] && [ -d "$lower/alice/sub" ] ||
		return 1
	echo lower > "$lower/alice/sub/from_lower" &&
		reads 1000 "$mnt/alice/sub/from_lower" lower || return 1
	# A backed node shows the lower inode's number
	[ "$(stat -c %i "$lower/alice/file")" = \
	  "$(as 1000 stat -c %i "$mnt/alice/file")" ]
}

t_root_readonly() {
	mkdir "$mnt/new" 2>&1 && return 1
	rmdir "$mnt/public" 2>&1 && return 1
	[ ! -e "$lower/new" ] && [ -d "$lower/public" ]
}

t_umount() {
	local rc

	umount "$mnt" || return 1
	for _ in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.2
	done
	if kill -0 "$pid" 2>/dev/null; then
		echo "the daemon is still running"
		return 1
	fi
	wait "$pid"
	rc=$?
	pid=
	cat "$tmp/daemon.log"
	echo "the daemon exited with $rc"
	[ $rc = 0 ]
}

mkdir -p "$lower" "$mnt" &&
	mount -t tmpfs -o mode=0755 fusebpf_viewd_lower "$lower" &&
	mkdir "$lower/public" "$lower/alice" "$lower/bob" &&
	echo public > "$lower/public/file" &&
	echo alice > "$lower/alice/file" &&
	echo bob > "$lower/bob/file" &&
	chown -R 1000:1000 "$lower/alice" &&
	chown -R 1001:1001 "$lower/bob" &&
	printf '# uid names\n* public\n1000 alice\n1001 bob\n' > "$policy" ||
	echo "# could not make the lower at $lower"

run "fusebpf_viewd mounts the view" t_mount
run "root sees only public (uid 0 is not special)" t_root
run "uid 1000 lists alice public" expect_listing 1000 "alice public"
run "uid 1000 reads alice/file and public/file" t_alice_reads
run "uid 1000 gets ENOENT on bob/file" enoent 1000 "$mnt/bob/file"
run "uid 1001 lists bob public" expect_listing 1001 "bob public"
run "uid 1001 reads bob/file, gets ENOENT on alice/file" t_bob_reads
run "each walk asks for its caller: alice/ cached by 1000 is ENOENT for 0" \
	t_per_walk
run "after \"1000 bob\" is added, uid 1000 sees and reads bob/" \
	t_policy_edit
run "the edit changes nothing for uid 1001 and root" t_policy_edit_others
run "below a visible entry the kernel serves (writes, mkdir, lower inodes)" \
	t_kernel_serves
run "names cannot be made or removed in the root" t_root_readonly
run "umount stops the daemon with status 0" t_umount

[ $failed = 0 ]
