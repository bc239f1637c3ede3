// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_filter_test, must not load: a program hands a kfunc a fuse_buffer
 * pointer of its own making (bpf_rdonly_cast()), not the one the kernel
 * passed it ("must be referenced or trusted": KF_TRUSTED_ARGS).
 */
#include "fuse_bpf.h"
#include <bpf/bpf_core_read.h>

SEC("struct_ops/lookup_prefilter")
uint32_t BPF_PROG(reject_untrusted, const struct bpf_fuse_meta_info *meta,
		  struct fuse_buffer *name)
{
	struct fuse_buffer *b;

	b = bpf_rdonly_cast(name, bpf_core_type_id_kernel(struct fuse_buffer));
	return bpf_fuse_return_len(b) ? BPF_FUSE_CONTINUE : -EIO;
}

SEC(".struct_ops.link")
struct fuse_ops reject_ops = {
	.lookup_prefilter	= (void *)reject_untrusted,
	.name			= "reject",
};

char LICENSE[] SEC("license") = "GPL";
