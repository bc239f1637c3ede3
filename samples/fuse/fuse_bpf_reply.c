// SPDX-License-Identifier: GPL-2.0
/*
 * Answering a FUSE LOOKUP with FUSE-BPF entries.  See fuse_bpf_reply.h for
 * the protocol.
 */
#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "fuse_bpf_reply.h"

/* The reply without entries: the header and struct fuse_entry_out */
#define FUSE_BPF_REPLY_BASE	offsetof(struct fuse_bpf_reply, entries)

/* The sizes fuse_bpf_reply.h gives; no padding between the parts */
static_assert(sizeof(struct fuse_out_header) == 16, "fuse_out_header");
static_assert(sizeof(struct fuse_entry_out) == 128, "fuse_entry_out");
static_assert(sizeof(struct fuse_bpf_entry_out) == 24, "fuse_bpf_entry_out");
static_assert(offsetof(struct fuse_bpf_reply, entry) == 16, "padding");
static_assert(FUSE_BPF_REPLY_BASE == 16 + 128, "padding");

static unsigned int fuse_bpf_reply_nr(const struct fuse_bpf_reply *r)
{
	if (r->hdr.len < FUSE_BPF_REPLY_BASE)
		return 0;
	return (r->hdr.len - FUSE_BPF_REPLY_BASE) / sizeof(r->entries[0]);
}

/* The next entry, zeroed but for its type; NULL if there is no room */
static struct fuse_bpf_entry_out *fuse_bpf_reply_add(struct fuse_bpf_reply *r,
						     __u32 type)
{
	unsigned int nr = fuse_bpf_reply_nr(r);
	struct fuse_bpf_entry_out *e;

	if (nr >= FUSE_BPF_MAX_ENTRIES)
		return NULL;
	e = &r->entries[nr];
	memset(e, 0, sizeof(*e));
	e->entry_type = type;
	r->hdr.len = FUSE_BPF_REPLY_BASE + (nr + 1) * sizeof(*e);
	return e;
}

/**
 * fuse_bpf_reply_init() - start a reply to a request
 * @r: the reply
 * @unique: fuse_in_header.unique of the LOOKUP (MKNOD, MKDIR, SYMLINK, LINK)
 * @entry: the node; its nodeid must not be 0 if entries follow, and the
 *	   file type in entry->attr.mode must be that of a backing
 *
 * The reply has no entries yet: sent as it is, it is a plain LOOKUP reply.
 */
void fuse_bpf_reply_init(struct fuse_bpf_reply *r, __u64 unique,
			 const struct fuse_entry_out *entry)
{
	memset(r, 0, sizeof(*r));
	r->hdr.len = FUSE_BPF_REPLY_BASE;
	r->hdr.error = 0;
	r->hdr.unique = unique;
	r->entry = *entry;
}

/**
 * fuse_bpf_reply_backing_fd() - back the node with a file descriptor
 * @r: the reply
 * @fd: an open descriptor of the backing file or directory (O_PATH will do)
 * @daemon_ops: operations of the node left to the daemon, 1ULL << opcode
 *
 * The descriptor is resolved when fuse_bpf_reply_send() sends the reply
 * (with the ioctl); it may be closed once that returned.  Needs
 * CAP_SYS_ADMIN.
 *
 * Return: 0, -EBADF for a negative @fd, -E2BIG if the reply is full.
 */
int fuse_bpf_reply_backing_fd(struct fuse_bpf_reply *r, int fd,
			      __u64 daemon_ops)
{
	struct fuse_bpf_entry_out *e;

	if (fd < 0)
		return -EBADF;
	e = fuse_bpf_reply_add(r, FUSE_ENTRY_BACKING);
	if (!e)
		return -E2BIG;
	e->daemon_ops = daemon_ops;
	e->fd = fd;
	return 0;
}

