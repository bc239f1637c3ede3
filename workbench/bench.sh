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
#   BENCH_CLOCK [icount] icount: the metadata workloads, the allocation
#     check and the profiles in a guest with a deterministic clock (QEMU
#     -icount, one vCPU: see workbench/vm.sh), then the data workloads and
#     untar in a second guest on the wall clock (icount models no memory
#     bandwidth or caches, and skips over tar's waits for its binary);
#     wall: everything in one multi-threaded TCG guest
#   BENCH_BASE  a bench kernel of an earlier run, by the name it was kept
#     under in $WORKDIR/bench-kernels (git describe of its checkout, e.g.
#     838b08c): the icount guest boots it first, then the new kernel, in
#     this one run; compare.md puts the two side by side.  Every run keeps
#     its bench kernel there.
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
KERNELS=$WORKDIR/bench-kernels
kname=$(git -C "$TOP" describe --always --dirty 2>/dev/null || echo unknown)
mkdir -p "$KERNELS"
cp "$BENCH_BUILD/arch/x86/boot/bzImage" "$KERNELS/$kname.bzImage"
if [ -n "${BENCH_BASE:-}" ]; then
	[ -f "$KERNELS/$BENCH_BASE.bzImage" ] ||
		die "no bench kernel named $BENCH_BASE in $KERNELS; there are: $(cd "$KERNELS" && ls | sed 's/\.bzImage$//' | xargs)"
	[ "${BENCH_CLOCK:-icount}" = icount ] || die "BENCH_BASE compares icount boots: BENCH_CLOCK=icount"
fi

say "bench tools in $BENCH_TOOLS"
mkdir -p "$BENCH_TOOLS"
cflags="-O2 -g -Wall -isystem $BENCH_BUILD/usr/include"
# ptfuse replies with the FUSE-BPF reply library of samples/fuse
reply=$SAMPLES_SRC/fuse_bpf_reply
for t in fsbench ptfuse; do
	extra=()
	[ $t = ptfuse ] && extra=(-I"$(dirname "$reply")" "$reply.c")
	if [ ! -x "$BENCH_TOOLS/$t" ] || [ "$SRC/$t.c" -nt "$BENCH_TOOLS/$t" ] ||
	   [ "$BENCH_BUILD/usr/include/linux/fuse.h" -nt "$BENCH_TOOLS/$t" ] ||
	   { [ $t = ptfuse ] && [ "$reply.c" -nt "$BENCH_TOOLS/$t" ]; }; then
		gcc $cflags -o "$BENCH_TOOLS/$t" "$SRC/$t.c" "${extra[@]}" -lpthread
	fi
done
# Configuration 3: the fusebpf command and two filters, from samples/fuse
make -s -C "$SAMPLES_SRC" \
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
	case $v in BENCH_BUILD|BENCH_TOOLS|BENCH_TAR_DIRS|BENCH_RAMDISK_MB|BENCH_README|\
		   BENCH_CLOCK|BENCH_WORKLOADS|BENCH_PROFILE|BENCH_ALLOCS|BENCH_BASE) continue ;; esac
	envs+=("$v=${!v}")
done
all_workloads=${BENCH_WORKLOADS:-stat-warm stat-cold open-close readdir create-unlink seq-read seq-write rand-read untar walk}
# untar runs tar, whose waits (its binary and libraries over 9p) icount
# skips ahead in whole timer periods: it goes with the wall-clock ones.
wall_re='seq-read|seq-write|rand-read|untar'
data_workloads=$(printf '%s\n' $all_workloads | grep -xE "$wall_re" | xargs || true)
meta_workloads=$(printf '%s\n' $all_workloads | grep -vxE "$wall_re" | xargs || true)

