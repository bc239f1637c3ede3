// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE-BPF sample: directory listings leave out the entries whose name
 * starts with one of the prefixes of the map "prefixes", which user space
 * fills and may change at any time, the view still mounted.
 *
 * Only listings are filtered: a lookup of an entry left out still finds
 * it.  This tidies a view (backup files, editor droppings) rather than
 * guarding anything; fuse_hide.bpf.c does both.
 */
#include "fuse_bpf.h"
#include "fuse_dirent.h"
#include "fuse_redact.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, REDACT_PREFIXES);
	__type(key, __u32);
	__type(value, struct redact_prefix);
} prefixes SEC(".maps");

static __always_inline bool redact_dirent(const struct bpf_dynptr *p,
					  __u32 off,
					  const struct fuse_dirent *d,
					  void *slots)
{
	return redact_dirent_in(&prefixes, *(__u32 *)slots, p, off, d);
}

/* No prefilter: the postfilter runs after every readdir of the lower */
SEC("struct_ops/readdir_postfilter")
uint32_t BPF_PROG(redact_readdir_post, const struct bpf_fuse_meta_info *meta,
		  const struct fuse_read_in *in, struct fuse_read_out *out,
		  struct fuse_buffer *buffer)
{
	__u32 slots = redact_slots(&prefixes);

	return fuse_dirent_filter(buffer, redact_dirent, &slots);
}

SEC(".struct_ops.link")
struct fuse_ops redact_ops = {
	.readdir_postfilter	= (void *)redact_readdir_post,
	.name			= "redact",
};

char LICENSE[] SEC("license") = "GPL";
