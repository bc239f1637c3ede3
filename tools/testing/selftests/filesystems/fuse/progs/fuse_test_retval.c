// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_filter_test: filters that return whatever the test sets, to check
 * that no value a program returns reaches the VFS as anything but a
 * user errno.  pre_ret is what the read, write and getattr prefilters
 * return, post_ret what their postfilters return (the prefilters ask for
 * them with BPF_FUSE_POSTFILTER while pre_ret is 0).  The copy_file_range
 * prefilter adds copy_grow to the length the caller asked.  While
 * readdir_spin is set, the readdir postfilter drops every record and
 * sends the next chunk back and forth between two offsets.
 */
#include "fuse_bpf.h"

int pre_ret;
int post_ret;
__u64 copy_grow;
int readdir_spin;
int readdir_posts;

static __always_inline uint32_t pre(void)
{
	return pre_ret ?: BPF_FUSE_POSTFILTER;
}

SEC("struct_ops/read_iter_prefilter")
uint32_t BPF_PROG(rv_read_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_read_in *in)
{
	return pre();
}

SEC("struct_ops/read_iter_postfilter")
uint32_t BPF_PROG(rv_read_post, const struct bpf_fuse_meta_info *meta,
		  const struct fuse_read_in *in, struct fuse_read_iter_out *out)
{
	return post_ret;
}

SEC("struct_ops/write_iter_prefilter")
uint32_t BPF_PROG(rv_write_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_write_in *in)
{
	return pre();
}

SEC("struct_ops/write_iter_postfilter")
uint32_t BPF_PROG(rv_write_post, const struct bpf_fuse_meta_info *meta,
		  const struct fuse_write_in *in,
		  struct fuse_write_iter_out *out)
{
	return post_ret;
}

SEC("struct_ops/getattr_prefilter")
uint32_t BPF_PROG(rv_getattr_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_getattr_in *in)
{
	return pre();
}

SEC("struct_ops/getattr_postfilter")
uint32_t BPF_PROG(rv_getattr_post, const struct bpf_fuse_meta_info *meta,
		  const struct fuse_getattr_in *in, struct fuse_attr_out *out)
{
	return post_ret;
}

SEC("struct_ops/copy_file_range_prefilter")
uint32_t BPF_PROG(rv_copy_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_copy_file_range_in *in)
{
	in->len += copy_grow;
	return BPF_FUSE_CONTINUE;
}

SEC("struct_ops/readdir_prefilter")
uint32_t BPF_PROG(rv_readdir_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_read_in *in)
{
	return BPF_FUSE_POSTFILTER;
}

SEC("struct_ops/readdir_postfilter")
uint32_t BPF_PROG(rv_readdir_post, const struct bpf_fuse_meta_info *meta,
		  const struct fuse_read_in *in, struct fuse_read_out *out,
		  struct fuse_buffer *buffer)
{
	struct bpf_dynptr p;

	if (!readdir_spin)
		return BPF_FUSE_CONTINUE;
	__sync_fetch_and_add(&readdir_posts, 1);
	bpf_fuse_get_rw_dynptr(buffer, &p, 0, false);
	out->offset = in->offset ^ 1;
	return BPF_FUSE_CONTINUE;
}

SEC(".struct_ops.link")
struct fuse_ops retval_ops = {
	.read_iter_prefilter	= (void *)rv_read_pre,
	.read_iter_postfilter	= (void *)rv_read_post,
	.write_iter_prefilter	= (void *)rv_write_pre,
	.write_iter_postfilter	= (void *)rv_write_post,
	.getattr_prefilter	= (void *)rv_getattr_pre,
	.getattr_postfilter	= (void *)rv_getattr_post,
	.copy_file_range_prefilter = (void *)rv_copy_pre,
	.readdir_prefilter	= (void *)rv_readdir_pre,
	.readdir_postfilter	= (void *)rv_readdir_post,
	.name			= "retval",
};

char LICENSE[] SEC("license") = "GPL";
