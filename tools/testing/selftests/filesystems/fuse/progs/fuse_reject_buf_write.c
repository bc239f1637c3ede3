// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_filter_test, must not load: a program shortens a fuse_buffer by
 * writing its size ("direct access to fuse_buffer is not allowed").
 */
#include "fuse_bpf.h"

SEC("struct_ops/lookup_prefilter")
uint32_t BPF_PROG(reject_buf_write, const struct bpf_fuse_meta_info *meta,
		  struct fuse_buffer *name)
{
	name->size = 1;
	return BPF_FUSE_CONTINUE;
}

SEC(".struct_ops.link")
struct fuse_ops reject_ops = {
	.lookup_prefilter	= (void *)reject_buf_write,
	.name			= "reject",
};

char LICENSE[] SEC("license") = "GPL";
