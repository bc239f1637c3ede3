// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_filter_test: filters that hold on to memory the kernel may move or
 * free under them.
 *
 * - The lookup of "grow" takes a 16-byte dynptr over the name, then grows
 *   the name to GROWN_LEN bytes through a second one, and writes through
 *   the first afterwards: that write must land in memory the program
 *   still owns, and the name looked up is the grown one.
 * - readlink's postfilter reads every byte of the link's name, while the
 *   test renames the link between long names.
 */
#include "fuse_bpf.h"

#define GROWN_LEN	200	/* 199 'g' and the NUL */

SEC("struct_ops/lookup_prefilter")
uint32_t BPF_PROG(stale_lookup_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_buffer *name)
{
	char junk[16] = "junk-junk-junk-";
	struct bpf_dynptr a, b;
	char grown[GROWN_LEN];
	int i;

	if (!fuse_name_is(name, "grow"))
		return BPF_FUSE_CONTINUE;
	bpf_fuse_get_rw_dynptr(name, &a, sizeof(junk), true);
	if (bpf_dynptr_size(&a) != sizeof(junk))
		return -ENOMEM;
	bpf_fuse_get_rw_dynptr(name, &b, GROWN_LEN, true);
	if (bpf_dynptr_size(&b) != GROWN_LEN)
		return -ENOMEM;
	for (i = 0; i < GROWN_LEN - 1; i++)
		grown[i] = 'g';
	grown[GROWN_LEN - 1] = '\0';
	if (bpf_dynptr_write(&b, 0, grown, GROWN_LEN, 0))
		return -EIO;
	/* The first dynptr is stale: the write must not reach the name */
	bpf_dynptr_write(&a, 0, junk, sizeof(junk), 0);
	return BPF_FUSE_CONTINUE;
}

int link_reads;

SEC("struct_ops/get_link_postfilter")
uint32_t BPF_PROG(stale_get_link_post, const struct bpf_fuse_meta_info *meta,
		  const struct fuse_buffer *name)
{
	char copy[NAME_MAX + 1];
	struct bpf_dynptr p;
	__u32 size;

	bpf_fuse_get_ro_dynptr(name, &p);
	size = bpf_dynptr_size(&p);
	if (size > sizeof(copy))
		return -EIO;
	if (bpf_dynptr_read(copy, size, &p, 0, 0))
		return -EIO;
	__sync_fetch_and_add(&link_reads, 1);
	return BPF_FUSE_CONTINUE;
}

SEC("struct_ops/get_link_prefilter")
uint32_t BPF_PROG(stale_get_link_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_buffer *name)
{
	return BPF_FUSE_POSTFILTER;
}

SEC(".struct_ops.link")
struct fuse_ops stale_ops = {
	.lookup_prefilter	= (void *)stale_lookup_pre,
	.get_link_prefilter	= (void *)stale_get_link_pre,
	.get_link_postfilter	= (void *)stale_get_link_post,
	.name			= "stale",
};

char LICENSE[] SEC("license") = "GPL";
