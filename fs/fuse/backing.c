// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE-BPF: the dispatch core.
 *
 * A FUSE node may carry a backing inode on a lower filesystem.  Its
 * operations are then served in the kernel: each hook hands fuse_bpf_run()
 * its operation's steps (a struct fuse_bpf_op of the family's file: set up,
 * backing call, finish) and runs the BPF prefilter and postfilter between
 * them.  File data goes through
 * fs/backing-file.c, as with FUSE passthrough.
 */

#include "fuse_i.h"

#include <linux/backing-file.h>
#include <linux/error-injection.h>
#include <linux/file.h>
#include <linux/namei.h>
#include <linux/posix_acl.h>
#include <linux/security.h>

/**
 * fuse_bpf_arg_buf() - append a variable-length input argument
 * @req: the request
 * @buf: the buffer that holds it (fuse_bpf_buf_in())
 *
 * The BPF filters see @buf; the daemon's filters see its contents, as they
 * are when they run, as the argument (backing_user.c).
 */
void fuse_bpf_arg_buf(struct fuse_bpf_req *req, struct fuse_buffer *buf)
{
	unsigned int i = req->args.in_numargs;

	fuse_bpf_arg_in(req, buf->size, buf->data);
	if (i < FUSE_BPF_MAX_IN)
		req->in_bufs[i] = buf;
}

/**
 * fuse_bpf_arg_out_buf() - append a variable-length output argument
 * @req: the request
 * @buf: the buffer that holds it
 *
 * As fuse_bpf_arg_buf(), for an output.
 */
void fuse_bpf_arg_out_buf(struct fuse_bpf_req *req, struct fuse_buffer *buf)
{
	unsigned int i = req->args.out_numargs;

	fuse_bpf_arg_out(req, buf->size, buf->data);
	if (i < FUSE_BPF_MAX_OUT)
		req->out_bufs[i] = buf;
}

/**
 * fuse_bpf_override_creds() - run with the backing credentials of a mount
 * @inode: a node of the mount
 *
 * Operations on the lower filesystem run with the backing credentials of
 * the connection: the mounter's, taken at mount, for a root_dir= mount,
 * else those of the first backing a daemon gave (backing_entry.c).  The
 * caller's permission was checked before.
 *
 * Return: the credentials in force before, for revert_creds().
 */
const struct cred *fuse_bpf_override_creds(struct inode *inode)
{
	return override_creds(get_fuse_conn(inode)->backing_cred);
}

/**
 * fuse_bpf_caller_owns() - may the caller act as the owner of the lower inode?
 * @inode: a backed inode
 *
 * The VFS judged the caller against the FUSE inode's mirror of the lower
 * attributes, which a file kept open may have let go stale (the lower
 * inode changed hands under it).  Owner-only changes are judged again here,
 * on the lower inode as it is now, with the caller's credentials.
 *
 * Context: with the caller's credentials in force.
 *
 * Return: 0 if the caller may, else -EPERM.
 */
int fuse_bpf_caller_owns(struct inode *inode)
{
	if (inode_owner_or_capable(&nop_mnt_idmap, fuse_bpf_inode(inode)))
		return 0;
	return -EPERM;
}

/* Whether acting for @caller drops CAP_SYS_RESOURCE from @backing */
static bool fuse_bpf_drops_resource(const struct cred *backing,
				    const struct cred *caller)
{
	return cap_raised(backing->cap_effective, CAP_SYS_RESOURCE) &&
	       !(caller->user_ns == &init_user_ns &&
		 cap_raised(caller->cap_effective, CAP_SYS_RESOURCE));
}

/* Make @cred, a copy of the backing credentials, act for @caller */
static void fuse_bpf_act_for(struct cred *cred, const struct cred *caller)
{
	if (fuse_bpf_drops_resource(cred, caller))
		cap_lower(cred->cap_effective, CAP_SYS_RESOURCE);
	cred->fsuid = caller->fsuid;
	cred->fsgid = caller->fsgid;
}

