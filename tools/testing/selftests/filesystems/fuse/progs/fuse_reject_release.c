// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_filter_test, must not load: release filters are not called (a
 * release cannot fail), so the member is unsupported ("attach to
 * unsupported member release_prefilter of struct fuse_ops"), even for a
 * program that does nothing.
 */
#include "fuse_bpf.h"

SEC("struct_ops/release_prefilter")
uint32_t BPF_PROG(reject_release, const struct bpf_fuse_meta_info *meta,
		  struct fuse_release_in *in)
{
	return BPF_FUSE_CONTINUE;
}

SEC(".struct_ops.link")
struct fuse_ops reject_ops = {
	.release_prefilter	= (void *)reject_release,
	.name			= "reject",
};

char LICENSE[] SEC("license") = "GPL";
