// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_filter_test, must not load: a program reads past the end of a
 * 4-byte slice ("invalid access to memory, mem_size=4 off=4 size=1").
 */
#include "fuse_bpf.h"

SEC("struct_ops/lookup_prefilter")
uint32_t BPF_PROG(reject_oob_slice, const struct bpf_fuse_meta_info *meta,
		  struct fuse_buffer *name)
{
	struct bpf_dynptr p;
	char *c;

	bpf_fuse_get_ro_dynptr(name, &p);
	c = bpf_dynptr_slice(&p, 0, NULL, 4);
	if (c && c[4] == 'x')
		return -ENOENT;
	return BPF_FUSE_CONTINUE;
}

SEC(".struct_ops.link")
struct fuse_ops reject_ops = {
	.lookup_prefilter	= (void *)reject_oob_slice,
	.name			= "reject",
};

char LICENSE[] SEC("license") = "GPL";