/**
 * fuse_bpf_reply_backing_id() - back the node with a registered backing
 * @r: the reply
 * @id: an id of fuse_bpf_backing_open(), still open when the reply is sent
 * @daemon_ops: operations of the node left to the daemon, 1ULL << opcode
 *
 * Return: 0, -EINVAL for an id that cannot be one, -E2BIG if the reply
 * is full.
 */
int fuse_bpf_reply_backing_id(struct fuse_bpf_reply *r, int id,
			      __u64 daemon_ops)
{
	struct fuse_bpf_entry_out *e;

	if (id <= 0)
		return -EINVAL;
	e = fuse_bpf_reply_add(r, FUSE_ENTRY_BACKING_ID);
	if (!e)
		return -E2BIG;
	e->daemon_ops = daemon_ops;
	e->fd = id;
	return 0;
}

/**
 * fuse_bpf_reply_remove_backing() - take the node's backing away
 * @r: the reply
 *
 * Return: 0, or -E2BIG if the reply is full.
 */
int fuse_bpf_reply_remove_backing(struct fuse_bpf_reply *r)
{
	return fuse_bpf_reply_add(r, FUSE_ENTRY_REMOVE_BACKING) ? 0 : -E2BIG;
}

/* An entry of @type carrying @name, 1 to BPF_FUSE_NAME_MAX bytes */
static int fuse_bpf_reply_name(struct fuse_bpf_reply *r, __u32 type,
			       const char *name)
{
	struct fuse_bpf_entry_out *e;
	size_t len = strnlen(name, BPF_FUSE_NAME_MAX + 1);

	if (!len || len > BPF_FUSE_NAME_MAX)
		return -EINVAL;
	e = fuse_bpf_reply_add(r, type);
	if (!e)
		return -E2BIG;
	memcpy(e->name, name, len);
	return 0;
}

/**
 * fuse_bpf_reply_bpf_name() - filter the node with a registered fuse_ops
 * @r: the reply
 * @name: the .name of the fuse_ops, 1 to BPF_FUSE_NAME_MAX (15) bytes
 *
 * Return: 0, -EINVAL if @name is empty or too long, -E2BIG if the reply
 * is full.
 */
int fuse_bpf_reply_bpf_name(struct fuse_bpf_reply *r, const char *name)
{
	return fuse_bpf_reply_name(r, FUSE_ENTRY_BPF, name);
}

/**
 * fuse_bpf_reply_backing_name() - back the node with a path below the
 * backing of the directory the request was in
 * @r: the reply
 * @path: 1 to BPF_FUSE_NAME_MAX (15) bytes, resolved by the kernel beneath
 *	that directory (no "..", symlink or mount out of it)
 *
 * Return: 0, -EINVAL if @path is empty or too long, -E2BIG if the reply
 * is full.
 */
int fuse_bpf_reply_backing_name(struct fuse_bpf_reply *r, const char *path)
{
	return fuse_bpf_reply_name(r, FUSE_ENTRY_BACKING_NAME, path);
}

/**
 * fuse_bpf_reply_bpf_fd() - filter the node with a fuse_ops by descriptor
 * @r: the reply
 * @fd: a descriptor of the registered fuse_ops struct_ops map or its link
 *
 * Return: 0, -EBADF for a negative @fd, -E2BIG if the reply is full.
 */
int fuse_bpf_reply_bpf_fd(struct fuse_bpf_reply *r, int fd)
{
	struct fuse_bpf_entry_out *e;

	if (fd < 0)
		return -EBADF;
	e = fuse_bpf_reply_add(r, FUSE_ENTRY_BPF_FD);
	if (!e)
		return -E2BIG;
	e->fd = fd;
	return 0;
}

/**
 * fuse_bpf_reply_remove_bpf() - take the node's filter away
 * @r: the reply
 *
 * Return: 0, or -E2BIG if the reply is full.
 */
int fuse_bpf_reply_remove_bpf(struct fuse_bpf_reply *r)
{
	return fuse_bpf_reply_add(r, FUSE_ENTRY_REMOVE_BPF) ? 0 : -E2BIG;
}

