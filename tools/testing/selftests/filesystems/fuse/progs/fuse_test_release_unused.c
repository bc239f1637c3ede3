// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_filter_test: an RFC filter object after the change it needs here:
 * its release prefilter is out of the fuse_ops initializer and marked not
 * to be loaded ("?struct_ops/"), and the object loads.  (Out of the
 * initializer only, the object still fails to load, with EINVAL.)
 */
#include "fuse_bpf.h"

SEC("?struct_ops/release_prefilter")
uint32_t BPF_PROG(unused_release, const struct bpf_fuse_meta_info *meta,
		  struct fuse_release_in *in)
{
	return BPF_FUSE_CONTINUE;
}

SEC("struct_ops/lookup_prefilter")
uint32_t BPF_PROG(unused_lookup, const struct bpf_fuse_meta_info *meta,
		  struct fuse_buffer *name)
{
	return BPF_FUSE_CONTINUE;
}

SEC(".struct_ops.link")
struct fuse_ops release_unused_ops = {
	.lookup_prefilter	= (void *)unused_lookup,
	.name			= "release_unused",
};

char LICENSE[] SEC("license") = "GPL";
