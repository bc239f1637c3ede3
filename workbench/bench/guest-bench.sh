#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench, inside the guest: the workloads on every configuration of the
# bench, on each lower filesystem, then the allocation check and profiles.
#   guest-bench.sh TOOLS_DIR OUT_DIR
#
# Results go to OUT_DIR/results.tsv, one line per measurement:
#   fs  config  workload  rep  seconds  ops  bytes
# and OUT_DIR/unavailable.tsv, OUT_DIR/meta.env, OUT_DIR/allocs/,
# OUT_DIR/profile/.  Sizes come from BENCH_* in the environment
# (workbench/bench.sh passes them on).
set -u
tools=$1 out=$2
mkdir -p "$out"
export PATH=$tools:$PATH

CLOCK=${BENCH_CLOCK:-wall}		# icount: the guest's clock counts instructions
# Under icount repetitions differ by about 1 %: three are enough
REPS=${BENCH_REPS:-$([ "$CLOCK" = icount ] && echo 3 || echo 5)}
NFILES=${BENCH_NFILES:-10000}		# stat, open+close, readdir, create
READDIR_PASSES=${BENCH_READDIR_PASSES:-10}
PASSES=${BENCH_PASSES:-3}		# warm stat and open+close: passes over the files
SMALL=${BENCH_SMALL:-100}		# bytes of each created file
DATA_MB=${BENCH_DATA_MB:-256}		# sequential read and write
RAND_MB=${BENCH_RAND_MB:-64}		# random 4 KiB reads, in total
FSLIST=${BENCH_FS:-tmpfs ext4}
CONFIGS=${BENCH_CONFIGS:-native fusebpf bpf-trivial bpf-hide daemon-backing fuse fuse-pt overlay}
WORKLOADS=${BENCH_WORKLOADS:-stat-warm stat-cold open-close readdir create-unlink seq-read seq-write rand-read untar walk}
DATA_WORKLOADS="seq-read seq-write rand-read"
PROFILE=${BENCH_PROFILE:-1}
PROFILE_CONFIGS=${BENCH_PROFILE_CONFIGS:-native fusebpf}
ALLOCS=${BENCH_ALLOCS:-1}
TARBALL=$tools/src.tar

B=${BENCH_DIR:-/tmp/bench} MNT=$B/mnt
mkdir -p $B $MNT
: > "$out/results.tsv"
: > "$out/unavailable.tsv"
: > "$out/failed.tsv"
{
	echo "kernel=$(uname -r)"
	echo "cpus=$(nproc)"
	echo "mem_kb=$(awk '/MemTotal/ { print $2 }' /proc/meminfo)"
	echo "reps=$REPS"
	echo "clock=$CLOCK"
	echo "workloads=$WORKLOADS"
	echo "nfiles=$NFILES"
	echo "readdir_passes=$READDIR_PASSES"
	echo "passes=$PASSES"
	echo "small=$SMALL"
	echo "data_mb=$DATA_MB"
	echo "rand_mb=$RAND_MB"
	echo "tarball_bytes=$(stat -c %s "$TARBALL")"
	echo "tarball_files=$(tar -tf "$TARBALL" | wc -l)"
	echo "fio=$(fio --version)"
} > "$out/meta.env"

. "$(dirname "$0")/mounts.sh"

log() { echo "bench: $*"; }
# A failure is logged, kept in failed.tsv and fails the run at the end.
fail() { log "FAILED: $1: $2"; echo -e "$1\t$2" >> "$out/failed.tsv"; }

# ---- configurations -------------------------------------------------------
# Each has cfg_<name>_up LOWERROOT (mounts, prints the path to measure),
# cfg_<name>_down, and may have cfg_<name>_missing (prints why the kernel
# cannot run it yet; the configuration is then listed as not available)
# and cfg_<name>_workloads (the workloads it is meant for).

cfg_native_up() { echo "$1/lower"; }
cfg_native_down() { :; }

cfg_fusebpf_up() { mount_fusebpf "$1/lower" $MNT && echo $MNT; }
cfg_fusebpf_down() { umount $MNT; }