/**
 * fuse_bpf_reply_send() - send a reply to /dev/fuse
 * @devfd: the /dev/fuse descriptor the request was read from
 * @r: the reply
 *
 * With FUSE_DEV_IOC_BPF_RESPONSE if an entry names a descriptor, with
 * write() otherwise.  When the kernel refuses the entries, the request is
 * answered all the same (the caller gets EIO); when it refuses the reply
 * before finding the request (a bad length), the request is still waiting
 * for one.  In doubt, send an error reply: it fails with ENOENT if the
 * request was answered.
 *
 * Return: 0 or -errno.
 */
int fuse_bpf_reply_send(int devfd, const struct fuse_bpf_reply *r)
{
	size_t len = r->hdr.len;
	unsigned int i, nr;
	bool by_ioctl = false;
	ssize_t ret;

	if (len < FUSE_BPF_REPLY_BASE || len > sizeof(*r) ||
	    (len - FUSE_BPF_REPLY_BASE) % sizeof(r->entries[0]))
		return -EINVAL;
	nr = fuse_bpf_reply_nr(r);
	for (i = 0; i < nr; i++) {
		if (r->entries[i].entry_type == FUSE_ENTRY_BACKING ||
		    r->entries[i].entry_type == FUSE_ENTRY_BPF_FD)
			by_ioctl = true;
	}
	/*
	 * The size of the reply is in the command, as _IOW() puts it; the
	 * ioctl returns the length taken, as write() does.
	 */
	if (by_ioctl)
		ret = ioctl(devfd, FUSE_DEV_IOC_BPF_RESPONSE(len), r);
	else
		ret = write(devfd, r, len);
	if (ret < 0)
		return -errno;
	return (size_t)ret == len ? 0 : -EIO;
}

#ifndef FUSE_PREFILTER
#define FUSE_PREFILTER		0x10000
#define FUSE_POSTFILTER		0x20000
#endif

/**
 * fuse_bpf_filter_decode() - take a request apart if it is a filter's
 * @in: the request's header, as read from /dev/fuse
 * @body: what follows it
 * @size: its size
 * @f: filled in
 *
 * Return: 0 for a filter request, -ENOENT for another request, -EINVAL
 * for a filter request too short or with both filter bits.
 */
int fuse_bpf_filter_decode(const struct fuse_in_header *in, const void *body,
			   size_t size, struct fuse_bpf_filter *f)
{
	const struct fuse_postfilter_in *post = body;
	__u32 bits = in->opcode & (FUSE_PREFILTER | FUSE_POSTFILTER);

	if (!bits)
		return -ENOENT;
	if (bits == (FUSE_PREFILTER | FUSE_POSTFILTER))
		return -EINVAL;
	*f = (struct fuse_bpf_filter) {
		.opcode = in->opcode & ~bits,
		.post = bits == FUSE_POSTFILTER,
		.body = body,
		.size = size,
	};
	if (!f->post)
		return 0;
	if (size < sizeof(*post))
		return -EINVAL;
	f->error_in = post->error_in;
	f->body = post + 1;
	f->size = size - sizeof(*post);
	return 0;
}

/**
 * fuse_bpf_answer() - answer a request with a reply that carries no fd
 * @devfd: the /dev/fuse descriptor
 * @unique: fuse_in_header.unique of the request
 * @error: 0 or a negative errno
 * @body: the reply body after a success (ignored after a failure), or NULL
 *	  with @size 0
 * @size: its size
 *
 * The one framing of a plain reply: struct fuse_out_header, then @body.
 * Replies that carry fds go through fuse_bpf_reply_send().
 *
 * Return: 0 or -errno, that of the write(): ENOENT for a request that is
 * gone (interrupted, or answered already), EINVAL for a body the kernel
 * cannot take.
 */