/**
 * fuse_bpf_get_caller_creds() - the backing credentials, acting for a caller
 * @caller: the credentials of the operation's caller
 *
 * Operations that take space on the lower filesystem (creates, writes,
 * fallocate, copies, xattrs) act for the caller: what they make is owned by
 * the caller, as if it had made it on the lower filesystem itself
 * (overlayfs does the same), the space kept for a user id (ext4's resuid)
 * is the caller's to take or not, and CAP_SYS_RESOURCE, which lets a write
 * past quotas and into reserved space, stays only if the caller has it in
 * the initial user namespace.
 *
 * Context: process context, may sleep; the backing credentials in force
 * (fuse_bpf_override_creds()).
 *
 * Return: the backing credentials, or a copy of them with the fsuid and
 * fsgid of @caller, referenced; NULL if the copy cannot be allocated.
 */
noinline const struct cred *
fuse_bpf_get_caller_creds(const struct cred *caller)
{
	const struct cred *backing = current_cred();
	struct cred *cred;

	if (uid_eq(backing->fsuid, caller->fsuid) &&
	    gid_eq(backing->fsgid, caller->fsgid) &&
	    !fuse_bpf_drops_resource(backing, caller))
		return get_cred(backing);
	cred = prepare_creds();
	if (!cred)
		return NULL;
	fuse_bpf_act_for(cred, caller);
	return cred;
}
ALLOW_ERROR_INJECTION(fuse_bpf_get_caller_creds, NULL);

static int fuse_bpf_creds_as_caller(const struct cred *caller)
{
	const struct cred *cred = fuse_bpf_get_caller_creds(caller);

	if (!cred)
		return -ENOMEM;
	put_cred(override_creds(cred));
	put_cred(cred);
	return 0;
}

/**
 * fuse_bpf_create_creds() - make a new lower node the caller's
 * @req: the operation, in its backing step with the backing credentials
 * @entry: the FUSE dentry of the new node
 * @mode: its file type and permissions
 * @name: the name it gets on the lower filesystem
 *
 * The credentials of fuse_bpf_get_caller_creds(), acting for the caller,
 * in one copy that, as in ovl_setup_cred_for_create(), is also given to
 * security_dentry_create_files_as() with the caller's credentials: an LSM
 * may say in it how the lower node is labelled (SELinux's create SID,
 * Smack's transmuting directories).  They stay in force until the backing
 * step reverts to the caller's.
 *
 * Context: the backing step of a create, mknod, mkdir, symlink or tmpfile.
 *
 * Return: 0, -ENOMEM, or the LSM's refusal.
 */
noinline int fuse_bpf_create_creds(struct fuse_bpf_req *req,
				   struct dentry *entry, umode_t mode,
				   struct qstr *name)
{
	struct cred *cred;
	int err;

	if (WARN_ON_ONCE(!req->caller))
		return -EINVAL;
	if (!IS_ENABLED(CONFIG_SECURITY))
		return fuse_bpf_creds_as_caller(req->caller);
	cred = prepare_creds();
	if (!cred)
		return -ENOMEM;
	fuse_bpf_act_for(cred, req->caller);
	err = security_dentry_create_files_as(entry, mode, name, req->caller,
					      cred);
	if (!err)
		put_cred(override_creds(cred));
	put_cred(cred);
	return err;
}
ALLOW_ERROR_INJECTION(fuse_bpf_create_creds, ERRNO);

static int fuse_bpf_backing(const struct fuse_bpf_op *op,
			    struct fuse_bpf_req *req)
{
	struct vfsmount *mnt = fuse_bpf_path(req->inode)->mnt;
	const struct cred *old;
	int err = 0;

	if (op->flags & FUSE_BPF_WRITE) {
		err = mnt_want_write(mnt);
		if (err)
			return err;
	}
	if (op->flags & FUSE_BPF_CALLER_CREDS) {
		err = op->backing(req);
		goto out;
	}
	old = fuse_bpf_override_creds(req->inode);
	req->caller = old;
	if (op->flags & FUSE_BPF_AS_CALLER)
		err = fuse_bpf_creds_as_caller(old);
	if (!err)
		err = op->backing(req);
	revert_creds(old);
	req->caller = NULL;
out:
	if (op->flags & FUSE_BPF_WRITE)
		mnt_drop_write(mnt);
	return err;
}

/*
 * A change through the mount: the lower events it raises are not raised
 * again on the FUSE inodes (backing_notify.c).
 */
