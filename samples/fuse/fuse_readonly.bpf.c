// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE-BPF sample: a read-only view of a writable lower filesystem.
 *
 * Every operation that would change the lower fails with EROFS before it
 * reaches it; reads, lookups, listings and attributes pass untouched.
 * Data writes need a file open for writing, which the open filter
 * refuses, as it refuses a truncating open.
 */
#include "fuse_bpf.h"

/*
 * For the selftests: let files be opened for writing, to reach the
 * filters of what an open file changes (fallocate, copy_file_range).
 * Set before the program is loaded.
 */
const volatile bool open_for_write;

SEC("struct_ops/open_prefilter")
uint32_t BPF_PROG(ro_open_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_open_in *in)
{
	if (open_for_write)
		return BPF_FUSE_CONTINUE;
	if ((in->flags & O_ACCMODE) != O_RDONLY || (in->flags & O_TRUNC))
		return -EROFS;
	return BPF_FUSE_CONTINUE;
}

/*
 * The other filters refuse whatever the arguments.  They need not name
 * them: a program reads no more arguments than it declares.
 */
#define RO_REFUSE(member)						\
SEC("struct_ops/" #member "_prefilter")					\
uint32_t BPF_PROG(ro_##member##_pre, const struct bpf_fuse_meta_info *meta) \
{									\
	return -EROFS;							\
}

RO_REFUSE(create_open)
RO_REFUSE(mknod)
RO_REFUSE(mkdir)
RO_REFUSE(rmdir)
RO_REFUSE(unlink)
RO_REFUSE(rename)
RO_REFUSE(rename2)
RO_REFUSE(link)
RO_REFUSE(symlink)
RO_REFUSE(setattr)
RO_REFUSE(setxattr)
RO_REFUSE(removexattr)
RO_REFUSE(file_fallocate)
RO_REFUSE(copy_file_range)
RO_REFUSE(tmpfile)

SEC(".struct_ops.link")
struct fuse_ops readonly_ops = {
	.open_prefilter			= (void *)ro_open_pre,
	.create_open_prefilter		= (void *)ro_create_open_pre,
	.mknod_prefilter		= (void *)ro_mknod_pre,
	.mkdir_prefilter		= (void *)ro_mkdir_pre,
	.rmdir_prefilter		= (void *)ro_rmdir_pre,
	.unlink_prefilter		= (void *)ro_unlink_pre,
	.rename_prefilter		= (void *)ro_rename_pre,
	.rename2_prefilter		= (void *)ro_rename2_pre,
	.link_prefilter			= (void *)ro_link_pre,
	.symlink_prefilter		= (void *)ro_symlink_pre,
	.setattr_prefilter		= (void *)ro_setattr_pre,
	.setxattr_prefilter		= (void *)ro_setxattr_pre,
	.removexattr_prefilter		= (void *)ro_removexattr_pre,
	.file_fallocate_prefilter	= (void *)ro_file_fallocate_pre,
	.copy_file_range_prefilter	= (void *)ro_copy_file_range_pre,
	.tmpfile_prefilter		= (void *)ro_tmpfile_pre,
	.name				= "readonly",
};

char LICENSE[] SEC("license") = "GPL";
