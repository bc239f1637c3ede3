/* SPDX-License-Identifier: GPL-2.0 */
/*
 * FUSE-BPF: FUSE nodes backed by an inode of a lower filesystem.
 *
 * Each hook below is called at the top of the matching FUSE operation.  It
 * returns true when it served the operation from the backing inode (the
 * result is in *err or returned), false when the node has no backing inode
 * and the operation goes to the daemon as usual.
 */
#ifndef _FS_FUSE_BACKING_H
#define _FS_FUSE_BACKING_H

#include <linux/bpf_fuse.h>
#include <linux/fs_context.h>
#include <linux/fsnotify.h>

struct fuse_conn;
struct fuse_mount;
struct fuse_inode;
struct fuse_fs_context;
struct fs_parameter;

#ifdef CONFIG_FUSE_BPF

/*
 * The FUSE-BPF entries of a LOOKUP reply (backing_entry.c): as the daemon
 * sent them, then what they resolved to, in the daemon's context.
 */
struct fuse_bpf_entry {
	struct fuse_bpf_entry_out out[FUSE_BPF_MAX_ENTRIES];
	struct path backing;
	struct fuse_ops *ops;
	struct fuse_ops *parent_ops;	/* a new backed node's, if no filter */
	u64 daemon_ops;
	u8 backing_action;
	u8 bpf_action;
};

/**
 * fuse_bpf_path() - the backing path of a node
 * @inode: a FUSE inode
 *
 * Return: the backing path of @inode, not referenced; its dentry is NULL
 * if @inode has no backing inode.
 */
static inline struct path *fuse_bpf_path(struct inode *inode)
{
	return &get_fuse_inode(inode)->backing_path;
}

/**
 * fuse_bpf_backed() - is a node backed by an inode of a lower filesystem?
 * @inode: a FUSE inode
 *
 * Return: true if @inode has a backing dentry.
 */
static inline bool fuse_bpf_backed(struct inode *inode)
{
	return get_fuse_inode(inode)->backing_path.dentry;
}

/**
 * fuse_bpf_idmap() - the idmap of a node's lower mount
 * @inode: a backed FUSE inode
 *
 * Return: the idmap of the backing path's mount (never an idmapped one:
 * root_dir= and the daemon's backings refuse those).
 */
static inline struct mnt_idmap *fuse_bpf_idmap(struct inode *inode)
{
	return mnt_idmap(get_fuse_inode(inode)->backing_path.mnt);
}

/**
 * fuse_bpf_dentry_rcu() - the backing dentry of a node, for RCU-walk callers
 * @inode: a FUSE inode, possibly under eviction
 *
 * RCU-walk callers (permission, ACLs, d_revalidate) read it once, under
 * RCU, and treat NULL as "gone" (fuse_bpf_evict_inode() clears it).
 *
 * Context: any; under RCU, the dentry stays valid until the read-side
 * critical section ends.
 *
 * Return: the backing dentry, not referenced, or NULL if @inode has none
 * or is being evicted.
 */
static inline struct dentry *fuse_bpf_dentry_rcu(struct inode *inode)
{
	return READ_ONCE(get_fuse_inode(inode)->backing_path.dentry);
}

/**
 * fuse_bpf_dentry() - the backing dentry of a node
 * @inode: a FUSE inode
 *
 * Return: the backing dentry of @inode, not referenced, or NULL if it has
 * none.
 */
static inline struct dentry *fuse_bpf_dentry(struct inode *inode)
{
	return get_fuse_inode(inode)->backing_path.dentry;
}

/**
 * fuse_bpf_inode() - the backing inode of a node
 * @inode: a backed FUSE inode (fuse_bpf_backed())
 *
 * Return: the inode of the backing dentry of @inode, not referenced.
 */
static inline struct inode *fuse_bpf_inode(struct inode *inode)
{
	return d_inode(get_fuse_inode(inode)->backing_path.dentry);
}

/**
 * fuse_bpf_daemon_op() - does the daemon serve this operation of a backed node?
 * @inode: a FUSE inode
 * @opcode: a FUSE opcode
 *
 * A backed node leaves to the daemon the operations that the daemon_ops of
 * the reply that gave it its backing named (struct fuse_bpf_entry_out).
 *
 * Return: true if @opcode is in the daemon_ops of @inode; false otherwise,
 * and for an opcode past 63.
 */
static inline bool fuse_bpf_daemon_op(struct inode *inode, u32 opcode)
{
	return opcode < 64 &&
	       (READ_ONCE(get_fuse_inode(inode)->bpf_daemon_ops) & BIT_ULL(opcode));
}

/**
 * fuse_bpf_node_ops() - the fuse_ops filter of a node
 * @inode: a FUSE inode
 *
 * Return: the filter of @inode, not referenced, or NULL if it has none.
 */
static inline struct fuse_ops *fuse_bpf_node_ops(struct inode *inode)
{
	return get_fuse_inode(inode)->bpf_ops;
}

