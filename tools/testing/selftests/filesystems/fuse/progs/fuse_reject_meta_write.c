// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_filter_test, must not load: a postfilter hides the lower's error by
 * writing meta->error_in ("write to bpf_fuse_meta_info is not allowed").
 */
#include "fuse_bpf.h"

SEC("struct_ops/lookup_postfilter")
uint32_t BPF_PROG(reject_meta_write, const struct bpf_fuse_meta_info *meta)
{
	((struct bpf_fuse_meta_info *)meta)->error_in = 0;
	return BPF_FUSE_CONTINUE;
}

SEC(".struct_ops.link")
struct fuse_ops reject_ops = {
	.lookup_postfilter	= (void *)reject_meta_write,
	.name			= "reject",
};

char LICENSE[] SEC("license") = "GPL";
