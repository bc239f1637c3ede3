// SPDX-License-Identifier: GPL-2.0
/*
 * daemon_filter_test: prefilters that hand operations to the daemon's own
 * filters.  Each returns verdict[] of its FUSE opcode, which the test sets
 * through the skeleton's bss between steps (BPF_FUSE_USER_PREFILTER,
 * BPF_FUSE_USER_POSTFILTER, or 0, BPF_FUSE_CONTINUE, as loaded).  Lookups
 * of names starting with "upre_" go to the daemon's prefilter and those of
 * names starting with "upost_" to its postfilter, whatever the verdict.
 * Reads and writes starting below read_daemon_below and
 * write_daemon_below go to the daemon.  The lookup, getattr and open
 * postfilters return post_verdict[] of their opcode; the open postfilter
 * gives the file the handle open_fh unless it is 0, the lookup postfilter
 * writes lookup_nodeid into its output's nodeid unless it is 0.
 */
#include "fuse_bpf.h"

#define NR_VERDICTS	64

__u32 verdict[NR_VERDICTS];
/* What the postfilters that exist return, by FUSE opcode */
__u32 post_verdict[NR_VERDICTS];
/* Reads and writes that start below these go to the daemon (BPF_FUSE_USER) */
__u64 read_daemon_below;
__u64 write_daemon_below;
/* The file handle the open postfilter gives, unless 0 */
__u64 open_fh;
/* The node id the lookup postfilter writes into its output, unless 0 */
__u64 lookup_nodeid;

/*
 * Whether the name in @buf starts with the @len bytes of @pfx: @len is a
 * constant of the caller, at most FUSE_CMP_MAX.  The size of a name counts
 * its NUL, which the prefix does not.
 */
static __always_inline bool fuse_name_starts(const struct fuse_buffer *buf,
					     const char *pfx, __u32 len)
{
	struct bpf_dynptr p;

	bpf_fuse_get_ro_dynptr(buf, &p);
	return bpf_dynptr_size(&p) > len && fuse_dynptr_eq(&p, 0, pfx, len);
}

#define fuse_name_has_prefix(buf, str) \
	fuse_name_starts(buf, str, sizeof(str) - 1)

SEC("struct_ops/lookup_prefilter")
__u32 BPF_PROG(ufilter_lookup_pre, const struct bpf_fuse_meta_info *meta,
	       struct fuse_buffer *name)
{
	if (fuse_name_has_prefix(name, "upre_"))
		return BPF_FUSE_USER_PREFILTER;
	if (fuse_name_has_prefix(name, "upost_"))
		return BPF_FUSE_USER_POSTFILTER;
	return verdict[FUSE_LOOKUP];
}

SEC("struct_ops/lookup_postfilter")
__u32 BPF_PROG(ufilter_lookup_post, const struct bpf_fuse_meta_info *meta,
	       const struct fuse_buffer *name, struct fuse_entry_out *out,
	       struct fuse_buffer *entries)
{
	if (lookup_nodeid)
		out->nodeid = lookup_nodeid;
	return post_verdict[FUSE_LOOKUP];
}

SEC("struct_ops/mkdir_prefilter")
__u32 BPF_PROG(ufilter_mkdir_pre, const struct bpf_fuse_meta_info *meta,
	       struct fuse_mkdir_in *in, struct fuse_buffer *name)
{
	return verdict[FUSE_MKDIR];
}

SEC("struct_ops/unlink_prefilter")
__u32 BPF_PROG(ufilter_unlink_pre, const struct bpf_fuse_meta_info *meta,
	       struct fuse_buffer *name)
{
	return verdict[FUSE_UNLINK];
}

SEC("struct_ops/getattr_prefilter")
__u32 BPF_PROG(ufilter_getattr_pre, const struct bpf_fuse_meta_info *meta,
	       struct fuse_getattr_in *in)
{
	return verdict[FUSE_GETATTR];
}

/* A BPF postfilter may hand the result to the daemon's, as in the RFC */
SEC("struct_ops/getattr_postfilter")
__u32 BPF_PROG(ufilter_getattr_post, const struct bpf_fuse_meta_info *meta,
	       const struct fuse_getattr_in *in, struct fuse_attr_out *out)
{
	return post_verdict[FUSE_GETATTR];
}

SEC("struct_ops/open_prefilter")
__u32 BPF_PROG(ufilter_open_pre, const struct bpf_fuse_meta_info *meta,
	       struct fuse_open_in *in)
{
	return verdict[FUSE_OPEN];
}

