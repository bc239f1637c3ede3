// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE-BPF sample: count the calls of every filter, by FUSE opcode.
 *
 * Every member of fuse_ops a program may define is defined: each
 * prefilter returns BPF_FUSE_POSTFILTER, so that the postfilter of the
 * operation runs too.  The counters are those of the member's opcode, not
 * of meta->opcode, so that the test can check what meta says.
 */
#include "fuse_bpf.h"
#include "fuse_count.h"

/* Calls of the prefilters and of the postfilters, by opcode */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, COUNT_OPCODES);
	__type(key, __u32);
	__type(value, __u64);
} pre_count SEC(".maps"), post_count SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, COUNT_OPCODES);
	__type(key, __u32);
	__type(value, struct count_seen);
} last_call SEC(".maps");

static __always_inline void count_pre(const struct bpf_fuse_meta_info *meta,
				      __u32 opcode)
{
	struct count_seen *seen = bpf_map_lookup_elem(&last_call, &opcode);
	__u64 *calls = bpf_map_lookup_elem(&pre_count, &opcode);

	if (calls)
		__sync_fetch_and_add(calls, 1);
	if (seen) {
		seen->pre_nodeid = meta->nodeid;
		seen->pre_opcode = meta->opcode;
	}
}

static __always_inline void count_post(const struct bpf_fuse_meta_info *meta,
				       __u32 opcode)
{
	struct count_seen *seen = bpf_map_lookup_elem(&last_call, &opcode);
	__u64 *calls = bpf_map_lookup_elem(&post_count, &opcode);

	if (calls)
		__sync_fetch_and_add(calls, 1);
	if (seen) {
		seen->post_nodeid = meta->nodeid;
		seen->post_opcode = meta->opcode;
		seen->post_error = meta->error_in;
	}
}

/* The filters of one member; they read no argument but meta */
#define COUNT_FILTERS(member, opcode)					\
SEC("struct_ops/" #member "_prefilter")					\
uint32_t BPF_PROG(count_##member##_pre,					\
		  const struct bpf_fuse_meta_info *meta)		\
{									\
	count_pre(meta, opcode);					\
	return BPF_FUSE_POSTFILTER;					\
}									\
									\
SEC("struct_ops/" #member "_postfilter")				\
uint32_t BPF_PROG(count_##member##_post,				\
		  const struct bpf_fuse_meta_info *meta)		\
{									\
	count_post(meta, opcode);					\
	return BPF_FUSE_CONTINUE;					\
}

FUSE_BPF_FOR_EACH_OP(COUNT_FILTERS)

#define COUNT_MEMBERS(member, opcode)					\
	.member##_prefilter = (void *)count_##member##_pre,		\
	.member##_postfilter = (void *)count_##member##_post,

SEC(".struct_ops.link")
struct fuse_ops count_ops = {
	FUSE_BPF_FOR_EACH_OP(COUNT_MEMBERS)
	.name = "count",
};

char LICENSE[] SEC("license") = "GPL";
