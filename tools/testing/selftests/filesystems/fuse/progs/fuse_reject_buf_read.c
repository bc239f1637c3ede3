// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_filter_test, must not load: a program reads the size of a
 * fuse_buffer instead of asking bpf_fuse_return_len() ("access beyond
 * struct fuse_buffer_handle": its arguments are handles, nothing to read).
 */
#include "fuse_bpf.h"

SEC("struct_ops/lookup_prefilter")
uint32_t BPF_PROG(reject_buf_read, const struct bpf_fuse_meta_info *meta,
		  struct fuse_buffer *name)
{
	return name->size > 4 ? -ENOENT : BPF_FUSE_CONTINUE;
}

SEC(".struct_ops.link")
struct fuse_ops reject_ops = {
	.lookup_prefilter	= (void *)reject_buf_read,
	.name			= "reject",
};

char LICENSE[] SEC("license") = "GPL";
