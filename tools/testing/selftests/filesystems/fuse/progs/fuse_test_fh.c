// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_filter_test: the open and opendir postfilters give the file a
 * handle (file_fh, dir_fh); the prefilters of the file's later
 * operations record the fuse_*_in.fh they see, by operation.
 */
#include "fuse_bpf.h"

__u64 file_fh;
__u64 dir_fh;
__u64 seen_read, seen_lseek, seen_fsync, seen_flush;
__u64 seen_readdir;

SEC("struct_ops/open_prefilter")
uint32_t BPF_PROG(fh_open_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_open_in *in)
{
	return BPF_FUSE_POSTFILTER;
}

SEC("struct_ops/open_postfilter")
uint32_t BPF_PROG(fh_open_post, const struct bpf_fuse_meta_info *meta,
		  const struct fuse_open_in *in, struct fuse_open_out *out)
{
	out->fh = file_fh;
	return BPF_FUSE_CONTINUE;
}

SEC("struct_ops/opendir_prefilter")
uint32_t BPF_PROG(fh_opendir_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_open_in *in)
{
	return BPF_FUSE_POSTFILTER;
}

SEC("struct_ops/opendir_postfilter")
uint32_t BPF_PROG(fh_opendir_post, const struct bpf_fuse_meta_info *meta,
		  const struct fuse_open_in *in, struct fuse_open_out *out)
{
	out->fh = dir_fh;
	return BPF_FUSE_CONTINUE;
}

SEC("struct_ops/read_iter_prefilter")
uint32_t BPF_PROG(fh_read_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_read_in *in)
{
	seen_read = in->fh;
	return BPF_FUSE_CONTINUE;
}

SEC("struct_ops/lseek_prefilter")
uint32_t BPF_PROG(fh_lseek_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_lseek_in *in)
{
	seen_lseek = in->fh;
	return BPF_FUSE_CONTINUE;
}

SEC("struct_ops/fsync_prefilter")
uint32_t BPF_PROG(fh_fsync_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_fsync_in *in)
{
	seen_fsync = in->fh;
	return BPF_FUSE_CONTINUE;
}

SEC("struct_ops/flush_prefilter")
uint32_t BPF_PROG(fh_flush_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_flush_in *in)
{
	seen_flush = in->fh;
	return BPF_FUSE_CONTINUE;
}

SEC("struct_ops/readdir_prefilter")
uint32_t BPF_PROG(fh_readdir_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_read_in *in)
{
	seen_readdir = in->fh;
	return BPF_FUSE_CONTINUE;
}

SEC(".struct_ops.link")
struct fuse_ops fh_ops = {
	.open_prefilter		= (void *)fh_open_pre,
	.open_postfilter	= (void *)fh_open_post,
	.opendir_prefilter	= (void *)fh_opendir_pre,
	.opendir_postfilter	= (void *)fh_opendir_post,
	.read_iter_prefilter	= (void *)fh_read_pre,
	.lseek_prefilter	= (void *)fh_lseek_pre,
	.fsync_prefilter	= (void *)fh_fsync_pre,
	.flush_prefilter	= (void *)fh_flush_pre,
	.readdir_prefilter	= (void *)fh_readdir_pre,
	.name			= "fh",
};

char LICENSE[] SEC("license") = "GPL";