/**
 * fuse_bpf_filter_of() - the filter of a node that sees an operation
 * @inode: a FUSE inode
 * @member: the operation's name in struct fuse_ops, without _prefilter
 *	or _postfilter (getattr, open, flush, ...)
 *
 * The node's filter pointer is read once: RCU-walk callers may hold an
 * inode under eviction, and a filter's struct_ops map is freed after a
 * grace period.
 *
 * Return: the filter of @inode if it has a prefilter or a postfilter for
 * @member, else NULL.
 */
#define fuse_bpf_filter_of(inode, member) ({				\
	const struct fuse_ops *__ops =					\
		READ_ONCE(get_fuse_inode(inode)->bpf_ops);		\
									\
	__ops && (__ops->member##_prefilter || __ops->member##_postfilter) ? \
		__ops : NULL;						\
})

/**
 * fuse_bpf_filters() - does a node's filter see an operation?
 * @inode: a FUSE inode
 * @member: as for fuse_bpf_filter_of()
 *
 * An operation whose filter has neither member runs as on a node without
 * a filter: some take a shorter way then.
 *
 * Return: true if @inode has a filter with a prefilter or a postfilter
 * for @member.
 */
#define fuse_bpf_filters(inode, member) (!!fuse_bpf_filter_of(inode, member))

/**
 * fuse_bpf_kernel_only() - does only the kernel see an operation of a node?
 * @node: a backed FUSE inode
 * @member: the operation's name in struct fuse_ops, as for
 *	fuse_bpf_filters()
 * @opcode: its FUSE opcode
 *
 * Neither the node's filter nor its daemon (daemon_ops) sees the
 * operation: the hooks with a short way (getattr, open and opendir,
 * flush) serve it with no request set up.
 *
 * Return: true if neither does.
 */
#define fuse_bpf_kernel_only(node, member, opcode) ({			\
	struct inode *__inode = (node);					\
									\
	!fuse_bpf_filters(__inode, member) &&				\
	!fuse_bpf_daemon_op(__inode, opcode);				\
})

/**
 * fuse_bpf_file() - the backing file of an open file, if it is open
 * @file: an open file of a FUSE node
 *
 * A regular file opened for reading only opens its backing file on the
 * first access to its data (fuse_bpf_file_get()).
 *
 * Return: the backing file of @file (the passthrough file of its
 * fuse_file), or NULL if it has none, or none yet.
 */
static inline struct file *fuse_bpf_file(struct file *file)
{
	return READ_ONCE(((struct fuse_file *)file->private_data)->passthrough);
}

/**
 * fuse_bpf_file_backed() - is this open file served from a backing file?
 * @file: an open file of a FUSE node
 *
 * Not a file of a backed node that the daemon opened (a filter sent OPEN
 * or OPENDIR to it): the daemon serves that one, by its file handle.  A
 * file FUSE-BPF opened holds the credentials of its passthrough I/O from
 * its open, before its backing file is opened.
 *
 * Return: true if @file is of a backed node and has a backing file, open
 * or to be opened.
 */
static inline bool fuse_bpf_file_backed(struct file *file)
{
	struct fuse_file *ff = file->private_data;

	return fuse_bpf_backed(file_inode(file)) && ff && ff->cred;
}

struct file *fuse_bpf_file_get(struct file *file);

/**
 * fuse_bpf_fh() - the file handle the filters see for an open file
 * @file: an open file of a FUSE node
 *
 * Return: 0, or what an open or opendir postfilter gave
 * (fuse_bpf_open_fh()).
 */
static inline u64 fuse_bpf_fh(struct file *file)
{
	return ((struct fuse_file *)file->private_data)->fh;
}

/**
 * fuse_bpf_file_io() - open the backing file before an access to data
 * @err: where an error goes
 * @file: an open FUSE file
 *
 * For the paths that reach @file's backing file through the FUSE
 * passthrough code (read, write, splice, mmap): a file whose open did
 * not open its backing file opens it now (fuse_bpf_file_get()).
 *
 * Return: true if that open failed, its errno in @err; false otherwise.
 */
static inline bool fuse_bpf_file_io(int *err, struct file *file)
{
	struct file *lower;

	if (!fuse_bpf_file_backed(file) || fuse_bpf_file(file))
		return false;
	lower = fuse_bpf_file_get(file);
	if (!IS_ERR(lower))
		return false;
	*err = PTR_ERR(lower);
	return true;
}

/*
 * One operation on a backed node, as the dispatcher sees it.  @args
 * describes it as a daemon would see it: the BPF filters read and rewrite
 * those arguments, and the backing step reads them back.
 */
#define FUSE_BPF_MAX_BUFS	3
#define FUSE_BPF_MAX_IN		ARRAY_SIZE(((struct fuse_args *)0)->in_args)
#define FUSE_BPF_MAX_OUT	ARRAY_SIZE(((struct fuse_args *)0)->out_args)

