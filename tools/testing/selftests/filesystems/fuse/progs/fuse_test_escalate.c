// SPDX-License-Identifier: GPL-2.0
/*
 * filter_harden_test: a filter that tries to pass the mounter's privileges
 * on to the caller.  It moves xattr names within security.* and trusted.*,
 * rewrites a security.* value, and adds set-id bits to the mode of new
 * nodes whose names start with "setid" (O_TMPFILE files asked with mode
 * TMPFILE_MODE).  The kernel refuses each rewrite with EPERM.
 */
#include "fuse_bpf.h"

#ifndef S_ISUID
#define S_ISUID		0004000
#define S_ISGID		0002000
#endif

#define SETID		(S_ISUID | S_ISGID)
#define TMPFILE_MODE	0751

/* Whether the name in @name starts with "setid" (and goes on) */
static __always_inline bool setid_name(const struct fuse_buffer *name)
{
	struct bpf_dynptr p;

	bpf_fuse_get_ro_dynptr(name, &p);
	return bpf_dynptr_size(&p) > sizeof("setid") &&
	       fuse_dynptr_eq(&p, 0, "setid", sizeof("setid") - 1);
}

/* security.selinux is security.capability, trusted.a is trusted.b */
static __always_inline int esc_move(struct fuse_buffer *name)
{
	if (fuse_name_is(name, "security.selinux"))
		return fuse_name_set(name, "security.capability");
	if (fuse_name_is(name, "trusted.a"))
		return fuse_name_set(name, "trusted.b");
	return BPF_FUSE_CONTINUE;
}

#define NEW_VALUE	"rewritten"

SEC("struct_ops/getxattr_prefilter")
uint32_t BPF_PROG(esc_getxattr_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_getxattr_in *in, struct fuse_buffer *name)
{
	return esc_move(name);
}

/* And the value of security.value is another */
SEC("struct_ops/setxattr_prefilter")
uint32_t BPF_PROG(esc_setxattr_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_setxattr_in *in, struct fuse_buffer *name,
		  struct fuse_buffer *value)
{
	int err;

	if (!fuse_name_is(name, "security.value"))
		return esc_move(name);
	/* Values are not NUL terminated */
	err = fuse_buffer_set(value, NEW_VALUE, sizeof(NEW_VALUE) - 1);
	if (err)
		return err;
	in->size = sizeof(NEW_VALUE) - 1;
	return BPF_FUSE_CONTINUE;
}

SEC("struct_ops/removexattr_prefilter")
uint32_t BPF_PROG(esc_removexattr_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_buffer *name)
{
	return esc_move(name);
}

SEC("struct_ops/create_open_prefilter")
uint32_t BPF_PROG(esc_create_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_create_in *in, struct fuse_buffer *name)
{
	if (setid_name(name))
		in->mode |= SETID;
	return BPF_FUSE_CONTINUE;
}

SEC("struct_ops/mknod_prefilter")
uint32_t BPF_PROG(esc_mknod_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_mknod_in *in, struct fuse_buffer *name)
{
	if (setid_name(name))
		in->mode |= SETID;
	return BPF_FUSE_CONTINUE;
}

SEC("struct_ops/mkdir_prefilter")
uint32_t BPF_PROG(esc_mkdir_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_mkdir_in *in, struct fuse_buffer *name)
{
	if (setid_name(name))
		in->mode |= SETID;
	return BPF_FUSE_CONTINUE;
}

SEC("struct_ops/tmpfile_prefilter")
uint32_t BPF_PROG(esc_tmpfile_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_create_in *in)
{
	if ((in->mode & 07777) == TMPFILE_MODE)
		in->mode |= SETID;
	return BPF_FUSE_CONTINUE;
}

SEC(".struct_ops.link")
struct fuse_ops escalate_ops = {
	.getxattr_prefilter	= (void *)esc_getxattr_pre,
	.setxattr_prefilter	= (void *)esc_setxattr_pre,
	.removexattr_prefilter	= (void *)esc_removexattr_pre,
	.create_open_prefilter	= (void *)esc_create_pre,
	.mknod_prefilter	= (void *)esc_mknod_pre,
	.mkdir_prefilter	= (void *)esc_mkdir_pre,
	.tmpfile_prefilter	= (void *)esc_tmpfile_pre,
	.name			= "escalate",
};

char LICENSE[] SEC("license") = "GPL";
