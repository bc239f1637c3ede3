#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PID 1 of the test guest: mount the scratch filesystems, run the command
# the host left in $wbrun/cmd.sh (or a shell), record its status and the
# kernel log, and reboot (QEMU runs with -no-reboot, so it exits).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp TERM=${TERM:-linux} LANG=C.UTF-8

mount -t proc proc /proc
for a in $(cat /proc/cmdline); do
	case "$a" in wb*=*) declare "$a" ;; esac
done
mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
# What udev would add: kselftest's runner writes to /dev/stdout
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
for i in 0:stdin 1:stdout 2:stderr; do
	[ -e "/dev/${i#*:}" ] || ln -s "/proc/self/fd/${i%%:*}" "/dev/${i#*:}"
done
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
for d in /tmp /run /var/tmp /var/lib /mnt /root /home /media; do
	[ -d "$d" ] && mount -t tmpfs -o mode=1777 tmpfs "$d"
done
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t bpf bpf /sys/fs/bpf
# The checkout, the work directory, the run directory and the shared cwd
# may sit below a directory that is tmpfs here: mount them again, outer
# paths first.
tags=$(for f in /sys/bus/virtio/drivers/9pnet_virtio/*/mount_tag; do
	tr -d '\0' < "$f"; echo; done)
# (Shell tests, not grep or mkdir: each program started costs the emulated
# guest about half a second.)
for tag in wbtop wbwork wbrun wbcwd; do
	[[ $'\n'$tags$'\n' == *$'\n'$tag$'\n'* ]] && echo "${!tag} $tag"
done | sort -s -k1,1 | while read -r dir tag; do
	opts=trans=virtio,version=9p2000.L,msize=262144
	case $tag in wbtop|wbwork) opts+=,cache=loose ;; esac
	[ -d "$dir" ] || mkdir -p "$dir" 2>/dev/null
	mount -t 9p -o "$opts" "$tag" "$dir"
done
# FUSE as a module (Kconfig.fragment): loaded before anything runs;
# workbench/guest-tests.sh reports whether it is
if [ -n "${wbkmod:-}" ] && ! grep -qw fuse /proc/filesystems; then
	insmod "$wbkmod" > "$wbrun/insmod.log" 2>&1
fi
hostname fusebpf-vm 2>/dev/null
export PATH=$wbtools:$PATH
cd "$wbcwd" 2>/dev/null || cd /

if [ "$wbmode" = shell ]; then
	echo "FUSE-BPF test guest: $(uname -r). Exit the shell to power off."
	setsid -c bash -l
	rc=$?
else
	bash "$wbrun/cmd.sh"
	rc=$?
fi
dmesg > "$wbrun/dmesg.log"
echo "$rc" > "$wbrun/status"
sync
echo b > /proc/sysrq-trigger