# boot RUNDIR OUTDIR CLOCK WORKLOADS PROFILE ALLOCS [KERNEL]: one guest
boot() {
	local rc
	[ -n "$4" ] || return 0
	set +e
	VM_ICOUNT=$([ "$3" = icount ] && echo 1 || echo 0) \
	VM_MEM=${VM_MEM:-6G} VM_TIMEOUT=${VM_TIMEOUT:-5400} \
	VM_APPEND="${VM_APPEND:-} brd.rd_nr=1 brd.rd_size=$(( BENCH_RAMDISK_MB * 1024 ))" \
		"$TOP/workbench/vm.sh" -k "${7:-$BENCH_BUILD/arch/x86/boot/bzImage}" -r "$1" -- \
		env "${envs[@]}" BENCH_CLOCK="$3" BENCH_WORKLOADS="$4" BENCH_PROFILE="$5" \
		BENCH_ALLOCS="$6" "$SRC/guest-bench.sh" "$BENCH_TOOLS" "$2"
	rc=$?
	set -e
	# Figures from a kernel that reported a bug are not figures.
	python3 "$TOP/workbench/logscan.py" "$1/dmesg.log" ||
		die "the guest's kernel log has a report (above); see $1/dmesg.log"
	return $rc
}

rc=0
if [ -n "${BENCH_BASE:-}" ]; then
	say "base kernel $BENCH_BASE: metadata workloads under icount"
	mkdir -p "$rundir/base"
	echo "$BENCH_BASE" > "$rundir/base/commit"
	boot "$rundir/base" "$rundir/base/bench" icount "$meta_workloads" \
		"${BENCH_PROFILE:-1}" "${BENCH_ALLOCS:-1}" "$KERNELS/$BENCH_BASE.bzImage" || rc=$?
fi
if [ "${BENCH_CLOCK:-icount}" = icount ]; then
	say "metadata workloads under icount: $meta_workloads"
	boot "$rundir" "$rundir/bench" icount "$meta_workloads" \
		"${BENCH_PROFILE:-1}" "${BENCH_ALLOCS:-1}" || rc=$?
	say "data workloads on the wall clock: $data_workloads"
	mkdir -p "$rundir/wall"
	boot "$rundir/wall" "$rundir/wall/bench" wall "$data_workloads" 0 0 || rc=$?
	if [ -s "$rundir/wall/bench/results.tsv" ]; then
		mkdir -p "$rundir/bench"
		cat "$rundir/wall/bench/results.tsv" >> "$rundir/bench/results.tsv"
		cat "$rundir/wall/bench/failed.tsv" >> "$rundir/bench/failed.tsv" 2>/dev/null || true
		echo "wall_seconds=$(cat "$rundir/wall/seconds" 2>/dev/null)" >> "$rundir/bench/meta.env"
		echo "wall_cpus=$(sed -n 's/^cpus=//p' "$rundir/wall/bench/meta.env")" >> "$rundir/bench/meta.env"
		echo "wall_reps=$(sed -n 's/^reps=//p' "$rundir/wall/bench/meta.env")" >> "$rundir/bench/meta.env"
	fi
else
	boot "$rundir" "$rundir/bench" wall "$all_workloads" \
		"${BENCH_PROFILE:-1}" "${BENCH_ALLOCS:-1}" || rc=$?
fi
if [ $rc != 0 ]; then
	# What did run is still reported in the run directory, not the README.
	[ -s "$rundir/bench/results.tsv" ] && python3 "$SRC/report.py" "$rundir" >/dev/null
	[ -s "$rundir/bench/failed.tsv" ] && cat "$rundir/bench/failed.tsv" >&2
	die "the bench VM run failed (status $rc); see $rundir/console.log"
fi

readme=()
[ "${BENCH_README:-1}" = 1 ] && readme=(--readme "$TOP/README.md")
python3 "$SRC/report.py" "$rundir" --out "$RESULTS" "${readme[@]}"
if [ -n "${BENCH_BASE:-}" ]; then
	python3 "$SRC/report.py" "$rundir/base" > /dev/null
	python3 "$SRC/compare.py" "$rundir/base" "$rundir" "$BENCH_BASE" "$kname" \
		> "$rundir/compare.md"
	cat "$rundir/compare.md"
	say "base against new: $rundir/compare.md"
fi
say "results: $rundir/bench.{md,json,svg}, copied to bench/results/latest.*"
