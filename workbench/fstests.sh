#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make fstests FSTESTS=DIR: run fstests (built by hand in DIR, as its README
# says; nothing of it is in this repository) in one guest of the bench
# kernel, on five configurations over ext4 RAM disks: ext4 alone, FUSE-BPF
# pure passthrough, the same under the trivial filter, a daemon that backs
# nodes at LOOKUP, overlayfs.  Then scan the kernel log and report.
#
# Environment (defaults in brackets):
#   FSTESTS           the built fstests tree (required)
#   FSTESTS_CONFIGS   ["ext4 fusebpf bpf-trivial daemon-backing overlay"]
#   FSTESTS_GROUP     [default] the tests: "default" is the list in
#                     workbench/fstests/default (57 of the generic quick
#                     group, under 45 minutes a configuration); "quick" the
#                     whole generic quick group; anything else is given to
#                     check as it is, e.g. "generic/001 generic/002" or
#                     "-g generic/rw"
#   FSTESTS_KERNEL    boot this bzImage instead of building the bench kernel
#   FSTESTS_MOUNT_ONLY=1  mount and unmount each configuration, run no test
#   FSTESTS_README    [1 for the default group on all five configurations]
#                     rewrite the README's block (rows of several runs:
#                     workbench/fstests/report.py RUNDIR... --readme README.md)
#   FSTESTS_RAMDISK_MB [2048] size of each of the two RAM disks
#   VM_MEM [6G]  VM_TIMEOUT [10 h]
# The run directory ($WORKDIR/runs/fstests-DATE, linked as
# runs/last-fstests) keeps per configuration fstests' results/, its output,
# the configuration and the time, and the guest's kernel log.
set -euo pipefail
. "$(dirname "$0")/common.sh"

FST=${FSTESTS:-}
[ -n "$FST" ] || die "FSTESTS is not set: build fstests outside this checkout as its README says, then make fstests FSTESTS=/path/to/it"
FST=$(realpath "$FST")
[ -x "$FST/check" ] && [ -x "$FST/ltp/fsstress" ] && [ -f "$FST/tests/generic/group.list" ] ||
	die "$FST is not a built fstests tree (no check, ltp/fsstress or tests/generic/group.list): build it as its README says"
CONFIGS=${FSTESTS_CONFIGS:-ext4 fusebpf bpf-trivial daemon-backing overlay}
GROUP=${FSTESTS_GROUP:-default}
HERE=$TOP/workbench/fstests

"$TOP/workbench/deps.sh"

# The bench kernel and tools, as make bench builds them
BENCH_BUILD=$WORKDIR/build-bench
TOOLS=$WORKDIR/bench-tools
if [ -n "${FSTESTS_KERNEL:-}" ]; then
	KERNEL=$(realpath "$FSTESTS_KERNEL")
else
	say "bench kernel"
	KFRAGMENT=$TOP/workbench/bench/Kconfig.bench BUILD=$BENCH_BUILD "$TOP/workbench/kernel.sh"
	KERNEL=$BENCH_BUILD/arch/x86/boot/bzImage
fi
say "tools in $TOOLS"
mkdir -p "$TOOLS"
reply=$SAMPLES_SRC/fuse_bpf_reply
if [ ! -x "$TOOLS/ptfuse" ] || [ "$TOP/workbench/bench/ptfuse.c" -nt "$TOOLS/ptfuse" ] ||
   [ "$reply.c" -nt "$TOOLS/ptfuse" ]; then
	gcc -O2 -g -Wall -isystem "$BENCH_BUILD/usr/include" -I"$(dirname "$reply")" \
		-o "$TOOLS/ptfuse" "$TOP/workbench/bench/ptfuse.c" "$reply.c" -lpthread
fi
# fusebpf and the trivial filter, from samples/fuse
make -s -C "$SAMPLES_SRC" \
	OUTPUT="$TOOLS/fuse" CLANG=clang-19 VMLINUX_BTF="$BENCH_BUILD/vmlinux" \
	KHDR_INCLUDES="-isystem $BENCH_BUILD/usr/include" \
	"$TOOLS/fuse/fusebpf" "$TOOLS/fuse/fuse_trivial.bpf.o"

case $GROUP in
default)
	args=$(sed 's/#.*//' "$HERE/default" | xargs) ;;
quick)	args="-g generic/quick" ;;
*)	args=$GROUP ;;
esac

rundir=$WORKDIR/runs/fstests-$(date +%Y%m%d-%H%M%S)
mkdir -p "$rundir"
ln -sfn "$rundir" "$WORKDIR/runs/last-fstests"
git -C "$TOP" describe --always --dirty > "$rundir/commit" 2>/dev/null || true
echo "$args" > "$rundir/args"
echo "$GROUP" > "$rundir/group"
git -C "$FST" log -1 --format=%h > "$rundir/fstests-commit" 2>/dev/null || true
echo "$KERNEL" > "$rundir/kernel"
say "run directory: $rundir; configurations: $CONFIGS; tests: $args"

set +e
VM_MEM=${VM_MEM:-6G} VM_TIMEOUT=${VM_TIMEOUT:-36000} \
VM_APPEND="${VM_APPEND:-} brd.rd_nr=2 brd.rd_size=$(( ${FSTESTS_RAMDISK_MB:-2048} * 1024 ))" \
	"$TOP/workbench/vm.sh" -k "$KERNEL" -r "$rundir" -- \
	env FSTESTS_ARGS="$args" FSTESTS_MOUNT_ONLY="${FSTESTS_MOUNT_ONLY:-0}" \
	"$HERE/guest-fstests.sh" "$FST" "$TOOLS" "$rundir/fstests" $CONFIGS
rc=$?
set -e
scan=0
python3 "$TOP/workbench/logscan.py" "$rundir/dmesg.log" || scan=1

readme=()
all=0
[ "$GROUP" = default ] && [ "$(xargs <<< "$CONFIGS")" = "ext4 fusebpf bpf-trivial daemon-backing overlay" ] && all=1
[ "${FSTESTS_README:-$all}" = 1 ] &&
	[ "${FSTESTS_MOUNT_ONLY:-0}" != 1 ] && readme=(--readme "$TOP/README.md")
python3 "$HERE/report.py" "$rundir" "${readme[@]}"
[ $scan = 0 ] || die "the guest's kernel log has a report (above); see $rundir/dmesg.log"
[ $rc = 0 ] || die "the guest run failed (status $rc); see $rundir/console.log"
say "results: $rundir/fstests.md"
