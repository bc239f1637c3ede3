// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_filter_test, must not load: a postfilter writes to an input of the
 * operation, which its prototype has const ("write to fuse_lseek_in is
 * not allowed"), though a prefilter may rewrite the same structure.
 */
#include "fuse_bpf.h"

SEC("struct_ops/lseek_postfilter")
uint32_t BPF_PROG(reject_const_write, const struct bpf_fuse_meta_info *meta,
		  const struct fuse_lseek_in *in, struct fuse_lseek_out *out)
{
	((struct fuse_lseek_in *)in)->offset = 0;
	return BPF_FUSE_CONTINUE;
}

SEC(".struct_ops.link")
struct fuse_ops reject_ops = {
	.lseek_postfilter	= (void *)reject_const_write,
	.name			= "reject",
};

char LICENSE[] SEC("license") = "GPL";