# 3: FUSE-BPF with a BPF filter, registered and mounted with fusebpf:
# (3a) fuse_trivial, a prefilter and a postfilter on every operation that
# let it through; (3b) fuse_view, Android's hidden directory plus a
# listing redacted by prefixes.
fusebpf=$tools/fuse/fusebpf
bpf_up() { # LOWERROOT OBJECT
	mount_filter $fusebpf "$tools/fuse/$2.bpf.o" "$1/lower" $MNT && echo $MNT
}
cfg_bpf_trivial_up() { bpf_up "$1" fuse_trivial; }
cfg_bpf_trivial_down() { $fusebpf umount -n trivial $MNT; }
cfg_bpf_hide_up() { bpf_up "$1" fuse_view; }
cfg_bpf_hide_down() { $fusebpf umount -n view $MNT; }

# 4: a daemon that attaches the backing inode in its lookup replies
# (ptfuse -b): after the first lookup of a name, the kernel serves it.
cfg_daemon_backing_up() { ptfuse_up "$1" -b; }
cfg_daemon_backing_down() { ptfuse_down; }

ptfuse_up() { # LOWERROOT OPTIONS
	local pid
	pid=$(ptfuse $2 -v "$1/lower" $MNT 2>>"$out/ptfuse.log") || return 1
	echo "$pid" > $B/ptfuse.pid
	echo $MNT
}
ptfuse_down() {
	local pid i
	pid=$(cat $B/ptfuse.pid)
	umount $MNT
	for i in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
	log "ptfuse $pid did not exit at unmount: killed"
	kill -9 "$pid"
	fail "ptfuse" "did not exit at unmount"
}
cfg_fuse_up() { ptfuse_up "$1" ""; }
cfg_fuse_down() { ptfuse_down; }
cfg_fuse_pt_up() { ptfuse_up "$1" -p; }
cfg_fuse_pt_down() { ptfuse_down; }
cfg_fuse_pt_workloads() { echo $DATA_WORKLOADS; }

cfg_overlay_up() {
	mount_overlay "$1/lower" "$1/upper" "$1/work" $MNT && echo $MNT
}
cfg_overlay_down() { umount $MNT; }

fn() { echo "cfg_${1//-/_}_$2"; }
has() { declare -F "$(fn "$1" "$2")" >/dev/null; }
# The workloads of a configuration that this run measures
workloads_of() {
	local w
	has "$1" workloads || { echo $WORKLOADS; return; }
	for w in $($(fn "$1" workloads)); do
		[[ " $WORKLOADS " == *" $w "* ]] && echo "$w"
	done | xargs
}

# ---- lower filesystems ------------------------------------------------------

fs_up() { # FS -> prints its root
	local root=$B/$1
	mkdir -p "$root"
	case $1 in
	tmpfs) mount -t tmpfs -o size=90% bench "$root" ;;
	ext4)	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 /dev/ram0 >/dev/null &&
		mount -t ext4 /dev/ram0 "$root" ;;
	*) return 1 ;;
	esac || return 1
	mkdir -p "$root/lower/flat" "$root/lower/data" "$root/lower/scratch"
	fsbench mkfiles "$root/lower/flat" "$NFILES" >/dev/null || return 1
	dd if=/dev/zero of="$root/lower/data/big" bs=1M count="$DATA_MB" status=none || return 1
	sync
	echo "$root"
}

fs_down() { sync; umount "$B/$1"; }

# ---- workloads ----------------------------------------------------------------
# Each prints "seconds ops bytes" for one repetition on path $1.

fio_run() { # NAME RW FILE SIZE_MB [extra fio options]; prints "seconds ops bytes"
	local name=$1 rw=$2 file=$3 size=$4; shift 4
	fio --name="$name" --filename="$file" --rw="$rw" --size="${size}M" \
	    --ioengine=psync --invalidate=0 --fallocate=none --thread \
	    --output-format=terse --terse-version=3 "$@" 2>&1 |
	awk -F';' -v rw="$rw" '
		NF < 50 || $5 != 0 { print "fio: " $0 > "/dev/stderr"; next }
		{ if (rw ~ /write/) { kb = $47; ios = $49; ms = $50 }
		  else { kb = $6; ios = $8; ms = $9 }
		  if (kb > 0 && ms > 0)
			printf "%.3f %d %d\n", ms / 1000, kb / (rw ~ /rand/ ? 4 : 1024), kb * 1024 }'
}

