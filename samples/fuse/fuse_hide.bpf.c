// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE-BPF sample: entries named "hidden" do not exist in the view.
 *
 * Android hides the private directories of other apps this way: a lookup
 * of the name fails with ENOENT before the lower filesystem is asked, and
 * directory listings leave it out.  The entry stays on the lower
 * filesystem, where its owner still reaches it.
 */
#include "fuse_bpf.h"
#include "fuse_dirent.h"

#define HIDDEN	"hidden"

SEC("struct_ops/lookup_prefilter")
uint32_t BPF_PROG(hide_lookup_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_buffer *name)
{
	return fuse_name_is(name, HIDDEN) ? -ENOENT : BPF_FUSE_CONTINUE;
}

static __always_inline bool hide_dirent(const struct bpf_dynptr *p,
					__u32 off,
					const struct fuse_dirent *d, void *ctx)
{
	return fuse_dirent_name_is(p, off, d, HIDDEN);
}

/* No prefilter: the postfilter runs after every readdir of the lower */
SEC("struct_ops/readdir_postfilter")
uint32_t BPF_PROG(hide_readdir_post, const struct bpf_fuse_meta_info *meta,
		  const struct fuse_read_in *in, struct fuse_read_out *out,
		  struct fuse_buffer *buffer)
{
	return fuse_dirent_filter(buffer, hide_dirent, NULL);
}

SEC(".struct_ops.link")
struct fuse_ops hide_ops = {
	.lookup_prefilter	= (void *)hide_lookup_pre,
	.readdir_postfilter	= (void *)hide_readdir_post,
	.name			= "hide",
};

char LICENSE[] SEC("license") = "GPL";
