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

/*
 * setattr: each change is picked by a mode, size, owner or time only the
 * tests use.  The kernel applies what is left, judging the caller on it.
 */
#define FATTR_MODE	0x001
#define FATTR_UID	0x002
#define FATTR_SIZE	0x008
#define FATTR_ATIME	0x010
#define FATTR_MTIME	0x020
#define FATTR_ATIME_NOW	0x080
#define FATTR_MTIME_NOW	0x100
#define SETATTR_MODE_FROM	0751	/* given as 0700 */
#define SETATTR_MODE_TO		0700
#define SETATTR_MODE_ADD	0713	/* a truncate is added: refused */
#define SETATTR_MODE_DROP	0715	/* the change is dropped */
#define SETATTR_SIZE_FROM	7777	/* truncated to 1111 */
#define SETATTR_SIZE_TO		1111
#define SETATTR_UID_FROM	65534	/* chown to 65534 is a chown to 0 */
#define SETATTR_ATIME_FROM	4242	/* an atime of 4242 is one of 2424 */
#define SETATTR_ATIME_TO	2424
#define SETATTR_SIZE_MTIME	9999	/* with an explicit mtime, 12345 */
#define SETATTR_MTIME_TO	12345
/* Values the kernel refuses (EINVAL) */
#define SETATTR_UID_BAD		4300	/* no such uid */
#define SETATTR_SIZE_BAD	8888	/* a negative size */
#define SETATTR_ATIME_BAD	4343	/* a nanosecond count past a second */

SEC("struct_ops/setattr_prefilter")
uint32_t BPF_PROG(rw_setattr_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_setattr_in *in)
{
	__u32 perm = in->mode & 07777;

	if ((in->valid & FATTR_MODE) && perm == SETATTR_MODE_FROM)
		in->mode = (in->mode & ~07777) | SETATTR_MODE_TO;
	if ((in->valid & FATTR_MODE) && perm == SETATTR_MODE_ADD)
		in->valid |= FATTR_SIZE;
	if ((in->valid & FATTR_MODE) && perm == SETATTR_MODE_DROP)
		in->valid &= ~FATTR_MODE;
	if ((in->valid & FATTR_SIZE) && in->size == SETATTR_SIZE_FROM)
		in->size = SETATTR_SIZE_TO;
	if ((in->valid & FATTR_UID) && in->uid == SETATTR_UID_FROM)
		in->uid = 0;
	if ((in->valid & FATTR_ATIME) && !(in->valid & FATTR_ATIME_NOW) &&
	    in->atime == SETATTR_ATIME_FROM)
		in->atime = SETATTR_ATIME_TO;
	if ((in->valid & FATTR_SIZE) && in->size == SETATTR_SIZE_MTIME &&
	    (in->valid & FATTR_MTIME_NOW)) {
		in->valid &= ~FATTR_MTIME_NOW;
		in->mtime = SETATTR_MTIME_TO;
	}
	if ((in->valid & FATTR_UID) && in->uid == SETATTR_UID_BAD)
		in->uid = -1;
	if ((in->valid & FATTR_SIZE) && in->size == SETATTR_SIZE_BAD)
		in->size = -1;
	if ((in->valid & FATTR_ATIME) && !(in->valid & FATTR_ATIME_NOW) &&
	    in->atime == SETATTR_ATIME_BAD)
		in->atimensec = 2000000000;
	return BPF_FUSE_CONTINUE;
}

/*
 * access: W_OK is checked as W_OK | X_OK (denying a writable file that
 * is not executable); R_OK | X_OK as R_OK, which must not grant X_OK.
 */
#define MAY_EXEC	1
#define MAY_WRITE	2
#define MAY_READ	4

SEC("struct_ops/access_prefilter")
uint32_t BPF_PROG(rw_access_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_access_in *in)
{
	if (in->mask == MAY_WRITE)
		in->mask = MAY_WRITE | MAY_EXEC;
	else if (in->mask == (MAY_READ | MAY_EXEC))
		in->mask = MAY_READ;
	return BPF_FUSE_CONTINUE;
}

/*
 * open and O_TMPFILE: O_NONBLOCK (meaningless on regular files) asks for a
 * backing file opened O_DIRECT; with O_DSYNC too, for one opened
 * O_APPEND, which is refused.  An O_TMPFILE file asked with mode 0641 is
 * made 0600.  opendir: O_DSYNC is dropped, which is refused.
 */
#define O_APPEND	00002000
#define O_NONBLOCK	00004000
#define O_DSYNC		00010000
#define O_DIRECT	00040000
#define TMPFILE_MODE_FROM	0641
#define TMPFILE_MODE_TO		0600

static __always_inline void rw_open_flags(__u32 *flags)
{
	if (!(*flags & O_NONBLOCK))
		return;
	if (*flags & O_DSYNC)
		*flags |= O_APPEND;
	else
		*flags |= O_DIRECT;
}

SEC("struct_ops/open_prefilter")
uint32_t BPF_PROG(rw_open_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_open_in *in)
{
	rw_open_flags(&in->flags);
	return BPF_FUSE_CONTINUE;
}

SEC("struct_ops/opendir_prefilter")
uint32_t BPF_PROG(rw_opendir_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_open_in *in)
{
	in->flags &= ~O_DSYNC;
	return BPF_FUSE_CONTINUE;
}

SEC("struct_ops/tmpfile_prefilter")
uint32_t BPF_PROG(rw_tmpfile_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_create_in *in)
{
	if ((in->mode & 07777) == TMPFILE_MODE_FROM)
		in->mode = (in->mode & ~07777) | TMPFILE_MODE_TO;
	rw_open_flags(&in->flags);
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
	.setattr_prefilter	= (void *)rw_setattr_pre,
	.access_prefilter	= (void *)rw_access_pre,
	.open_prefilter		= (void *)rw_open_pre,
	.opendir_prefilter	= (void *)rw_opendir_pre,
	.tmpfile_prefilter	= (void *)rw_tmpfile_pre,
	.name			= "rewrite",
};

char LICENSE[] SEC("license") = "GPL";