wl_stat_warm() { fsbench stat "$1/flat" "$NFILES" >/dev/null && fsbench stat "$1/flat" "$NFILES" "$PASSES"; }
wl_stat_cold() { sync; echo 2 > /proc/sys/vm/drop_caches; fsbench stat "$1/flat" "$NFILES"; }
wl_open_close() { fsbench open "$1/flat" "$NFILES" >/dev/null && fsbench open "$1/flat" "$NFILES" "$PASSES"; }
wl_readdir() { fsbench readdir "$1/flat" 1 >/dev/null && fsbench readdir "$1/flat" "$READDIR_PASSES"; }
wl_create_unlink() {
	mkdir -p "$1/scratch/cu" && fsbench create "$1/scratch/cu" "$NFILES" "$SMALL"
	rmdir "$1/scratch/cu"
}
wl_seq_read() {
	cat "$1/data/big" > /dev/null
	fio_run seqread read "$1/data/big" "$DATA_MB" --bs=1M
}
wl_seq_write() {
	fio_run seqwrite write "$1/scratch/fio-w" "$DATA_MB" --bs=1M
	rm -f "$1/scratch/fio-w"
}
wl_rand_read() {
	fio_run randread randread "$1/data/big" "$DATA_MB" --bs=4k --io_size="${RAND_MB}M" \
		--norandommap --randrepeat=1
}
wl_untar() {
	local t0 t1
	rm -rf "$1/scratch/untar"
	mkdir -p "$1/scratch/untar"
	t0=$EPOCHREALTIME
	tar -xf /tmp/src.tar -C "$1/scratch/untar" || return 1
	t1=$EPOCHREALTIME
	awk -v a="$t0" -v b="$t1" -v n="$(cat /tmp/src.files)" -v s="$(stat -c %s /tmp/src.tar)" \
		'BEGIN { printf "%.6f %d %d\n", b - a, n, s }' 
}
wl_walk() { # the tree untar left
	[ -d "$1/scratch/untar" ] || wl_untar "$1" >/dev/null
	fsbench walk "$1/scratch/untar"
	rm -rf "$1/scratch/untar"
}

# ---- the run ------------------------------------------------------------------

cp "$TARBALL" /tmp/src.tar
tar -tf /tmp/src.tar | wc -l > /tmp/src.files
# Under TCG the first touch of guest memory costs the host a page fault:
# touch most of it once, so that the first configuration measured does not
# pay for it.
mkdir -p $B/prefault
mount -t tmpfs -o size=90% prefault $B/prefault
dd if=/dev/zero of=$B/prefault/f bs=1M count=$(( $(awk '/MemAvailable/ { print $2 }' /proc/meminfo) * 3 / 4 / 1024 )) status=none
umount $B/prefault
[ -b /dev/ram0 ] || log "no /dev/ram0 (brd): ext4 is skipped"

for c in $CONFIGS; do
	has "$c" missing || continue
	echo -e "$c\t$($(fn "$c" missing))" >> "$out/unavailable.tsv"
	log "configuration $c: not available yet: $($(fn "$c" missing))"
done

total=0
for fs in $FSLIST; do
	for c in $CONFIGS; do
		has "$c" missing && continue
		wls=$(workloads_of "$c")
		total=$(( total + REPS * $(echo $wls | wc -w) ))
	done
done
log "$total measurements: fs [$FSLIST] x configurations [$CONFIGS] x $REPS repetitions"
start=$(date +%s) done_n=0

