// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_filter_test: a prefilter that sends lookups to the daemon, or to its
 * own pre and postfilters.  On a no_daemon mount there is none, and the
 * lookup fails with EOPNOTSUPP.
 */
#include "fuse_bpf.h"

SEC("struct_ops/lookup_prefilter")
uint32_t BPF_PROG(user_lookup_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_buffer *name)
{
	if (fuse_name_is(name, "daemon"))
		return BPF_FUSE_USER;
	if (fuse_name_is(name, "user_pre"))
		return BPF_FUSE_USER_PREFILTER;
	if (fuse_name_is(name, "user_post"))
		return BPF_FUSE_USER_POSTFILTER;
	return BPF_FUSE_CONTINUE;
}

/* daemon_bpf_test: a rename and a link the daemon is to get */
SEC("struct_ops/rename_prefilter")
uint32_t BPF_PROG(user_rename_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_rename_in *in, struct fuse_buffer *old_name,
		  struct fuse_buffer *new_name)
{
	return fuse_name_is(old_name, "daemon_mv") ? BPF_FUSE_USER :
						     BPF_FUSE_CONTINUE;
}

SEC("struct_ops/link_prefilter")
uint32_t BPF_PROG(user_link_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_link_in *in, struct fuse_buffer *name)
{
	return fuse_name_is(name, "daemon_ln") ? BPF_FUSE_USER :
						 BPF_FUSE_CONTINUE;
}

SEC(".struct_ops.link")
struct fuse_ops user_ops = {
	.lookup_prefilter	= (void *)user_lookup_pre,
	.rename_prefilter	= (void *)user_rename_pre,
	.link_prefilter		= (void *)user_link_pre,
	.name			= "user",
};

char LICENSE[] SEC("license") = "GPL";