static int fuse_bpf_backing_change(const struct fuse_bpf_op *op,
				   struct fuse_bpf_req *req)
{
	bool node, other = false;
	int err;

	if (!(op->flags & (FUSE_BPF_WRITE | FUSE_BPF_AS_CALLER)))
		return fuse_bpf_backing(op, req);
	node = fuse_bpf_notify_begin(req->inode);
	if (req->other)
		other = fuse_bpf_notify_begin(req->other);
	err = fuse_bpf_backing(op, req);
	if (req->other)
		fuse_bpf_notify_end(req->other, other);
	fuse_bpf_notify_end(req->inode, node);
	return err;
}

/* The daemon is told of the nodes the kernel made before it sees them */
static int fuse_bpf_fallback(struct fuse_bpf_req *req)
{
	int err = fuse_bpf_introduce(req->inode);

	if (!err && req->other)
		err = fuse_bpf_introduce(req->other);
	return err ?: FUSE_BPF_FALLBACK;
}

/**
 * fuse_bpf_run() - serve one operation of a backed node
 * @op: the operation's steps
 * @req: the request (FUSE_BPF_REQ()), its arguments in the operation's
 *	own structure around it
 *
 * Set up, the node's prefilter (and the daemon's, if it asks for it), the
 * backing operation, the postfilter (the node's or the daemon's), finish.
 * The filters see and may rewrite req's arguments.
 *
 * A node the kernel made is introduced to the daemon (fuse_bpf_introduce())
 * before an operation goes to it: @req's node, and req->other, a node its
 * body names.
 *
 * Context: process context, may sleep.
 *
 * Return: the operation's result, or FUSE_BPF_FALLBACK when a filter or
 * the node's daemon_ops sent it to the daemon.
 */
int fuse_bpf_run(const struct fuse_bpf_op *op, struct fuse_bpf_req *req)
{
	struct fuse_ops *ops = fuse_bpf_node_ops(req->inode);
	int err = 0;

	req->args.opcode = op->opcode;
	req->args.nodeid = get_node_id(req->inode);
	if (fuse_bpf_daemon_op(req->inode, req->args.opcode))
		return fuse_bpf_fallback(req);

	req->meta.nodeid = req->args.nodeid;
	if (op->setup)
		err = op->setup(req);
	if (!err && ops)
		err = fuse_bpf_prefilter(op, req, ops);
	if (!err && req->user_pre)
		err = fuse_bpf_user_prefilter(req);
	if (!err) {
		if (req->nbufs)
			fuse_bpf_inputs_done(req);
		err = fuse_bpf_backing_change(op, req);
		if (req->user_post)
			err = fuse_bpf_user_postfilter(req, err);
		else if (req->post)
			err = fuse_bpf_postfilter(op, req, ops, err);
	}
	if (op->finish && err != FUSE_BPF_FALLBACK)
		err = op->finish(req, err);
	if (req->nbufs)
		fuse_bpf_buffers_free(req);
	if (err == FUSE_BPF_FALLBACK)
		err = fuse_bpf_fallback(req);
	return err;
}
ALLOW_ERROR_INJECTION(fuse_bpf_run, ERRNO);

/* Inode flags the VFS checks on the FUSE inode before it calls us. */
#define FUSE_BPF_COPY_FLAGS	(S_SYNC | S_APPEND | S_IMMUTABLE)

/**
 * fuse_bpf_copyattr() - mirror the lower inode's attributes in a FUSE inode
 * @inode: a FUSE inode
 *
 * Mode, owner, times, link count, size, blocks, block size and the
 * S_SYNC, S_APPEND and S_IMMUTABLE flags.  RCU-walk callers may hold an
 * inode under eviction: there is nothing to mirror then, nor for an inode
 * that is not backed.
 *
 * Context: takes @inode->i_lock, does not sleep; RCU-walk callers too.
 */
