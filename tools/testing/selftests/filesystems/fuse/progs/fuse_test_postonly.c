// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_filter_test: a statfs postfilter without a prefilter, called after
 * each statfs of the lower: its result reaches the caller.
 */
#include "fuse_bpf.h"

#define SHOWN_NAMELEN	200

__u64 statfs_calls;
__s32 statfs_error = -1;

SEC("struct_ops/statfs_postfilter")
uint32_t BPF_PROG(postonly_statfs_post, const struct bpf_fuse_meta_info *meta,
		  struct fuse_statfs_out *out)
{
	__sync_fetch_and_add(&statfs_calls, 1);
	statfs_error = meta->error_in;
	out->st.namelen = SHOWN_NAMELEN;
	return BPF_FUSE_CONTINUE;
}

SEC(".struct_ops.link")
struct fuse_ops postonly_ops = {
	.statfs_postfilter	= (void *)postonly_statfs_post,
	.name			= "postonly",
};

char LICENSE[] SEC("license") = "GPL";