struct fuse_bpf_req {
	struct inode *inode;
	/* A node the request's body names: rename's newdir, link's source */
	struct inode *other;
	struct fuse_args args;
	const struct cred *caller;	/* set around the backing step */
	struct bpf_fuse_meta_info meta;	/* what the filters see */
	bool post;			/* a postfilter will run */
	bool user_pre;			/* the daemon's prefilter will run */
	bool user_post;			/* the daemon's postfilter will run */
	unsigned int nbufs;
	struct fuse_buffer *bufs[FUSE_BPF_MAX_BUFS];
	/* The buffer behind an argument, if it has one (fuse_bpf_arg_buf()) */
	struct fuse_buffer *in_bufs[FUSE_BPF_MAX_IN];
	struct fuse_buffer *out_bufs[FUSE_BPF_MAX_OUT];
};

/*
 * A request on @node; fuse_bpf_run() fills in the opcode and the node id.
 */
#define FUSE_BPF_REQ(node)	{ .inode = (node) }

/**
 * fuse_bpf_req_init() - set up a request on @node, its lists not zeroed
 * @req: the request, in an operation's structure not zeroed on entry
 *	(__uninitialized)
 * @node: the node
 *
 * As FUSE_BPF_REQ(), for the operations a filtered stat() or open() and
 * close() run: their structure on the stack, zeroed whole by an
 * initializer, is 280 to 376 bytes (a rep stos), where the argument and
 * buffer lists are read only up to their counts, which start at zero
 * here (fuse_bpf_arg_in() and fuse_bpf_arg_out() clear an argument's
 * buffer).  The operation sets up the rest of its structure itself.
 */
static inline void fuse_bpf_req_init(struct fuse_bpf_req *req,
				     struct inode *node)
{
	req->inode = node;
	req->other = NULL;
	/* Not in_args[] and out_args[]: what comes before and after them */
	BUILD_BUG_ON(offsetof(struct fuse_args, end) !=
		     offsetofend(struct fuse_args, out_args));
	memset(&req->args, 0, offsetof(struct fuse_args, in_args));
	memset(&req->args.end, 0,
	       sizeof(req->args) - offsetof(struct fuse_args, end));
	memset(&req->caller, 0, offsetof(struct fuse_bpf_req, bufs) -
				offsetof(struct fuse_bpf_req, caller));
}

/*
 * fuse_bpf_run() returns this when a filter sent the operation to the
 * daemon: the hook then lets the upstream FUSE path run.  Neither an
 * errno nor a result a backing step returns (locks return
 * FILE_LOCK_DEFERRED, 1).
 */
#define FUSE_BPF_FALLBACK	INT_MAX

/**
 * fuse_bpf_result() - the result of fuse_bpf_run() for a hook
 * @err: where the hook gives the operation's result
 * @ret: what fuse_bpf_run() returned
 *
 * Return: false if @ret is FUSE_BPF_FALLBACK (the operation goes to the
 * daemon; @err is left as it is), else true, with @ret stored in @err.
 */
static inline bool fuse_bpf_result(int *err, int ret)
{
	if (ret == FUSE_BPF_FALLBACK)
		return false;
	*err = ret;
	return true;
}

/**
 * struct fuse_bpf_op - the steps of one operation on a backed node
 * @opcode: the FUSE opcode the filters and the daemon see
 * @setup: describe the VFS arguments in req->args
 * @prefilter: call the node's fuse_ops prefilter for this operation
 *	(BPF_FUSE_POSTFILTER when it has only a postfilter)
 * @backing: run the operation on the lower filesystem, with the backing
 *	credentials
 * @postfilter: call the node's fuse_ops postfilter, if it has one
 * @finish: bring the FUSE dentries and inodes up to date with the result,
 *	and release what @backing took if the result is an error
 * @flags: FUSE_BPF_WRITE: takes write access to the lower mount first;
 *	FUSE_BPF_AS_CALLER: takes space on the lower filesystem for the
 *	caller (fuse_bpf_get_caller_creds(); creates do so in their backing
 *	step, with fuse_bpf_create_creds()); FUSE_BPF_CALLER_CREDS: runs
 *	with the caller's credentials (file I/O, which brings its own, and
 *	access, which checks the caller)
 *
 * The BPF prefilter runs between @setup and @backing, the postfilter
 * between @backing and @finish.
 */
struct fuse_bpf_op {
	u32 opcode;
	int (*setup)(struct fuse_bpf_req *req);
	int (*prefilter)(struct fuse_bpf_req *req, const struct fuse_ops *ops);
	int (*backing)(struct fuse_bpf_req *req);
	int (*postfilter)(struct fuse_bpf_req *req, const struct fuse_ops *ops);
	int (*finish)(struct fuse_bpf_req *req, int err);
	unsigned int flags;
};

#define FUSE_BPF_WRITE		BIT(0)
#define FUSE_BPF_AS_CALLER	BIT(1)
#define FUSE_BPF_CALLER_CREDS	BIT(2)

int fuse_bpf_run(const struct fuse_bpf_op *op, struct fuse_bpf_req *req);

