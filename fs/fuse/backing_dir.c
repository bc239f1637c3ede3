// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE-BPF: names and directories of backed nodes.
 */

#include "fuse_i.h"

#include <linux/backing-file.h>
#include <linux/file.h>
#include <linux/namei.h>

static struct mnt_idmap *fuse_bpf_idmap(struct inode *inode)
{
	return mnt_idmap(fuse_bpf_path(inode)->mnt);
}

/* Lookup */

struct fuse_bpf_lookup {
	struct fuse_bpf_req req;
	struct dentry *entry;
	struct dentry *lower;
	struct dentry *res;
};

static int fuse_bpf_lookup_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_lookup *l = container_of(req, typeof(*l), req);

	fuse_bpf_arg_in(req, l->entry->d_name.len + 1, l->entry->d_name.name);
	return 0;
}

static int fuse_bpf_lookup_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_lookup *l = container_of(req, typeof(*l), req);
	const struct qstr *name = &l->entry->d_name;

	l->lower = lookup_one_len_unlocked(name->name,
					   fuse_bpf_dentry(req->inode),
					   name->len);
	return PTR_ERR_OR_ZERO(l->lower);
}

static int fuse_bpf_lookup_finish(struct fuse_bpf_req *req, int err)
{
	struct fuse_bpf_lookup *l = container_of(req, typeof(*l), req);
	struct path path = { .mnt = fuse_bpf_path(req->inode)->mnt };
	struct inode *inode = NULL;

	if (err)
		return err;
	path.dentry = l->lower;
	if (d_really_is_positive(l->lower))
		inode = fuse_bpf_iget(req->inode->i_sb, &path);
	dput(l->lower);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	l->res = d_splice_alias(inode, l->entry);
	return PTR_ERR_OR_ZERO(l->res);
}

const struct fuse_bpf_op fuse_bpf_lookup_op = {
	.setup = fuse_bpf_lookup_setup,
	.backing = fuse_bpf_lookup_backing,
	.finish = fuse_bpf_lookup_finish,
};

bool fuse_bpf_lookup(struct dentry **res, struct inode *dir,
		     struct dentry *entry, unsigned int flags)
{
	struct fuse_bpf_lookup l = {
		.req = FUSE_BPF_REQ(FUSE_LOOKUP, dir),
		.entry = entry,
	};
	int err;

	if (!fuse_bpf_backed(dir))
		return false;
	err = fuse_bpf_run(&l.req);
	*res = err ? ERR_PTR(err) : l.res;
	return true;
}

/*
 * A dentry of a backed directory is valid while the lower directory still
 * has the same inode (or none) under that name.  The common case, the
 * lower dentry of the inode itself still sitting under that name, is
 * checked without blocking: the lower name under its d_lock, ours as the
 * dcache's own RCU lookup reads it, with no lock and no store: the name
 * pointer once, its bytes up to the lower name's length and the NUL that
 * ends every dentry name (so no read past its end), inside a d_seq read
 * section that a racing d_move() makes fail.
 */
static bool fuse_bpf_same_name(struct dentry *entry, struct dentry *lower,
			       struct dentry *lower_parent)
{
	unsigned int seq = raw_seqcount_begin(&entry->d_seq);
	const unsigned char *cs = READ_ONCE(entry->d_name.name);
	unsigned int i;
	bool same;

	spin_lock(&lower->d_lock);
	same = !d_unhashed(lower) && lower->d_parent == lower_parent;
	for (i = 0; same && i < lower->d_name.len; i++)
		same = cs[i] == lower->d_name.name[i];
	same = same && !cs[i];
	spin_unlock(&lower->d_lock);
	return same && !read_seqcount_retry(&entry->d_seq, seq);
}