int fuse_bpf_answer(int devfd, __u64 unique, int error,
		    const void *body, size_t size)
{
	struct fuse_out_header hdr = {
		.len = sizeof(hdr) + (error ? 0 : size),
		.error = error,
		.unique = unique,
	};
	struct iovec iov[2] = {
		{ .iov_base = &hdr, .iov_len = sizeof(hdr) },
		{ .iov_base = (void *)body, .iov_len = error ? 0 : size },
	};
	ssize_t ret;

	if (error > 0 || (!error && size && !body))
		return -EINVAL;
	ret = writev(devfd, iov, iov[1].iov_len ? 2 : 1);
	if (ret < 0)
		return -errno;
	return (size_t)ret == hdr.len ? 0 : -EIO;
}

/**
 * fuse_bpf_filter_answer() - answer a filter request
 * @devfd: the /dev/fuse descriptor
 * @unique: fuse_in_header.unique of the request
 * @error: 0 or a negative errno: the operation's
 * @body: NULL to keep the inputs (prefilter) or the result and outputs
 *	  (postfilter), or the rewritten request (prefilter) or reply
 *	  (postfilter, after a success only) body
 * @size: its size
 *
 * Return: that of fuse_bpf_answer(): a filter's answer is a plain reply.
 */
int fuse_bpf_filter_answer(int devfd, __u64 unique, int error,
			   const void *body, size_t size)
{
	return fuse_bpf_answer(devfd, unique, error, body, size);
}

/**
 * fuse_bpf_fill_attr() - the struct fuse_attr of a stat
 * @a: filled in
 * @st: from stat() of the node's lower entry (for a backing, its type must
 *	be the backing's)
 */
void fuse_bpf_fill_attr(struct fuse_attr *a, const struct stat *st)
{
	memset(a, 0, sizeof(*a));
	a->ino = st->st_ino;
	a->size = st->st_size;
	a->blocks = st->st_blocks;
	a->atime = st->st_atim.tv_sec;
	a->mtime = st->st_mtim.tv_sec;
	a->ctime = st->st_ctim.tv_sec;
	a->atimensec = st->st_atim.tv_nsec;
	a->mtimensec = st->st_mtim.tv_nsec;
	a->ctimensec = st->st_ctim.tv_nsec;
	a->mode = st->st_mode;
	a->nlink = st->st_nlink;
	a->uid = st->st_uid;
	a->gid = st->st_gid;
	a->rdev = st->st_rdev;
	a->blksize = st->st_blksize;
}

/**
 * fuse_bpf_backing_open() - register a backing with the connection
 * @devfd: the /dev/fuse descriptor
 * @fd: an open descriptor of the backing; 6.12 takes regular files only
 *	(-EISDIR for a directory: back those with fuse_bpf_reply_backing_fd())
 *
 * FUSE_DEV_IOC_BACKING_OPEN, with struct fuse_backing_map.  Needs
 * CAP_SYS_ADMIN and FUSE_PASSTHROUGH accepted in FUSE_INIT.  @fd may be
 * closed once this returned; the id holds the file until
 * fuse_bpf_backing_close().
 *
 * Return: the backing id (> 0), or -errno.
 */
int fuse_bpf_backing_open(int devfd, int fd)
{
	struct fuse_backing_map map = { .fd = fd };
	int id;

	id = ioctl(devfd, FUSE_DEV_IOC_BACKING_OPEN, &map);
	return id < 0 ? -errno : id;
}

/**
 * fuse_bpf_backing_close() - unregister a backing id
 * @devfd: the /dev/fuse descriptor
 * @id: an id of fuse_bpf_backing_open()
 *
 * FUSE_DEV_IOC_BACKING_CLOSE.  Nodes already backed by it keep their
 * backing; replies naming it fail with ENOENT from then on.
 *
 * Return: 0 or -errno.
 */
int fuse_bpf_backing_close(int devfd, int id)
{
	__u32 backing_id = id;

	if (id <= 0)
		return -EINVAL;
	if (ioctl(devfd, FUSE_DEV_IOC_BACKING_CLOSE, &backing_id) < 0)
		return -errno;
	return 0;
}
