// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_filter_test, must not load: write_iter filters are not supported yet
 * ("attach to unsupported member write_iter_prefilter of struct
 * fuse_ops"), even one that does nothing.
 */
#include "fuse_bpf.h"

SEC("struct_ops/write_iter_prefilter")
uint32_t BPF_PROG(reject_write_iter, const struct bpf_fuse_meta_info *meta,
		  struct fuse_write_in *in)
{
	return BPF_FUSE_CONTINUE;
}

SEC(".struct_ops.link")
struct fuse_ops reject_ops = {
	.write_iter_prefilter	= (void *)reject_write_iter,
	.name			= "reject",
};

char LICENSE[] SEC("license") = "GPL";
