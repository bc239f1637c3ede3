/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The members of struct fuse_ops, the FUSE-BPF filter type, defined once.
 *
 * FUSE_OPS_MEMBER(NAME, ...) is a prefilter or postfilter: it returns u32
 * and takes the arguments listed, the operation's struct
 * bpf_fuse_meta_info first.  FUSE_OPS_UNSUPPORTED(NAME, ...) is a member
 * of the RFC's layout that is never called (a release cannot fail): it
 * gets no CFI stub, so a program for it fails to load.  Includers define
 * both to expand the list: struct fuse_ops in include/linux/bpf_fuse.h,
 * the cfi_stubs in kernel/bpf/bpf_fuse.c (model:
 * include/linux/lsm_hook_defs.h).
 *
 * The order is the uapi: BPF programs find the members by BTF, and a
 * program built against vmlinux.h of an earlier kernel must find them
 * where they were.  New members go at the end.
 *
 * No include guard: this file is included once per expansion.
 */

FUSE_OPS_MEMBER(open_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_open_in *in)
FUSE_OPS_MEMBER(open_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_open_in *in, struct fuse_open_out *out)

FUSE_OPS_MEMBER(opendir_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_open_in *in)
FUSE_OPS_MEMBER(opendir_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_open_in *in, struct fuse_open_out *out)

FUSE_OPS_MEMBER(create_open_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_create_in *in, struct fuse_buffer *name)
FUSE_OPS_MEMBER(create_open_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_create_in *in, const struct fuse_buffer *name,
		struct fuse_entry_out *entry_out, struct fuse_open_out *out)

FUSE_OPS_UNSUPPORTED(release_prefilter,
		     const struct bpf_fuse_meta_info *meta,
		     struct fuse_release_in *in)
FUSE_OPS_UNSUPPORTED(release_postfilter,
		     const struct bpf_fuse_meta_info *meta,
		     const struct fuse_release_in *in)

FUSE_OPS_UNSUPPORTED(releasedir_prefilter,
		     const struct bpf_fuse_meta_info *meta,
		     struct fuse_release_in *in)
FUSE_OPS_UNSUPPORTED(releasedir_postfilter,
		     const struct bpf_fuse_meta_info *meta,
		     const struct fuse_release_in *in)

FUSE_OPS_MEMBER(flush_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_flush_in *in)
FUSE_OPS_MEMBER(flush_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_flush_in *in)

FUSE_OPS_MEMBER(lseek_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_lseek_in *in)
FUSE_OPS_MEMBER(lseek_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_lseek_in *in, struct fuse_lseek_out *out)

FUSE_OPS_MEMBER(copy_file_range_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_copy_file_range_in *in)
FUSE_OPS_MEMBER(copy_file_range_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_copy_file_range_in *in,
		struct fuse_write_out *out)

FUSE_OPS_MEMBER(fsync_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_fsync_in *in)
FUSE_OPS_MEMBER(fsync_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_fsync_in *in)

FUSE_OPS_MEMBER(dir_fsync_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_fsync_in *in)
FUSE_OPS_MEMBER(dir_fsync_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_fsync_in *in)

FUSE_OPS_MEMBER(getxattr_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_getxattr_in *in, struct fuse_buffer *name)
/* in->size > 0: the value is in value; in->size == 0: its size in out */
FUSE_OPS_MEMBER(getxattr_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_getxattr_in *in,
		const struct fuse_buffer *name, struct fuse_buffer *value,
		struct fuse_getxattr_out *out)

FUSE_OPS_MEMBER(listxattr_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_getxattr_in *in)
/* in->size > 0: the list is in value; in->size == 0: its size in out */
FUSE_OPS_MEMBER(listxattr_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_getxattr_in *in, struct fuse_buffer *value,
		struct fuse_getxattr_out *out)

FUSE_OPS_MEMBER(setxattr_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_setxattr_in *in, struct fuse_buffer *name,
		struct fuse_buffer *value)
FUSE_OPS_MEMBER(setxattr_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_setxattr_in *in,
		const struct fuse_buffer *name, const struct fuse_buffer *value)

