#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: build the benchmark kernel (Kconfig.fragment without its debug
# section, in $WORKDIR/build-bench) and the bench tools ($WORKDIR/bench-tools),
# boot one guest, run the workloads on every configuration, and report: a
# table, bench/results/latest.{json,md,svg} and the README's block.
#
# Sizes and choices (environment; defaults in brackets):
#   BENCH_REPS [5]  BENCH_NFILES [10000]  BENCH_PASSES [3]  BENCH_READDIR_PASSES [10]
#   BENCH_SMALL [100] bytes per created file  BENCH_DATA_MB [256]
#   BENCH_RAND_MB [64]  BENCH_FS ["tmpfs ext4"]  BENCH_CONFIGS  BENCH_WORKLOADS
#   BENCH_TAR_DIRS [fs] directories of the pristine tree to tar for untar
#   BENCH_RAMDISK_MB [1024] size of /dev/ram0 for ext4
#   BENCH_PROFILE [1] perf profiles, of BENCH_PROFILE_CONFIGS ["native fusebpf"]
#   BENCH_ALLOCS [1] allocation check
#   BENCH_README [1] rewrite the README's bench block
set -euo pipefail
. "$(dirname "$0")/common.sh"

BENCH_BUILD=$WORKDIR/build-bench
BENCH_TOOLS=$WORKDIR/bench-tools
FRAG=$TOP/workbench/bench/Kconfig.bench
SRC=$TOP/workbench/bench
RESULTS=$TOP/bench/results
: "${BENCH_TAR_DIRS:=fs}"
: "${BENCH_RAMDISK_MB:=1024}"

# The bench kernel is the test kernel minus its debug section: every other
# line of Kconfig.fragment must be in Kconfig.bench too.
missing=$(sed '/^# Debug: any report fails the run/,$d' "$TOP/Kconfig.fragment" |
	  grep '^CONFIG_' | grep -vxF -f <(grep '^CONFIG_' "$FRAG") || true)
[ -z "$missing" ] || die "workbench/bench/Kconfig.bench lacks lines of Kconfig.fragment:
$missing"

EXTRA_PKGS="fio linux-perf" "$TOP/workbench/deps.sh"

say "bench kernel"
KFRAGMENT=$FRAG BUILD=$BENCH_BUILD "$TOP/workbench/kernel.sh"

say "bench tools in $BENCH_TOOLS"
mkdir -p "$BENCH_TOOLS"
cflags="-O2 -g -Wall -isystem $BENCH_BUILD/usr/include"
# ptfuse replies with the selftests' FUSE-BPF reply library
reply=$TREE/tools/testing/selftests/filesystems/fuse/fuse_bpf_reply
for t in fsbench ptfuse; do
	extra=()
	[ $t = ptfuse ] && extra=(-I"$(dirname "$reply")" "$reply.c")
	if [ ! -x "$BENCH_TOOLS/$t" ] || [ "$SRC/$t.c" -nt "$BENCH_TOOLS/$t" ] ||
	   [ "$BENCH_BUILD/usr/include/linux/fuse.h" -nt "$BENCH_TOOLS/$t" ] ||
	   { [ $t = ptfuse ] && [ "$reply.c" -nt "$BENCH_TOOLS/$t" ]; }; then
		gcc $cflags -o "$BENCH_TOOLS/$t" "$SRC/$t.c" "${extra[@]}" -lpthread
	fi
done
# Configuration 3: the fusebpf command and two filters, from the selftests
make -s -C "$TREE/tools/testing/selftests/filesystems/fuse" \
	OUTPUT="$BENCH_TOOLS/fuse" CLANG=clang-19 VMLINUX_BTF="$BENCH_BUILD/vmlinux" \
	KHDR_INCLUDES="-isystem $BENCH_BUILD/usr/include" \
	"$BENCH_TOOLS/fuse/fusebpf" "$BENCH_TOOLS/fuse/fuse_trivial.bpf.o" \
	"$BENCH_TOOLS/fuse/fuse_view.bpf.o"
if [ "$(cat "$BENCH_TOOLS/src.tar.dirs" 2>/dev/null)" != "$BENCH_TAR_DIRS" ] ||
   [ ! -f "$BENCH_TOOLS/src.tar" ]; then
	[ -d "$PRISTINE/fs" ] || die "no pristine tree in $PRISTINE: run make tree"
	tar -cf "$BENCH_TOOLS/src.tar" -C "$PRISTINE" --sort=name --owner=0 --group=0 \
		--mtime=@0 $BENCH_TAR_DIRS
	echo "$BENCH_TAR_DIRS" > "$BENCH_TOOLS/src.tar.dirs"
fi
say "untar workload: $BENCH_TAR_DIRS ($(tar -tf "$BENCH_TOOLS/src.tar" | wc -l) entries," \
    "$(( $(stat -c %s "$BENCH_TOOLS/src.tar") / 1048576 )) MiB)"

rundir=$WORKDIR/runs/bench-$(date +%Y%m%d-%H%M%S)
mkdir -p "$rundir"
ln -sfn "$rundir" "$WORKDIR/runs/last-bench"
git -C "$TOP" describe --always --dirty > "$rundir/commit" 2>/dev/null || true
say "run directory: $rundir"

envs=()
for v in $(compgen -v BENCH_); do
	case $v in BENCH_BUILD|BENCH_TOOLS|BENCH_TAR_DIRS|BENCH_RAMDISK_MB|BENCH_README) continue ;; esac
	envs+=("$v=${!v}")
done
set +e
VM_MEM=${VM_MEM:-6G} VM_TIMEOUT=${VM_TIMEOUT:-3600} \
VM_APPEND="${VM_APPEND:-} brd.rd_nr=1 brd.rd_size=$(( BENCH_RAMDISK_MB * 1024 ))" \
	"$TOP/workbench/vm.sh" -k "$BENCH_BUILD/arch/x86/boot/bzImage" -r "$rundir" -- \
	env "${envs[@]}" "$SRC/guest-bench.sh" "$BENCH_TOOLS" "$rundir/bench"
rc=$?
set -e
# Figures from a kernel that reported a bug are not figures.
python3 "$TOP/workbench/logscan.py" "$rundir/dmesg.log" ||
	die "the guest's kernel log has a report (above); see $rundir/dmesg.log"
if [ $rc != 0 ]; then
	# What did run is still reported in the run directory, not the README.
	[ -s "$rundir/bench/results.tsv" ] && python3 "$SRC/report.py" "$rundir" >/dev/null
	[ -s "$rundir/bench/failed.tsv" ] && cat "$rundir/bench/failed.tsv" >&2
	die "the bench VM run failed (status $rc); see $rundir/console.log"
fi

readme=()
[ "${BENCH_README:-1}" = 1 ] && readme=(--readme "$TOP/README.md")
python3 "$SRC/report.py" "$rundir" --out "$RESULTS" "${readme[@]}"
say "results: $rundir/bench.{md,json,svg}, copied to bench/results/latest.*"
