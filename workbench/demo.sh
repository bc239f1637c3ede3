#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo, inside the guest: what the workbench gives today.
#   demo.sh SELFTEST_DIR
dir=$1
echo "== guest kernel: $(uname -r), $(nproc) CPUs"
echo "== /dev/fuse: $(ls -l /dev/fuse)"
echo "== vmlinux BTF knows FUSE: $(bpftool btf dump file /sys/kernel/btf/vmlinux | grep -c "STRUCT 'fuse_")" \
     "fuse structs"
echo "== a raw /dev/fuse daemon serving a small tree (lookup, getattr, readdir, read):"
cd /tmp && "$dir/fuse_daemon_test" -r fuse.cached.readdir_root -r fuse.cached.read -r fuse.cached.counters
echo "== a BPF skeleton on the test kernel:"
"$dir/bpf_smoke_test"