for fs in $FSLIST; do
	[ "$fs" = ext4 ] && [ ! -b /dev/ram0 ] && continue
	root=$(fs_up "$fs") || { fail "$fs" "cannot set up the lower filesystem"; continue; }
	log "$fs: lower ready at $root ($NFILES files, ${DATA_MB} MiB data file)"
	for rep in $(seq "$REPS"); do
		for c in $CONFIGS; do
			has "$c" missing && continue
			wls=$(workloads_of "$c")
			[ -n "$wls" ] || continue
			# Let the previous configuration's teardown (freed pages,
			# RCU callbacks, writeback) finish before the clock runs.
			sync
			sleep 1
			path=$($(fn "$c" up) "$root") || { fail "$fs $c" "mount failed"; continue; }
			line=
			for w in $wls; do
				# Writeback of the previous workload is not this one's.
				sync
				res=$("wl_${w//-/_}" "$path")
				set -- $res
				if [ $# -ge 2 ]; then
					echo -e "$fs\t$c\t$w\t$rep\t$1\t$2\t${3:-0}" >> "$out/results.tsv"
					line+=" $w=${1}s"
				else
					line+=" $w=FAILED"
					fail "$fs $c $w rep $rep" "no result"
				fi
				done_n=$(( done_n + 1 ))
			done
			$(fn "$c" down)
			rm -rf "$root/lower/scratch"/*
			log "[$done_n/$total, $(( $(date +%s) - start ))s] $fs rep $rep/$REPS $c:$line"
		done
	done
	fs_down "$fs"
done
log "workloads done in $(( $(date +%s) - start ))s"

# The phases below switch tracepoints and ftrace on and off, which patches
# kernel text (int3 first, then the new bytes).  Under TCG a second vCPU
# can still run the int3 once the patch is over: "Oops: int3" in whatever
# function was patched (__schedule, twice in 2026-12), killing the run.
# Nothing is timed from here on, so the other CPUs go offline.
cpus_online() { # 0|1: every CPU but the first
	local f
	for f in /sys/devices/system/cpu/cpu[1-9]*/online; do
		[ -w "$f" ] && { echo "$1" > "$f" || true; }
	done
	log "CPUs online: $(cat /sys/devices/system/cpu/online)"
}
cpus_online 0

# ---- heap allocations per operation -------------------------------------------
# kmem:kmalloc and kmem:kmem_cache_alloc counted by call site with a hist
# trigger, only for fsbench's timed pass (it writes its pid into
# set_event_pid after an untimed warm-up pass).
T=/sys/kernel/tracing
alloc_events="kmem/kmalloc kmem/kmem_cache_alloc"
alloc_trigger='hist:keys=call_site.sym:vals=hitcount:sort=hitcount.descending:size=256'
alloc_check() { # CONFIG PATH NAME fsbench-args...
	local c=$1 p=$2 name=$3 ev res n; shift 3
	# Trace no one (pid 1 waits for us) until fsbench names itself.
	echo 1 > $T/set_event_pid
	for ev in $alloc_events; do
		echo "$alloc_trigger" > $T/events/$ev/trigger
	done
	res=$(FSBENCH_WARMUP=1 FSBENCH_TRACE_PID=$T/set_event_pid fsbench "$@")
	echo 1 > $T/set_event_pid
	for ev in $alloc_events; do
		cat $T/events/$ev/hist > "$out/allocs/$c-$name-${ev#kmem/}.hist"
		echo "!$alloc_trigger" > $T/events/$ev/trigger
	done
	echo > $T/set_event_pid
	set -- $res
	n=$(cat "$out/allocs/$c-$name-"*.hist | awk '/^ *Totals:/ { t = 1 } t && /Hits:/ { s += $2; t = 0 } END { print s + 0 }')
	echo -e "$c\t$name\t$2\t$n" >> "$out/allocs.tsv"
	log "allocations: $c $name: $n in $2 operations"
}
if [ "$ALLOCS" = 1 ] && [ -d $T/events/kmem ]; then
	mkdir -p "$out/allocs"
	: > "$out/allocs.tsv"
	root=$(fs_up tmpfs)
	for c in native fusebpf bpf-trivial overlay; do
		path=$($(fn "$c" up) "$root") || continue
		alloc_check $c "$path" stat stat "$path/flat" "$NFILES"
		alloc_check $c "$path" open-close open "$path/flat" "$NFILES"
		alloc_check $c "$path" readdir readdir "$path/flat" 10
		alloc_check $c "$path" pread-4k pread "$path/data/big" 4096 "$NFILES"
		mkdir -p "$path/scratch/a"
		alloc_check $c "$path" create-unlink create "$path/scratch/a" "$NFILES" "$SMALL"
		rmdir "$path/scratch/a"
		$(fn "$c" down)
	done
	fs_down tmpfs
