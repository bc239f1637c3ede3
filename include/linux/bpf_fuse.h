/* SPDX-License-Identifier: GPL-2.0 */
/*
 * FUSE-BPF filters: the fuse_ops struct_ops type.
 *
 * A fuse_ops program sees each operation on a backed FUSE node as the
 * daemon would see it: the opcode and node id in struct bpf_fuse_meta_info,
 * the fuse_*_in and fuse_*_out structures of the FUSE protocol, and
 * variable-length arguments (names, xattr values, directory entries) as
 * struct fuse_buffer.  Its prefilter runs before the lower filesystem does
 * the operation and its postfilter after.  Member names and argument types
 * are those of the FUSE-BPF RFC, so that filters written for it load here.
 *
 * See Documentation/filesystems/fuse-bpf.rst.
 */
#ifndef _BPF_FUSE_H
#define _BPF_FUSE_H

#include <linux/bits.h>
#include <linux/types.h>
#include <uapi/linux/bpf.h>
#include <uapi/linux/fuse.h>

/*
 * A variable-length argument.  Programs do not read or write it directly
 * (the verifier refuses that): they ask for a dynptr over it with
 * bpf_fuse_get_ro_dynptr() or bpf_fuse_get_rw_dynptr().
 */
struct fuse_buffer {
	void *data;
	unsigned int size;	/* bytes in use */
	unsigned int alloc_size; /* bytes at data */
	unsigned int max_size;	/* the protocol's limit for this argument */
	int flags;
};

#define BPF_FUSE_IMMUTABLE	BIT(0)	/* read-only for the program */
#define BPF_FUSE_VARIABLE_SIZE	BIT(1)	/* may grow or shrink up to max_size */
#define BPF_FUSE_MUST_ALLOCATE	BIT(2)	/* data is not ours: copy first */
#define BPF_FUSE_MODIFIED	BIT(3)	/* a program was given write access */
#define BPF_FUSE_ALLOCATED	BIT(4)	/* data was allocated by the kfunc */

struct bpf_fuse_meta_info {
	u64 nodeid;
	u32 opcode;	/* FUSE opcode | FUSE_PREFILTER or FUSE_POSTFILTER */
	u32 error_in;	/* postfilter: the backing operation's result */
};

/* The readdir postfilter's view of a FUSE_READDIR reply */
struct fuse_read_out {
	u64 offset;
	u32 again;
	u32 padding;
};

/* The result of a read or write, for its postfilter */
struct fuse_read_iter_out {
	u64 ret;
};

struct fuse_write_iter_out {
	u64 ret;
};

/*
 * Each prefilter returns BPF_FUSE_CONTINUE (run the operation on the lower
 * filesystem, no postfilter), BPF_FUSE_POSTFILTER (run it, then the
 * postfilter), BPF_FUSE_USER (send the operation to the daemon) or a
 * negative errno (fail it).  A postfilter returns a negative errno to fail
 * the operation, anything else to keep its result.
 */
struct fuse_ops {
	u32 (*open_prefilter)(const struct bpf_fuse_meta_info *meta,
			      struct fuse_open_in *in);
	u32 (*open_postfilter)(const struct bpf_fuse_meta_info *meta,
			       const struct fuse_open_in *in,
			       struct fuse_open_out *out);

	u32 (*opendir_prefilter)(const struct bpf_fuse_meta_info *meta,
				 struct fuse_open_in *in);
	u32 (*opendir_postfilter)(const struct bpf_fuse_meta_info *meta,
				  const struct fuse_open_in *in,
				  struct fuse_open_out *out);

	u32 (*create_open_prefilter)(const struct bpf_fuse_meta_info *meta,
				     struct fuse_create_in *in,
				     struct fuse_buffer *name);
	u32 (*create_open_postfilter)(const struct bpf_fuse_meta_info *meta,
				      const struct fuse_create_in *in,
				      const struct fuse_buffer *name,
				      struct fuse_entry_out *entry_out,
				      struct fuse_open_out *out);

	u32 (*release_prefilter)(const struct bpf_fuse_meta_info *meta,
				 struct fuse_release_in *in);
	u32 (*release_postfilter)(const struct bpf_fuse_meta_info *meta,
				  const struct fuse_release_in *in);

	u32 (*releasedir_prefilter)(const struct bpf_fuse_meta_info *meta,
				    struct fuse_release_in *in);
	u32 (*releasedir_postfilter)(const struct bpf_fuse_meta_info *meta,
				     const struct fuse_release_in *in);

	u32 (*flush_prefilter)(const struct bpf_fuse_meta_info *meta,
			       struct fuse_flush_in *in);
	u32 (*flush_postfilter)(const struct bpf_fuse_meta_info *meta,
				const struct fuse_flush_in *in);