void fuse_bpf_copyattr(struct inode *inode)
{
	struct dentry *d = fuse_bpf_dentry_rcu(inode);
	struct inode *lower = d ? d_inode_rcu(d) : NULL;
	unsigned int nlink;

	if (!lower)
		return;
	spin_lock(&inode->i_lock);
	inode->i_mode = lower->i_mode;
	inode->i_uid = lower->i_uid;
	inode->i_gid = lower->i_gid;
	inode_set_atime_to_ts(inode, inode_get_atime(lower));
	inode_set_mtime_to_ts(inode, inode_get_mtime(lower));
	inode_set_ctime_to_ts(inode, inode_get_ctime(lower));
	nlink = READ_ONCE(lower->i_nlink);
	if (inode->i_nlink != nlink)
		set_nlink(inode, nlink);
	i_size_write(inode, i_size_read(lower));
	inode->i_blocks = READ_ONCE(lower->i_blocks);
	inode->i_blkbits = lower->i_blkbits;
	/* inode_set_flags() is a cmpxchg loop: only for a change */
	if ((inode->i_flags ^ lower->i_flags) & FUSE_BPF_COPY_FLAGS)
		inode_set_flags(inode, lower->i_flags & FUSE_BPF_COPY_FLAGS,
				FUSE_BPF_COPY_FLAGS);
	spin_unlock(&inode->i_lock);
}

struct fuse_bpf_iget_data {
	const struct path *lower;
	struct fuse_ops *ops;
};

/*
 * One FUSE inode per lower inode and lower mount: the mount says what a
 * node may do (a read-only bind mount of the same filesystem).
 */
static int fuse_bpf_inode_test(struct inode *inode, void *data)
{
	struct fuse_bpf_iget_data *d = data;
	struct path *path = fuse_bpf_path(inode);

	return path->dentry && d_inode(path->dentry) == d_inode(d->lower->dentry) &&
	       path->mnt == d->lower->mnt;
}

/* A new node: its own node id, its backing dentry, its parent's filter. */
static int fuse_bpf_inode_set(struct inode *inode, void *data)
{
	struct fuse_conn *fc = get_fuse_conn_super(inode->i_sb);
	struct fuse_inode *fi = get_fuse_inode(inode);
	struct fuse_bpf_iget_data *d = data;
	u64 id = atomic64_inc_return(&fc->backing_nodeid);

	fi->nodeid = FUSE_BPF_NODEID_BIT | id;
	fi->backing_path.dentry = dget(d->lower->dentry);
	/* For fuse_bpf_inode_test(); fuse_bpf_init_inode() takes its reference */
	fi->backing_path.mnt = d->lower->mnt;
	fi->bpf_ops = bpf_fuse_ops_tryget(d->ops);
	return 0;
}

/*
 * The lockdep level of a backed superblock and its inodes: the stacking
 * depth of the filesystem below, fixed at mount (FUSE_INIT may raise our
 * own depth later, a mount above may have come before it).
 */
static int __maybe_unused fuse_bpf_lockdep_level(struct super_block *lower_sb)
{
	return clamp(lower_sb->s_stack_depth, 0, FILESYSTEM_MAX_STACK_DEPTH - 1);
}

/*
 * FUSE-BPF may stack on FUSE-BPF: give each stacking level its own lock
 * classes, as overlayfs does, so lockdep tells the levels apart.
 */
static void fuse_bpf_lockdep_annotate(struct inode *inode)
{
#ifdef CONFIG_LOCKDEP
	static struct lock_class_key dir_key[FILESYSTEM_MAX_STACK_DEPTH];
	static struct lock_class_key key[FILESYSTEM_MAX_STACK_DEPTH];
	int depth = fuse_bpf_lockdep_level(fuse_bpf_path(inode)->mnt->mnt_sb);

	if (S_ISDIR(inode->i_mode))
		lockdep_set_class(&inode->i_rwsem, &dir_key[depth]);
	else
		lockdep_set_class(&inode->i_rwsem, &key[depth]);
#endif
}

/*
 * Freeze protection and the rename mutex of a FUSE-BPF superblock nest in
 * those of the FUSE-BPF superblock stacked on it: one class per level.
 */
static void fuse_bpf_lockdep_annotate_sb(struct super_block *sb,
					 struct super_block *lower_sb)
{
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	static struct lock_class_key keys[FILESYSTEM_MAX_STACK_DEPTH][SB_FREEZE_LEVELS];
	static struct lock_class_key rename_keys[FILESYSTEM_MAX_STACK_DEPTH];
	static const char *const names[SB_FREEZE_LEVELS] = {
		"sb_writers_fuse_bpf", "sb_pagefaults_fuse_bpf",
		"sb_internal_fuse_bpf",
	};
	int depth = fuse_bpf_lockdep_level(lower_sb);
	int i;

