#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: the host-side tests, then every selftest in one guest boot,
# then the verdict (TAP results and the kernel log scan).
#   check.sh [TEST...]    run only the named selftest programs
# The kernel has FUSE as a module (Kconfig.fragment), which the guest loads
# first.  MOD_TESTS="..." adds a second boot, of the kernel of
# workbench/kernel-mod.sh (FUSE as a module, no KASAN), running those.
set -uo pipefail
. "$(dirname "$0")/common.sh"

rundir=$WORKDIR/runs/check-$(date +%Y%m%d-%H%M%S)
mkdir -p "$rundir/tap"
ln -sfn "$rundir" "$WORKDIR/runs/last"
say "run directory: $rundir"

# make check ran workbench/host-tests.sh before the build; their results
# are taken once, so that a later run never counts them again.
[ -d "$WORKDIR/host-tap" ] || "$TOP/workbench/host-tests.sh"
mv "$WORKDIR"/host-tap/* "$rundir/tap/" && rmdir "$WORKDIR/host-tap"

# The programs kselftest installed (collection filesystems/fuse)
if [ $# -gt 0 ]; then progs=("$@")
else mapfile -t progs < <(sed -n 's|^filesystems/fuse:||p' "$KSFT/kselftest-list.txt")
	progs+=(fstests_mount)
fi
# fstests_mount mounts make fstests' configurations: one needs make bench's
# ptfuse, built here beside the selftests
reply=$SAMPLES_SRC/fuse_bpf_reply
if [ ! -x "$SELFTESTS/../ptfuse" ] || [ "$TOP/workbench/bench/ptfuse.c" -nt "$SELFTESTS/../ptfuse" ] ||
   [ "$reply.c" -nt "$SELFTESTS/../ptfuse" ]; then
	gcc -O2 -g -Wall -isystem "$BUILD/usr/include" -I"$SAMPLES_SRC" \
		-o "$SELFTESTS/../ptfuse" "$TOP/workbench/bench/ptfuse.c" "$reply.c" -lpthread ||
		echo "error: cannot build ptfuse for fstests_mount"
fi
# VM_LANES guests (default 2, one per host core) share the programs out,
# each with its own kernel, so that no global state (drop_caches, fault
# injection, registered filter names, the taint flag) is shared between
# programs that run at the same time.  Each lane's run directory has its own
# expected list, TAP, kernel log and kmemleak report; the verdict takes all.
lanes=${VM_LANES:-2}
[ ${#progs[@]} -lt "$lanes" ] && lanes=${#progs[@]}
lanedirs=("$rundir")
for ((l = 2; l <= lanes; l++)); do
	mkdir -p "$rundir/lane$l/tap"
	lanedirs+=("$rundir/lane$l")
done
"$TOP/workbench/lanes.sh" "$lanes" "${progs[@]}" |
while read -r l prog; do echo "$prog" >> "${lanedirs[l - 1]}/expected"; done
# FUSE as a module (Kconfig.fragment): each guest loads it first
insmod=$(grep -qx CONFIG_FUSE_FS=m "$BUILD/.config" && echo 1)
# lane_vm RUNDIR [PROGRAM...]: one guest running those programs
lane_vm() {
	"$TOP/workbench/vm.sh" -r "$1" -- "$TOP/workbench/guest-tests.sh" \
		"$KSFT" "$SELFTESTS" "${@:2}"
}
start=$(date +%s)
pids=()
for ((l = 1; l <= lanes; l++)); do
	d=${lanedirs[l - 1]}
	mapfile -t lprogs < "$d/expected"
	# With one lane and no T=, the runner takes its whole collection
	[ $# = 0 ] && [ "$lanes" = 1 ] && lprogs=()
	[ -n "$insmod" ] && echo insmod >> "$d/expected"
	say "lane $l: ${lprogs[*]:-all}"
	# Lane 1's console streams; the others' are printed when they end
	if [ "$l" = 1 ]; then lane_vm "$d" "${lprogs[@]}" &
	else lane_vm "$d" "${lprogs[@]}" > /dev/null 2>&1 &
	fi
	pids+=($!)
done
vm_rc=0
for ((l = 1; l <= lanes; l++)); do
	wait "${pids[l - 1]}"
	rc=$?
	[ "$l" = 1 ] || { echo "# ---- console of lane $l"; cat "${lanedirs[l - 1]}/console.log"; }
	[ $rc = 0 ] || { echo "error: the VM run of lane $l failed (status $rc)"; vm_rc=1; }
	# Where the lane's time went (workbench/guest-tests.sh's times file)
	[ -f "${lanedirs[l - 1]}/times" ] &&
		say "lane $l: $(awk '{ printf "%s %ds; ", $1, $3 - $2 }' "${lanedirs[l - 1]}/times")"
done
say "guest ran $(( $(date +%s) - start ))s in $lanes lane(s) under $(cat "$rundir/accel" 2>/dev/null)"

runs=("${lanedirs[@]}")
mod_tests=${MOD_TESTS-}
if [ -n "$mod_tests" ]; then
	mod=$rundir/fuse-module
	mkdir -p "$mod/tap"
	ko=$WORKDIR/build-mod/fs/fuse/fuse.ko
	echo $mod_tests insmod | tr ' ' '\n' > "$mod/expected"
	say "second boot: FUSE as a module ($ko): $mod_tests"
	start=$(date +%s)
	# shellcheck disable=SC2086
	"$TOP/workbench/vm.sh" -k "$WORKDIR/build-mod/arch/x86/boot/bzImage" -r "$mod" -- \
		env FUSE_KO="$ko" "$TOP/workbench/guest-tests.sh" "$KSFT" "$SELFTESTS" $mod_tests
	mod_rc=$?
	say "guest ran $(( $(date +%s) - start ))s"
	[ $mod_rc = 0 ] || { echo "error: the VM run failed (status $mod_rc)"; vm_rc=1; }
	runs+=("$mod")
fi
"$TOP/workbench/verdict.py" "${runs[@]}"
rc=$?
[ $vm_rc = 0 ] || rc=1
exit $rc
