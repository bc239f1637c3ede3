// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_filter_test: a lookup filter whose answer changes while the names
 * it answered for stay in the dcache.
 *
 * - "victim" is hidden (ENOENT) while user space sets hide;
 * - "alias" is looked up on the lower as "a", "b" or "c", as user space
 *   sets target to 0, 1 or 2.
 */
#include "fuse_bpf.h"

int hide;
int target;

SEC("struct_ops/lookup_prefilter")
uint32_t BPF_PROG(relookup_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_buffer *name)
{
	if (fuse_name_is(name, "victim"))
		return hide ? -ENOENT : BPF_FUSE_CONTINUE;
	if (!fuse_name_is(name, "alias"))
		return BPF_FUSE_CONTINUE;
	switch (target) {
	case 0:
		return fuse_name_set(name, "a") ?: BPF_FUSE_CONTINUE;
	case 1:
		return fuse_name_set(name, "b") ?: BPF_FUSE_CONTINUE;
	default:
		return fuse_name_set(name, "c") ?: BPF_FUSE_CONTINUE;
	}
}

SEC(".struct_ops.link")
struct fuse_ops relookup_ops = {
	.lookup_prefilter	= (void *)relookup_pre,
	.name			= "relookup",
};

char LICENSE[] SEC("license") = "GPL";
