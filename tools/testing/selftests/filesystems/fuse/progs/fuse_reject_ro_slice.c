// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_filter_test, must not load: a program writes through a slice of a
 * dynptr, which bpf_dynptr_slice() gives read-only ("cannot write into
 * rdonly_mem"): writes go through bpf_dynptr_write() or
 * bpf_dynptr_slice_rdwr() of a writable dynptr.
 */
#include "fuse_bpf.h"

SEC("struct_ops/lookup_prefilter")
uint32_t BPF_PROG(reject_ro_slice, const struct bpf_fuse_meta_info *meta,
		  struct fuse_buffer *name)
{
	struct bpf_dynptr p;
	char *c;

	bpf_fuse_get_ro_dynptr(name, &p);
	c = bpf_dynptr_slice(&p, 0, NULL, 1);
	if (c)
		*c = 'x';
	return BPF_FUSE_CONTINUE;
}

SEC(".struct_ops.link")
struct fuse_ops reject_ops = {
	.lookup_prefilter	= (void *)reject_ro_slice,
	.name			= "reject",
};

char LICENSE[] SEC("license") = "GPL";
