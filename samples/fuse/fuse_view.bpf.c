// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE-BPF sample: an Android-style view, fuse_hide.bpf.c and
 * fuse_redact.bpf.c in one filter.  Entries named "hidden" do not exist (lookup fails with
 * ENOENT, listings leave them out), and listings also leave out the names
 * that start with a prefix of the map "prefixes" (user space fills it).
 * make bench measures it as configuration 3b.
 */
#include "fuse_bpf.h"
#include "fuse_dirent.h"
#include "fuse_redact.h"

#define HIDDEN	"hidden"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, REDACT_PREFIXES);
	__type(key, __u32);
	__type(value, struct redact_prefix);
} prefixes SEC(".maps");

SEC("struct_ops/lookup_prefilter")
uint32_t BPF_PROG(view_lookup_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_buffer *name)
{
	return fuse_name_is(name, HIDDEN) ? -ENOENT : BPF_FUSE_CONTINUE;
}

static __always_inline bool view_dirent(const struct bpf_dynptr *p,
					__u32 off,
					const struct fuse_dirent *d,
					void *slots)
{
	if (fuse_dirent_name_is(p, off, d, HIDDEN))
		return true;
	return redact_dirent_in(&prefixes, *(__u32 *)slots, p, off, d);
}

SEC("struct_ops/readdir_postfilter")
uint32_t BPF_PROG(view_readdir_post, const struct bpf_fuse_meta_info *meta,
		  const struct fuse_read_in *in, struct fuse_read_out *out,
		  struct fuse_buffer *buffer)
{
	__u32 slots = redact_slots(&prefixes);

	return fuse_dirent_filter(buffer, view_dirent, &slots);
}

SEC(".struct_ops.link")
struct fuse_ops view_ops = {
	.lookup_prefilter	= (void *)view_lookup_pre,
	.readdir_postfilter	= (void *)view_readdir_post,
	.name			= "view",
};

char LICENSE[] SEC("license") = "GPL";
