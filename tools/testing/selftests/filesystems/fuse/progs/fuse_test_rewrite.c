// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_filter_test: filters that rewrite what reaches the lower filesystem
 * and what reaches the caller, and fail operations from either side of
 * it.  Each acts on names of the test only and leaves the rest alone.
 */
#include "fuse_bpf.h"

/* A file of this size is shown with the attributes below */
#define MAGIC_SIZE	12345
#define SHOWN_SIZE	54321
#define SHOWN_UID	4242
#define SHOWN_MODE	0600

/* "alias" is the lower's "target" */
SEC("struct_ops/lookup_prefilter")
uint32_t BPF_PROG(rw_lookup_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_buffer *name)
{
	if (fuse_name_is(name, "alias"))
		return fuse_name_set(name, "target");
	return BPF_FUSE_CONTINUE;
}

/* "mkdir_in" is made as "mkdir_out", mode 0700 whatever was asked */
SEC("struct_ops/mkdir_prefilter")
uint32_t BPF_PROG(rw_mkdir_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_mkdir_in *in, struct fuse_buffer *name)
{
	if (!fuse_name_is(name, "mkdir_in"))
		return BPF_FUSE_CONTINUE;
	in->mode = 0700;
	return fuse_name_set(name, "mkdir_out");
}

/* "keep" cannot be unlinked: the lower is not asked */
SEC("struct_ops/unlink_prefilter")
uint32_t BPF_PROG(rw_unlink_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_buffer *name)
{
	return fuse_name_is(name, "keep") ? -EPERM : BPF_FUSE_CONTINUE;
}

#define NEW_VALUE	"filtered-value"

/*
 * The value of user.rewrite is replaced, of another length; user.fail
 * goes to the postfilter, which fails it once the lower has set it.
 */
SEC("struct_ops/setxattr_prefilter")
uint32_t BPF_PROG(rw_setxattr_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_setxattr_in *in, struct fuse_buffer *name,
		  struct fuse_buffer *value)
{
	int err;

	if (fuse_name_is(name, "user.fail"))
		return BPF_FUSE_POSTFILTER;
	if (!fuse_name_is(name, "user.rewrite"))
		return BPF_FUSE_CONTINUE;
	/* Values are not NUL terminated */
	err = fuse_buffer_set(value, NEW_VALUE, sizeof(NEW_VALUE) - 1);
	if (err)
		return err;
	in->size = sizeof(NEW_VALUE) - 1;
	return BPF_FUSE_CONTINUE;
}

SEC("struct_ops/setxattr_postfilter")
uint32_t BPF_PROG(rw_setxattr_post, const struct bpf_fuse_meta_info *meta,
		  const struct fuse_setxattr_in *in,
		  const struct fuse_buffer *name,
		  const struct fuse_buffer *value)
{
	return fuse_name_is(name, "user.fail") ? -EDOM : BPF_FUSE_CONTINUE;
}

#define SHOWN_VALUE	"redacted"

/* The value of user.secret, when there is one, is shown as another */
SEC("struct_ops/getxattr_postfilter")
uint32_t BPF_PROG(rw_getxattr_post, const struct bpf_fuse_meta_info *meta,
		  const struct fuse_getxattr_in *in,
		  const struct fuse_buffer *name, struct fuse_buffer *value,
		  struct fuse_getxattr_out *out)
{
	if (meta->error_in || !fuse_name_is(name, "user.secret"))
		return BPF_FUSE_CONTINUE;
	/* A size query: the caller learns the size of what it will get */
	if (!in->size) {
		out->size = sizeof(SHOWN_VALUE) - 1;
		return BPF_FUSE_CONTINUE;
	}
	if (in->size < sizeof(SHOWN_VALUE) - 1)
		return -ERANGE;
	return fuse_buffer_set(value, SHOWN_VALUE, sizeof(SHOWN_VALUE) - 1);
}

/* The caller sees other attributes than the lower has for MAGIC_SIZE */
SEC("struct_ops/getattr_postfilter")
uint32_t BPF_PROG(rw_getattr_post, const struct bpf_fuse_meta_info *meta,
		  const struct fuse_getattr_in *in, struct fuse_attr_out *out)
{
	if (meta->error_in || out->attr.size != MAGIC_SIZE)
		return BPF_FUSE_CONTINUE;
	out->attr.size = SHOWN_SIZE;
	out->attr.uid = SHOWN_UID;
	out->attr.mode = (out->attr.mode & S_IFMT) | SHOWN_MODE;
	return BPF_FUSE_CONTINUE;
}

/*
 * SEEK_SET to SEEK_FROM gives SEEK_TO; to SEEK_BAD, a negative position,
 * which the kernel refuses.  The lower file seeks as asked either way.
 */
#ifndef SEEK_SET
#define SEEK_SET	0
#endif
#define SEEK_FROM	777
#define SEEK_TO		1000
#define SEEK_BAD	666

SEC("struct_ops/lseek_postfilter")
uint32_t BPF_PROG(rw_lseek_post, const struct bpf_fuse_meta_info *meta,
		  const struct fuse_lseek_in *in, struct fuse_lseek_out *out)
{
	if (meta->error_in || in->whence != SEEK_SET)
		return BPF_FUSE_CONTINUE;
	if (in->offset == SEEK_FROM)
		out->offset = SEEK_TO;
	else if (in->offset == SEEK_BAD)
		out->offset = -5;
	return BPF_FUSE_CONTINUE;
}

SEC(".struct_ops.link")
struct fuse_ops rewrite_ops = {
	.lookup_prefilter	= (void *)rw_lookup_pre,
	.mkdir_prefilter	= (void *)rw_mkdir_pre,
	.unlink_prefilter	= (void *)rw_unlink_pre,
	.setxattr_prefilter	= (void *)rw_setxattr_pre,
	.setxattr_postfilter	= (void *)rw_setxattr_post,
	.getxattr_postfilter	= (void *)rw_getxattr_post,
	.getattr_postfilter	= (void *)rw_getattr_post,
	.lseek_postfilter	= (void *)rw_lseek_post,
	.name			= "rewrite",
};

char LICENSE[] SEC("license") = "GPL";
