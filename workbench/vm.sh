#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the test kernel in QEMU with the host's root filesystem read-only
# over 9p (the virtme-ng way) and run one command, or a shell.
#
#   vm.sh [-i] [-k BZIMAGE] [-w DIR] [-r RUNDIR] [--] [command...]
#     -i         interactive shell (no command)
#     -k BZIMAGE boot that kernel (also KERNEL=...; default: $BUILD's bzImage)
#     -w DIR     DIR is mounted read-write at the same path and is the cwd
#     -r RUNDIR  where the guest leaves status, dmesg.log and kmemleak.txt
#
# KVM is used only when it really works (vmx/svm in /proc/cpuinfo and a
# usable /dev/kvm), TCG otherwise; VM_ACCEL=kvm|tcg overrides.  VM_ICOUNT=1
# runs TCG with a deterministic clock instead: one vCPU, single-threaded,
# -icount shift=0,sleep=off (the guest's clock counts instructions, 1 ns
# each, and skips idle time), for timings that do not move with the host's
# load.  Every run has a hard timeout (VM_TIMEOUT seconds): a hung guest is
# a failure.
set -euo pipefail
. "$(dirname "$0")/common.sh"

interactive=0 cwd= rundir=
while [ $# -gt 0 ]; do
	case "$1" in
	-i) interactive=1; shift ;;
	-k) KERNEL=$2; shift 2 ;;
	-w) cwd=$(realpath "$2"); shift 2 ;;
	-r) rundir=$2; shift 2 ;;
	--) shift; break ;;
	*) break ;;
	esac
done

KERNEL=${KERNEL:-$BUILD/arch/x86/boot/bzImage}
[ -f "$KERNEL" ] || die "no kernel at $KERNEL: run make kernel"
[ -n "$rundir" ] || rundir=$(mktemp -d "$WORKDIR/run.XXXXXX")
mkdir -p "$rundir"
rundir=$(realpath "$rundir")
rm -f "$rundir/status" "$rundir/dmesg.log" "$rundir/kmemleak.txt"

if [ $interactive = 0 ]; then
	[ $# -gt 0 ] || die "no command given"
	{ echo "export PATH=$TOOLS_BIN:\$PATH"; printf '%q ' "$@"; echo; } > "$rundir/cmd.sh"
fi

accel=${VM_ACCEL:-}
if [ -z "$accel" ]; then
	if [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo; then accel=kvm; else accel=tcg; fi
fi
cpus=${VM_CPUS:-2}
if [ "${VM_ICOUNT:-0}" = 1 ]; then
	accel=icount cpus=1
	accel_args=(-accel tcg,thread=single -cpu max -icount shift=0,sleep=off)
fi
case $accel in
kvm) accel_args=(-accel kvm -cpu host) ;;
tcg) accel_args=(-accel tcg,thread=multi -cpu max) ;;
esac

fs9p() { # id path tag [readonly]
	echo "-fsdev local,id=$1,path=$2,security_model=none,multidevs=remap${4:+,readonly=on}"
	echo "-device virtio-9p-pci,fsdev=$1,mount_tag=$3"
}

cmdline="console=ttyS0 loglevel=${VM_LOGLEVEL:-4} panic=-1"
cmdline+=" root=/dev/root rootfstype=9p rootflags=trans=virtio,version=9p2000.L,cache=loose,msize=262144 ro"
cmdline+=" init=$TOP/workbench/guest-init.sh wbrun=$rundir wbtools=$TOOLS_BIN"
work=$(realpath "$WORKDIR")
cmdline+=" wbtop=$TOP wbwork=$work"
cmdline+=" wbmode=$([ $interactive = 1 ] && echo shell || echo cmd)"
[ -n "$cwd" ] && cmdline+=" wbcwd=$cwd" || cmdline+=" wbcwd=$PWD"
# A kernel with FUSE as a module: the guest loads it from the build first
kdir=${KERNEL%/arch/x86/boot/bzImage}
if [ -f "$kdir/fs/fuse/fuse.ko" ] && grep -qx CONFIG_FUSE_FS=m "$kdir/.config" 2>/dev/null; then
	cmdline+=" wbkmod=$(realpath "$kdir/fs/fuse/fuse.ko")"
fi
cmdline+=" ${VM_APPEND:-}"

args=(-nodefaults -no-user-config -no-reboot -display none -m "${VM_MEM:-2G}" -smp "$cpus"
      "${accel_args[@]}" -kernel "$KERNEL" -append "$cmdline"
      $(fs9p root / /dev/root ro) $(fs9p run "$rundir" wbrun)
      $(fs9p top "$TOP" wbtop ro) $(fs9p work "$work" wbwork ro)
      -device virtio-rng-pci)
[ -n "$cwd" ] && args+=($(fs9p cwd "$cwd" wbcwd))

say "booting $(basename "$KERNEL") under $accel"
if [ $interactive = 1 ]; then
	exec qemu-system-x86_64 "${args[@]}" -serial mon:stdio
fi

start=$(date +%s)
set +e
timeout -k 10 "${VM_TIMEOUT:-1800}" qemu-system-x86_64 "${args[@]}" -serial stdio -monitor none \
	< /dev/null 2>&1 | tee "$rundir/console.log"
qemu_rc=${PIPESTATUS[0]}
set -e
echo "$accel" > "$rundir/accel"
echo $(( $(date +%s) - start )) > "$rundir/seconds"
if [ "$qemu_rc" = 124 ] || [ "$qemu_rc" = 137 ]; then
	echo "error: VM timed out after ${VM_TIMEOUT:-1800}s; last console lines:" >&2
	tail -n 40 "$rundir/console.log" >&2
	exit 124
fi
[ -f "$rundir/status" ] || { echo "error: guest died before the command finished (qemu rc $qemu_rc)" >&2; exit 125; }
exit "$(cat "$rundir/status")"
