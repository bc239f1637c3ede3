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

/**
 * struct fuse_buffer_handle - what a filter holds of a fuse_buffer
 *
 * Nothing to load or store: to the verifier, a filter's &struct
 * fuse_buffer argument points to this empty struct, which the kfuncs
 * take.  A program that reads a field of the buffer is refused ("access
 * beyond struct fuse_buffer_handle"), so the layout stays the kernel's.
 */
struct fuse_buffer_handle {
};

/**
 * struct fuse_buffer - a variable-length argument of a filter
 * @handle: the program's view of it: nothing (see &struct fuse_buffer_handle)
 * @data: the bytes: the kernel's (a dentry's name, a page of directory
 *	entries) or, once %BPF_FUSE_ALLOCATED is set, an allocation that
 *	bpf_fuse_free_buffer() frees
 * @size: bytes in use
 * @alloc_size: bytes at @data
 * @max_size: the protocol's limit for this argument (NAME_MAX + 1 for a
 *	name, PATH_MAX for a link target, XATTR_SIZE_MAX for an xattr
 *	value, two pages for directory entries)
 * @flags: %BPF_FUSE_IMMUTABLE: read-only for the program (e.g. a
 *	postfilter's inputs);
 *	%BPF_FUSE_VARIABLE_SIZE: may grow or shrink up to @max_size, else
 *	keeps @size;
 *	%BPF_FUSE_MUST_ALLOCATE: @data is not the kernel's to change in
 *	place, a write copies it first;
 *	%BPF_FUSE_MODIFIED: a program was given write access (or the
 *	daemon's filter rewrote it);
 *	%BPF_FUSE_ALLOCATED: @data was allocated by
 *	bpf_fuse_get_rw_dynptr() or bpf_fuse_set_buffer()
 *
 * A variable-length argument.  Programs do not read or write it directly
 * (the verifier refuses both): they ask for a dynptr over it with
 * bpf_fuse_get_ro_dynptr() or bpf_fuse_get_rw_dynptr(), and its length
 * with bpf_fuse_return_len().
 */