/* Look the name up again in the lower directory: ref-walk only */
static int fuse_bpf_revalidate_slow(struct dentry *entry, struct inode *inode)
{
	struct dentry *parent = dget_parent(entry);
	struct inode *dir = d_inode(parent);
	struct name_snapshot name;
	const struct cred *old;
	struct dentry *lower;
	int valid = 0;

	if (!fuse_bpf_backed(dir))
		goto out;
	take_dentry_name_snapshot(&name, entry);
	old = fuse_bpf_override_creds(dir);
	lower = lookup_one_len_unlocked(name.name.name, fuse_bpf_dentry(dir),
					name.name.len);
	revert_creds(old);
	release_dentry_name_snapshot(&name);
	if (IS_ERR(lower)) {
		valid = PTR_ERR(lower) == -ENOENT ? 0 : PTR_ERR(lower);
		goto out;
	}
	if (inode)
		valid = d_inode(lower) == fuse_bpf_inode(inode);
	else
		valid = d_is_negative(lower);
	dput(lower);
	if (valid > 0 && inode)
		fuse_bpf_copyattr(inode);
out:
	dput(parent);
	return valid;
}

/*
 * The parent (a rename may move the entry away from it) and, in RCU walk,
 * the inodes may be going away under us: each pointer is read once under
 * RCU.  Returns -1 when the parent is not backed (or no longer is: a
 * parent under eviction), 1 when the fast check holds, 0 when the name
 * must be looked up again.
 */
static int fuse_bpf_revalidate_fast(struct dentry *entry, struct inode *inode,
				    unsigned int flags)
{
	struct dentry *lower_parent, *lower = NULL;
	struct inode *dir;
	int valid = -1;

	rcu_read_lock();
	dir = d_inode_rcu(READ_ONCE(entry->d_parent));
	lower_parent = dir ? fuse_bpf_dentry_rcu(dir) : NULL;
	if (lower_parent) {
		if (inode)
			lower = fuse_bpf_dentry_rcu(inode);
		valid = lower && fuse_bpf_same_name(entry, lower, lower_parent);
		/* An inode seen in RCU walk may be under eviction */
		if (valid && !(flags & LOOKUP_RCU))
			fuse_bpf_copyattr(inode);
	}
	rcu_read_unlock();
	return valid;
}

/*
 * A lower filesystem with a d_revalidate of its own (NFS, FUSE, FUSE-BPF)
 * is asked too, as ovl_revalidate_real() does, with the backing
 * credentials: its dentry may be stale although still hashed under the
 * name.
 */
static int fuse_bpf_revalidate_lower(struct inode *inode, unsigned int flags)
{
	struct dentry *lower = fuse_bpf_dentry_rcu(inode);
	const struct cred *old;
	int ret;

	if (!lower)
		return -ECHILD;
	if (!(lower->d_flags & DCACHE_OP_REVALIDATE))
		return 1;
	old = fuse_bpf_override_creds(inode);
	ret = lower->d_op->d_revalidate(lower, flags);
	revert_creds(old);
	if (!ret && !(flags & LOOKUP_RCU))
		d_invalidate(lower);
	return ret;
}

bool fuse_bpf_revalidate(int *ret, struct dentry *entry, unsigned int flags)
{
	struct inode *inode = d_inode_rcu(entry);
	int valid = fuse_bpf_revalidate_fast(entry, inode, flags);

	/*
	 * Not a backed parent: the daemon's node, unless this is a backed
	 * superblock, whose nodes the daemon never heard of (a parent under
	 * eviction in RCU walk): walk again, or look the name up again.
	 */
	if (valid < 0 && !get_fuse_conn_super(entry->d_sb)->backing_cred)
		return false;
	if (valid < 0)
		*ret = flags & LOOKUP_RCU ? -ECHILD : 0;
	else if (valid)
		*ret = fuse_bpf_revalidate_lower(inode, flags);
	else if (flags & LOOKUP_RCU)
		*ret = -ECHILD;
	else
		*ret = fuse_bpf_revalidate_slow(entry, inode);
	return true;
}

/*
 * Making entries: create, mknod, mkdir, symlink, link.  The backing step
 * makes the lower entry under the lower directory's lock; finish gives the
 * FUSE dentry the FUSE inode of the result.
 */

struct fuse_bpf_make {
	struct fuse_bpf_req req;
	struct dentry *entry;
	union {
		struct fuse_create_in create;
		struct fuse_mknod_in mknod;
		struct fuse_mkdir_in mkdir;
		struct fuse_link_in link;
	} in;
	const char *symlink;	/* FUSE_SYMLINK: the target */
	struct dentry *old;	/* FUSE_LINK: the existing entry */
	bool excl;
	struct path made;
};

