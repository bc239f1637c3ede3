// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_filter_test, must not load: the fuse_buffer kfuncs are for fuse_ops
 * programs only, not for a tracing program ("calling kernel function
 * bpf_fuse_get_ro_dynptr is not allowed").  What it passes them does not
 * matter: the verifier refuses the call first.
 */
#include "fuse_bpf.h"

SEC("tp_btf/sys_enter")
int BPF_PROG(reject_tracing, struct pt_regs *regs, long id)
{
	struct bpf_dynptr p;

	bpf_fuse_get_ro_dynptr((const struct fuse_buffer *)regs, &p);
	return bpf_dynptr_size(&p);
}

char LICENSE[] SEC("license") = "GPL";
