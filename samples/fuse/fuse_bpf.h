/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What FUSE-BPF filter programs (struct fuse_ops) share: the return codes
 * and opcode bits of include/uapi/linux/bpf.h (vmlinux.h has no #defines),
 * the fuse_buffer kfuncs, and helpers to compare and rewrite names.
 */
#ifndef _FUSE_BPF_PROGS_H
#define _FUSE_BPF_PROGS_H

/* Our own kfunc declarations below, whatever vmlinux.h was made with */
#define BPF_NO_KFUNC_PROTOTYPES
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/* What a prefilter returns, besides a negative errno */
#define BPF_FUSE_CONTINUE		0
#define BPF_FUSE_USER			1
#define BPF_FUSE_USER_PREFILTER		2
#define BPF_FUSE_POSTFILTER		3
#define BPF_FUSE_USER_POSTFILTER	4

/* bpf_fuse_meta_info.opcode */
#define FUSE_OPCODE_FILTER	0x0ffff
#define FUSE_PREFILTER		0x10000
#define FUSE_POSTFILTER		0x20000

#define EPERM		1
#define ENOENT		2
#define EIO		5
#define ENOMEM		12
#define EACCES		13
#define EROFS		30
#define EDOM		33
#define ERANGE		34
#define ENAMETOOLONG	36
#define EOPNOTSUPP	95

#define NAME_MAX	255
#define PATH_MAX	4096

#define O_RDONLY	00000000
#define O_ACCMODE	00000003
#define O_TRUNC		00001000

#define S_IFMT		00170000
#define S_IFDIR		0040000

extern void bpf_fuse_get_rw_dynptr(struct fuse_buffer *buffer,
				   struct bpf_dynptr *dynptr, u64 size,
				   bool copy) __ksym;
extern void bpf_fuse_get_ro_dynptr(const struct fuse_buffer *buffer,
				   struct bpf_dynptr *dynptr) __ksym;
extern uint32_t bpf_fuse_return_len(struct fuse_buffer *buffer) __ksym;

extern __u32 bpf_dynptr_size(const struct bpf_dynptr *p) __ksym;
/* For a test that a kfunc refuses a pointer the program made itself */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;
extern void *bpf_dynptr_slice(const struct bpf_dynptr *p, __u32 offset,
			      void *buffer__opt, __u32 buffer__szk) __ksym;

/*
 * Every member of struct fuse_ops a program may define, with the FUSE
 * opcode it filters, for programs that define them all
 * (fuse_count.bpf.c, fuse_trivial.bpf.c).  release, releasedir, read_iter
 * and write_iter are not here: a program defining them fails to load.
 */
#define FUSE_BPF_FOR_EACH_OP(X)				\
	X(open, FUSE_OPEN)				\
	X(opendir, FUSE_OPENDIR)			\
	X(create_open, FUSE_CREATE)			\
	X(flush, FUSE_FLUSH)				\
	X(lseek, FUSE_LSEEK)				\
	X(copy_file_range, FUSE_COPY_FILE_RANGE)	\
	X(fsync, FUSE_FSYNC)				\
	X(dir_fsync, FUSE_FSYNCDIR)			\
	X(getxattr, FUSE_GETXATTR)			\
	X(listxattr, FUSE_LISTXATTR)			\
	X(setxattr, FUSE_SETXATTR)			\
	X(removexattr, FUSE_REMOVEXATTR)		\
	X(file_fallocate, FUSE_FALLOCATE)		\
	X(lookup, FUSE_LOOKUP)				\
	X(mknod, FUSE_MKNOD)				\
	X(mkdir, FUSE_MKDIR)				\
	X(rmdir, FUSE_RMDIR)				\
	X(rename2, FUSE_RENAME2)			\
	X(rename, FUSE_RENAME)				\
	X(unlink, FUSE_UNLINK)				\
	X(link, FUSE_LINK)				\
	X(getattr, FUSE_GETATTR)			\
	X(setattr, FUSE_SETATTR)			\
	X(statfs, FUSE_STATFS)				\
	X(get_link, FUSE_READLINK)			\
	X(symlink, FUSE_SYMLINK)			\
	X(readdir, FUSE_READDIR)			\
	X(access, FUSE_ACCESS)				\
	X(tmpfile, FUSE_TMPFILE)

/* Longest string fuse_dynptr_eq() compares */
#define FUSE_CMP_MAX	32

/*
 * Whether the @len bytes at @off in @p are those of @str.  @len is a
 * constant of the caller, at most FUSE_CMP_MAX: the bytes are read
 * through a slice of that size (a fuse_buffer is never read directly),
 * and the verifier wants a slice's size known ("must be a known
 * constant"): a caller with a variable length needs bpf_dynptr_read().
 */
static __always_inline bool fuse_dynptr_eq(const struct bpf_dynptr *p,
					   __u32 off, const char *str,
					   __u32 len)
{
	const char *s;
	__u32 i;

	if (len > FUSE_CMP_MAX)
		return false;
	s = bpf_dynptr_slice(p, off, NULL, len);
	if (!s)
		return false;
	for (i = 0; i < len; i++)
		if (s[i] != str[i])
			return false;
	return true;
}

/*
 * Whether the name in @buf is @str.  Names in a fuse_buffer end with a NUL
 * that their size counts, so @size (sizeof a string literal) compares it
 * too: "hidden" is not "hidden2".
 */
static __always_inline bool fuse_buffer_eq(const struct fuse_buffer *buf,
					   const char *str, __u32 size)
{
	struct bpf_dynptr p;

	bpf_fuse_get_ro_dynptr(buf, &p);
	return bpf_dynptr_size(&p) == size && fuse_dynptr_eq(&p, 0, str, size);
}

#define fuse_name_is(buf, str)	fuse_buffer_eq(buf, str, sizeof(str))

/*
 * Replace the contents of @buf by the @size bytes at @data.  Fails on a
 * read-only buffer, past the buffer's limit or when the kernel cannot
 * allocate a larger one (a null dynptr): -ENOMEM, as the program cannot
 * tell which.
 */
static __always_inline int fuse_buffer_set(struct fuse_buffer *buf,
					   const void *data, __u32 size)
{
	struct bpf_dynptr p;

	bpf_fuse_get_rw_dynptr(buf, &p, size, false);
	if (bpf_dynptr_size(&p) != size)
		return -ENOMEM;
	return bpf_dynptr_write(&p, 0, (void *)data, size, 0) ? -ENOMEM : 0;
}

/* Rename: the new name with its NUL, from a string literal */
#define fuse_name_set(buf, str)	fuse_buffer_set(buf, str, sizeof(str))

#endif /* _FUSE_BPF_PROGS_H */