/* backing_bpf.c: the fuse_ops filters */
int fuse_bpf_prefilter(const struct fuse_bpf_op *op, struct fuse_bpf_req *req,
		       const struct fuse_ops *ops);
int fuse_bpf_postfilter(const struct fuse_bpf_op *op, struct fuse_bpf_req *req,
			const struct fuse_ops *ops, int err);
void fuse_bpf_inputs_done(struct fuse_bpf_req *req);
void fuse_bpf_buf_in(struct fuse_bpf_req *req, struct fuse_buffer *buf,
		     void *data, unsigned int size, unsigned int max_size,
		     int flags);
void fuse_bpf_buf_name(struct fuse_bpf_req *req, struct fuse_buffer *buf,
		       const struct qstr *name);
const char *fuse_bpf_buf_str(const struct fuse_buffer *buf);
int fuse_bpf_buf_qstr(const struct fuse_buffer *buf, struct qstr *name);
void fuse_bpf_buffers_free(struct fuse_bpf_req *req);
void fuse_bpf_fill_attr(struct inode *inode, struct fuse_attr *attr);

/*
 * The filters see owners and groups in the initial user namespace, which
 * maps every id to itself (and (u32)-1, unmapped, to INVALID_UID): the
 * four helpers below are from_kuid() and make_kuid() (and their gid
 * twins) of &init_user_ns without map_id_up()'s search, 7 % of a warm
 * stat() under a getattr and lookup filter.
 */

/**
 * fuse_bpf_uid() - the user id a filter sees
 * @uid: a kernel uid
 *
 * Return: @uid in the initial user namespace.
 */
static inline u32 fuse_bpf_uid(kuid_t uid)
{
	return __kuid_val(uid);
}

/**
 * fuse_bpf_gid() - the group id a filter sees
 * @gid: a kernel gid
 *
 * Return: @gid in the initial user namespace.
 */
static inline u32 fuse_bpf_gid(kgid_t gid)
{
	return __kgid_val(gid);
}

/**
 * fuse_bpf_kuid() - the kernel uid of a user id a filter left
 * @uid: a user id in the initial user namespace
 *
 * Return: the kernel uid, INVALID_UID for (u32)-1.
 */
static inline kuid_t fuse_bpf_kuid(u32 uid)
{
	return KUIDT_INIT(uid);
}

/**
 * fuse_bpf_kgid() - the kernel gid of a group id a filter left
 * @gid: a group id in the initial user namespace
 *
 * Return: the kernel gid, INVALID_GID for (u32)-1.
 */
static inline kgid_t fuse_bpf_kgid(u32 gid)
{
	return KGIDT_INIT(gid);
}

/**
 * fuse_bpf_kstat_to_attr() - the FUSE attributes of a kstat
 * @stat: attributes as vfs_getattr() gives them
 * @attr: filled in, the owner and group in the initial user namespace
 *
 * What the getattr and setattr filters see.  Inline: warm stat() through
 * a getattr filter converts on every call.
 */
static inline void fuse_bpf_kstat_to_attr(const struct kstat *stat,
					  struct fuse_attr *attr)
{
	/* Field by field: a compound literal is zeroed first (a rep stos) */
	attr->ino = stat->ino;
	attr->size = stat->size;
	attr->blocks = stat->blocks;
	attr->atime = stat->atime.tv_sec;
	attr->mtime = stat->mtime.tv_sec;
	attr->ctime = stat->ctime.tv_sec;
	attr->atimensec = stat->atime.tv_nsec;
	attr->mtimensec = stat->mtime.tv_nsec;
	attr->ctimensec = stat->ctime.tv_nsec;
	attr->mode = stat->mode;
	attr->nlink = stat->nlink;
	attr->uid = fuse_bpf_uid(stat->uid);
	attr->gid = fuse_bpf_gid(stat->gid);
	attr->rdev = new_encode_dev(stat->rdev);
	attr->blksize = stat->blksize;
	attr->flags = 0;
}

/* backing_user.c: the daemon's own filters */
int fuse_bpf_user_prefilter(struct fuse_bpf_req *req);
int fuse_bpf_user_postfilter(struct fuse_bpf_req *req, int err);

/**
 * fuse_bpf_no_prefilter() - the verdict of a filter with no prefilter
 * @postfilter: the filter's postfilter of the operation, or NULL
 *
 * Return: BPF_FUSE_POSTFILTER if there is a postfilter, else
 * BPF_FUSE_CONTINUE.
 */
static inline int fuse_bpf_no_prefilter(const void *postfilter)
{
	return postfilter ? BPF_FUSE_POSTFILTER : BPF_FUSE_CONTINUE;
}

/**
 * fuse_bpf_arg_in() - append an input argument to an operation's arguments
 * @req: the request
 * @size: the argument's size in bytes
 * @value: the argument
 *
 * The arguments describe the operation as a FUSE request would carry it,
 * for the filters.  An argument past the last slot is dropped, with a
 * warning.
 */
