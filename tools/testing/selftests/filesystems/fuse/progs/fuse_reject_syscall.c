// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_filter_test, must not load: the fuse_buffer kfuncs are for fuse_ops
 * programs only, not for a syscall program ("calling kernel function
 * bpf_fuse_return_len is not allowed").
 */
#include "fuse_bpf.h"

SEC("syscall")
int reject_syscall(void *ctx)
{
	return bpf_fuse_return_len(ctx);
}

char LICENSE[] SEC("license") = "GPL";
