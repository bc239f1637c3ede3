#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Interleaved timings, inside a bench guest: every configuration mounted
# at once over one tmpfs lower, each workload taken in turn REPS times,
# medians and ratios printed (to overlayfs and to pure passthrough).
# Ratios within one boot move much less than make bench's medians between
# runs; compare two kernels by running this on each.
#   interleave.sh TOOLS_DIR OUT_DIR
#   CONFIGS ["fusebpf overlay"]: native, fusebpf, overlay, or a filter
#	object of TOOLS_DIR/fuse (fuse_trivial, fuse_view)
#   WORKS ["stat open readdir"]  REPS [7]
# From the host, with the bench kernel and tools of make bench:
#   workbench/vm.sh -k $WORKDIR/build-bench/arch/x86/boot/bzImage -w DIR -- \
#	env CONFIGS="fusebpf overlay" workbench/bench/interleave.sh \
#	$WORKDIR/bench-tools DIR/out
. "$(dirname "$0")/mounts.sh"
tools=$1 out=$2; shift 2
export PATH=$tools:$PATH
mkdir -p $out
B=/tmp/b; mkdir -p $B/root
mount -t tmpfs t $B/root; mkdir -p $B/root/lower/flat
fsbench mkfiles $B/root/lower/flat 10000 >/dev/null
: "${CONFIGS:=fusebpf overlay}" "${WORKS:=stat open readdir}"
for c in $CONFIGS; do
	m=$B/m-$c; mkdir -p $m
	case $c in
	fusebpf) mount_fusebpf $B/root/lower $m ;;
	overlay) mount_overlay $B/root/lower $B/root/u $B/root/w $m ;;
	native) mount --bind $B/root/lower $m ;;
	*) mount_filter $tools/fuse/fusebpf $tools/fuse/$c.bpf.o $B/root/lower $m ;;
	esac
done
for w in $WORKS; do
	case $w in
	stat) args="stat flat 10000 5" ;;
	open) args="open flat 10000 3" ;;
	readdir) args="readdir flat 20" ;;
	esac
	for c in $CONFIGS; do set -- $args; fsbench $1 $B/m-$c/$2 ${@:3} >/dev/null; done
	for r in $(seq ${REPS:-7}); do
		for c in $CONFIGS; do
			set -- $args
			echo "$w $c $(fsbench $1 $B/m-$c/$2 ${@:3} | awk '{print $1}')"
		done
	done
done > $out/times
python3 - $out/times <<'PY'
import sys, statistics as st, collections
d = collections.defaultdict(list)
for l in open(sys.argv[1]):
    w, c, t = l.split(); d[(w, c)].append(float(t))
ws = sorted({w for w, c in d})
for w in ws:
    cs = [c for (ww, c) in d if ww == w]
    base = st.median(d[(w, 'overlay')]) if (w, 'overlay') in d else None
    ref = st.median(d[(w, 'fusebpf')]) if (w, 'fusebpf') in d else None
    for c in cs:
        m = st.median(d[(w, c)])
        print(f"{w:8} {c:14} median {m:.4f} min {min(d[(w,c)]):.4f}" +
              (f"  overlay/x {base/m:.3f}" if base else "") +
              (f"  fusebpf/x {ref/m:.3f}" if ref else ""))
PY
echo done