static inline void fuse_bpf_arg_in(struct fuse_bpf_req *req,
				   unsigned int size, const void *value)
{
	struct fuse_args *args = &req->args;

	if (WARN_ON_ONCE(args->in_numargs >= ARRAY_SIZE(args->in_args)))
		return;
	req->in_bufs[args->in_numargs] = NULL;
	args->in_args[args->in_numargs].size = size;
	args->in_args[args->in_numargs++].value = value;
}

/**
 * fuse_bpf_arg_out() - append an output argument to an operation's arguments
 * @req: the request
 * @size: the argument's size in bytes
 * @value: where the argument is
 *
 * The arguments describe the operation as a FUSE reply would carry it,
 * for the filters.  An argument past the last slot is dropped, with a
 * warning.
 */
static inline void fuse_bpf_arg_out(struct fuse_bpf_req *req,
				    unsigned int size, void *value)
{
	struct fuse_args *args = &req->args;

	if (WARN_ON_ONCE(args->out_numargs >= ARRAY_SIZE(args->out_args)))
		return;
	req->out_bufs[args->out_numargs] = NULL;
	args->out_args[args->out_numargs].size = size;
	args->out_args[args->out_numargs++].value = value;
}

void fuse_bpf_arg_buf(struct fuse_bpf_req *req, struct fuse_buffer *buf);
void fuse_bpf_arg_out_buf(struct fuse_bpf_req *req, struct fuse_buffer *buf);
const struct cred *fuse_bpf_override_creds(struct inode *inode);
int fuse_bpf_caller_owns(struct inode *inode);
const struct cred *fuse_bpf_get_caller_creds(const struct cred *caller);
int fuse_bpf_create_creds(struct fuse_bpf_req *req, struct dentry *entry,
			  umode_t mode, struct qstr *name);
struct inode *fuse_bpf_iget(struct inode *dir, const struct path *path);
void fuse_bpf_copyattr(struct inode *inode);

/**
 * fuse_bpf_refresh() - bring the mirror of a backed inode up to date
 * @inode: a FUSE inode; nothing is done if it is not backed
 *
 * Before the VFS reads it for a decision of its own (file_remove_privs()
 * before a write).  See fuse_bpf_copyattr().
 */
static inline void fuse_bpf_refresh(struct inode *inode)
{
	if (fuse_bpf_backed(inode))
		fuse_bpf_copyattr(inode);
}

struct dentry *fuse_bpf_lookup_child(struct dentry *parent,
				     const struct qstr *name);
struct dentry *fuse_bpf_lookup_lower(struct inode *dir,
				     const struct qstr *name);
/* fuse_open_in's flags, as fuse_open_common() sends them */
#define FUSE_BPF_OPEN_IN_FLAGS(file) \
	((file)->f_flags & ~(O_CREAT | O_EXCL | O_NOCTTY))

int fuse_bpf_open_flags(struct file *file, umode_t mode, u32 asked,
			u32 flags);
int fuse_bpf_may_open_backing(struct inode *inode, int flags);
struct file *fuse_bpf_open_backing(struct inode *inode, struct file *file,
				   int flags);
bool fuse_bpf_open_common(int *err, u32 opcode, struct inode *inode,
			  struct file *file);

/* backing_params.c: the mount options */
int fuse_bpf_parse_param(struct fs_context *fsc, struct fs_parameter *param);
int fuse_bpf_check_options(struct fs_context *fsc);

/* backing.c: mount, nodes, credentials */
void fuse_bpf_init_inode(struct inode *inode, struct vfsmount *mnt);
int fuse_bpf_fill_super(struct super_block *sb, struct fuse_fs_context *ctx);
int fuse_bpf_set_root(struct super_block *sb, struct inode *root,
		      struct fuse_fs_context *ctx);
void fuse_bpf_evict_inode(struct inode *inode);
void fuse_bpf_conn_free(struct fuse_conn *fc);
void fuse_bpf_free_fsc(struct fuse_fs_context *ctx);
bool fuse_bpf_keep_dentry(const struct dentry *dentry);
void fuse_bpf_init_reply(struct fuse_mount *fm, u64 *flags);
bool fuse_bpf_sync_fs(int *err, struct super_block *sb);

/* backing_notify.c: inotify and dnotify of changes made on the lower */
void fuse_bpf_notify_init(void);
void fuse_bpf_notify_exit(void);
void fuse_bpf_watch_lower(struct inode *inode);
void fuse_bpf_unwatch_lower(struct inode *inode);

/**
 * fuse_bpf_notify_begin() - a change through the mount starts
 * @inode: the FUSE inode being changed
 *
 * The change raises its events on the FUSE inodes as on any filesystem:
 * those of the lower filesystem for it are not raised again on them
 * (backing_notify.c).  One task at a time marks @inode, the one holding
 * its i_rwsem for writing for the changes that take it (a name's
 * directory, a file being written or its attributes set); another one
 * changing it at the same time may have its event told twice.
 *
 * Context: does not sleep.
 *
 * Return: true if the current task marked @inode, for
 * fuse_bpf_notify_end(); false if no one watches the mount, or another
 * task marked it.
 */