SEC("struct_ops/open_postfilter")
__u32 BPF_PROG(ufilter_open_post, const struct bpf_fuse_meta_info *meta,
	       const struct fuse_open_in *in, struct fuse_open_out *out)
{
	if (open_fh)
		out->fh = open_fh;
	return post_verdict[FUSE_OPEN];
}

SEC("struct_ops/getxattr_prefilter")
__u32 BPF_PROG(ufilter_getxattr_pre, const struct bpf_fuse_meta_info *meta,
	       struct fuse_getxattr_in *in, struct fuse_buffer *name)
{
	return verdict[FUSE_GETXATTR];
}

SEC("struct_ops/setxattr_prefilter")
__u32 BPF_PROG(ufilter_setxattr_pre, const struct bpf_fuse_meta_info *meta,
	       struct fuse_setxattr_in *in, struct fuse_buffer *name,
	       struct fuse_buffer *value)
{
	return verdict[FUSE_SETXATTR];
}

SEC("struct_ops/mknod_prefilter")
__u32 BPF_PROG(ufilter_mknod_pre, const struct bpf_fuse_meta_info *meta,
	       struct fuse_mknod_in *in, struct fuse_buffer *name)
{
	return verdict[FUSE_MKNOD];
}

SEC("struct_ops/listxattr_prefilter")
__u32 BPF_PROG(ufilter_listxattr_pre, const struct bpf_fuse_meta_info *meta,
	       struct fuse_getxattr_in *in)
{
	return verdict[FUSE_LISTXATTR];
}

SEC("struct_ops/statfs_prefilter")
__u32 BPF_PROG(ufilter_statfs_pre, const struct bpf_fuse_meta_info *meta)
{
	return verdict[FUSE_STATFS];
}

SEC("struct_ops/readdir_prefilter")
__u32 BPF_PROG(ufilter_readdir_pre, const struct bpf_fuse_meta_info *meta,
	       struct fuse_read_in *in)
{
	return verdict[FUSE_READDIR];
}

SEC("struct_ops/read_iter_prefilter")
__u32 BPF_PROG(ufilter_read_pre, const struct bpf_fuse_meta_info *meta,
	       struct fuse_read_in *in)
{
	if (in->offset < read_daemon_below)
		return BPF_FUSE_USER;
	return verdict[FUSE_READ];
}

SEC("struct_ops/write_iter_prefilter")
__u32 BPF_PROG(ufilter_write_pre, const struct bpf_fuse_meta_info *meta,
	       struct fuse_write_in *in)
{
	if (in->offset < write_daemon_below)
		return BPF_FUSE_USER;
	return verdict[FUSE_WRITE];
}

SEC("struct_ops/access_prefilter")
__u32 BPF_PROG(ufilter_access_pre, const struct bpf_fuse_meta_info *meta,
	       struct fuse_access_in *in)
{
	return verdict[FUSE_ACCESS];
}

SEC(".struct_ops.link")
struct fuse_ops ufilter_ops = {
	.lookup_prefilter	= (void *)ufilter_lookup_pre,
	.lookup_postfilter	= (void *)ufilter_lookup_post,
	.mkdir_prefilter	= (void *)ufilter_mkdir_pre,
	.unlink_prefilter	= (void *)ufilter_unlink_pre,
	.getattr_prefilter	= (void *)ufilter_getattr_pre,
	.getattr_postfilter	= (void *)ufilter_getattr_post,
	.open_prefilter		= (void *)ufilter_open_pre,
	.open_postfilter	= (void *)ufilter_open_post,
	.getxattr_prefilter	= (void *)ufilter_getxattr_pre,
	.setxattr_prefilter	= (void *)ufilter_setxattr_pre,
	.statfs_prefilter	= (void *)ufilter_statfs_pre,
	.mknod_prefilter	= (void *)ufilter_mknod_pre,
	.listxattr_prefilter	= (void *)ufilter_listxattr_pre,
	.readdir_prefilter	= (void *)ufilter_readdir_pre,
	.read_iter_prefilter	= (void *)ufilter_read_pre,
	.write_iter_prefilter	= (void *)ufilter_write_pre,
	.access_prefilter	= (void *)ufilter_access_pre,
	.name			= "ufilter",
};

char LICENSE[] SEC("license") = "GPL";