	u32 (*lseek_prefilter)(const struct bpf_fuse_meta_info *meta,
			       struct fuse_lseek_in *in);
	u32 (*lseek_postfilter)(const struct bpf_fuse_meta_info *meta,
				const struct fuse_lseek_in *in,
				struct fuse_lseek_out *out);

	u32 (*copy_file_range_prefilter)(const struct bpf_fuse_meta_info *meta,
					 struct fuse_copy_file_range_in *in);
	u32 (*copy_file_range_postfilter)(const struct bpf_fuse_meta_info *meta,
					  const struct fuse_copy_file_range_in *in,
					  struct fuse_write_out *out);

	u32 (*fsync_prefilter)(const struct bpf_fuse_meta_info *meta,
			       struct fuse_fsync_in *in);
	u32 (*fsync_postfilter)(const struct bpf_fuse_meta_info *meta,
				const struct fuse_fsync_in *in);

	u32 (*dir_fsync_prefilter)(const struct bpf_fuse_meta_info *meta,
				   struct fuse_fsync_in *in);
	u32 (*dir_fsync_postfilter)(const struct bpf_fuse_meta_info *meta,
				    const struct fuse_fsync_in *in);

	u32 (*getxattr_prefilter)(const struct bpf_fuse_meta_info *meta,
				  struct fuse_getxattr_in *in,
				  struct fuse_buffer *name);
	/* in->size > 0: the value is in value; in->size == 0: its size in out */
	u32 (*getxattr_postfilter)(const struct bpf_fuse_meta_info *meta,
				   const struct fuse_getxattr_in *in,
				   const struct fuse_buffer *name,
				   struct fuse_buffer *value,
				   struct fuse_getxattr_out *out);

	u32 (*listxattr_prefilter)(const struct bpf_fuse_meta_info *meta,
				   struct fuse_getxattr_in *in);
	/* in->size > 0: the list is in value; in->size == 0: its size in out */
	u32 (*listxattr_postfilter)(const struct bpf_fuse_meta_info *meta,
				    const struct fuse_getxattr_in *in,
				    struct fuse_buffer *value,
				    struct fuse_getxattr_out *out);

	u32 (*setxattr_prefilter)(const struct bpf_fuse_meta_info *meta,
				  struct fuse_setxattr_in *in,
				  struct fuse_buffer *name,
				  struct fuse_buffer *value);
	u32 (*setxattr_postfilter)(const struct bpf_fuse_meta_info *meta,
				   const struct fuse_setxattr_in *in,
				   const struct fuse_buffer *name,
				   const struct fuse_buffer *value);

	u32 (*removexattr_prefilter)(const struct bpf_fuse_meta_info *meta,
				     struct fuse_buffer *name);
	u32 (*removexattr_postfilter)(const struct bpf_fuse_meta_info *meta,
				      const struct fuse_buffer *name);

	u32 (*read_iter_prefilter)(const struct bpf_fuse_meta_info *meta,
				   struct fuse_read_in *in);
	u32 (*read_iter_postfilter)(const struct bpf_fuse_meta_info *meta,
				    const struct fuse_read_in *in,
				    struct fuse_read_iter_out *out);

	u32 (*write_iter_prefilter)(const struct bpf_fuse_meta_info *meta,
				    struct fuse_write_in *in);
	u32 (*write_iter_postfilter)(const struct bpf_fuse_meta_info *meta,
				     const struct fuse_write_in *in,
				     struct fuse_write_iter_out *out);

	u32 (*file_fallocate_prefilter)(const struct bpf_fuse_meta_info *meta,
					struct fuse_fallocate_in *in);
	u32 (*file_fallocate_postfilter)(const struct bpf_fuse_meta_info *meta,
					 const struct fuse_fallocate_in *in);

	u32 (*lookup_prefilter)(const struct bpf_fuse_meta_info *meta,
				struct fuse_buffer *name);
	u32 (*lookup_postfilter)(const struct bpf_fuse_meta_info *meta,
				 const struct fuse_buffer *name,
				 struct fuse_entry_out *out,
				 struct fuse_buffer *entries);

	u32 (*mknod_prefilter)(const struct bpf_fuse_meta_info *meta,
			       struct fuse_mknod_in *in,
			       struct fuse_buffer *name);
	u32 (*mknod_postfilter)(const struct bpf_fuse_meta_info *meta,
				const struct fuse_mknod_in *in,
				const struct fuse_buffer *name);

	u32 (*mkdir_prefilter)(const struct bpf_fuse_meta_info *meta,
			       struct fuse_mkdir_in *in,
			       struct fuse_buffer *name);
	u32 (*mkdir_postfilter)(const struct bpf_fuse_meta_info *meta,
				const struct fuse_mkdir_in *in,
				const struct fuse_buffer *name);