static inline bool fuse_bpf_notify_begin(struct inode *inode)
{
	return fsnotify_sb_has_watchers(inode->i_sb) &&
	       !cmpxchg(&get_fuse_inode(inode)->bpf_changer, NULL, current);
}

/**
 * fuse_bpf_notify_end() - a change through the mount ends
 * @inode: the FUSE inode that fuse_bpf_notify_begin() was given
 * @began: what it returned
 */
static inline void fuse_bpf_notify_end(struct inode *inode, bool began)
{
	if (began)
		WRITE_ONCE(get_fuse_inode(inode)->bpf_changer, NULL);
}

/* backing_entry.c: the daemon's entries in LOOKUP replies */
void fuse_bpf_entry_init(struct fuse_args *args, struct fuse_bpf_entry *e);
int fuse_bpf_entry_reply(struct fuse_conn *fc, struct fuse_args *args,
			 bool via_ioctl);
void fuse_bpf_entry_put(struct fuse_bpf_entry *e);
bool fuse_bpf_entry_replaces(struct inode *inode, struct fuse_bpf_entry *e);
bool fuse_bpf_entry_attach(struct inode *inode, struct fuse_bpf_entry *e);
int fuse_bpf_introduce(struct inode *inode);

/* backing_dir.c: names and directories */
bool fuse_bpf_lookup(struct dentry **res, struct inode *dir,
		     struct dentry *entry, unsigned int flags);
bool fuse_bpf_revalidate(int *ret, struct dentry *entry, unsigned int flags);
bool fuse_bpf_atomic_open(int *err, struct inode *dir, struct dentry *entry,
			  struct file *file, unsigned int flags, umode_t mode);
bool fuse_bpf_create(int *err, struct inode *dir, struct dentry *entry,
		     umode_t mode, bool excl);
bool fuse_bpf_mknod(int *err, struct inode *dir, struct dentry *entry,
		    umode_t mode, dev_t rdev);
bool fuse_bpf_mkdir(int *err, struct inode *dir, struct dentry *entry,
		    umode_t mode);
bool fuse_bpf_symlink(int *err, struct inode *dir, struct dentry *entry,
		      const char *link);
bool fuse_bpf_link(int *err, struct dentry *old, struct inode *dir,
		   struct dentry *entry);
bool fuse_bpf_unlink(int *err, struct inode *dir, struct dentry *entry);
bool fuse_bpf_rmdir(int *err, struct inode *dir, struct dentry *entry);
bool fuse_bpf_rename(int *err, struct inode *olddir, struct dentry *oldent,
		     struct inode *newdir, struct dentry *newent,
		     unsigned int flags);
bool fuse_bpf_tmpfile(int *err, struct inode *dir, struct file *file,
		      umode_t mode);
bool fuse_bpf_get_link(const char **res, struct dentry *entry,
		       struct inode *inode, struct delayed_call *done);
bool fuse_bpf_opendir(int *err, struct inode *inode, struct file *file);
bool fuse_bpf_readdir(int *err, struct file *file, struct dir_context *ctx);

/* backing_file.c: open files */
bool fuse_bpf_open(int *err, struct inode *inode, struct file *file);
bool fuse_bpf_release(struct file *file);
int fuse_bpf_fadvise(struct file *file, loff_t offset, loff_t len, int advice);
bool fuse_bpf_flush(int *err, struct file *file, fl_owner_t id);
bool fuse_bpf_fsync(int *err, struct file *file, loff_t start, loff_t end,
		    int datasync);
bool fuse_bpf_llseek(loff_t *res, struct file *file, loff_t offset,
		     int whence);
bool fuse_bpf_fallocate(int *err, struct file *file, int mode,
			loff_t offset, loff_t length);
bool fuse_bpf_copy_file_range(ssize_t *res, struct file *src, loff_t src_off,
			      struct file *dst, loff_t dst_off, size_t len,
			      unsigned int flags);
bool fuse_bpf_lock(int *err, struct file *file, int cmd,
		   struct file_lock *fl);
bool fuse_bpf_flock(int *err, struct file *file, int cmd,
		    struct file_lock *fl);
bool fuse_bpf_ioctl(long *err, struct file *file);
bool fuse_bpf_poll(__poll_t *res, struct file *file, poll_table *wait);
bool fuse_bpf_read_iter(ssize_t *res, struct kiocb *iocb, struct iov_iter *to);
bool fuse_bpf_write_iter(ssize_t *res, struct kiocb *iocb,
			 struct iov_iter *from);

/* backing_attr.c: attributes, permission, xattrs, ACLs */
bool fuse_bpf_permission(int *err, struct inode *inode, int mask);
bool fuse_bpf_getattr(int *err, const struct path *path, struct kstat *stat,
		      u32 mask, unsigned int flags);