	for (i = 0; i < SB_FREEZE_LEVELS; i++)
		lockdep_init_map(&sb->s_writers.rw_sem[i].dep_map, names[i],
				 &keys[depth][i], 0);
	lockdep_set_class(&sb->s_vfs_rename_mutex, &rename_keys[depth]);
#endif
}

/**
 * fuse_bpf_init_inode() - set up a new FUSE inode from its backing inode
 * @inode: the new inode (I_NEW, or the root being made), its backing
 *	dentry set
 * @mnt: the mount of the backing dentry; @inode takes a reference to it
 *
 * The FUSE inode takes the lower inode's number, generation, type, device
 * number and attributes (fuse_bpf_copyattr()).  Times live in the lower
 * inode: it is S_NOATIME and S_NOCMTIME.  ACLs are never cached: they are
 * always asked of the lower inode.
 */
void fuse_bpf_init_inode(struct inode *inode, struct vfsmount *mnt)
{
	struct fuse_conn *fc = get_fuse_conn(inode);
	struct inode *lower = fuse_bpf_inode(inode);
	struct fuse_attr attr = {
		.mode = lower->i_mode,
		.rdev = new_encode_dev(lower->i_rdev),
	};

	get_fuse_inode(inode)->backing_path.mnt = mntget(mnt);
	inode->i_ino = lower->i_ino;
	inode->i_generation = lower->i_generation;
	/*
	 * Times live in the lower inode: the FUSE inode is never dirtied, so
	 * fuse_write_inode() never has to flush times for it.
	 */
	inode->i_flags |= S_NOATIME | S_NOCMTIME;
	fuse_init_inode(inode, &attr, fc);
	fuse_bpf_lockdep_annotate(inode);
	/* Always ask the lower inode for its ACLs (see fuse_bpf_get_inode_acl) */
	inode->i_acl = ACL_DONT_CACHE;
	inode->i_default_acl = ACL_DONT_CACHE;
	fuse_bpf_copyattr(inode);
	fuse_bpf_watch_lower(inode);
}

/**
 * fuse_bpf_iget() - the FUSE inode of a backing inode
 * @dir: the backed directory it was found or made in
 * @path: the backing dentry (positive) and its mount
 *
 * Hard links of one lower inode on one lower mount share one FUSE inode;
 * its node id comes from the kernel's own id space (FUSE_BPF_NODEID_BIT).
 * A new node inherits the filter of @dir.
 *
 * Context: process context, may sleep.
 *
 * Return: the FUSE inode, referenced: a new one set up by
 * fuse_bpf_init_inode(), or one found, its attributes refreshed;
 * ERR_PTR(-ENOMEM) if it cannot be allocated.
 */
struct inode *fuse_bpf_iget(struct inode *dir, const struct path *path)
{
	struct fuse_bpf_iget_data data = {
		.lower = path,
		.ops = fuse_bpf_node_ops(dir),
	};
	struct inode *lower = d_inode(path->dentry);
	struct inode *inode;

	inode = iget5_locked(dir->i_sb, (unsigned long)lower,
			     fuse_bpf_inode_test, fuse_bpf_inode_set, &data);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	if (inode->i_state & I_NEW) {
		fuse_bpf_init_inode(inode, path->mnt);
		unlock_new_inode(inode);
	} else {
		fuse_bpf_copyattr(inode);
	}
	return inode;
}
ALLOW_ERROR_INJECTION(fuse_bpf_iget, ERRNO);

/**
 * fuse_bpf_lookup_child() - look a name up in a backing directory
 * @parent: the backing directory, its inode locked by the caller
 * @name: the name, one path component
 *
 * As lookup_one_len(): the search permission on @parent is checked with
 * the credentials in force.
 *
 * Context: process context, may sleep; the caller holds @parent's i_rwsem.
 *
 * Return: the child, referenced, negative if there is no such name; or an
 * ERR_PTR(): -EACCES for an empty name, "." or "..", or a name with a
 * slash or a NUL, the lookup's error otherwise.
 */