static int fuse_bpf_make_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_make *m = container_of(req, typeof(*m), req);
	const struct qstr *name = &m->entry->d_name;

	switch (req->args.opcode) {
	case FUSE_CREATE:
		fuse_bpf_arg_in(req, sizeof(m->in.create), &m->in.create);
		break;
	case FUSE_MKNOD:
		fuse_bpf_arg_in(req, sizeof(m->in.mknod), &m->in.mknod);
		break;
	case FUSE_MKDIR:
		fuse_bpf_arg_in(req, sizeof(m->in.mkdir), &m->in.mkdir);
		break;
	case FUSE_LINK:
		fuse_bpf_arg_in(req, sizeof(m->in.link), &m->in.link);
		break;
	}
	fuse_bpf_arg_in(req, name->len + 1, name->name);
	if (m->symlink)
		fuse_bpf_arg_in(req, strlen(m->symlink) + 1, m->symlink);
	return 0;
}

static int fuse_bpf_make_lower(struct fuse_bpf_make *m, struct inode *ldir,
			       struct dentry *child)
{
	struct mnt_idmap *idmap = fuse_bpf_idmap(m->req.inode);

	switch (m->req.args.opcode) {
	case FUSE_CREATE:
		return vfs_create(idmap, ldir, child, m->in.create.mode,
				  m->excl);
	case FUSE_MKNOD:
		return vfs_mknod(idmap, ldir, child, m->in.mknod.mode,
				 new_decode_dev(m->in.mknod.rdev));
	case FUSE_MKDIR:
		return vfs_mkdir(idmap, ldir, child, m->in.mkdir.mode);
	case FUSE_SYMLINK:
		return vfs_symlink(idmap, ldir, child, m->symlink);
	case FUSE_LINK:
		return vfs_link(fuse_bpf_dentry(d_inode(m->old)), idmap, ldir,
				child, NULL);
	}
	return -EOPNOTSUPP;
}

static int fuse_bpf_make_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_make *m = container_of(req, typeof(*m), req);
	struct dentry *parent = fuse_bpf_dentry(req->inode);
	struct inode *ldir = d_inode(parent);
	struct dentry *child;
	int err;

	inode_lock_nested(ldir, I_MUTEX_PARENT);
	child = fuse_bpf_lookup_child(parent, &m->entry->d_name);
	err = PTR_ERR(child);
	if (IS_ERR(child))
		goto out;
	err = -EEXIST;
	if (d_is_positive(child))
		goto out_dput;
	err = fuse_bpf_make_lower(m, ldir, child);
	if (err)
		goto out_dput;
	/* Some filesystems leave the new dentry unhashed: look it up again. */
	if (d_unhashed(child) || d_is_negative(child)) {
		dput(child);
		child = fuse_bpf_lookup_child(parent, &m->entry->d_name);
		err = PTR_ERR(child);
		if (IS_ERR(child))
			goto out;
		err = -ENOENT;
		if (d_is_negative(child))
			goto out_dput;
	}
	m->made.dentry = dget(child);
	m->made.mnt = fuse_bpf_path(req->inode)->mnt;
	err = 0;
out_dput:
	dput(child);
out:
	inode_unlock(ldir);
	return err;
}

static int fuse_bpf_make_finish(struct fuse_bpf_req *req, int err)
{
	struct fuse_bpf_make *m = container_of(req, typeof(*m), req);
	struct inode *inode;

	fuse_bpf_copyattr(req->inode);
	if (err)
		return err;
	if (m->old) {
		inode = d_inode(m->old);
		ihold(inode);
		fuse_bpf_copyattr(inode);
	} else {
		inode = fuse_bpf_iget(req->inode->i_sb, &m->made);
	}
	dput(m->made.dentry);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	d_instantiate(m->entry, inode);
	return 0;
}

#define FUSE_BPF_MAKE_OP(flags_)		\
{						\
	.setup = fuse_bpf_make_setup,		\
	.backing = fuse_bpf_make_backing,	\
	.finish = fuse_bpf_make_finish,		\
	.flags = (flags_),			\
}