bool fuse_bpf_setattr(int *err, struct dentry *entry, struct iattr *attr);
bool fuse_bpf_statfs(int *err, struct dentry *entry, struct kstatfs *buf);
bool fuse_bpf_getxattr(ssize_t *res, struct inode *inode, const char *name,
		       void *value, size_t size);
bool fuse_bpf_setxattr(int *err, struct inode *inode, const char *name,
		       const void *value, size_t size, int flags);
bool fuse_bpf_listxattr(ssize_t *res, struct dentry *entry, char *list,
			size_t size);
bool fuse_bpf_removexattr(int *err, struct inode *inode, const char *name);
bool fuse_bpf_get_inode_acl(struct posix_acl **res, struct inode *inode,
			    int type, bool rcu);
bool fuse_bpf_get_acl(struct posix_acl **res, struct dentry *entry, int type);
bool fuse_bpf_set_acl(int *err, struct dentry *entry, struct posix_acl *acl,
		      int type);
bool fuse_bpf_fileattr_get(int *err, struct dentry *entry,
			   struct fileattr *fa);
bool fuse_bpf_fileattr_set(int *err, struct dentry *entry,
			   struct fileattr *fa);
bool fuse_bpf_fiemap(int *err, struct inode *inode,
		     struct fiemap_extent_info *fieinfo, u64 start, u64 len);

#else /* !CONFIG_FUSE_BPF */

struct fuse_bpf_entry {};

static inline void fuse_bpf_entry_init(struct fuse_args *args,
				       struct fuse_bpf_entry *e) {}
static inline void fuse_bpf_entry_put(struct fuse_bpf_entry *e) {}
static inline int fuse_bpf_entry_reply(struct fuse_conn *fc,
				       struct fuse_args *args, bool via_ioctl)
{
	return 0;
}

static inline bool fuse_bpf_entry_replaces(struct inode *inode,
					   struct fuse_bpf_entry *e)
{
	return false;
}

static inline bool fuse_bpf_entry_attach(struct inode *inode,
					 struct fuse_bpf_entry *e)
{
	return false;
}

static inline bool fuse_bpf_backed(struct inode *inode) { return false; }
static inline void fuse_bpf_notify_init(void) {}
static inline void fuse_bpf_notify_exit(void) {}
static inline bool fuse_bpf_notify_begin(struct inode *inode) { return false; }
static inline void fuse_bpf_notify_end(struct inode *inode, bool began) {}
static inline void fuse_bpf_refresh(struct inode *inode) {}
static inline int fuse_bpf_parse_param(struct fs_context *fsc,
				       struct fs_parameter *param)
{
	return -ENOPARAM;
}

static inline int fuse_bpf_check_options(struct fs_context *fsc) { return 0; }
static inline int fuse_bpf_fill_super(struct super_block *sb,
				      struct fuse_fs_context *ctx)
{
	return -EINVAL;
}

static inline int fuse_bpf_set_root(struct super_block *sb, struct inode *root,
				    struct fuse_fs_context *ctx)
{
	return 0;
}

static inline void fuse_bpf_evict_inode(struct inode *inode) {}
static inline void fuse_bpf_conn_free(struct fuse_conn *fc) {}
static inline void fuse_bpf_free_fsc(struct fuse_fs_context *ctx)
{
	path_put(&ctx->root_dir);
}

static inline bool fuse_bpf_keep_dentry(const struct dentry *d) { return false; }
static inline void fuse_bpf_init_reply(struct fuse_mount *fm, u64 *flags) {}
static inline bool fuse_bpf_sync_fs(int *err, struct super_block *sb)
{
	return false;
}

static inline bool fuse_bpf_lookup(struct dentry **res, struct inode *dir,
				   struct dentry *entry, unsigned int flags)
{
	return false;
}

static inline bool fuse_bpf_revalidate(int *ret, struct dentry *entry,
				       unsigned int flags)
{
	return false;
}

static inline bool fuse_bpf_atomic_open(int *err, struct inode *dir,
					struct dentry *entry, struct file *file,
					unsigned int flags, umode_t mode)
{
	return false;
}

static inline bool fuse_bpf_create(int *err, struct inode *dir,
				   struct dentry *entry, umode_t mode,
				   bool excl)
{
	return false;
}

static inline bool fuse_bpf_mknod(int *err, struct inode *dir,
				  struct dentry *entry, umode_t mode,
				  dev_t rdev)
{
	return false;
}

static inline bool fuse_bpf_mkdir(int *err, struct inode *dir,
				  struct dentry *entry, umode_t mode)
{
	return false;
}

static inline bool fuse_bpf_symlink(int *err, struct inode *dir,
				    struct dentry *entry, const char *link)
{
	return false;
}

static inline bool fuse_bpf_link(int *err, struct dentry *old,
				 struct inode *dir, struct dentry *entry)
{
	return false;
}

static inline bool fuse_bpf_unlink(int *err, struct inode *dir,
				   struct dentry *entry)
{
	return false;
}