FUSE_OPS_MEMBER(removexattr_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_buffer *name)
FUSE_OPS_MEMBER(removexattr_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_buffer *name)

FUSE_OPS_MEMBER(read_iter_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_read_in *in)
FUSE_OPS_MEMBER(read_iter_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_read_in *in, struct fuse_read_iter_out *out)

FUSE_OPS_MEMBER(write_iter_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_write_in *in)
FUSE_OPS_MEMBER(write_iter_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_write_in *in, struct fuse_write_iter_out *out)

FUSE_OPS_MEMBER(file_fallocate_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_fallocate_in *in)
FUSE_OPS_MEMBER(file_fallocate_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_fallocate_in *in)

FUSE_OPS_MEMBER(lookup_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_buffer *name)
FUSE_OPS_MEMBER(lookup_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_buffer *name, struct fuse_entry_out *out,
		struct fuse_buffer *entries)

FUSE_OPS_MEMBER(mknod_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_mknod_in *in, struct fuse_buffer *name)
FUSE_OPS_MEMBER(mknod_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_mknod_in *in, const struct fuse_buffer *name)

FUSE_OPS_MEMBER(mkdir_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_mkdir_in *in, struct fuse_buffer *name)
FUSE_OPS_MEMBER(mkdir_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_mkdir_in *in, const struct fuse_buffer *name)

FUSE_OPS_MEMBER(rmdir_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_buffer *name)
FUSE_OPS_MEMBER(rmdir_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_buffer *name)

FUSE_OPS_MEMBER(rename2_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_rename2_in *in, struct fuse_buffer *old_name,
		struct fuse_buffer *new_name)
FUSE_OPS_MEMBER(rename2_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_rename2_in *in,
		const struct fuse_buffer *old_name,
		const struct fuse_buffer *new_name)

FUSE_OPS_MEMBER(rename_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_rename_in *in, struct fuse_buffer *old_name,
		struct fuse_buffer *new_name)
FUSE_OPS_MEMBER(rename_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_rename_in *in,
		const struct fuse_buffer *old_name,
		const struct fuse_buffer *new_name)

FUSE_OPS_MEMBER(unlink_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_buffer *name)
FUSE_OPS_MEMBER(unlink_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_buffer *name)

FUSE_OPS_MEMBER(link_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_link_in *in, struct fuse_buffer *name)
FUSE_OPS_MEMBER(link_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_link_in *in, const struct fuse_buffer *name)

FUSE_OPS_MEMBER(getattr_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_getattr_in *in)
FUSE_OPS_MEMBER(getattr_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_getattr_in *in, struct fuse_attr_out *out)

FUSE_OPS_MEMBER(setattr_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_setattr_in *in)
FUSE_OPS_MEMBER(setattr_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_setattr_in *in, struct fuse_attr_out *out)

FUSE_OPS_MEMBER(statfs_prefilter, const struct bpf_fuse_meta_info *meta)
FUSE_OPS_MEMBER(statfs_postfilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_statfs_out *out)

FUSE_OPS_MEMBER(get_link_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_buffer *name)
FUSE_OPS_MEMBER(get_link_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_buffer *name)

FUSE_OPS_MEMBER(symlink_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_buffer *name, struct fuse_buffer *path)
FUSE_OPS_MEMBER(symlink_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_buffer *name, const struct fuse_buffer *path)

FUSE_OPS_MEMBER(readdir_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_read_in *in)
FUSE_OPS_MEMBER(readdir_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_read_in *in, struct fuse_read_out *out,
		struct fuse_buffer *buffer)

FUSE_OPS_MEMBER(access_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_access_in *in)
FUSE_OPS_MEMBER(access_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_access_in *in)

/* Beyond the RFC: operations FUSE-BPF serves that it had no filter for */
FUSE_OPS_MEMBER(tmpfile_prefilter, const struct bpf_fuse_meta_info *meta,
		struct fuse_create_in *in)
FUSE_OPS_MEMBER(tmpfile_postfilter, const struct bpf_fuse_meta_info *meta,
		const struct fuse_create_in *in)