struct fuse_buffer {
	struct fuse_buffer_handle handle;
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

/**
 * struct bpf_fuse_meta_info - what a filter is told about the operation
 * @nodeid: the FUSE node id of the node the operation is on, as its FUSE
 *	request's nodeid: the directory, for an operation on a name in it.
 *	Nodes the kernel made have bit 63 set.
 * @opcode: the FUSE opcode of the operation (%FUSE_LOOKUP, ...), or'ed
 *	with %FUSE_PREFILTER in a prefilter and %FUSE_POSTFILTER in a
 *	postfilter
 * @error_in: in a postfilter, the result of the operation on the lower
 *	filesystem: 0 or a negative errno (-ENOENT for a lookup that found
 *	no lower entry, which succeeds with a negative dentry); 0 in a
 *	prefilter
 *
 * The first argument of every filter.  Read-only: the verifier refuses
 * writes to it.
 */
struct bpf_fuse_meta_info {
	u64 nodeid;
	u32 opcode;	/* FUSE opcode | FUSE_PREFILTER or FUSE_POSTFILTER */
	u32 error_in;	/* postfilter: the backing operation's result */
};

/**
 * struct fuse_ops - a FUSE-BPF filter, a struct_ops type
 * @name: the name the filter registers under, which mounts choose it by
 *	(root_bpf=, FUSE_ENTRY_BPF): 1 to BPF_FUSE_NAME_MAX letters, digits,
 *	'_' or '.', NUL-terminated; one registered filter per name
 *
 * A filter of backed FUSE nodes.  Each operation has a pair of members,
 * ``<op>_prefilter`` and ``<op>_postfilter``.  The prefilter runs before
 * the operation on the lower filesystem and may rewrite its ``fuse_*_in``
 * inputs and &struct fuse_buffer arguments; the postfilter runs after it
 * and sees the inputs (read-only) and the outputs.  Both get the
 * operation's &struct bpf_fuse_meta_info first.  A member left NULL is
 * skipped: with no prefilter the operation runs on the lower filesystem,
 * followed by the postfilter if there is one.  Filters are not
 * sleepable.  The release and releasedir members are the RFC's: a release
 * cannot fail, so they are not called, and a program that defines one
 * fails to load.
 *
 * Each prefilter returns one of:
 *
 * - %BPF_FUSE_CONTINUE: run the operation on the lower filesystem, no
 *   postfilter;
 * - %BPF_FUSE_POSTFILTER: run it, then the postfilter;
 * - %BPF_FUSE_USER: send the operation to the daemon;
 * - %BPF_FUSE_USER_PREFILTER: send the inputs to the daemon's own
 *   prefilter, then run the operation with what it left, no postfilter;
 * - %BPF_FUSE_USER_POSTFILTER: run it, then the daemon's own postfilter
 *   instead of the program's;
 * - a negative errno: fail the operation with it, the lower filesystem
 *   untouched.
 *
 * The three that involve the daemon fail the operation with %-EOPNOTSUPP
 * on a mount without one; any other value fails it with %-EINVAL.
 *
 * A postfilter returns a negative errno to fail the operation, anything
 * else to keep its result.  It cannot turn a failure of the lower
 * filesystem into a success.
 *
 * The members, which include/linux/fuse_ops_defs.h declares:
 *
 * - ``open_prefilter``: FUSE_OPEN of a file; may fail it, and set or clear
 *   O_DIRECT, O_DSYNC and O_SYNC of the backing file
 * - ``open_postfilter``: FUSE_OPEN, after the lower open; may fail it
 * - ``opendir_prefilter``: FUSE_OPENDIR; may fail it, and change the flags as
 *   open_prefilter
 * - ``opendir_postfilter``: FUSE_OPENDIR, after the lower open; may fail it
 * - ``create_open_prefilter``: FUSE_CREATE, an open() that creates a file;
 *   may rewrite the name and the permission bits of the mode
 * - ``create_open_postfilter``: FUSE_CREATE, after the lower create and open;
 *   the entry holds the lower inode's attributes
 * - ``release_prefilter``: FUSE_RELEASE: the RFC's, never called
 * - ``release_postfilter``: FUSE_RELEASE: the RFC's, never called
 * - ``releasedir_prefilter``: FUSE_RELEASEDIR: the RFC's, never called
 * - ``releasedir_postfilter``: FUSE_RELEASEDIR: the RFC's, never called
 * - ``flush_prefilter``: FUSE_FLUSH, a close() of the file
 * - ``flush_postfilter``: FUSE_FLUSH, after the lower flush
 * - ``lseek_prefilter``: FUSE_LSEEK; may rewrite the offset and whence
 * - ``lseek_postfilter``: FUSE_LSEEK; the caller gets the offset it leaves,
 *   the file's new position (a negative one fails with -EINVAL)
 * - ``copy_file_range_prefilter``: FUSE_COPY_FILE_RANGE, on the source's
 *   node; may rewrite its inputs, not lengthen the copy
 * - ``copy_file_range_postfilter``: FUSE_COPY_FILE_RANGE, after the lower
 *   copy
 * - ``fsync_prefilter``: FUSE_FSYNC of a file
 * - ``fsync_postfilter``: FUSE_FSYNC, after the lower fsync
 * - ``dir_fsync_prefilter``: FUSE_FSYNCDIR, the fsync of a directory
 * - ``dir_fsync_postfilter``: FUSE_FSYNCDIR, after the lower fsync
 * - ``getxattr_prefilter``: FUSE_GETXATTR; may rewrite the name, within its
 *   namespace (not in security.*, system.* and trusted.*)
 * - ``getxattr_postfilter``: FUSE_GETXATTR; the caller gets the value, or the
 *   size in the out structure, that it leaves (not called for a POSIX ACL)
 * - ``listxattr_prefilter``: FUSE_LISTXATTR
 * - ``listxattr_postfilter``: FUSE_LISTXATTR; the caller gets the list, or
 *   the size in the out structure, that it leaves
 * - ``setxattr_prefilter``: FUSE_SETXATTR; may rewrite the name, within its
 *   namespace (not in security.*, system.* and trusted.*), and the value (not
 *   in security.*)
 * - ``setxattr_postfilter``: FUSE_SETXATTR, after the lower setxattr
 * - ``removexattr_prefilter``: FUSE_REMOVEXATTR; may rewrite the name, within
 *   its namespace (not in security.*, system.* and trusted.*)
 * - ``removexattr_postfilter``: FUSE_REMOVEXATTR, after the lower removexattr
 * - ``read_iter_prefilter``: FUSE_READ, a read of the file; may fail it or
 *   send it to the daemon, not change its offset or size
 * - ``read_iter_postfilter``: FUSE_READ, after the backing file read; may
 *   fail it
 * - ``write_iter_prefilter``: FUSE_WRITE, a write to the file; may fail it or
 *   send it to the daemon, not change its offset or size
 * - ``write_iter_postfilter``: FUSE_WRITE, after the backing file write; may
 *   fail it
 * - ``file_fallocate_prefilter``: FUSE_FALLOCATE; may rewrite its inputs
 * - ``file_fallocate_postfilter``: FUSE_FALLOCATE, after the lower fallocate
 * - ``lookup_prefilter``: FUSE_LOOKUP of a name in the directory; may rewrite
 *   the name
 * - ``lookup_postfilter``: FUSE_LOOKUP, after the lower lookup; the entry
 *   holds the lower inode's attributes, the entries buffer is empty and
 *   read-only
 * - ``mknod_prefilter``: FUSE_MKNOD; may rewrite the name and the permission
 *   bits of the mode
 * - ``mknod_postfilter``: FUSE_MKNOD, after the lower mknod
 * - ``mkdir_prefilter``: FUSE_MKDIR; may rewrite the name and the permission
 *   bits of the mode
 * - ``mkdir_postfilter``: FUSE_MKDIR, after the lower mkdir
 * - ``rmdir_prefilter``: FUSE_RMDIR; may rewrite the name
 * - ``rmdir_postfilter``: FUSE_RMDIR, after the lower rmdir
 * - ``rename2_prefilter``: FUSE_RENAME2, a rename with flags; may rewrite
 *   both names and drop flags
 * - ``rename2_postfilter``: FUSE_RENAME2, after the lower rename
 * - ``rename_prefilter``: FUSE_RENAME, a rename without flags; may rewrite
 *   both names
 * - ``rename_postfilter``: FUSE_RENAME, after the lower rename
 * - ``unlink_prefilter``: FUSE_UNLINK; may rewrite the name
 * - ``unlink_postfilter``: FUSE_UNLINK, after the lower unlink
 * - ``link_prefilter``: FUSE_LINK; may rewrite the new name
 * - ``link_postfilter``: FUSE_LINK, after the lower link
 * - ``getattr_prefilter``: FUSE_GETATTR
 * - ``getattr_postfilter``: FUSE_GETATTR; the caller gets the attributes it
 *   leaves, but for the file type, inode number and device numbers
 * - ``setattr_prefilter``: FUSE_SETATTR; may fail it, drop changes and give
 *   them other values (the caller is judged on what it leaves), not add one
 * - ``setattr_postfilter``: FUSE_SETATTR, after the lower setattr; the out
 *   structure holds the lower inode's attributes
 * - ``statfs_prefilter``: FUSE_STATFS
 * - ``statfs_postfilter``: FUSE_STATFS; the caller gets the statistics it
 *   leaves
 * - ``get_link_prefilter``: FUSE_READLINK; the symlink's name is read-only
 * - ``get_link_postfilter``: FUSE_READLINK, after the lower readlink
 * - ``symlink_prefilter``: FUSE_SYMLINK; may rewrite the name and the target
 *   path
 * - ``symlink_postfilter``: FUSE_SYMLINK, after the lower symlink
 * - ``readdir_prefilter``: FUSE_READDIR
 * - ``readdir_postfilter``: FUSE_READDIR; gets a chunk of the lower directory
 *   as struct fuse_dirent records, which it may drop, rename, add and reorder
 * - ``access_prefilter``: FUSE_ACCESS, for access() and chdir(); a mask it
 *   rewrites is checked too, so it may deny, never grant
 * - ``access_postfilter``: FUSE_ACCESS, after the permission check
 * - ``tmpfile_prefilter``: FUSE_TMPFILE, an O_TMPFILE open; may fail it,
 *   rewrite the permission bits of the mode, and change the flags as
 *   open_prefilter
 * - ``tmpfile_postfilter``: FUSE_TMPFILE, after the lower tmpfile
 */
struct fuse_ops {
#define FUSE_OPS_MEMBER(NAME, ...) u32 (*NAME)(__VA_ARGS__);
#define FUSE_OPS_UNSUPPORTED FUSE_OPS_MEMBER
#include <linux/fuse_ops_defs.h>
#undef FUSE_OPS_UNSUPPORTED
#undef FUSE_OPS_MEMBER

	char name[BPF_FUSE_NAME_MAX + 1];	/* uapi/linux/fuse.h */
};

#ifdef CONFIG_FUSE_BPF
struct fuse_ops *bpf_fuse_ops_get(const char *name);
struct fuse_ops *bpf_fuse_ops_get_fd(int fd);
struct fuse_ops *bpf_fuse_ops_tryget(struct fuse_ops *ops);
void bpf_fuse_ops_put(struct fuse_ops *ops);
void bpf_fuse_free_buffer(struct fuse_buffer *buf);
int bpf_fuse_set_buffer(struct fuse_buffer *buf, const void *data, u32 size);

/* kfuncs of fuse_ops programs: they take a filter's buffer argument */
void bpf_fuse_get_rw_dynptr(struct fuse_buffer_handle *handle,
			    struct bpf_dynptr *dynptr__uninit, u64 size,
			    bool copy);
void bpf_fuse_get_ro_dynptr(const struct fuse_buffer_handle *handle,
			    struct bpf_dynptr *dynptr__uninit);
u32 bpf_fuse_return_len(struct fuse_buffer_handle *handle);
#endif

#endif /* _BPF_FUSE_H */