static inline bool fuse_bpf_rmdir(int *err, struct inode *dir,
				  struct dentry *entry)
{
	return false;
}

static inline bool fuse_bpf_rename(int *err, struct inode *olddir,
				   struct dentry *oldent, struct inode *newdir,
				   struct dentry *newent, unsigned int flags)
{
	return false;
}

static inline bool fuse_bpf_tmpfile(int *err, struct inode *dir,
				    struct file *file, umode_t mode)
{
	return false;
}

static inline bool fuse_bpf_get_link(const char **res, struct dentry *entry,
				     struct inode *inode,
				     struct delayed_call *done)
{
	return false;
}

static inline bool fuse_bpf_opendir(int *err, struct inode *inode,
				    struct file *file)
{
	return false;
}

static inline bool fuse_bpf_readdir(int *err, struct file *file,
				    struct dir_context *ctx)
{
	return false;
}

static inline bool fuse_bpf_open(int *err, struct inode *inode,
				 struct file *file)
{
	return false;
}

static inline bool fuse_bpf_release(struct file *file)
{
	return false;
}

static inline int fuse_bpf_fadvise(struct file *file, loff_t offset, loff_t len,
				   int advice)
{
	return generic_fadvise(file, offset, len, advice);
}

static inline bool fuse_bpf_flush(int *err, struct file *file, fl_owner_t id)
{
	return false;
}

static inline bool fuse_bpf_fsync(int *err, struct file *file, loff_t start,
				  loff_t end, int datasync)
{
	return false;
}

static inline bool fuse_bpf_llseek(loff_t *res, struct file *file,
				   loff_t offset, int whence)
{
	return false;
}

static inline bool fuse_bpf_fallocate(int *err, struct file *file, int mode,
				      loff_t offset, loff_t length)
{
	return false;
}

static inline bool fuse_bpf_copy_file_range(ssize_t *res, struct file *src,
					    loff_t src_off, struct file *dst,
					    loff_t dst_off, size_t len,
					    unsigned int flags)
{
	return false;
}

static inline bool fuse_bpf_lock(int *err, struct file *file, int cmd,
				 struct file_lock *fl)
{
	return false;
}

static inline bool fuse_bpf_flock(int *err, struct file *file, int cmd,
				  struct file_lock *fl)
{
	return false;
}

static inline bool fuse_bpf_ioctl(long *err, struct file *file)
{
	return false;
}

static inline bool fuse_bpf_poll(__poll_t *res, struct file *file,
				 poll_table *wait)
{
	return false;
}

static inline bool fuse_bpf_read_iter(ssize_t *res, struct kiocb *iocb,
				      struct iov_iter *to)
{
	return false;
}

static inline bool fuse_bpf_file_io(int *err, struct file *file)
{
	return false;
}

static inline bool fuse_bpf_write_iter(ssize_t *res, struct kiocb *iocb,
				       struct iov_iter *from)
{
	return false;
}

static inline bool fuse_bpf_permission(int *err, struct inode *inode, int mask)
{
	return false;
}

static inline bool fuse_bpf_getattr(int *err, const struct path *path,
				    struct kstat *stat, u32 mask,
				    unsigned int flags)
{
	return false;
}

static inline bool fuse_bpf_setattr(int *err, struct dentry *entry,
				    struct iattr *attr)
{
	return false;
}

static inline bool fuse_bpf_statfs(int *err, struct dentry *entry,
				   struct kstatfs *buf)
{
	return false;
}

static inline bool fuse_bpf_getxattr(ssize_t *res, struct inode *inode,
				     const char *name, void *value, size_t size)
{
	return false;
}

static inline bool fuse_bpf_setxattr(int *err, struct inode *inode,
				     const char *name, const void *value,
				     size_t size, int flags)
{
	return false;
}

static inline bool fuse_bpf_listxattr(ssize_t *res, struct dentry *entry,
				      char *list, size_t size)
{
	return false;
}

static inline bool fuse_bpf_removexattr(int *err, struct inode *inode,
					const char *name)
{
	return false;
}

static inline bool fuse_bpf_get_inode_acl(struct posix_acl **res,
					  struct inode *inode, int type,
					  bool rcu)
{
	return false;
}

static inline bool fuse_bpf_get_acl(struct posix_acl **res,
				    struct dentry *entry, int type)
{
	return false;
}

static inline bool fuse_bpf_set_acl(int *err, struct dentry *entry,
				    struct posix_acl *acl, int type)
{
	return false;
}

static inline bool fuse_bpf_fileattr_get(int *err, struct dentry *entry,
					 struct fileattr *fa)
{
	return false;
}

static inline bool fuse_bpf_fileattr_set(int *err, struct dentry *entry,
					 struct fileattr *fa)
{
	return false;
}

static inline bool fuse_bpf_fiemap(int *err, struct inode *inode,
				   struct fiemap_extent_info *fieinfo,
				   u64 start, u64 len)
{
	return false;
}

#endif /* CONFIG_FUSE_BPF */
#endif /* _FS_FUSE_BACKING_H */