const struct fuse_bpf_op fuse_bpf_create_op =
	FUSE_BPF_MAKE_OP(FUSE_BPF_WRITE | FUSE_BPF_AS_CALLER);
const struct fuse_bpf_op fuse_bpf_mknod_op =
	FUSE_BPF_MAKE_OP(FUSE_BPF_WRITE | FUSE_BPF_AS_CALLER);
const struct fuse_bpf_op fuse_bpf_mkdir_op =
	FUSE_BPF_MAKE_OP(FUSE_BPF_WRITE | FUSE_BPF_AS_CALLER);
const struct fuse_bpf_op fuse_bpf_symlink_op =
	FUSE_BPF_MAKE_OP(FUSE_BPF_WRITE | FUSE_BPF_AS_CALLER);
const struct fuse_bpf_op fuse_bpf_link_op = FUSE_BPF_MAKE_OP(FUSE_BPF_WRITE);

static bool fuse_bpf_make(int *err, struct fuse_bpf_make *m)
{
	if (!fuse_bpf_backed(m->req.inode))
		return false;
	*err = fuse_bpf_run(&m->req);
	return true;
}

bool fuse_bpf_create(int *err, struct inode *dir, struct dentry *entry,
		     umode_t mode, bool excl)
{
	struct fuse_bpf_make m = {
		.req = FUSE_BPF_REQ(FUSE_CREATE, dir),
		.entry = entry,
		.in.create = { .mode = mode, .umask = current_umask() },
		.excl = excl,
	};

	return fuse_bpf_make(err, &m);
}

bool fuse_bpf_mknod(int *err, struct inode *dir, struct dentry *entry,
		    umode_t mode, dev_t rdev)
{
	struct fuse_bpf_make m = {
		.req = FUSE_BPF_REQ(FUSE_MKNOD, dir),
		.entry = entry,
		.in.mknod = {
			.mode = mode,
			.rdev = new_encode_dev(rdev),
			.umask = current_umask(),
		},
	};

	return fuse_bpf_make(err, &m);
}

bool fuse_bpf_mkdir(int *err, struct inode *dir, struct dentry *entry,
		    umode_t mode)
{
	struct fuse_bpf_make m = {
		.req = FUSE_BPF_REQ(FUSE_MKDIR, dir),
		.entry = entry,
		.in.mkdir = { .mode = mode, .umask = current_umask() },
	};

	return fuse_bpf_make(err, &m);
}

bool fuse_bpf_symlink(int *err, struct inode *dir, struct dentry *entry,
		      const char *link)
{
	struct fuse_bpf_make m = {
		.req = FUSE_BPF_REQ(FUSE_SYMLINK, dir),
		.entry = entry,
		.symlink = link,
	};

	return fuse_bpf_make(err, &m);
}

bool fuse_bpf_link(int *err, struct dentry *old, struct inode *dir,
		   struct dentry *entry)
{
	struct fuse_bpf_make m = {
		.req = FUSE_BPF_REQ(FUSE_LINK, dir),
		.entry = entry,
		.old = old,
	};

	if (!fuse_bpf_backed(dir))
		return false;
	if (!fuse_bpf_backed(d_inode(old))) {
		*err = -EXDEV;
		return true;
	}
	m.in.link.oldnodeid = get_node_id(d_inode(old));
	return fuse_bpf_make(err, &m);
}

/* unlink, rmdir */

struct fuse_bpf_remove {
	struct fuse_bpf_req req;
	struct dentry *entry;
};

static int fuse_bpf_remove_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_remove *r = container_of(req, typeof(*r), req);

	fuse_bpf_arg_in(req, r->entry->d_name.len + 1, r->entry->d_name.name);
	return 0;
}

/*
 * Removals and renames act on the lower names as they are now, under the
 * lower directory's lock, on the inodes the VFS made its checks on
 * (sticky directory, append-only or immutable victim, directory or not):
 * those of our dentries.  A lower name that now holds another inode, or
 * an inode where our dentry is negative, or none where it is positive
 * (a target the VFS would mark dead), gives -ESTALE: the VFS walks again
 * with LOOKUP_REVAL, d_revalidate corrects our dentry, and the call is
 * retried once, checked on the inode now there.  A source gone from the
 * lower directory gives -ENOENT.  In-kernel callers that do not retry
 * (a stacked filesystem above) see the -ESTALE.
 */
