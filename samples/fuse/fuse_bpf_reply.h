/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Answering a FUSE LOOKUP with FUSE-BPF entries, for daemons that speak the
 * /dev/fuse protocol themselves (no libfuse).  The protocol, so that this
 * header can serve other language bindings as well (all integers in host
 * byte order, structures from include/uapi/linux/fuse.h, no padding):
 *
 *   struct fuse_out_header      16 bytes  len, error = 0, unique of the request
 *   struct fuse_entry_out      128 bytes  nodeid (not 0, bit 63 clear), ...
 *   struct fuse_bpf_entry_out   24 bytes  each, 0 to FUSE_BPF_MAX_ENTRIES (2):
 *     u32 entry_type; u32 unused = 0; then 16 bytes, by type:
 *     FUSE_ENTRY_BACKING         1  u64 daemon_ops, u64 fd: a descriptor
 *     FUSE_ENTRY_BPF             2  char name[16]: a registered fuse_ops
 *     FUSE_ENTRY_REMOVE_BACKING  3  zeros
 *     FUSE_ENTRY_REMOVE_BPF      4  zeros
 *     FUSE_ENTRY_BACKING_ID      5  u64 daemon_ops, u64 id of
 *                                   FUSE_DEV_IOC_BACKING_OPEN
 *     FUSE_ENTRY_BPF_FD          6  u64 0, u64 fd of a fuse_ops map or link
 *     FUSE_ENTRY_BACKING_NAME    7  char name[16]: one name in the backing
 *                                   of the request's directory
 *
 * At most one backing entry (1, 3, 5, 7) and one filter entry (2, 4, 6).
 * daemon_ops lists the operations of the node that still go to the daemon,
 * as bits 1ULL << opcode; 0 runs them all in the kernel.  A reply naming a
 * descriptor (1, 6) must be sent with
 * ioctl(devfd, FUSE_DEV_IOC_BPF_RESPONSE(len), reply), which resolves the
 * descriptor during the call and returns the reply's length, as write()
 * does, or -1 with errno; write()
 * refuses it with EINVAL.  Other replies may be written.  The reply is
 * that of LOOKUP, MKNOD, MKDIR, SYMLINK and LINK.  The daemon must have
 * accepted FUSE_PASSTHROUGH in FUSE_INIT with max_stack_depth >= 1, and a
 * descriptor backing needs CAP_SYS_ADMIN.  A refused reply fails the
 * ioctl or write() with an errno and the caller's operation with EIO.
 * Entries describe a change: a reply without them leaves a node as it is.
 * Once backed, a node and everything below it are served by the kernel;
 * the daemon sees no request for them but those in daemon_ops.  See
 * Documentation/filesystems/fuse-bpf.rst, "The daemon in charge".
 *
 * The daemon's own filters (a fuse_ops prefilter returned
 * BPF_FUSE_USER_PREFILTER or BPF_FUSE_USER_POSTFILTER) come as requests
 * whose opcode is the operation's | FUSE_PREFILTER (0x10000) or
 * FUSE_POSTFILTER (0x20000):
 *
 *   prefilter   the operation's request body
 *   postfilter  struct fuse_postfilter_in   8 bytes  s32 error_in, u32 0
 *               the operation's request body
 *               if error_in is 0: the operation's reply body (READDIR:
 *               struct fuse_read_out, then the fuse_dirent records)
 *
 * Each is answered once, with a fuse_out_header and: an error (the
 * operation fails with it), nothing (inputs, or result and outputs, stay),
 * or the body rewritten: the whole request body for a prefilter, the reply
 * body for a postfilter after a success; same layout, variable-length
 * arguments within their limits.  fuse_bpf_filter_decode() and
 * fuse_bpf_filter_answer() below do the framing.
 *
 * A struct fuse_bpf_reply is the reply itself: its first hdr.len bytes are
 * sent as they are.  Build it with fuse_bpf_reply_init() and the
 * fuse_bpf_reply_*() entry functions, then send it with
 * fuse_bpf_reply_send().  All functions return 0 (or an id) or -errno.
 */
#ifndef __FUSE_BPF_REPLY_H
#define __FUSE_BPF_REPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <linux/fuse.h>

struct fuse_bpf_reply {
	struct fuse_out_header hdr;	/* hdr.len: the bytes to send */
	struct fuse_entry_out entry;
	struct fuse_bpf_entry_out entries[FUSE_BPF_MAX_ENTRIES];
};

void fuse_bpf_reply_init(struct fuse_bpf_reply *r, __u64 unique,
			 const struct fuse_entry_out *entry);
int fuse_bpf_reply_backing_fd(struct fuse_bpf_reply *r, int fd,
			      __u64 daemon_ops);
int fuse_bpf_reply_backing_id(struct fuse_bpf_reply *r, int id,
			      __u64 daemon_ops);
int fuse_bpf_reply_remove_backing(struct fuse_bpf_reply *r);
int fuse_bpf_reply_backing_name(struct fuse_bpf_reply *r, const char *path);
int fuse_bpf_reply_bpf_name(struct fuse_bpf_reply *r, const char *name);
int fuse_bpf_reply_bpf_fd(struct fuse_bpf_reply *r, int fd);
int fuse_bpf_reply_remove_bpf(struct fuse_bpf_reply *r);
int fuse_bpf_reply_send(int devfd, const struct fuse_bpf_reply *r);

struct stat;
void fuse_bpf_fill_attr(struct fuse_attr *a, const struct stat *st);

/* A request to a filter of the daemon's, decoded */
struct fuse_bpf_filter {
	__u32 opcode;		/* the operation's: FUSE_LOOKUP, ... */
	bool post;		/* a postfilter: error_in, maybe outputs */
	__s32 error_in;		/* 0 or the lower filesystem's -errno */
	const void *body;	/* the request body, then any reply body */
	size_t size;
};

int fuse_bpf_filter_decode(const struct fuse_in_header *in, const void *body,
			   size_t size, struct fuse_bpf_filter *f);
int fuse_bpf_answer(int devfd, __u64 unique, int error,
		    const void *body, size_t size);
int fuse_bpf_filter_answer(int devfd, __u64 unique, int error,
			   const void *body, size_t size);

int fuse_bpf_backing_open(int devfd, int fd);
int fuse_bpf_backing_close(int devfd, int id);

#endif /* __FUSE_BPF_REPLY_H */
