/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal FUSE daemon for selftests, speaking the /dev/fuse protocol
 * directly (no libfuse).
 *
 * The file system is an in-memory tree of nodes, built with
 * fuse_daemon_add_dir() and friends before fuse_daemon_mount().  Mounting
 * forks a child that serves requests until the file system is unmounted;
 * fuse_daemon_umount() unmounts and reaps it.  Node ids are the inode
 * numbers seen through the mount; the root is FUSE_ROOT_ID.
 *
 * Requests are dispatched through d->handlers[], indexed by opcode.  A test
 * may replace an entry before mounting; fuse_daemon_default_handler() gives
 * the default one, e.g. to wrap it.  A handler either replies itself (with
 * fuse_daemon_reply() and friends) and returns 0, or returns a negative
 * errno, which is then sent as the reply.  Opcodes without a handler get
 * -ENOSYS.
 *
 * FUSE-BPF sends the daemon's own filters requests of opcode | FUSE_PREFILTER
 * or opcode | FUSE_POSTFILTER (FUSE_DAEMON_PREFILTER, FUSE_DAEMON_POSTFILTER
 * here).  Those all go to d->filter_handler, a handler like the others;
 * while it is NULL (the default), they get -ENOSYS.
 *
 * The number of requests seen per opcode is kept in d->shared, memory
 * shared between the test and the serving child: count[] by opcode,
 * count_other for opcodes >= FUSE_DAEMON_NR_OPCODES (the filter requests
 * included), and pre[] and post[] for the filter requests, by the opcode
 * without its filter bits.
 */
#ifndef __SELFTESTS_FUSE_DAEMON_H
#define __SELFTESTS_FUSE_DAEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <linux/fuse.h>
#include <linux/types.h>

/* Size of the handler table and the counters; opcodes above go uncounted */
#define FUSE_DAEMON_NR_OPCODES	64

/*
 * Opcode bits of the requests of FUSE-BPF's daemon filters: FUSE_PREFILTER
 * and FUSE_POSTFILTER of include/uapi/linux/bpf.h, which this header does
 * not include.
 */
#define FUSE_DAEMON_PREFILTER	0x10000
#define FUSE_DAEMON_POSTFILTER	0x20000
#define FUSE_DAEMON_FILTER_BITS	(FUSE_DAEMON_PREFILTER | FUSE_DAEMON_POSTFILTER)
#define FUSE_DAEMON_OPCODE_MASK	0xffff

struct fuse_daemon;

struct fuse_daemon_node {
	__u64 nodeid;
	__u64 parent;		/* the root is its own parent */
	char *name;		/* "" for the root */
	__u32 mode;		/* S_IFDIR, S_IFREG or S_IFLNK and permissions */
	__u32 nlink;
	__u32 uid;
	__u32 gid;
	__u64 size;
	char *data;		/* contents of a file, target of a symlink */
	struct timespec atime;
	struct timespec mtime;
	struct timespec ctime;
	__u64 nlookup;		/* lookups minus forgets, daemon side only */
};

/* One request as read from /dev/fuse; arg points into the daemon's buffer */
struct fuse_daemon_req {
	const struct fuse_in_header *hdr;
	const void *arg;
	size_t arglen;
};

typedef int (*fuse_daemon_handler_fn)(struct fuse_daemon *d,
				      const struct fuse_daemon_req *req);

/* Shared between the test and the serving child (MAP_SHARED) */
struct fuse_daemon_shared {
	unsigned long count[FUSE_DAEMON_NR_OPCODES];
	unsigned long count_other;	/* opcodes >= FUSE_DAEMON_NR_OPCODES */
	/* Filter requests, by opcode & FUSE_DAEMON_OPCODE_MASK */
	unsigned long pre[FUSE_DAEMON_NR_OPCODES];
	unsigned long post[FUSE_DAEMON_NR_OPCODES];
	unsigned long errors;		/* malformed requests, failed replies */
	unsigned long started;		/* requests dispatched */
	unsigned long finished;		/* and their handlers' work done */
	__u32 kernel_major;		/* offered in FUSE_INIT */
	__u32 kernel_minor;
	__u32 proto_minor;		/* negotiated */
};

struct fuse_daemon {
	int fd;			/* /dev/fuse, valid in the serving child */
	char *mountpoint;
	pid_t pid;		/* serving child */
	bool mounted;
	int exit_status;	/* last fuse_daemon_umount() result */