static int fuse_bpf_check_child(struct dentry *child, struct dentry *entry,
				bool source)
{
	struct inode *inode = d_inode(entry);

	if (d_is_negative(child))
		return source ? -ENOENT : inode ? -ESTALE : 0;
	if (!inode || !fuse_bpf_backed(inode) ||
	    d_inode(child) != fuse_bpf_inode(inode))
		return -ESTALE;
	return 0;
}

static int fuse_bpf_remove_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_remove *r = container_of(req, typeof(*r), req);
	struct dentry *parent = fuse_bpf_dentry(req->inode);
	struct inode *ldir = d_inode(parent);
	struct mnt_idmap *idmap = fuse_bpf_idmap(req->inode);
	struct dentry *child;
	int err;

	inode_lock_nested(ldir, I_MUTEX_PARENT);
	child = fuse_bpf_lookup_child(parent, &r->entry->d_name);
	err = PTR_ERR(child);
	if (IS_ERR(child))
		goto out;
	err = fuse_bpf_check_child(child, r->entry, true);
	if (!err && req->args.opcode == FUSE_RMDIR)
		err = vfs_rmdir(idmap, ldir, child);
	else if (!err)
		err = vfs_unlink(idmap, ldir, child, NULL);
	dput(child);
out:
	inode_unlock(ldir);
	return err;
}

static int fuse_bpf_remove_finish(struct fuse_bpf_req *req, int err)
{
	struct fuse_bpf_remove *r = container_of(req, typeof(*r), req);

	fuse_bpf_copyattr(req->inode);
	if (d_really_is_positive(r->entry) && fuse_bpf_backed(d_inode(r->entry)))
		fuse_bpf_copyattr(d_inode(r->entry));
	return err;
}

const struct fuse_bpf_op fuse_bpf_unlink_op = {
	.setup = fuse_bpf_remove_setup,
	.backing = fuse_bpf_remove_backing,
	.finish = fuse_bpf_remove_finish,
	.flags = FUSE_BPF_WRITE,
};

const struct fuse_bpf_op fuse_bpf_rmdir_op = {
	.setup = fuse_bpf_remove_setup,
	.backing = fuse_bpf_remove_backing,
	.finish = fuse_bpf_remove_finish,
	.flags = FUSE_BPF_WRITE,
};

static bool fuse_bpf_remove(int *err, u32 opcode, struct inode *dir,
			    struct dentry *entry)
{
	struct fuse_bpf_remove r = {
		.req = FUSE_BPF_REQ(opcode, dir),
		.entry = entry,
	};

	if (!fuse_bpf_backed(dir))
		return false;
	*err = fuse_bpf_run(&r.req);
	return true;
}

bool fuse_bpf_unlink(int *err, struct inode *dir, struct dentry *entry)
{
	return fuse_bpf_remove(err, FUSE_UNLINK, dir, entry);
}

bool fuse_bpf_rmdir(int *err, struct inode *dir, struct dentry *entry)
{
	return fuse_bpf_remove(err, FUSE_RMDIR, dir, entry);
}

/* rename */

struct fuse_bpf_rename {
	struct fuse_bpf_req req;
	struct fuse_rename2_in in;
	struct inode *newdir;
	struct dentry *oldent;
	struct dentry *newent;
};

static int fuse_bpf_rename_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_rename *r = container_of(req, typeof(*r), req);

	fuse_bpf_arg_in(req, sizeof(r->in), &r->in);
	fuse_bpf_arg_in(req, r->oldent->d_name.len + 1, r->oldent->d_name.name);
	fuse_bpf_arg_in(req, r->newent->d_name.len + 1, r->newent->d_name.name);
	return 0;
}