fi

# ---- profiles -------------------------------------------------------------------
# perf's cpu-clock samples with call graphs of the metadata workloads on
# tmpfs, native and FUSE-BPF, for where a target is missed.
graph_profile() { # CONFIG NAME fsbench-args...: function_graph of the timed pass
	local c=$1 name=$2; shift 2
	echo 1 > $T/set_ftrace_pid		# no one, until fsbench names itself
	echo function_graph > $T/current_tracer
	echo 6 > $T/max_graph_depth
	echo 1 > $T/options/funcgraph-tail
	echo 16384 > $T/buffer_size_kb
	echo > $T/trace
	FSBENCH_WARMUP=1 FSBENCH_TRACE_PID=$T/set_ftrace_pid fsbench "$@" >/dev/null
	echo 1 > $T/set_ftrace_pid
	cp $T/trace "$out/profile/$c-$name.graph"
	echo nop > $T/current_tracer
	echo > $T/set_ftrace_pid
	echo > $T/trace
	log "function_graph: $c $name: $(grep -c . "$out/profile/$c-$name.graph") lines"
}

# cpu-clock every PERIOD ns of the guest's clock.  Under icount that clock
# counts instructions, and a sampling period that is a multiple of a
# loop's length samples the same few instructions of it each time (perf's
# -F 4000 settles on 250000 ns): a prime period walks through the loop.
PERIOD=99991
if [ "$PROFILE" = 1 ] && command -v perf >/dev/null; then
	mkdir -p "$out/profile"
	echo 0 > /proc/sys/kernel/kptr_restrict
	echo -1 > /proc/sys/kernel/perf_event_paranoid
	root=$(fs_up tmpfs)
	for c in $PROFILE_CONFIGS; do
		path=$($(fn "$c" up) "$root") || continue
		for w in "stat stat $path/flat $NFILES 20" "open open $path/flat $NFILES 10" \
			 "readdir readdir $path/flat 100" "create create $path/scratch $NFILES $SMALL" \
			 "stat-cold"; do
			set -- $w
			name=$1; shift
			if [ "$name" = stat-cold ]; then
				# Five cold passes; only fsbench's samples are kept.
				perf record -q -e cpu-clock -c $PERIOD -g -a -o "$out/profile/$c-$name.data" \
					sh -c "for i in 1 2 3 4 5; do echo 2 > /proc/sys/vm/drop_caches;
						fsbench stat $path/flat $NFILES; done" >/dev/null 2>&1
				filter=(--comms fsbench)
			else
				fsbench "$@" >/dev/null
				perf record -q -e cpu-clock -c $PERIOD -g -o "$out/profile/$c-$name.data" \
					fsbench "$@" >/dev/null 2>&1
				filter=()
			fi
			perf report -q -i "$out/profile/$c-$name.data" "${filter[@]}" --stdio --percentage relative \
				--no-children --sort symbol --percent-limit 0.7 -g none 2>/dev/null \
				> "$out/profile/$c-$name.txt"
			perf report -q -i "$out/profile/$c-$name.data" "${filter[@]}" --stdio --percentage relative \
				--children --sort symbol --percent-limit 2 -g none 2>/dev/null \
				> "$out/profile/$c-$name.children.txt"
			rm -f "$out/profile/$c-$name.data"
			log "profile: $c $name: $(head -n4 "$out/profile/$c-$name.txt" | awk '{ printf "%s %s; ", $1, $3 }')"
		done
		# function_graph of a few hundred calls: time per function per call
		for w in "stat stat $path/flat 300" "open open $path/flat 300"; do
			set -- $w
			name=$1; shift
			graph_profile "$c" "$name" "$@"
		done
		$(fn "$c" down)
	done
	fs_down tmpfs
fi
cpus_online 1
log "done in $(( $(date +%s) - start ))s"
if [ -s "$out/failed.tsv" ]; then
	log "$(wc -l < "$out/failed.tsv") failures (failed.tsv)"
	exit 1
fi