	struct fuse_daemon_node **nodes;	/* nodes[i]->nodeid == i + 1 */
	size_t nr_nodes;
	size_t max_nodes;

	fuse_daemon_handler_fn handlers[FUSE_DAEMON_NR_OPCODES];
	/* Requests with FUSE_DAEMON_FILTER_BITS; NULL: -ENOSYS */
	fuse_daemon_handler_fn filter_handler;
	struct fuse_daemon_shared *shared;

	/* Settings, change before fuse_daemon_mount() */
	__u64 init_flags;	/* FUSE_INIT flags (flags2 << 32) to accept */
	__u32 max_write;
	__u32 fopen_flags;	/* FOPEN_* in OPEN and OPENDIR replies */
	__u32 max_stack_depth;	/* in the INIT reply with FUSE_PASSTHROUGH */
	unsigned int entry_timeout_ms;
	unsigned int attr_timeout_ms;
	void *priv;		/* for the test's handlers */

	/* State of the serving child */
	char *buf;
	size_t bufsize;
	__u32 proto_minor;
	bool replied;		/* a reply was sent for the current request */
};

/* Tree */
struct fuse_daemon *fuse_daemon_new(void);
void fuse_daemon_free(struct fuse_daemon *d);
__u64 fuse_daemon_add_dir(struct fuse_daemon *d, __u64 parent,
			  const char *name, mode_t mode);
__u64 fuse_daemon_add_file(struct fuse_daemon *d, __u64 parent,
			   const char *name, mode_t mode,
			   const void *data, size_t size);
__u64 fuse_daemon_add_symlink(struct fuse_daemon *d, __u64 parent,
			      const char *name, const char *target);
struct fuse_daemon_node *fuse_daemon_node(struct fuse_daemon *d,
					  __u64 nodeid);
struct fuse_daemon_node *fuse_daemon_find_child(struct fuse_daemon *d,
						__u64 parent,
						const char *name);
__u64 fuse_daemon_lookup_path(struct fuse_daemon *d, const char *path);
void fuse_daemon_fill_attr(struct fuse_daemon *d,
			   const struct fuse_daemon_node *node,
			   struct fuse_attr *attr);
void fuse_daemon_fill_entry(struct fuse_daemon *d,
			    const struct fuse_daemon_node *node,
			    struct fuse_entry_out *entry);

/* Protocol */
int fuse_daemon_read_request(struct fuse_daemon *d,
			     struct fuse_daemon_req *req);
const void *fuse_daemon_req_arg(struct fuse_daemon *d,
				const struct fuse_daemon_req *req,
				size_t size);
int fuse_daemon_reply_iov(struct fuse_daemon *d,
			  const struct fuse_daemon_req *req,
			  const struct iovec *iov, int iovcnt);
int fuse_daemon_reply(struct fuse_daemon *d,
		      const struct fuse_daemon_req *req,
		      const void *payload, size_t size);
int fuse_daemon_reply_err(struct fuse_daemon *d,
			  const struct fuse_daemon_req *req, int err);
int fuse_daemon_dispatch(struct fuse_daemon *d,
			 const struct fuse_daemon_req *req);
int fuse_daemon_serve(struct fuse_daemon *d);
fuse_daemon_handler_fn fuse_daemon_default_handler(__u32 opcode);
void fuse_daemon_set_handler(struct fuse_daemon *d, __u32 opcode,
			     fuse_daemon_handler_fn fn);

/* Mounting */
int fuse_daemon_mount(struct fuse_daemon *d, const char *mountpoint,
		      const char *extra_opts);
int fuse_daemon_mount_fd(struct fuse_daemon *d, int fd,
			 const char *mountpoint, const char *extra_opts);
int fuse_daemon_umount(struct fuse_daemon *d);

/* Counters */
unsigned long fuse_daemon_count(struct fuse_daemon *d, __u32 opcode);
unsigned long fuse_daemon_filter_count(struct fuse_daemon *d, __u32 opcode);
bool fuse_daemon_wait_count(struct fuse_daemon *d, __u32 opcode,
			    unsigned long min, unsigned int timeout_ms);
unsigned long fuse_daemon_started(struct fuse_daemon *d);
bool fuse_daemon_quiesce(struct fuse_daemon *d, unsigned int timeout_ms);

#endif /* __SELFTESTS_FUSE_DAEMON_H */
