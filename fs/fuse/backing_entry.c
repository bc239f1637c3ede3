// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE-BPF: the daemon gives a node its backing and its filter.
 *
 * A LOOKUP reply may carry struct fuse_bpf_entry_out entries after
 * struct fuse_entry_out: a backing (a file descriptor of the daemon, or a
 * backing id of 6.12's FUSE_DEV_IOC_BACKING_OPEN registry), a fuse_ops
 * filter (by name or descriptor), or the removal of either.  The entries
 * are checked and resolved when the reply is written, in the daemon's
 * context; the lookup then gives them to the node.  A reply that names a
 * descriptor is accepted only through the FUSE_DEV_IOC_BPF_RESPONSE ioctl,
 * so that no write() into /dev/fuse by another program (a setuid helper
 * handed the fd) can make the kernel resolve its descriptors.
 *
 * Entries describe a change: a reply without them leaves a node as it is.
 * A reply that changes the backing or the filter of a node gives the name a
 * new inode, with the same node id; the old inode keeps its backing for the
 * files open on it and sends its own FORGET, so the daemon's lookup count
 * of the id stays exact.
 */

#include "fuse_i.h"

#include <linux/file.h>
#include <linux/namei.h>

enum {
	FUSE_BPF_KEEP,
	FUSE_BPF_SET,
	FUSE_BPF_REMOVE,
};

/*
 * What a backed node may leave to the daemon (daemon_ops): operations of
 * the node itself.  Not GETATTR (a backed node's attributes are its
 * backing inode's) nor the operations of open files, which follow OPEN and
 * OPENDIR: a file the daemon opened is the daemon's to serve.
 */
#define FUSE_BPF_DAEMON_OPS						\
	(BIT_ULL(FUSE_LOOKUP) | BIT_ULL(FUSE_SETATTR) |			\
	 BIT_ULL(FUSE_READLINK) | BIT_ULL(FUSE_SYMLINK) |		\
	 BIT_ULL(FUSE_MKNOD) | BIT_ULL(FUSE_MKDIR) | BIT_ULL(FUSE_UNLINK) | \
	 BIT_ULL(FUSE_RMDIR) | BIT_ULL(FUSE_RENAME) | BIT_ULL(FUSE_LINK) | \
	 BIT_ULL(FUSE_OPEN) | BIT_ULL(FUSE_STATFS) |			\
	 BIT_ULL(FUSE_SETXATTR) | BIT_ULL(FUSE_GETXATTR) |		\
	 BIT_ULL(FUSE_LISTXATTR) | BIT_ULL(FUSE_REMOVEXATTR) |		\
	 BIT_ULL(FUSE_OPENDIR) | BIT_ULL(FUSE_ACCESS) |			\
	 BIT_ULL(FUSE_CREATE) | BIT_ULL(FUSE_RENAME2) | BIT_ULL(FUSE_TMPFILE))

#define FUSE_BPF_RENAMES	(BIT_ULL(FUSE_RENAME) | BIT_ULL(FUSE_RENAME2))

static int fuse_bpf_entry_daemon_ops(struct fuse_bpf_entry *e, u64 ops)
{
	if (ops & ~FUSE_BPF_DAEMON_OPS)
		return -EINVAL;
	/* rename(2) with flags or without is one operation */
	if (ops & FUSE_BPF_RENAMES)
		ops |= FUSE_BPF_RENAMES;
	e->daemon_ops = ops;
	return 0;
}

/**
 * fuse_bpf_entry_init() - let the reply of a request carry FUSE-BPF entries
 * @args: a LOOKUP, or a request that makes an entry; its first out
 *	argument is the struct fuse_entry_out
 * @e: where the entries go: zeroed, released by fuse_bpf_entry_put()
 *
 * The entries are the last, variable-size, out argument: the request's
 * fuse_simple_request() returns their size on success.  They are checked
 * when the reply is written (fuse_bpf_entry_reply()).
 */
void fuse_bpf_entry_init(struct fuse_args *args, struct fuse_bpf_entry *e)
{
	args->out_numargs = 2;
	args->out_args[1].size = sizeof(e->out);
	args->out_args[1].value = e->out;
	args->out_argvar = true;
	args->bpf_entry = e;
}

/**
 * fuse_bpf_entry_put() - release the entries of a reply
 * @e: the entries
 *
 * Drops the backing path and the filters @e holds, and resets it to a
 * reply without entries, which changes nothing.  @e may have been
 * released before.
 */
void fuse_bpf_entry_put(struct fuse_bpf_entry *e)
{
	path_put(&e->backing);
	e->backing.dentry = NULL;
	e->backing.mnt = NULL;
	bpf_fuse_ops_put(e->ops);
	e->ops = NULL;
	bpf_fuse_ops_put(e->parent_ops);
	e->parent_ops = NULL;
	e->backing_action = FUSE_BPF_KEEP;
	e->bpf_action = FUSE_BPF_KEEP;
	e->daemon_ops = 0;
}

/*
 * A daemon that did not accept FUSE_PASSTHROUGH (an RFC daemon does not
 * know the flag) gets ELOOP for every backing: the log says once per
 * connection what it has to do.
 */
static void fuse_bpf_tell_stack_depth(struct fuse_conn *fc,
				      const struct path *path)
{
	if (test_and_set_bit(0, &fc->bpf_told))
		return;
	pr_warn("fuse-bpf: backings refused with ELOOP: the daemon's max_stack_depth is %d, the backing stacks %d deep; accept FUSE_PASSTHROUGH in FUSE_INIT with a max_stack_depth above it\n",
		fc->max_stack_depth, path->mnt->mnt_sb->s_stack_depth);
}

/*
 * What a backing may be, as for root_dir= and FUSE_DEV_IOC_BACKING_OPEN:
 * not idmapped, and no deeper than the daemon declared in FUSE_INIT
 * (max_stack_depth, which also makes FUSE_PASSTHROUGH the daemon's opt-in).
 *
 * The backing credentials of a mount without root_dir= are those of the
 * first backing given: the daemon's, privileged as for
 * FUSE_DEV_IOC_BACKING_OPEN, or those a backing id was opened with.
 */
static int fuse_bpf_entry_set_backing(struct fuse_conn *fc,
				      struct fuse_bpf_entry *e,
				      const struct path *path,
				      const struct cred *cred)
{
	if (is_idmapped_mnt(path->mnt))
		return -EINVAL;
	if (path->mnt->mnt_sb->s_stack_depth >= fc->max_stack_depth) {
		fuse_bpf_tell_stack_depth(fc, path);
		return -ELOOP;
	}
	if (!READ_ONCE(fc->backing_cred) &&
	    cmpxchg(&fc->backing_cred, NULL, get_cred(cred)))
		put_cred(cred);
	e->backing = *path;
	path_get(&e->backing);
	e->backing_action = FUSE_BPF_SET;
	return 0;
}

/*
 * A descriptor of the daemon.  Its holder must be as privileged as for
 * FUSE_DEV_IOC_BACKING_OPEN.  An O_PATH descriptor is a path like any
 * other: what the node then does on it is checked on the lower inode with
 * the backing credentials, as for every backed node.
 */
static int fuse_bpf_entry_backing_fd(struct fuse_conn *fc,
				     struct fuse_bpf_entry *e, u64 fd)
{
	struct file *file;
	int err;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (fd > INT_MAX)
		return -EBADF;
	file = fget_raw(fd);
	if (!file)
		return -EBADF;
	err = fuse_bpf_entry_set_backing(fc, e, &file->f_path, current_cred());
	fput(file);
	return err;
}

/* An id the daemon registered with FUSE_DEV_IOC_BACKING_OPEN. */
static int fuse_bpf_entry_backing_id(struct fuse_conn *fc,
				     struct fuse_bpf_entry *e, u64 id)
{
	struct fuse_backing *fb;
	int err;

	if (!id || id > INT_MAX)
		return -EINVAL;
	rcu_read_lock();
	fb = fuse_backing_get(idr_find(&fc->backing_files_map, id));
	rcu_read_unlock();
	if (!fb)
		return -ENOENT;
	err = fuse_bpf_entry_set_backing(fc, e, &fb->file->f_path, fb->cred);
	fuse_backing_put(fb);
	return err;
}

/*
 * The backing of a FUSE_ENTRY_BACKING_NAME: a name of one component in
 * the backing directory of the node the reply's request was in (@dir),
 * looked up there as the kernel's own lookups are (fuse_bpf_lookup()):
 * with the backing credentials, the symlink itself if it names one, no
 * mount crossed.  A path of several components would
 * be walked with the backing credentials through directories the caller
 * and the daemon may not search, past the mount's filter: refused.  The
 * caller passed the search permission of the directory the name is in,
 * whose names the daemon serves: no privilege is asked.
 */
static int fuse_bpf_entry_name_in(struct fuse_conn *fc,
				  struct fuse_bpf_entry *e, struct inode *dir,
				  const struct qstr *name)
{
	struct path path = { .mnt = fuse_bpf_path(dir)->mnt };
	int err;

	path.dentry = fuse_bpf_lookup_lower(dir, name);
	if (IS_ERR(path.dentry))
		return PTR_ERR(path.dentry);
	err = d_really_is_negative(path.dentry) ? -ENOENT :
	      fuse_bpf_entry_set_backing(fc, e, &path, fc->backing_cred);
	dput(path.dentry);
	return err;
}

static int fuse_bpf_entry_backing_name(struct fuse_conn *fc,
				       struct fuse_bpf_entry *e,
				       const struct fuse_bpf_entry_out *out,
				       u64 dir_id)
{
	size_t len = strnlen(out->name, sizeof(out->name));
	struct qstr name = QSTR_INIT(out->name, len);
	struct inode *dir;
	int err = -EINVAL;

	if (!len || len == sizeof(out->name) || memchr(out->name, '/', len) ||
	    !strcmp(out->name, ".") || !strcmp(out->name, ".."))
		return -EINVAL;
	/* As FUSE's notifications: the superblock stays while the node is used */
	down_read(&fc->killsb);
	dir = fuse_ilookup(fc, dir_id, NULL);
	if (!dir)
		err = -ENOENT;
	else if (fuse_bpf_backed(dir))
		err = fuse_bpf_entry_name_in(fc, e, dir, &name);
	iput(dir);
	up_read(&fc->killsb);
	return err;
}

static int fuse_bpf_entry_bpf_name(struct fuse_bpf_entry *e,
				   const struct fuse_bpf_entry_out *out)
{
	size_t len = strnlen(out->name, sizeof(out->name));

	if (!len || len == sizeof(out->name))
		return -EINVAL;
	e->ops = bpf_fuse_ops_get(out->name);
	if (!e->ops)
		return -ENOENT;
	e->bpf_action = FUSE_BPF_SET;
	return 0;
}

static int fuse_bpf_entry_bpf_fd(struct fuse_bpf_entry *e, u64 fd)
{
	struct fuse_ops *ops;

	if (fd > INT_MAX)
		return -EBADF;
	ops = bpf_fuse_ops_get_fd(fd);
	if (IS_ERR(ops))
		return PTR_ERR(ops);
	e->ops = ops;
	e->bpf_action = FUSE_BPF_SET;
	return 0;
}

static int fuse_bpf_entry_one(struct fuse_conn *fc, struct fuse_bpf_entry *e,
			      const struct fuse_bpf_entry_out *out,
			      const struct fuse_args *args, bool via_ioctl)
{
	bool backing = out->entry_type == FUSE_ENTRY_BACKING ||
		       out->entry_type == FUSE_ENTRY_BACKING_ID ||
		       out->entry_type == FUSE_ENTRY_BACKING_NAME ||
		       out->entry_type == FUSE_ENTRY_REMOVE_BACKING;
	bool set_backing = out->entry_type == FUSE_ENTRY_BACKING ||
			   out->entry_type == FUSE_ENTRY_BACKING_ID;
	bool has_name = out->entry_type == FUSE_ENTRY_BPF ||
			out->entry_type == FUSE_ENTRY_BACKING_NAME;
	int err;

	if (out->unused || (!has_name && !set_backing && out->unused2))
		return -EINVAL;
	if (backing ? e->backing_action : e->bpf_action)
		return -EINVAL;
	/*
	 * A filter is the mounter's policy for the nodes below (root_bpf=),
	 * and a name probes the registry: giving or taking one is for a
	 * replier as privileged as for a backing descriptor.
	 */
	if (!backing && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (set_backing) {
		err = fuse_bpf_entry_daemon_ops(e, out->daemon_ops);
		if (err)
			return err;
	}

	switch (out->entry_type) {
	case FUSE_ENTRY_BACKING:
		if (!via_ioctl)
			return -EINVAL;
		return fuse_bpf_entry_backing_fd(fc, e, out->fd);
	case FUSE_ENTRY_BACKING_ID:
		return fuse_bpf_entry_backing_id(fc, e, out->fd);
	case FUSE_ENTRY_BACKING_NAME:
		return fuse_bpf_entry_backing_name(fc, e, out, args->nodeid);
	case FUSE_ENTRY_REMOVE_BACKING:
		if (out->fd)
			return -EINVAL;
		e->backing_action = FUSE_BPF_REMOVE;
		return 0;
	case FUSE_ENTRY_BPF:
		return fuse_bpf_entry_bpf_name(e, out);
	case FUSE_ENTRY_BPF_FD:
		if (!via_ioctl)
			return -EINVAL;
		return fuse_bpf_entry_bpf_fd(e, out->fd);
	case FUSE_ENTRY_REMOVE_BPF:
		if (out->fd)
			return -EINVAL;
		e->bpf_action = FUSE_BPF_REMOVE;
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * The filter of the directory a request was made in (a LOOKUP's, a
 * MKDIR's...), which a node it gives a backing and no filter entry
 * inherits, as nodes the kernel makes do.  A directory the kernel made and
 * introduced to the daemon is not found by its node id: its children
 * inherit nothing.
 */
static struct fuse_ops *fuse_bpf_parent_ops(struct fuse_conn *fc, u64 nodeid)
{
	struct fuse_ops *ops;
	struct inode *dir;

	/* As the daemon's notifications find and drop their inodes */
	down_read(&fc->killsb);
	dir = fuse_ilookup(fc, nodeid, NULL);
	ops = dir ? bpf_fuse_ops_tryget(fuse_bpf_node_ops(dir)) : NULL;
	iput(dir);
	up_read(&fc->killsb);
	return ops;
}

/**
 * fuse_bpf_entry_reply() - check and resolve the entries of a LOOKUP reply
 * @fc: the connection
 * @args: the request, its reply copied in
 * @via_ioctl: the reply came through FUSE_DEV_IOC_BPF_RESPONSE
 *
 * Called in the context of the daemon writing the reply, so descriptors
 * are the daemon's.  On error nothing is kept and the lookup fails.  A
 * request not set up by fuse_bpf_entry_init(), or a reply without entries,
 * has nothing to check.
 *
 * Context: process context, may sleep.
 *
 * Return: 0 or the errno the daemon's write or ioctl returns.
 */
int fuse_bpf_entry_reply(struct fuse_conn *fc, struct fuse_args *args,
			 bool via_ioctl)
{
	struct fuse_bpf_entry *e = args->bpf_entry;
	const struct fuse_entry_out *entry = args->out_args[0].value;
	unsigned int size = args->out_args[1].size;
	unsigned int i;
	int err = 0;

	if (!e || !size)
		return 0;
	if (size % sizeof(e->out[0]) || !entry->nodeid)
		return -EINVAL;
	for (i = 0; !err && i < size / sizeof(e->out[0]); i++)
		err = fuse_bpf_entry_one(fc, e, &e->out[i], args, via_ioctl);
	if (!err && e->backing.dentry &&
	    (d_inode(e->backing.dentry)->i_mode ^ entry->attr.mode) & S_IFMT)
		err = -EINVAL;
	if (err)
		fuse_bpf_entry_put(e);
	else if (e->backing_action == FUSE_BPF_SET &&
		 e->bpf_action == FUSE_BPF_KEEP)
		e->parent_ops = fuse_bpf_parent_ops(fc, args->nodeid);
	return err;
}

static bool fuse_bpf_entry_same(struct inode *inode,
				const struct fuse_bpf_entry *e)
{
	struct dentry *lower = fuse_bpf_dentry(inode);
	struct fuse_ops *ops = fuse_bpf_node_ops(inode);

	if (e->backing_action == FUSE_BPF_REMOVE && lower)
		return false;
	if (e->backing_action == FUSE_BPF_SET &&
	    (!lower || d_inode(lower) != d_inode(e->backing.dentry) ||
	     get_fuse_inode(inode)->bpf_daemon_ops != e->daemon_ops))
		return false;
	if (e->bpf_action == FUSE_BPF_REMOVE && ops)
		return false;
	return e->bpf_action != FUSE_BPF_SET || ops == e->ops;
}

/**
 * fuse_bpf_entry_replaces() - does a reply change the backing or filter?
 * @inode: the inode of the reply's node id
 * @e: the reply's entries, or NULL
 *
 * When it does, @e takes what it leaves as it is from @inode, for the new
 * inode to have.
 *
 * Return: true if @e changes the backing, its daemon_ops or the filter of
 * @inode: the node id then needs a new inode; false if @e is NULL or
 * leaves @inode as it is.
 */
bool fuse_bpf_entry_replaces(struct inode *inode, struct fuse_bpf_entry *e)
{
	struct fuse_inode *fi = get_fuse_inode(inode);

	if (!e || fuse_bpf_entry_same(inode, e))
		return false;
	if (e->backing_action == FUSE_BPF_KEEP && fi->backing_path.dentry) {
		e->backing = fi->backing_path;
		path_get(&e->backing);
		e->backing_action = FUSE_BPF_SET;
		e->daemon_ops = fi->bpf_daemon_ops;
	}
	if (e->bpf_action == FUSE_BPF_KEEP && fi->bpf_ops) {
		e->ops = bpf_fuse_ops_tryget(fi->bpf_ops);
		e->bpf_action = FUSE_BPF_SET;
	} else if (e->bpf_action == FUSE_BPF_KEEP) {
		/* A node without a filter does not inherit one by a change */
		e->bpf_action = FUSE_BPF_REMOVE;
	}
	return true;
}

/**
 * fuse_bpf_entry_attach() - give a new inode the backing and filter of a reply
 * @inode: the new inode (I_NEW), of a node id the daemon gave
 * @e: the reply's entries, or NULL
 *
 * A filter entry is given even to a node without backing.  A backed node
 * with no filter entry takes the filter of the directory the request was
 * made in.  The node keeps the daemon's generation.
 *
 * Return: true if @inode is now backed (and set up from the backing
 * inode), false if it is a daemon's node as any other.
 */
bool fuse_bpf_entry_attach(struct inode *inode, struct fuse_bpf_entry *e)
{
	struct fuse_inode *fi = get_fuse_inode(inode);
	u32 generation = inode->i_generation;
	struct vfsmount *mnt;

	if (!e)
		return false;
	if (e->bpf_action == FUSE_BPF_SET) {
		fi->bpf_ops = e->ops;
		e->ops = NULL;
	}
	if (e->backing_action != FUSE_BPF_SET)
		return false;
	if (e->bpf_action == FUSE_BPF_KEEP) {
		fi->bpf_ops = e->parent_ops;
		e->parent_ops = NULL;
	}
	fi->backing_path.dentry = e->backing.dentry;
	fi->bpf_daemon_ops = e->daemon_ops;
	mnt = e->backing.mnt;
	fuse_bpf_init_inode(inode, mnt);
	mntput(mnt);
	e->backing.dentry = NULL;
	e->backing.mnt = NULL;
	/* The daemon's node: fuse_iget() checks the daemon's generation */
	inode->i_generation = generation;
	return true;
}

/*
 * A node the kernel made (FUSE_BPF_NODEID_BIT) whose operation goes to the
 * daemon is first introduced to it: a LOOKUP of its name in its parent,
 * itself introduced first, up to a node the daemon gave.  The reply's node
 * id becomes the node's, with one lookup, as for any node the daemon named:
 * the daemon gets its FORGET when the node is evicted.  The reply carries
 * no FUSE-BPF entries: the node keeps its backing and filter.  Racing
 * introductions each take a lookup of the id; a reply naming another id
 * than the one the node took is forgotten at once.
 */
static int fuse_bpf_introduce_one(struct dentry *entry, struct dentry *parent)
{
	struct inode *inode = d_inode(entry);
	struct fuse_mount *fm = get_fuse_mount(inode);
	struct fuse_inode *fi = get_fuse_inode(inode);
	struct fuse_forget_link *forget;
	struct name_snapshot name;
	struct fuse_entry_out out;
	struct fuse_args args = {};
	bool taken = false;
	int err;

	forget = fuse_alloc_forget();
	if (!forget)
		return -ENOMEM;
	take_dentry_name_snapshot(&name, entry);
	fuse_lookup_init(fm->fc, &args, get_node_id(d_inode(parent)),
			 &name.name, &out);
	err = fuse_simple_request(fm, &args);
	release_dentry_name_snapshot(&name);
	if (!err && (invalid_nodeid(out.nodeid) ||
		     fuse_kernel_nodeid(out.nodeid) ||
		     (out.attr.mode ^ inode->i_mode) & S_IFMT))
		err = -EIO;
	if (err) {
		if (out.nodeid && !fuse_kernel_nodeid(out.nodeid))
			fuse_queue_forget(fm->fc, forget, out.nodeid, 1);
		else
			kfree(forget);
		return err;
	}
	spin_lock(&fi->lock);
	if (fuse_kernel_nodeid(fi->nodeid))
		WRITE_ONCE(fi->nodeid, out.nodeid);
	if (fi->nodeid == out.nodeid) {
		fi->nlookup++;
		taken = true;
	}
	spin_unlock(&fi->lock);
	if (taken)
		kfree(forget);
	else
		fuse_queue_forget(fm->fc, forget, out.nodeid, 1);
	return 0;
}

/**
 * fuse_bpf_introduce() - give a node the kernel made a node id of the daemon
 * @inode: the node of an operation a filter sends to the daemon
 *
 * Each node the kernel made, from below the nearest one the daemon knows
 * down to @inode, is looked up by name in its parent; the reply's node id
 * becomes the node's.  A node the daemon gave needs nothing.
 *
 * Context: process context, may sleep: waits for the daemon's replies.
 *
 * Return: 0, or the error of a LOOKUP on the way (-ESTALE for a node with
 * no name left).
 */
int fuse_bpf_introduce(struct inode *inode)
{
	struct dentry *alias, *entry, *parent;
	int err = 0;

	if (!fuse_kernel_nodeid(get_node_id(inode)))
		return 0;
	alias = d_find_alias(inode);
	if (!alias)
		return -ESTALE;
	while (!err && fuse_kernel_nodeid(get_node_id(inode))) {
		/* The node below the nearest one the daemon knows */
		entry = dget(alias);
		for (;;) {
			parent = dget_parent(entry);
			if (parent == entry ||
			    !fuse_kernel_nodeid(get_node_id(d_inode(parent))))
				break;
			dput(entry);
			entry = parent;
		}
		err = parent == entry ? -ESTALE :
		      fuse_bpf_introduce_one(entry, parent);
		dput(parent);
		dput(entry);
	}
	dput(alias);
	return err;
}
