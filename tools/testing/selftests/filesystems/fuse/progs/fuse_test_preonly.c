// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_filter_test: a mkdir prefilter without a postfilter.  It asks for
 * the postfilter all the same, which must be as if it had not: the
 * operation runs on the lower, and nothing else.
 */
#include "fuse_bpf.h"

__u64 mkdir_calls;

SEC("struct_ops/mkdir_prefilter")
uint32_t BPF_PROG(preonly_mkdir_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_mkdir_in *in, struct fuse_buffer *name)
{
	__sync_fetch_and_add(&mkdir_calls, 1);
	if (fuse_name_is(name, "denied"))
		return -EPERM;
	return BPF_FUSE_POSTFILTER;
}

SEC(".struct_ops.link")
struct fuse_ops preonly_ops = {
	.mkdir_prefilter	= (void *)preonly_mkdir_pre,
	.name			= "preonly",
};

char LICENSE[] SEC("license") = "GPL";