	u32 (*rmdir_prefilter)(const struct bpf_fuse_meta_info *meta,
			       struct fuse_buffer *name);
	u32 (*rmdir_postfilter)(const struct bpf_fuse_meta_info *meta,
				const struct fuse_buffer *name);

	u32 (*rename2_prefilter)(const struct bpf_fuse_meta_info *meta,
				 struct fuse_rename2_in *in,
				 struct fuse_buffer *old_name,
				 struct fuse_buffer *new_name);
	u32 (*rename2_postfilter)(const struct bpf_fuse_meta_info *meta,
				  const struct fuse_rename2_in *in,
				  const struct fuse_buffer *old_name,
				  const struct fuse_buffer *new_name);

	u32 (*rename_prefilter)(const struct bpf_fuse_meta_info *meta,
				struct fuse_rename_in *in,
				struct fuse_buffer *old_name,
				struct fuse_buffer *new_name);
	u32 (*rename_postfilter)(const struct bpf_fuse_meta_info *meta,
				 const struct fuse_rename_in *in,
				 const struct fuse_buffer *old_name,
				 const struct fuse_buffer *new_name);

	u32 (*unlink_prefilter)(const struct bpf_fuse_meta_info *meta,
				struct fuse_buffer *name);
	u32 (*unlink_postfilter)(const struct bpf_fuse_meta_info *meta,
				 const struct fuse_buffer *name);

	u32 (*link_prefilter)(const struct bpf_fuse_meta_info *meta,
			      struct fuse_link_in *in,
			      struct fuse_buffer *name);
	u32 (*link_postfilter)(const struct bpf_fuse_meta_info *meta,
			       const struct fuse_link_in *in,
			       const struct fuse_buffer *name);

	u32 (*getattr_prefilter)(const struct bpf_fuse_meta_info *meta,
				 struct fuse_getattr_in *in);
	u32 (*getattr_postfilter)(const struct bpf_fuse_meta_info *meta,
				  const struct fuse_getattr_in *in,
				  struct fuse_attr_out *out);

	u32 (*setattr_prefilter)(const struct bpf_fuse_meta_info *meta,
				 struct fuse_setattr_in *in);
	u32 (*setattr_postfilter)(const struct bpf_fuse_meta_info *meta,
				  const struct fuse_setattr_in *in,
				  struct fuse_attr_out *out);

	u32 (*statfs_prefilter)(const struct bpf_fuse_meta_info *meta);
	u32 (*statfs_postfilter)(const struct bpf_fuse_meta_info *meta,
				 struct fuse_statfs_out *out);

	u32 (*get_link_prefilter)(const struct bpf_fuse_meta_info *meta,
				  struct fuse_buffer *name);
	u32 (*get_link_postfilter)(const struct bpf_fuse_meta_info *meta,
				   const struct fuse_buffer *name);

	u32 (*symlink_prefilter)(const struct bpf_fuse_meta_info *meta,
				 struct fuse_buffer *name,
				 struct fuse_buffer *path);
	u32 (*symlink_postfilter)(const struct bpf_fuse_meta_info *meta,
				  const struct fuse_buffer *name,
				  const struct fuse_buffer *path);

	u32 (*readdir_prefilter)(const struct bpf_fuse_meta_info *meta,
				 struct fuse_read_in *in);
	u32 (*readdir_postfilter)(const struct bpf_fuse_meta_info *meta,
				  const struct fuse_read_in *in,
				  struct fuse_read_out *out,
				  struct fuse_buffer *buffer);

	u32 (*access_prefilter)(const struct bpf_fuse_meta_info *meta,
				struct fuse_access_in *in);
	u32 (*access_postfilter)(const struct bpf_fuse_meta_info *meta,
				 const struct fuse_access_in *in);

	/* Beyond the RFC: operations FUSE-BPF serves that it had no filter for */
	u32 (*tmpfile_prefilter)(const struct bpf_fuse_meta_info *meta,
				 struct fuse_create_in *in);
	u32 (*tmpfile_postfilter)(const struct bpf_fuse_meta_info *meta,
				  const struct fuse_create_in *in);

	char name[BPF_FUSE_NAME_MAX + 1];	/* uapi/linux/fuse.h */
};

#ifdef CONFIG_FUSE_BPF
struct fuse_ops *bpf_fuse_ops_get(const char *name);
struct fuse_ops *bpf_fuse_ops_get_fd(int fd);
struct fuse_ops *bpf_fuse_ops_tryget(struct fuse_ops *ops);
void bpf_fuse_ops_put(struct fuse_ops *ops);
void bpf_fuse_free_buffer(struct fuse_buffer *buf);
int bpf_fuse_set_buffer(struct fuse_buffer *buf, const void *data, u32 size);
#endif

#endif /* _BPF_FUSE_H */