static int fuse_bpf_rename_lower(struct fuse_bpf_rename *r,
				 struct dentry *lold, struct dentry *lnew,
				 struct dentry *trap)
{
	struct mnt_idmap *idmap = fuse_bpf_idmap(r->req.inode);
	struct renamedata rd = {
		.old_mnt_idmap = idmap,
		.old_dir = d_inode(fuse_bpf_dentry(r->req.inode)),
		.old_dentry = lold,
		.new_mnt_idmap = idmap,
		.new_dir = d_inode(fuse_bpf_dentry(r->newdir)),
		.new_dentry = lnew,
		.flags = r->in.flags,
	};
	int err;

	err = fuse_bpf_check_child(lold, r->oldent, true);
	if (!err)
		err = fuse_bpf_check_child(lnew, r->newent, false);
	if (err)
		return err;
	/* The VFS checked these on our dentries; the lower ones may differ. */
	if ((r->in.flags & RENAME_EXCHANGE) && d_is_negative(lnew))
		return -ENOENT;
	if ((r->in.flags & RENAME_NOREPLACE) && d_is_positive(lnew))
		return -EEXIST;
	/* As do_renameat2(): the target may not be an ancestor of the source */
	if (lold == trap)
		return -EINVAL;
	if (lnew == trap)
		return r->in.flags & RENAME_EXCHANGE ? -EINVAL : -ENOTEMPTY;
	return vfs_rename(&rd);
}

static int fuse_bpf_rename_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_rename *r = container_of(req, typeof(*r), req);
	struct dentry *lolddir = fuse_bpf_dentry(req->inode);
	struct dentry *lnewdir = fuse_bpf_dentry(r->newdir);
	struct dentry *trap, *lold, *lnew;
	int err;

	trap = lock_rename(lnewdir, lolddir);
	if (IS_ERR(trap))
		return PTR_ERR(trap);
	lold = fuse_bpf_lookup_child(lolddir, &r->oldent->d_name);
	err = PTR_ERR(lold);
	if (IS_ERR(lold))
		goto out_unlock;
	lnew = fuse_bpf_lookup_child(lnewdir, &r->newent->d_name);
	err = PTR_ERR(lnew);
	if (!IS_ERR(lnew)) {
		err = fuse_bpf_rename_lower(r, lold, lnew, trap);
		dput(lnew);
	}
	dput(lold);
out_unlock:
	unlock_rename(lnewdir, lolddir);
	return err;
}

static int fuse_bpf_rename_finish(struct fuse_bpf_req *req, int err)
{
	struct fuse_bpf_rename *r = container_of(req, typeof(*r), req);

	fuse_bpf_copyattr(req->inode);
	fuse_bpf_copyattr(r->newdir);
	if (d_really_is_positive(r->oldent))
		fuse_bpf_copyattr(d_inode(r->oldent));
	if (d_really_is_positive(r->newent))
		fuse_bpf_copyattr(d_inode(r->newent));
	return err;
}

const struct fuse_bpf_op fuse_bpf_rename_op = {
	.setup = fuse_bpf_rename_setup,
	.backing = fuse_bpf_rename_backing,
	.finish = fuse_bpf_rename_finish,
	.flags = FUSE_BPF_WRITE,
};

bool fuse_bpf_rename(int *err, struct inode *olddir, struct dentry *oldent,
		     struct inode *newdir, struct dentry *newent,
		     unsigned int flags)
{
	struct fuse_bpf_rename r = {
		.req = FUSE_BPF_REQ(FUSE_RENAME2, olddir),
		.in = { .newdir = get_node_id(newdir), .flags = flags },
		.newdir = newdir,
		.oldent = oldent,
		.newent = newent,
	};

	if (!fuse_bpf_backed(olddir) && !fuse_bpf_backed(newdir))
		return false;
	if (!fuse_bpf_backed(olddir) || !fuse_bpf_backed(newdir))
		*err = -EXDEV;
	else
		*err = fuse_bpf_run(&r.req);
	return true;
}

/* O_TMPFILE */

struct fuse_bpf_tmpfile {
	struct fuse_bpf_req req;
	struct fuse_create_in in;
	struct file *file;
	struct file *lower;
};

static int fuse_bpf_tmpfile_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_tmpfile *t = container_of(req, typeof(*t), req);

	fuse_bpf_arg_in(req, sizeof(t->in), &t->in);
	return 0;
}

