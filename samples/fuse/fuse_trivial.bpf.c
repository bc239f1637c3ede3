// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE-BPF sample: the cheapest program that runs every filter.
 *
 * Each prefilter asks for the postfilter, each postfilter keeps the
 * result: the benchmark measures what calling the filters costs.
 */
#include "fuse_bpf.h"

#define TRIVIAL_FILTERS(member, opcode)					\
SEC("struct_ops/" #member "_prefilter")					\
uint32_t BPF_PROG(trivial_##member##_pre)				\
{									\
	return BPF_FUSE_POSTFILTER;					\
}									\
									\
SEC("struct_ops/" #member "_postfilter")				\
uint32_t BPF_PROG(trivial_##member##_post)				\
{									\
	return BPF_FUSE_CONTINUE;					\
}

FUSE_BPF_FOR_EACH_OP(TRIVIAL_FILTERS)

#define TRIVIAL_MEMBERS(member, opcode)					\
	.member##_prefilter = (void *)trivial_##member##_pre,		\
	.member##_postfilter = (void *)trivial_##member##_post,

SEC(".struct_ops.link")
struct fuse_ops trivial_ops = {
	FUSE_BPF_FOR_EACH_OP(TRIVIAL_MEMBERS)
	.name = "trivial",
};

char LICENSE[] SEC("license") = "GPL";