struct dentry *fuse_bpf_lookup_child(struct dentry *parent,
				     const struct qstr *name)
{
	return lookup_one_len(name->name, parent, name->len);
}
ALLOW_ERROR_INJECTION(fuse_bpf_lookup_child, ERRNO);

/* Open flags a filter may set or clear: how the lower file does I/O */
#define FUSE_BPF_OPEN_IO_FLAGS	(O_DIRECT | O_DSYNC | __O_SYNC)

/**
 * fuse_bpf_open_flags() - the open flags the filters left
 * @file: the FUSE file being opened
 * @mode: the mode of the node it opens (an O_TMPFILE file's has no inode
 *	yet)
 * @asked: the flags of the open, as the VFS gave them
 * @flags: what the filters left in fuse_open_in or fuse_create_in
 *
 * @file is opened with @asked (its f_mode is set, and the caller was
 * checked for it): the filters may set or clear O_DIRECT, O_DSYNC and
 * O_SYNC of a regular file, nothing else.  Those are changed on @file
 * too, which the VFS checks when ->open returns, and which passthrough
 * I/O carries to the backing file (O_DIRECT): F_GETFL and later F_SETFL
 * see them.
 *
 * Context: in ->open or ->tmpfile, before @file is opened.
 *
 * Return: the flags to open the backing file with; -EPERM for another
 * change, -EINVAL for one on a file that is not regular.
 */
int fuse_bpf_open_flags(struct file *file, umode_t mode, u32 asked,
			u32 flags)
{
	if ((asked ^ flags) & ~FUSE_BPF_OPEN_IO_FLAGS)
		return -EPERM;
	/* They mean nothing for a directory, which has no ->direct_IO */
	if (asked != flags && !S_ISREG(mode))
		return -EINVAL;
	/* As build_open_flags(): O_SYNC is __O_SYNC | O_DSYNC */
	if (flags & __O_SYNC)
		flags |= O_DSYNC;
	file->f_flags = (file->f_flags & ~FUSE_BPF_OPEN_IO_FLAGS) |
			(flags & FUSE_BPF_OPEN_IO_FLAGS);
	return flags;
}

/**
 * fuse_bpf_may_open_backing() - may the backing file of a FUSE file open?
 * @inode: the backed node
 * @flags: the open flags (fuse_bpf_open_flags())
 *
 * As ovl_open_realfile(): the lower inode must let the backing credentials
 * open it too (the caller was checked on the FUSE inode).  Checked when
 * the FUSE file opens, also for a backing file opened later.
 *
 * Context: the backing credentials in force.
 *
 * Return: 0 or an errno, as inode_permission().
 */
int fuse_bpf_may_open_backing(struct inode *inode, int flags)
{
	int acc_mode = ACC_MODE(flags);

	if (flags & O_APPEND)
		acc_mode |= MAY_APPEND;
	return inode_permission(&nop_mnt_idmap, fuse_bpf_inode(inode),
				MAY_OPEN | acc_mode);
}

/**
 * fuse_bpf_open_backing() - open the backing file of a FUSE file
 * @inode: the backed node
 * @file: the FUSE file
 * @flags: the open flags (fuse_bpf_open_flags())
 *
 * O_NOATIME needs the backing credentials to own the lower inode, as in
 * ovl_open_realfile().  O_CREAT, O_EXCL, O_NOCTTY and O_TRUNC are not
 * passed on.
 *
 * Context: process context, may sleep; the backing credentials in force,
 * fuse_bpf_may_open_backing() checked when @file opened.
 *
 * Return: the backing file, or an ERR_PTR().
 */
struct file *fuse_bpf_open_backing(struct inode *inode, struct file *file,
				   int flags)
{
	flags &= ~(O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC);
	if ((flags & O_NOATIME) &&
	    !inode_owner_or_capable(&nop_mnt_idmap, fuse_bpf_inode(inode)))
		flags &= ~O_NOATIME;
	return backing_file_open(file, flags, fuse_bpf_path(inode),
				 current_cred());
}
ALLOW_ERROR_INJECTION(fuse_bpf_open_backing, ERRNO);

