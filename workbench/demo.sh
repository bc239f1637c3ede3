#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo, inside the guest: a FUSE-BPF pure passthrough view of a sample
# directory, with no daemon, next to the lower directory it mirrors.
#   demo.sh SAMPLES_DIR   (the output of samples/fuse/Makefile: fusebpf,
#                         the filters' .bpf.o, tools/sbin/bpftool)
dir=$1
step() { echo; echo "\$ $*"; "$@" 2>&1; }

echo "== guest kernel: $(uname -r), $(nproc) CPUs"
lower=/tmp/demo/lower mnt=/tmp/demo/view
mkdir -p $lower $mnt
mount -t tmpfs -o size=64m demo $lower
mkdir $lower/docs $lower/src
echo "hello from the lower filesystem" > $lower/docs/readme.txt
seq 1 5 > $lower/src/numbers
ln -s docs/readme.txt $lower/link

echo "== mount a view of $lower with no daemon (root_dir=<fd>,no_daemon)"
exec 3<$lower
step mount -i -t fuse -o root_dir=3,no_daemon,allow_other demo $mnt
exec 3<&-
step grep " $mnt " /proc/mounts
step ls -l $mnt $mnt/docs
step cat $mnt/link
echo "== inode numbers mirror the lower filesystem; the device is the mount's"
step stat -c '%n ino=%i dev=%d mode=%A size=%s' $lower/docs/readme.txt $mnt/docs/readme.txt
echo "== writes through the view land in the lower file (one page cache)"
step sh -c "echo 'appended through the view' >> $mnt/docs/readme.txt"
step cat $lower/docs/readme.txt
echo "== names made on the lower filesystem show up in the view"
step touch $lower/src/made-below
step mkdir $mnt/src/made-above
step ls $mnt/src $lower/src
step mv $mnt/src/numbers $mnt/docs/
step ls $lower/docs
echo "== permission is the caller's; ownership of new files too"
step setpriv --reuid=65534 --regid=65534 --clear-groups cat $mnt/docs/readme.txt
step chmod 600 $lower/docs/readme.txt
step setpriv --reuid=65534 --regid=65534 --clear-groups cat $mnt/docs/readme.txt
step chmod 1777 $mnt/src
step setpriv --reuid=65534 --regid=65534 --clear-groups touch $mnt/src/by-nobody
step stat -c '%n uid=%u gid=%g' $lower/src/by-nobody
echo "== a daemon is never asked: an ioctl that would need one"
step python3 -c "import fcntl; fcntl.ioctl(open('$mnt/docs/numbers'), 0x5401)"
step umount $mnt
echo "== a BPF filter hides a directory: bpftool struct_ops register, then mount"
mkdir $lower/hidden
echo "not for the view" > $lower/hidden/secret
step $dir/tools/sbin/bpftool struct_ops register $dir/fuse_hide.bpf.o /sys/fs/bpf/demo
exec 3<$lower
step mount -i -t fuse -o root_dir=3,no_daemon,root_bpf=hide,allow_other demo $mnt
exec 3<&-
step ls $mnt $lower
step cat $mnt/hidden/secret
step umount $mnt
step rm -r /sys/fs/bpf/demo
echo "== the same in one line with fusebpf, with a filter that counts calls"
step $dir/fusebpf mount -o allow_other $dir/fuse_count.bpf.o $lower $mnt
step ls $mnt/docs
step cat $mnt/link
step $dir/fusebpf list
step $dir/fusebpf counters count
step $dir/fusebpf umount -n count $mnt
echo "== the mount options are checked"
step mount -i -t fuse -o no_daemon demo $mnt
dmesg | grep "fuse:" | tail -1
echo
echo "== the selftests of the passthrough mount: make check"
