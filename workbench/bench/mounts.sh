# SPDX-License-Identifier: GPL-2.0
#
# How the bench mounts its configurations, for guest-bench.sh (one at a
# time) and interleave.sh (all at once): sourced by both.

# FUSE-BPF pure passthrough of LOWER on MNT, no daemon
mount_fusebpf() { # LOWER MNT
	local ret

	exec 3<"$1" || return 1
	mount -i -t fuse -o root_dir=3,no_daemon,allow_other fusebpf "$2"
	ret=$?
	exec 3<&-
	return $ret
}

# FUSE-BPF with the fuse_ops filter of OBJECT, registered and mounted by
# the fusebpf command FUSEBPF
mount_filter() { # FUSEBPF OBJECT LOWER MNT
	"$1" mount -o allow_other "$2" "$3" "$4" >&2
}

# overlayfs of LOWER, with UPPER and WORK made empty first
mount_overlay() { # LOWER UPPER WORK MNT
	rm -rf "$2" "$3"
	mkdir -p "$2" "$3"
	mount -t overlay -o "lowerdir=$1,upperdir=$2,workdir=$3" overlay "$4"
}