/**
 * fuse_bpf_evict_inode() - release the backing and filter of an evicted node
 * @inode: the FUSE inode being evicted, backed or not
 *
 * RCU-walk readers of backing_path.dentry may still see the inode: they
 * read the pointer once (fuse_bpf_dentry_rcu()), NULL from now on; the
 * lower dentry and inode stay valid until their RCU grace period ends.
 *
 * Context: inode eviction (fuse_evict_inode()), may sleep.
 */
void fuse_bpf_evict_inode(struct inode *inode)
{
	struct fuse_inode *fi = get_fuse_inode(inode);
	struct path path = fi->backing_path;

	fuse_bpf_unwatch_lower(inode);
	WRITE_ONCE(fi->backing_path.dentry, NULL);
	fi->backing_path.mnt = NULL;
	path_put(&path);
	bpf_fuse_ops_put(fi->bpf_ops);
	fi->bpf_ops = NULL;
}

/**
 * fuse_bpf_keep_dentry() - keep an unused dentry of a backed directory?
 * @dentry: the dentry losing its last reference
 *
 * Keep unused dentries of backed directories: d_revalidate checks them.
 * Not those whose lower name went away (unlinked or renamed on the lower
 * filesystem): a kept dentry pins its inode, whose backing path pins the
 * lower inode and, for an unlinked file, its space.  A name that goes away
 * on the lower while its dentry sits unused keeps the space until the name
 * is next looked up through the mount (d_revalidate drops it), memory
 * pressure or drop_caches reclaims it, or the mount goes away.
 *
 * Context: ->d_delete() (fuse_dentry_delete()), under @dentry->d_lock;
 * does not sleep.
 *
 * Return: true to keep @dentry: a backed node whose lower dentry is still
 * hashed, or a negative dentry in a backed directory; false to leave it to
 * the entry's timeout.
 */
bool fuse_bpf_keep_dentry(const struct dentry *dentry)
{
	struct inode *inode = d_inode(dentry);
	struct dentry *lower;

	if (inode) {
		lower = fuse_bpf_dentry_rcu(inode);
		return lower && !d_unhashed(lower);
	}
	return d_inode(dentry->d_parent) &&
	       fuse_bpf_backed(d_inode(dentry->d_parent));
}

/**
 * fuse_bpf_fill_super() - fill the superblock of a mount with no daemon
 * @sb: the new superblock
 * @ctx: the mount options
 *
 * No /dev/fuse, no FUSE_INIT.  rootmode= defaults to a directory, user_id=
 * and group_id= to the mounter's fsuid and fsgid.  The connection is
 * initialized and disconnected from the start, so a request that reaches
 * for a daemon fails at once with -ENOTCONN.
 *
 * Return: 0, or the error of fuse_fill_super_common().
 */
int fuse_bpf_fill_super(struct super_block *sb, struct fuse_fs_context *ctx)
{
	struct fuse_conn *fc = get_fuse_conn_super(sb);
	int err;

	if (!ctx->rootmode_present)
		ctx->rootmode = S_IFDIR;
	if (!ctx->user_id_present)
		ctx->user_id = current_fsuid();
	if (!ctx->group_id_present)
		ctx->group_id = current_fsgid();
	ctx->fudptr = NULL;

	err = fuse_fill_super_common(sb, ctx);
	if (err)
		return err;
	fc->no_daemon = 1;
	fc->connected = 0;
	fc->iq.connected = 0;
	fuse_set_initialized(fc);
	wake_up_all(&fc->blocked_waitq);
	return 0;
}

/**
 * fuse_bpf_set_root() - give the root the backing directory of root_dir=
 * @sb: the new superblock
 * @root: its fresh root inode, or NULL if it could not be made
 * @ctx: the mount options
 *
 * Called by fuse_fill_super_common().  The connection takes the mounter's
 * credentials as its backing credentials, the root the root_bpf= (or
 * root_bpf_fd=) filter.  The superblock stacks one level above the lower
 * one, is skipped by sync(2) and exports no file handles.  Nothing is done
 * without root_dir=.
 *
 * Return: 0 or -ENOMEM.
 */
int fuse_bpf_set_root(struct super_block *sb, struct inode *root,
		      struct fuse_fs_context *ctx)
{
	struct fuse_conn *fc = get_fuse_conn_super(sb);
	struct super_block *lower_sb;
	struct fuse_inode *fi;