static int fuse_bpf_tmpfile_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_tmpfile *t = container_of(req, typeof(*t), req);

	t->lower = backing_tmpfile_open(t->file, t->in.flags,
					fuse_bpf_path(req->inode), t->in.mode,
					current_cred());
	return PTR_ERR_OR_ZERO(t->lower);
}

static int fuse_bpf_tmpfile_finish(struct fuse_bpf_req *req, int err)
{
	struct fuse_bpf_tmpfile *t = container_of(req, typeof(*t), req);
	struct inode *inode;

	if (err)
		return err;
	inode = fuse_bpf_iget(req->inode->i_sb, &t->lower->f_path);
	fput(t->lower);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	/*
	 * Not d_tmpfile(): it takes away the link a new inode is born with
	 * and dirties the inode.  A backed inode mirrors the lower link count
	 * (already 0) and is never dirty (see fuse_bpf_init_inode()).
	 */
	d_instantiate(t->file->f_path.dentry, inode);
	return finish_open_simple(t->file, 0);
}

const struct fuse_bpf_op fuse_bpf_tmpfile_op = {
	.setup = fuse_bpf_tmpfile_setup,
	.backing = fuse_bpf_tmpfile_backing,
	.finish = fuse_bpf_tmpfile_finish,
	.flags = FUSE_BPF_WRITE | FUSE_BPF_AS_CALLER,
};

bool fuse_bpf_tmpfile(int *err, struct inode *dir, struct file *file,
		      umode_t mode)
{
	struct fuse_bpf_tmpfile t = {
		.req = FUSE_BPF_REQ(FUSE_TMPFILE, dir),
		.in = {
			.mode = mode,
			.flags = file->f_flags,
			.umask = current_umask(),
		},
		.file = file,
	};

	if (!fuse_bpf_backed(dir))
		return false;
	*err = fuse_bpf_run(&t.req);
	return true;
}

/* Create and open in one go. */
bool fuse_bpf_atomic_open(int *err, struct inode *dir, struct dentry *entry,
			  struct file *file, unsigned int flags, umode_t mode)
{
	struct dentry *res = NULL;

	if (!fuse_bpf_backed(dir))
		return false;
	if (d_in_lookup(entry)) {
		fuse_bpf_lookup(&res, dir, entry, 0);
		if (IS_ERR(res)) {
			*err = PTR_ERR(res);
			return true;
		}
		if (res)
			entry = res;
	}
	if (!(flags & O_CREAT) || d_really_is_positive(entry)) {
		*err = finish_no_open(file, res);
		return true;
	}
	file->f_mode |= FMODE_CREATED;
	fuse_bpf_create(err, dir, entry, mode, flags & O_EXCL);
	/*
	 * The name appeared on the lower filesystem since our lookup.  Without
	 * O_EXCL that is an open, not an error: -ESTALE makes the VFS walk
	 * again with LOOKUP_REVAL, and d_revalidate sees the new entry.
	 */
	if (*err == -EEXIST && !(flags & O_EXCL))
		*err = -ESTALE;
	if (!*err)
		*err = finish_open(file, entry, NULL);
	dput(res);
	return true;
}

/* readlink */

struct fuse_bpf_readlink {
	struct fuse_bpf_req req;
	struct delayed_call *done;
	const char *link;
};

static int fuse_bpf_readlink_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_readlink *r = container_of(req, typeof(*r), req);

	r->link = vfs_get_link(fuse_bpf_dentry(req->inode), r->done);
	return PTR_ERR_OR_ZERO(r->link);
}

const struct fuse_bpf_op fuse_bpf_readlink_op = {
	.backing = fuse_bpf_readlink_backing,
};

bool fuse_bpf_get_link(const char **res, struct dentry *entry,
		       struct inode *inode, struct delayed_call *done)
{
	struct fuse_bpf_readlink r = {
		.req = FUSE_BPF_REQ(FUSE_READLINK, inode),
		.done = done,
	};
	int err;

	if (!fuse_bpf_backed(inode))
		return false;
	if (!entry) {
		*res = ERR_PTR(-ECHILD);
		return true;
	}
	err = fuse_bpf_run(&r.req);
	*res = err ? ERR_PTR(err) : r.link;
	return true;
}

