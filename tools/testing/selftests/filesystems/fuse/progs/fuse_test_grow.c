// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_filter_test: a listxattr postfilter grows the list by GROW_BY bytes
 * it does not write.  What the caller gets past the lower's list must be
 * zeroes, never what the kernel's buffer held before.
 */
#include "fuse_bpf.h"

#define GROW_BY	64

SEC("struct_ops/listxattr_postfilter")
uint32_t BPF_PROG(grow_listxattr_post, const struct bpf_fuse_meta_info *meta,
		  const struct fuse_getxattr_in *in, struct fuse_buffer *value,
		  struct fuse_getxattr_out *out)
{
	__u32 size = bpf_fuse_return_len(value);
	struct bpf_dynptr p;

	if (!in->size) {
		out->size += GROW_BY;
		return BPF_FUSE_CONTINUE;
	}
	bpf_fuse_get_rw_dynptr(value, &p, size + GROW_BY, true);
	return bpf_dynptr_size(&p) == size + GROW_BY ? BPF_FUSE_CONTINUE :
						       -ENOMEM;
}

SEC(".struct_ops.link")
struct fuse_ops grow_ops = {
	.listxattr_postfilter	= (void *)grow_listxattr_post,
	.name			= "grow",
};

char LICENSE[] SEC("license") = "GPL";