	if (!root || !ctx->root_dir.dentry)
		return 0;

	/* The mounter's (fuse_bpf_may_mount()), never the /dev/fuse opener's */
	fc->backing_cred = prepare_creds();
	if (!fc->backing_cred)
		return -ENOMEM;

	lower_sb = ctx->root_dir.mnt->mnt_sb;
	sb->s_stack_depth = lower_sb->s_stack_depth + 1;
	sb->s_iflags |= SB_I_SKIP_SYNC;
	fuse_bpf_lockdep_annotate_sb(sb, lower_sb);
	/* File handles of backed nodes would mean nothing to a daemon. */
	sb->s_export_op = NULL;

	fi = get_fuse_inode(root);
	fi->backing_path.dentry = dget(ctx->root_dir.dentry);
	fi->bpf_ops = ctx->root_bpf;
	ctx->root_bpf = NULL;
	fuse_bpf_init_inode(root, ctx->root_dir.mnt);
	return 0;
}

/**
 * fuse_bpf_sync_fs() - syncfs() of a backed mount
 * @err: where the result goes
 * @sb: the FUSE superblock
 *
 * syncfs() of a backed mount (wait == 1: fuse_sync_fs() returns early
 * otherwise) syncs the lower filesystem, as overlayfs does with its upper
 * one.  sync(2) skips us (SB_I_SKIP_SYNC): it reaches the lower
 * filesystem on its own.
 *
 * Context: process context, may sleep.  Takes the lower s_umount shared;
 * it nests in ours, of the same class when the lower is FUSE-BPF too: one
 * subclass per level.
 *
 * Return: true if the root of @sb is backed, the result of syncing the
 * lower filesystem in @err; false if FUSE syncs the mount as usual.
 */
bool fuse_bpf_sync_fs(int *err, struct super_block *sb)
{
	struct super_block *lower_sb;

	if (!fuse_bpf_backed(d_inode(sb->s_root)))
		return false;
	lower_sb = fuse_bpf_path(d_inode(sb->s_root))->mnt->mnt_sb;
	down_read_nested(&lower_sb->s_umount, fuse_bpf_lockdep_level(lower_sb));
	*err = sync_filesystem(lower_sb);
	up_read(&lower_sb->s_umount);
	return true;
}

/**
 * fuse_bpf_init_reply() - filter the flags of a daemon's FUSE_INIT reply
 * @fm: the mount
 * @flags: the reply's flags (flags2 in the upper half), filtered in place
 *
 * A mount that has backed nodes (a backed root) or may get them (the
 * daemon accepts FUSE_PASSTHROUGH, and so may back nodes in its LOOKUP
 * replies) is not made idmappable (backing operations would not map ids)
 * and gives no file handles (those of nodes the kernel made would carry
 * node ids the daemon never gave): FUSE_ALLOW_IDMAP and
 * FUSE_NO_EXPORT_SUPPORT are cleared, and the export operations dropped.
 * This is decided here, before any LOOKUP reply could back a node.
 */
void fuse_bpf_init_reply(struct fuse_mount *fm, u64 *flags)
{
	if (!fm->fc->backing_cred && !(*flags & FUSE_PASSTHROUGH))
		return;
	*flags &= ~(FUSE_ALLOW_IDMAP | FUSE_NO_EXPORT_SUPPORT);
	fm->sb->s_export_op = NULL;
}

/**
 * fuse_bpf_free_fsc() - release the FUSE-BPF mount options of an fs context
 * @ctx: the mount options
 *
 * Drops the root_dir= path and the root_bpf= (or root_bpf_fd=) filter,
 * unless the root took it (fuse_bpf_set_root()).
 */
void fuse_bpf_free_fsc(struct fuse_fs_context *ctx)
{
	path_put(&ctx->root_dir);
	bpf_fuse_ops_put(ctx->root_bpf);
}

/**
 * fuse_bpf_conn_free() - release the FUSE-BPF state of a connection
 * @fc: the connection, its last reference gone
 *
 * Drops the backing credentials, if it has any.
 */
void fuse_bpf_conn_free(struct fuse_conn *fc)
{
	if (fc->backing_cred)
		put_cred(fc->backing_cred);
}