/* Directories: open and read */

struct fuse_bpf_open {
	struct fuse_bpf_req req;
	struct fuse_open_in in;
	struct fuse_open_out out;
	struct file *file;
};

static int fuse_bpf_open_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_open *o = container_of(req, typeof(*o), req);

	fuse_bpf_arg_in(req, sizeof(o->in), &o->in);
	fuse_bpf_arg_out(req, sizeof(o->out), &o->out);
	return 0;
}

static int fuse_bpf_open_step(struct fuse_bpf_req *req)
{
	struct fuse_bpf_open *o = container_of(req, typeof(*o), req);
	struct fuse_mount *fm = get_fuse_mount(req->inode);
	struct fuse_file *ff;
	struct file *lower;

	ff = fuse_file_alloc(fm, false);
	if (!ff)
		return -ENOMEM;
	/* Writes through the file take space for the opener */
	if (S_ISREG(req->inode->i_mode) && (o->file->f_mode & FMODE_WRITE))
		ff->cred = fuse_bpf_get_caller_creds(req->caller);
	else
		ff->cred = get_cred(current_cred());
	lower = ff->cred ? fuse_bpf_open_backing(req->inode, o->file) :
			   ERR_PTR(-ENOMEM);
	if (IS_ERR(lower)) {
		if (ff->cred)
			put_cred(ff->cred);
		fuse_file_free(ff);
		return PTR_ERR(lower);
	}
	ff->nodeid = get_node_id(req->inode);
	ff->passthrough = lower;
	o->file->private_data = ff;
	return 0;
}

const struct fuse_bpf_op fuse_bpf_opendir_op = {
	.setup = fuse_bpf_open_setup,
	.backing = fuse_bpf_open_step,
};

const struct fuse_bpf_op fuse_bpf_open_op = {
	.setup = fuse_bpf_open_setup,
	.backing = fuse_bpf_open_step,
};

bool fuse_bpf_open_common(int *err, u32 opcode, struct inode *inode,
			  struct file *file)
{
	struct fuse_bpf_open o = {
		.req = FUSE_BPF_REQ(opcode, inode),
		.in.flags = file->f_flags & ~(O_CREAT | O_EXCL | O_NOCTTY),
		.file = file,
	};

	if (!fuse_bpf_backed(inode))
		return false;
	*err = fuse_bpf_run(&o.req);
	return true;
}

bool fuse_bpf_opendir(int *err, struct inode *inode, struct file *file)
{
	return fuse_bpf_open_common(err, FUSE_OPENDIR, inode, file);
}

struct fuse_bpf_readdir {
	struct fuse_bpf_req req;
	struct fuse_read_in in;
	struct file *file;
	struct dir_context *ctx;
};

static int fuse_bpf_readdir_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_readdir *r = container_of(req, typeof(*r), req);

	fuse_bpf_arg_in(req, sizeof(r->in), &r->in);
	return 0;
}

/*
 * The lower directory's own offsets are ours: seek the backing file to
 * ctx->pos first, so telldir()/seekdir() work as on the lower directory.
 */
static int fuse_bpf_readdir_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_readdir *r = container_of(req, typeof(*r), req);
	struct file *lower = fuse_bpf_file(r->file);
	loff_t pos;

	if (lower->f_pos != r->ctx->pos) {
		pos = vfs_llseek(lower, r->ctx->pos, SEEK_SET);
		if (pos < 0)
			return pos;
	}
	return iterate_dir(lower, r->ctx);
}

const struct fuse_bpf_op fuse_bpf_readdir_op = {
	.setup = fuse_bpf_readdir_setup,
	.backing = fuse_bpf_readdir_backing,
};

bool fuse_bpf_readdir(int *err, struct file *file, struct dir_context *ctx)
{
	struct inode *inode = file_inode(file);
	struct fuse_bpf_readdir r = {
		.req = FUSE_BPF_REQ(FUSE_READDIR, inode),
		.in = { .offset = ctx->pos },
		.file = file,
		.ctx = ctx,
	};

	if (!fuse_bpf_backed(inode))
		return false;
	*err = fuse_bpf_run(&r.req);
	return true;
}
