// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE-BPF: names and directories of backed nodes.
 */

#include "fuse_i.h"

#include <linux/backing-file.h>
#include <linux/file.h>
#include <linux/filelock.h>
#include <linux/fsnotify.h>
#include <linux/namei.h>

/* Lookup */

struct fuse_bpf_lookup {
	struct fuse_bpf_req req;
	struct fuse_buffer name;
	struct fuse_entry_out out;
	struct fuse_buffer entries;	/* the daemon's: none here */
	struct dentry *entry;
	const struct qstr *qname;	/* entry's name, or a snapshot of it */
	struct dentry *lower;
	struct dentry *res;
	int valid;			/* revalidation's result */
	u64 attr_version;		/* before the daemon's postfilter */
	u64 evict_ctr;
};

static int fuse_bpf_lookup_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_lookup *l = container_of(req, typeof(*l), req);

	fuse_bpf_buf_name(req, &l->name, l->qname);
	fuse_bpf_arg_buf(req, &l->name);
	fuse_bpf_arg_out(req, sizeof(l->out), &l->out);
	l->entries.flags = BPF_FUSE_IMMUTABLE;
	return 0;
}

/*
 * Only the daemon's postfilter gives a node id (fuse_bpf_lookup_daemon()),
 * and only a filter of the lookup, on a mount with a daemon, can ask for
 * it: the counters fuse_lookup_name() reads before it asks the daemon are
 * read then, here, before anything is sent.
 */
static int fuse_bpf_lookup_pre(struct fuse_bpf_req *req,
			       const struct fuse_ops *ops)
{
	struct fuse_bpf_lookup *l = container_of(req, typeof(*l), req);
	struct fuse_conn *fc;

	if (!ops->lookup_prefilter && !ops->lookup_postfilter)
		return BPF_FUSE_CONTINUE;
	fc = get_fuse_conn(req->inode);
	if (!fc->no_daemon) {
		l->attr_version = fuse_get_attr_version(fc);
		l->evict_ctr = fuse_get_evict_ctr(fc);
	}
	if (!ops->lookup_prefilter)
		return BPF_FUSE_POSTFILTER;
	return ops->lookup_prefilter(&req->meta, &l->name);
}

/* The name looked up on the lower is the one the prefilter left. */
static int fuse_bpf_lookup_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_lookup *l = container_of(req, typeof(*l), req);
	struct dentry *lower;
	struct qstr name;
	int err;

	err = fuse_bpf_buf_qstr(&l->name, &name);
	if (err)
		return err;
	lower = lookup_one_len_unlocked(name.name, fuse_bpf_dentry(req->inode),
					name.len);
	if (IS_ERR(lower))
		return PTR_ERR(lower);
	l->lower = lower;
	if (d_really_is_negative(lower))
		req->meta.error_in = -ENOENT;
	else if (req->post)
		fuse_bpf_fill_attr(d_inode(lower), &l->out.attr);
	return 0;
}

static int fuse_bpf_lookup_post(struct fuse_bpf_req *req,
				const struct fuse_ops *ops)
{
	struct fuse_bpf_lookup *l = container_of(req, typeof(*l), req);

	int ret;

	if (!ops->lookup_postfilter)
		return 0;
	ret = ops->lookup_postfilter(&req->meta, &l->name, &l->out,
				     &l->entries);
	/*
	 * Node ids are the daemon's to give (its postfilter may): one a
	 * program made up could name another node's inode.
	 */
	return l->out.nodeid ? -EINVAL : ret;
}

/*
 * The daemon's postfilter gave the name a node of its own: the daemon
 * serves it from now on, as if it had answered the FUSE_LOOKUP
 * (fuse_lookup_name()), and is owed a FORGET of it.
 */
static int fuse_bpf_lookup_daemon(struct fuse_bpf_lookup *l)
{
	struct fuse_conn *fc = get_fuse_conn(l->req.inode);
	struct fuse_entry_out *out = &l->out;
	struct fuse_forget_link *forget;
	struct inode *inode;

	if (fuse_kernel_nodeid(out->nodeid) || out->nodeid == FUSE_ROOT_ID ||
	    fuse_invalid_attr(&out->attr))
		return -EIO;
	inode = fuse_iget(l->req.inode->i_sb, out->nodeid, out->generation,
			  &out->attr, ATTR_TIMEOUT(out), l->attr_version,
			  l->evict_ctr);
	if (!inode) {
		forget = kzalloc(sizeof(*forget), GFP_KERNEL | __GFP_NOFAIL);
		fuse_queue_forget(fc, forget, out->nodeid, 1);
		return -ENOMEM;
	}
	l->res = d_splice_alias(inode, l->entry);
	if (IS_ERR(l->res))
		return PTR_ERR(l->res);
	fuse_change_entry_timeout(l->res ?: l->entry, out);
	return 0;
}

static int fuse_bpf_lookup_finish(struct fuse_bpf_req *req, int err)
{
	struct fuse_bpf_lookup *l = container_of(req, typeof(*l), req);
	struct path path = { .mnt = fuse_bpf_path(req->inode)->mnt };
	struct inode *inode = NULL;

	if (err || l->out.nodeid) {
		dput(l->lower);
		return err ?: fuse_bpf_lookup_daemon(l);
	}
	path.dentry = l->lower;
	if (d_really_is_positive(l->lower))
		inode = fuse_bpf_iget(req->inode, &path);
	dput(l->lower);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	l->res = d_splice_alias(inode, l->entry);
	return PTR_ERR_OR_ZERO(l->res);
}

static const struct fuse_bpf_op fuse_bpf_lookup_op = {
	.opcode = FUSE_LOOKUP,
	.setup = fuse_bpf_lookup_setup,
	.prefilter = fuse_bpf_lookup_pre,
	.backing = fuse_bpf_lookup_backing,
	.postfilter = fuse_bpf_lookup_post,
	.finish = fuse_bpf_lookup_finish,
};

/*
 * Revalidation in a directory with a lookup filter is the lookup again,
 * filters and all, that compares what it finds with the dentry: the same
 * backing inode, or none where the dentry is negative.  A name the filter
 * now fails with ENOENT (hides) stays valid only as a negative dentry;
 * any other failure leaves the dentry to a new lookup, which reports it.
 */
static int fuse_bpf_relookup_finish(struct fuse_bpf_req *req, int err)
{
	struct fuse_bpf_lookup *l = container_of(req, typeof(*l), req);
	struct inode *inode = d_inode(l->entry);

	if (err)
		l->valid = err == -ENOENT && !inode;
	else if (l->out.nodeid)
		l->valid = 0;	/* the daemon takes the name: look it up again */
	else if (inode)
		l->valid = fuse_bpf_backed(inode) &&
			   d_inode(l->lower) == fuse_bpf_inode(inode);
	else
		l->valid = d_really_is_negative(l->lower);
	dput(l->lower);
	return 0;
}

static const struct fuse_bpf_op fuse_bpf_relookup_op = {
	.opcode = FUSE_LOOKUP,
	.setup = fuse_bpf_lookup_setup,
	.prefilter = fuse_bpf_lookup_pre,
	.backing = fuse_bpf_lookup_backing,
	.postfilter = fuse_bpf_lookup_post,
	.finish = fuse_bpf_relookup_finish,
};

/* Revalidate @entry of backed @dir by its filtered lookup: ref-walk only */
static int fuse_bpf_relookup(struct inode *dir, struct dentry *entry)
{
	struct name_snapshot name;
	struct fuse_bpf_lookup l = {
		.req = FUSE_BPF_REQ(dir),
		.entry = entry,
		.qname = &name.name,
	};
	int err;

	take_dentry_name_snapshot(&name, entry);
	err = fuse_bpf_run(&fuse_bpf_relookup_op, &l.req);
	release_dentry_name_snapshot(&name);
	/* Sent to the daemon: its lookup decides */
	if (err == FUSE_BPF_FALLBACK)
		return 0;
	if (err < 0)
		return err == -ENOENT ? 0 : err;
	return l.valid;
}

/**
 * fuse_bpf_lookup() - Look a name up in a backed directory
 * @res: where the result goes: the dentry to use instead of @entry, NULL
 *	to use @entry, or an ERR_PTR()
 * @dir: the FUSE directory
 * @entry: the negative dentry of the name
 * @flags: LOOKUP_* flags (not used)
 *
 * Looks the name the filters leave up in the lower directory and splices
 * the FUSE inode of what it finds (fuse_bpf_iget()), or none for a negative
 * dentry, into @entry.
 *
 * Return: true if FUSE-BPF served the lookup, its result in @res; false if
 * @dir has no backing inode, or its daemon_ops or a filter send FUSE_LOOKUP
 * to the daemon.
 */
bool fuse_bpf_lookup(struct dentry **res, struct inode *dir,
		     struct dentry *entry, unsigned int flags)
{
	struct fuse_bpf_lookup l = {
		.req = FUSE_BPF_REQ(dir),
		.entry = entry,
		.qname = &entry->d_name,
	};
	int err;

	if (!fuse_bpf_backed(dir))
		return false;
	err = fuse_bpf_run(&fuse_bpf_lookup_op, &l.req);
	if (err == FUSE_BPF_FALLBACK)
		return false;
	*res = err ? ERR_PTR(err) : l.res;
	return true;
}

/*
 * Whether @lower is hashed in @lower_parent under the name at @cs, at most
 * @len bytes and NUL-terminated, read without a lock.  A rename may tear
 * what is read: the lower name's length may not be its own, an inline name
 * may be half copied.  So the walk stops at the lower name's NUL, never
 * leaves an inline name's array, both names must end where it stops, and
 * all of it is within a d_seq read section of @lower.
 */
static bool fuse_bpf_lower_named(struct dentry *lower,
				 struct dentry *lower_parent,
				 const unsigned char *cs, unsigned int len)
{
	unsigned int lseq = raw_seqcount_begin(&lower->d_seq);
	const unsigned char *ls = READ_ONCE(lower->d_name.name);
	unsigned int i;
	bool same;

	if (ls == lower->d_iname)
		len = min_t(unsigned int, len, DNAME_INLINE_LEN - 1);
	same = !d_unhashed(lower) && READ_ONCE(lower->d_parent) == lower_parent;
	for (i = 0; same && i < len; i++)
		same = ls[i] && cs[i] == ls[i];
	return same && !cs[i] && !ls[i] &&
	       !read_seqcount_retry(&lower->d_seq, lseq);
}

/*
 * A dentry of a backed directory is valid while the lower directory still
 * has the same inode (or none) under that name.  The common case, the
 * lower dentry of the inode itself still sitting under that name, is
 * checked without blocking and without a store, as the dcache's own RCU
 * lookup reads names: each name pointer once, its bytes up to the NUL
 * that ends every dentry name (so no read past its end), inside d_seq
 * read sections of both dentries that a racing d_move() of either makes
 * fail.
 */
static bool fuse_bpf_same_name(struct dentry *entry, struct dentry *lower,
			       struct dentry *lower_parent)
{
	unsigned int seq = raw_seqcount_begin(&entry->d_seq);
	const unsigned char *cs = READ_ONCE(entry->d_name.name);
	unsigned int len = READ_ONCE(entry->d_name.len);

	/* Our name may be torn too: never leave its inline array */
	if (cs == entry->d_iname)
		len = min_t(unsigned int, len, DNAME_INLINE_LEN - 1);
	return fuse_bpf_lower_named(lower, lower_parent, cs, len) &&
	       !read_seqcount_retry(&entry->d_seq, seq);
}

/* What the lookup filters see when a cached name is checked again */
struct fuse_bpf_refilter {
	struct bpf_fuse_meta_info meta;
	char buf[NAME_MAX + 1];
	struct fuse_buffer name;
	struct fuse_entry_out out;
	struct fuse_buffer entries;
};

/*
 * The lookup filter of @dir on @entry, without blocking: the prefilter,
 * and the postfilter it asks for, on a copy of the name and the
 * attributes of @lower, @entry's backing.  @entry stays valid if they let
 * the lookup go on and @lower is under the name they leave.  Anything
 * else (an error, the daemon, a name torn by a rename) is for the filtered
 * lookup of the slow path to decide.
 */
static noinline bool fuse_bpf_refilter(struct dentry *entry, struct inode *dir,
				       const struct fuse_ops *ops,
				       struct dentry *lower,
				       struct dentry *lower_parent)
{
	unsigned int seq = raw_seqcount_begin(&entry->d_seq);
	const unsigned char *cs = READ_ONCE(entry->d_name.name);
	unsigned int i, len = READ_ONCE(entry->d_name.len);
	struct inode *lower_inode = d_inode_rcu(lower);
	/*
	 * Not zeroed on entry (INIT_STACK_ALL_ZERO), 448 bytes per cached
	 * name checked: each field a filter sees is set below, and the
	 * name's bytes past its size are never seen (those it gains are
	 * zeroed).
	 */
	struct fuse_bpf_refilter r __uninitialized;
	struct qstr name;
	bool valid = false;
	int ret;

	if (cs == entry->d_iname)
		len = min_t(unsigned int, len, DNAME_INLINE_LEN - 1);
	for (i = 0; i < len && i < NAME_MAX && cs[i]; i++)
		r.buf[i] = cs[i];
	if (!lower_inode || i != len || read_seqcount_retry(&entry->d_seq, seq))
		return false;
	r.buf[len] = '\0';
	r.name = (struct fuse_buffer) {
		.data = r.buf,
		.size = len + 1,
		.alloc_size = sizeof(r.buf),
		.max_size = sizeof(r.buf),
		.flags = BPF_FUSE_VARIABLE_SIZE,
	};
	r.meta = (struct bpf_fuse_meta_info) {
		.nodeid = get_node_id(dir),
		.opcode = FUSE_LOOKUP | FUSE_PREFILTER,
	};
	ret = ops->lookup_prefilter ?
		ops->lookup_prefilter(&r.meta, &r.name) :
		fuse_bpf_no_prefilter(ops->lookup_postfilter);
	if (ret == BPF_FUSE_POSTFILTER && ops->lookup_postfilter) {
		r.name.flags |= BPF_FUSE_IMMUTABLE;
		r.out.nodeid = 0;
		r.out.generation = 0;
		r.out.entry_valid = 0;
		r.out.attr_valid = 0;
		r.out.entry_valid_nsec = 0;
		r.out.attr_valid_nsec = 0;
		fuse_bpf_fill_attr(lower_inode, &r.out.attr);
		r.entries = (struct fuse_buffer) { .flags = BPF_FUSE_IMMUTABLE };
		r.meta.opcode = FUSE_LOOKUP | FUSE_POSTFILTER;
		ret = ops->lookup_postfilter(&r.meta, &r.name, &r.out,
					     &r.entries);
		/*
		 * Any value but an errno keeps the lookup's result, but the
		 * daemon's postfilter, which only the slow path may ask
		 */
		if (ret >= 0 && ret != BPF_FUSE_USER_POSTFILTER)
			ret = BPF_FUSE_CONTINUE;
		else
			ret = -EAGAIN;
	}
	if ((ret == BPF_FUSE_CONTINUE || ret == BPF_FUSE_POSTFILTER) &&
	    !fuse_bpf_buf_qstr(&r.name, &name))
		valid = fuse_bpf_lower_named(lower, lower_parent,
					     name.name, name.len);
	bpf_fuse_free_buffer(&r.name);
	return valid && !read_seqcount_retry(&entry->d_seq, seq);
}

/**
 * fuse_bpf_lookup_lower() - look a name up in the lower directory of a node
 * @dir: a backed FUSE directory
 * @name: one path component
 *
 * With the backing credentials, the lower directory not locked by the
 * caller, as the kernel's lookups in @dir outside an operation do
 * (revalidation, a daemon's backing name).
 *
 * Context: process context, may sleep.
 *
 * Return: the lower dentry, referenced, negative if there is no such
 * name; or an ERR_PTR() of lookup_one_len_unlocked().
 */
struct dentry *fuse_bpf_lookup_lower(struct inode *dir, const struct qstr *name)
{
	const struct cred *old = fuse_bpf_override_creds(dir);
	struct dentry *lower;

	lower = lookup_one_len_unlocked(name->name, fuse_bpf_dentry(dir),
					name->len);
	revert_creds(old);
	return lower;
}

/* Look the name up again in the lower directory: ref-walk only */
static int fuse_bpf_revalidate_slow(struct dentry *entry, struct inode *inode)
{
	struct dentry *parent = dget_parent(entry);
	struct inode *dir = d_inode(parent);
	struct name_snapshot name;
	struct dentry *lower;
	int valid = 0;

	if (!fuse_bpf_backed(dir))
		goto out;
	if (fuse_bpf_filters(dir, lookup)) {
		valid = fuse_bpf_relookup(dir, entry);
		goto copy;
	}
	take_dentry_name_snapshot(&name, entry);
	lower = fuse_bpf_lookup_lower(dir, &name.name);
	release_dentry_name_snapshot(&name);
	if (IS_ERR(lower)) {
		valid = PTR_ERR(lower) == -ENOENT ? 0 : PTR_ERR(lower);
		goto out;
	}
	if (inode)
		valid = fuse_bpf_backed(inode) &&
			d_inode(lower) == fuse_bpf_inode(inode);
	else
		valid = d_is_negative(lower);
	dput(lower);
copy:
	if (valid > 0 && inode)
		fuse_bpf_copyattr(inode);
out:
	dput(parent);
	return valid;
}

/*
 * The parent (a rename may move the entry away from it) and, in RCU walk,
 * the inodes may be going away under us: each pointer is read once under
 * RCU (a filter's struct_ops map is freed after a grace period).  Returns
 * -1 when the parent is not backed (or no longer is: a parent under
 * eviction) or the node is the daemon's (no backing, a node id the daemon
 * gave), 1 when the fast check holds, 0 when the name must be looked up
 * again.  Under a lookup filter, the fast check runs the filter.
 */
static int fuse_bpf_revalidate_fast(struct dentry *entry, struct inode *inode,
				    unsigned int flags)
{
	struct dentry *lower_parent, *lower = NULL;
	const struct fuse_ops *ops;
	struct inode *dir;
	int valid = -1;

	rcu_read_lock();
	dir = d_inode_rcu(READ_ONCE(entry->d_parent));
	lower_parent = dir ? fuse_bpf_dentry_rcu(dir) : NULL;
	if (inode)
		lower = fuse_bpf_dentry_rcu(inode);
	if (lower_parent && inode && !lower &&
	    !fuse_kernel_nodeid(get_node_id(inode)))
		lower_parent = NULL;
	if (lower_parent) {
		/* A lookup filter may decide otherwise now: ask it again */
		ops = fuse_bpf_filter_of(dir, lookup);
		if (!lower)
			valid = 0;
		else if (ops)
			valid = fuse_bpf_refilter(entry, dir, ops, lower,
						  lower_parent);
		else
			valid = fuse_bpf_same_name(entry, lower, lower_parent);
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

/* The names of a directory whose LOOKUP the daemon serves are its own. */
static bool fuse_bpf_daemon_names(struct dentry *entry)
{
	struct inode *dir;
	bool ret;

	rcu_read_lock();
	dir = d_inode_rcu(READ_ONCE(entry->d_parent));
	ret = dir && fuse_bpf_daemon_op(dir, FUSE_LOOKUP);
	rcu_read_unlock();
	return ret;
}

/**
 * fuse_bpf_revalidate() - Check a dentry of a backed directory
 * @ret: where the ->d_revalidate() result goes
 * @entry: the dentry
 * @flags: LOOKUP_* flags
 *
 * @entry stays valid while the lower directory has the same inode (or
 * none) under its name and the lower filesystem's own ->d_revalidate()
 * agrees.  The common case is checked without blocking; otherwise the name
 * is looked up again, in ref-walk.  In a directory with a lookup filter,
 * the check is the filter's: it runs again on the name, and may hide or
 * rename it now; the slow path is the whole lookup again, filters and all.
 * In ref-walk, a valid node's mirror is refreshed.
 *
 * Context: RCU walk if @flags has LOOKUP_RCU: a check that would block
 * gives -ECHILD.
 *
 * Return: true with @ret 1 (valid), 0 (invalid), -ECHILD or an errno;
 * false if the daemon serves the name: the parent's daemon_ops have
 * FUSE_LOOKUP, or the parent or the node has no backing inode and the
 * node is not one the kernel made.
 */
bool fuse_bpf_revalidate(int *ret, struct dentry *entry, unsigned int flags)
{
	struct inode *inode = d_inode_rcu(entry);
	int valid;

	if (fuse_bpf_daemon_names(entry))
		return false;
	valid = fuse_bpf_revalidate_fast(entry, inode, flags);

	/*
	 * Not a backed parent, or a node without a backing: the daemon's
	 * name, which revalidates as FUSE's do, unless the daemon never
	 * heard of the node (one the kernel made, under eviction, or whose
	 * parent is under eviction, in RCU walk): walk again, or look the
	 * name up again.
	 */
	if (valid < 0 && !(inode && fuse_kernel_nodeid(get_node_id(inode))))
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
 * Making entries: create, mknod, mkdir, symlink, link.  Each has its own
 * request around what they share: the new name, the entry a daemon's reply
 * would carry and the lower entry made.  The backing step makes the lower
 * entry under the lower directory's lock; finish gives the FUSE dentry the
 * FUSE inode of the result.
 */

struct fuse_bpf_make {
	struct fuse_bpf_req req;
	struct dentry *entry;
	umode_t mode;		/* the caller's, as checked; 0 if none */
	struct fuse_buffer name;
	struct fuse_entry_out entry_out;
	struct path made;
};

/**
 * fuse_bpf_check_mode() - Check the mode the filters left for a new node
 * @asked: the mode the caller asked for, as the VFS passed it on
 * @mode: the mode the filters left
 *
 * A filter may change the permission bits of a new node and clear its
 * set-user-ID and set-group-ID bits, not add those the caller did not ask
 * for.  The VFS judged the caller's set-id bits with its credentials
 * before FUSE saw the mode (mode_strip_sgid() takes S_ISGID from a file
 * made in a set-group-ID directory of a group the caller is not in,
 * without CAP_FSETID); the lower filesystem would judge added ones with
 * the mounter's CAP_FSETID.  Refusing them is what setattr does with a
 * change a filter adds.  Other bits of a node the caller owns are its own
 * to chmod.
 *
 * Return: 0, or -EPERM if @mode has a set-id bit @asked has not.
 */
static int fuse_bpf_check_mode(umode_t asked, umode_t mode)
{
	if (mode & ~asked & (S_ISUID | S_ISGID))
		return -EPERM;
	return 0;
}

/* The name, after the operation's own input structure, as FUSE sends it */
static void fuse_bpf_make_name(struct fuse_bpf_make *m)
{
	fuse_bpf_buf_name(&m->req, &m->name, &m->entry->d_name);
	fuse_bpf_arg_buf(&m->req, &m->name);
}

/* The reply's entry, as the daemon's reply would carry it */
static void fuse_bpf_make_out(struct fuse_bpf_make *m)
{
	fuse_bpf_arg_out(&m->req, sizeof(m->entry_out), &m->entry_out);
}

/*
 * Look the name the filters leave up in the lower directory and make the
 * lower entry with @make there.  @mode, unless 0 (a link makes no inode),
 * is what the LSMs are told the new node is (fuse_bpf_create_creds()),
 * with no set-id bit the caller did not ask for (fuse_bpf_check_mode()).
 */
static int fuse_bpf_make_backing(struct fuse_bpf_make *m, umode_t mode,
				 int (*make)(struct fuse_bpf_make *m,
					     struct inode *ldir,
					     struct dentry *child))
{
	struct fuse_bpf_req *req = &m->req;
	struct dentry *parent = fuse_bpf_dentry(req->inode);
	struct inode *ldir = d_inode(parent);
	struct dentry *child;
	struct qstr name;
	int err;

	err = fuse_bpf_check_mode(m->mode, mode);
	if (!err)
		err = fuse_bpf_buf_qstr(&m->name, &name);
	if (!err && mode)
		err = fuse_bpf_create_creds(req, m->entry, mode, &name);
	if (err)
		return err;
	inode_lock_nested(ldir, I_MUTEX_PARENT);
	child = fuse_bpf_lookup_child(parent, &name);
	err = PTR_ERR(child);
	if (IS_ERR(child))
		goto out;
	err = -EEXIST;
	if (d_is_positive(child))
		goto out_dput;
	err = make(m, ldir, child);
	if (err)
		goto out_dput;
	/* Some filesystems leave the new dentry unhashed: look it up again. */
	if (d_unhashed(child) || d_is_negative(child)) {
		dput(child);
		child = fuse_bpf_lookup_child(parent, &name);
		err = PTR_ERR(child);
		if (IS_ERR(child))
			goto out;
		err = -ENOENT;
		if (d_is_negative(child))
			goto out_dput;
	}
	m->made.dentry = dget(child);
	m->made.mnt = fuse_bpf_path(req->inode)->mnt;
	if (req->post)
		fuse_bpf_fill_attr(d_inode(child), &m->entry_out.attr);
	err = 0;
out_dput:
	dput(child);
out:
	inode_unlock(ldir);
	return err;
}

/* A new node: its FUSE inode */
static int fuse_bpf_make_finish(struct fuse_bpf_req *req, int err)
{
	struct fuse_bpf_make *m = container_of(req, typeof(*m), req);
	struct inode *inode;

	fuse_bpf_copyattr(req->inode);
	if (err) {
		dput(m->made.dentry);
		return err;
	}
	inode = fuse_bpf_iget(req->inode, &m->made);
	dput(m->made.dentry);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	d_instantiate(m->entry, inode);
	return 0;
}

static bool fuse_bpf_make(int *err, const struct fuse_bpf_op *op,
			  struct fuse_bpf_make *m)
{
	if (!fuse_bpf_backed(m->req.inode))
		return false;
	return fuse_bpf_result(err, fuse_bpf_run(op, &m->req));
}

/* create */

struct fuse_bpf_create {
	struct fuse_bpf_make m;
	struct fuse_create_in in;
	struct fuse_open_out open_out;	/* not opened here */
	bool excl;
};

static int fuse_bpf_create_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_create *c = container_of(req, typeof(*c), m.req);

	fuse_bpf_arg_in(req, sizeof(c->in), &c->in);
	fuse_bpf_make_name(&c->m);
	fuse_bpf_make_out(&c->m);
	fuse_bpf_arg_out(req, sizeof(c->open_out), &c->open_out);
	return 0;
}

static int fuse_bpf_create_pre(struct fuse_bpf_req *req,
			       const struct fuse_ops *ops)
{
	struct fuse_bpf_create *c = container_of(req, typeof(*c), m.req);

	if (!ops->create_open_prefilter)
		return fuse_bpf_no_prefilter(ops->create_open_postfilter);
	return ops->create_open_prefilter(&req->meta, &c->in, &c->m.name);
}

static int fuse_bpf_create_lower(struct fuse_bpf_make *m, struct inode *ldir,
				 struct dentry *child)
{
	struct fuse_bpf_create *c = container_of(m, typeof(*c), m);

	return vfs_create(fuse_bpf_idmap(m->req.inode), ldir, child,
			  c->in.mode, c->excl);
}

static int fuse_bpf_create_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_create *c = container_of(req, typeof(*c), m.req);

	return fuse_bpf_make_backing(&c->m, S_IFREG | (c->in.mode & ~S_IFMT),
				     fuse_bpf_create_lower);
}

static int fuse_bpf_create_post(struct fuse_bpf_req *req,
				const struct fuse_ops *ops)
{
	struct fuse_bpf_create *c = container_of(req, typeof(*c), m.req);

	if (!ops->create_open_postfilter)
		return 0;
	return ops->create_open_postfilter(&req->meta, &c->in, &c->m.name,
					   &c->m.entry_out, &c->open_out);
}

static const struct fuse_bpf_op fuse_bpf_create_op = {
	.opcode = FUSE_CREATE,
	.setup = fuse_bpf_create_setup,
	.prefilter = fuse_bpf_create_pre,
	.backing = fuse_bpf_create_backing,
	.postfilter = fuse_bpf_create_post,
	.finish = fuse_bpf_make_finish,
	.flags = FUSE_BPF_WRITE,	/* for the caller: fuse_bpf_create_creds() */
};

/**
 * fuse_bpf_create() - Create a regular file in a backed directory
 * @err: where the result goes: 0 or an errno
 * @dir: the FUSE directory
 * @entry: the negative dentry of the new name
 * @mode: the file's mode
 * @excl: passed on to vfs_create(); an existing name gives -EEXIST anyway
 *
 * Creates the lower file with vfs_create() and the mode the filters
 * leave, for the caller (who owns it), and instantiates @entry with its
 * FUSE inode.  The filters may not add S_ISUID or S_ISGID to @mode
 * (-EPERM, fuse_bpf_check_mode()).  The file is not opened.
 *
 * Return: true if FUSE-BPF served the operation, its result in @err;
 * false if @dir has no backing inode, or its daemon_ops or a filter
 * send FUSE_CREATE to the daemon.
 */
bool fuse_bpf_create(int *err, struct inode *dir, struct dentry *entry,
		     umode_t mode, bool excl)
{
	struct fuse_bpf_create c = {
		.m.req = FUSE_BPF_REQ(dir),
		.m.entry = entry,
		.m.mode = mode,
		.in = { .mode = mode, .umask = current_umask() },
		.excl = excl,
	};

	return fuse_bpf_make(err, &fuse_bpf_create_op, &c.m);
}

/* mknod */

struct fuse_bpf_mknod {
	struct fuse_bpf_make m;
	struct fuse_mknod_in in;
	u32 rdev;		/* the caller's, as checked */
};

static int fuse_bpf_mknod_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_mknod *n = container_of(req, typeof(*n), m.req);

	fuse_bpf_arg_in(req, sizeof(n->in), &n->in);
	fuse_bpf_make_name(&n->m);
	fuse_bpf_make_out(&n->m);
	return 0;
}

static int fuse_bpf_mknod_pre(struct fuse_bpf_req *req,
			      const struct fuse_ops *ops)
{
	struct fuse_bpf_mknod *n = container_of(req, typeof(*n), m.req);

	if (!ops->mknod_prefilter)
		return fuse_bpf_no_prefilter(ops->mknod_postfilter);
	return ops->mknod_prefilter(&req->meta, &n->in, &n->m.name);
}

static int fuse_bpf_mknod_lower(struct fuse_bpf_make *m, struct inode *ldir,
				struct dentry *child)
{
	struct fuse_bpf_mknod *n = container_of(m, typeof(*n), m);

	return vfs_mknod(fuse_bpf_idmap(m->req.inode), ldir, child,
			 n->in.mode, new_decode_dev(n->in.rdev));
}

static int fuse_bpf_mknod_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_mknod *n = container_of(req, typeof(*n), m.req);

	/* A filter may change permissions, not what the node is */
	if ((n->in.mode ^ n->m.mode) & S_IFMT || n->in.rdev != n->rdev)
		return -EPERM;
	return fuse_bpf_make_backing(&n->m, n->in.mode, fuse_bpf_mknod_lower);
}

static int fuse_bpf_mknod_post(struct fuse_bpf_req *req,
			       const struct fuse_ops *ops)
{
	struct fuse_bpf_mknod *n = container_of(req, typeof(*n), m.req);

	if (!ops->mknod_postfilter)
		return 0;
	return ops->mknod_postfilter(&req->meta, &n->in, &n->m.name);
}

static const struct fuse_bpf_op fuse_bpf_mknod_op = {
	.opcode = FUSE_MKNOD,
	.setup = fuse_bpf_mknod_setup,
	.prefilter = fuse_bpf_mknod_pre,
	.backing = fuse_bpf_mknod_backing,
	.postfilter = fuse_bpf_mknod_post,
	.finish = fuse_bpf_make_finish,
	.flags = FUSE_BPF_WRITE,	/* for the caller: fuse_bpf_create_creds() */
};

/**
 * fuse_bpf_mknod() - Make a special file in a backed directory
 * @err: where the result goes: 0 or an errno
 * @dir: the FUSE directory
 * @entry: the negative dentry of the new name
 * @mode: the file's type and mode
 * @rdev: the device number
 *
 * Makes the lower node with vfs_mknod(), for the caller, and instantiates
 * @entry with its FUSE inode.  The filters may change the permission
 * bits, not the file type nor @rdev, nor add S_ISUID or S_ISGID (-EPERM,
 * fuse_bpf_check_mode()).
 *
 * Return: true if FUSE-BPF served the operation, its result in @err;
 * false if @dir has no backing inode, or its daemon_ops or a filter
 * send FUSE_MKNOD to the daemon.
 */
bool fuse_bpf_mknod(int *err, struct inode *dir, struct dentry *entry,
		    umode_t mode, dev_t rdev)
{
	struct fuse_bpf_mknod n = {
		.m.req = FUSE_BPF_REQ(dir),
		.m.entry = entry,
		.m.mode = mode,
		.in = {
			.mode = mode,
			.rdev = new_encode_dev(rdev),
			.umask = current_umask(),
		},
		.rdev = new_encode_dev(rdev),
	};

	return fuse_bpf_make(err, &fuse_bpf_mknod_op, &n.m);
}

/* mkdir */

struct fuse_bpf_mkdir {
	struct fuse_bpf_make m;
	struct fuse_mkdir_in in;
};

static int fuse_bpf_mkdir_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_mkdir *d = container_of(req, typeof(*d), m.req);

	fuse_bpf_arg_in(req, sizeof(d->in), &d->in);
	fuse_bpf_make_name(&d->m);
	fuse_bpf_make_out(&d->m);
	return 0;
}

static int fuse_bpf_mkdir_pre(struct fuse_bpf_req *req,
			      const struct fuse_ops *ops)
{
	struct fuse_bpf_mkdir *d = container_of(req, typeof(*d), m.req);

	if (!ops->mkdir_prefilter)
		return fuse_bpf_no_prefilter(ops->mkdir_postfilter);
	return ops->mkdir_prefilter(&req->meta, &d->in, &d->m.name);
}

static int fuse_bpf_mkdir_lower(struct fuse_bpf_make *m, struct inode *ldir,
				struct dentry *child)
{
	struct fuse_bpf_mkdir *d = container_of(m, typeof(*d), m);

	return vfs_mkdir(fuse_bpf_idmap(m->req.inode), ldir, child,
			 d->in.mode);
}

static int fuse_bpf_mkdir_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_mkdir *d = container_of(req, typeof(*d), m.req);

	return fuse_bpf_make_backing(&d->m, S_IFDIR | (d->in.mode & ~S_IFMT),
				     fuse_bpf_mkdir_lower);
}

static int fuse_bpf_mkdir_post(struct fuse_bpf_req *req,
			       const struct fuse_ops *ops)
{
	struct fuse_bpf_mkdir *d = container_of(req, typeof(*d), m.req);

	if (!ops->mkdir_postfilter)
		return 0;
	return ops->mkdir_postfilter(&req->meta, &d->in, &d->m.name);
}

static const struct fuse_bpf_op fuse_bpf_mkdir_op = {
	.opcode = FUSE_MKDIR,
	.setup = fuse_bpf_mkdir_setup,
	.prefilter = fuse_bpf_mkdir_pre,
	.backing = fuse_bpf_mkdir_backing,
	.postfilter = fuse_bpf_mkdir_post,
	.finish = fuse_bpf_make_finish,
	.flags = FUSE_BPF_WRITE,	/* for the caller: fuse_bpf_create_creds() */
};

/**
 * fuse_bpf_mkdir() - Make a directory in a backed directory
 * @err: where the result goes: 0 or an errno
 * @dir: the FUSE directory
 * @entry: the negative dentry of the new name
 * @mode: the directory's mode
 *
 * Makes the lower directory with vfs_mkdir() and the mode the filters
 * leave, for the caller, and instantiates @entry with its FUSE inode.
 * The filters may not add S_ISUID or S_ISGID to @mode (-EPERM,
 * fuse_bpf_check_mode()).
 *
 * Return: true if FUSE-BPF served the operation, its result in @err;
 * false if @dir has no backing inode, or its daemon_ops or a filter
 * send FUSE_MKDIR to the daemon.
 */
bool fuse_bpf_mkdir(int *err, struct inode *dir, struct dentry *entry,
		    umode_t mode)
{
	struct fuse_bpf_mkdir d = {
		.m.req = FUSE_BPF_REQ(dir),
		.m.entry = entry,
		.m.mode = mode,
		.in = { .mode = mode, .umask = current_umask() },
	};

	return fuse_bpf_make(err, &fuse_bpf_mkdir_op, &d.m);
}

/* symlink */

struct fuse_bpf_symlink {
	struct fuse_bpf_make m;
	struct fuse_buffer target;
	const char *link;
};

static int fuse_bpf_symlink_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_symlink *s = container_of(req, typeof(*s), m.req);

	fuse_bpf_make_name(&s->m);
	fuse_bpf_buf_in(req, &s->target, (void *)s->link, strlen(s->link) + 1,
			PATH_MAX, BPF_FUSE_VARIABLE_SIZE);
	fuse_bpf_arg_buf(req, &s->target);
	fuse_bpf_make_out(&s->m);
	return 0;
}

static int fuse_bpf_symlink_pre(struct fuse_bpf_req *req,
				const struct fuse_ops *ops)
{
	struct fuse_bpf_symlink *s = container_of(req, typeof(*s), m.req);

	if (!ops->symlink_prefilter)
		return fuse_bpf_no_prefilter(ops->symlink_postfilter);
	return ops->symlink_prefilter(&req->meta, &s->m.name, &s->target);
}

static int fuse_bpf_symlink_lower(struct fuse_bpf_make *m, struct inode *ldir,
				  struct dentry *child)
{
	struct fuse_bpf_symlink *s = container_of(m, typeof(*s), m);
	const char *target = fuse_bpf_buf_str(&s->target);

	if (IS_ERR(target))
		return PTR_ERR(target);
	return vfs_symlink(fuse_bpf_idmap(m->req.inode), ldir, child, target);
}

static int fuse_bpf_symlink_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_symlink *s = container_of(req, typeof(*s), m.req);

	return fuse_bpf_make_backing(&s->m, S_IFLNK | 0777,
				     fuse_bpf_symlink_lower);
}

static int fuse_bpf_symlink_post(struct fuse_bpf_req *req,
				 const struct fuse_ops *ops)
{
	struct fuse_bpf_symlink *s = container_of(req, typeof(*s), m.req);

	if (!ops->symlink_postfilter)
		return 0;
	return ops->symlink_postfilter(&req->meta, &s->m.name, &s->target);
}

static const struct fuse_bpf_op fuse_bpf_symlink_op = {
	.opcode = FUSE_SYMLINK,
	.setup = fuse_bpf_symlink_setup,
	.prefilter = fuse_bpf_symlink_pre,
	.backing = fuse_bpf_symlink_backing,
	.postfilter = fuse_bpf_symlink_post,
	.finish = fuse_bpf_make_finish,
	.flags = FUSE_BPF_WRITE,	/* for the caller: fuse_bpf_create_creds() */
};

/**
 * fuse_bpf_symlink() - Make a symbolic link in a backed directory
 * @err: where the result goes: 0 or an errno
 * @dir: the FUSE directory
 * @entry: the negative dentry of the new name
 * @link: the link's target
 *
 * Makes the lower symlink with vfs_symlink() and the target the filters
 * leave, for the caller, and instantiates @entry with its FUSE inode.
 *
 * Return: true if FUSE-BPF served the operation, its result in @err;
 * false if @dir has no backing inode, or its daemon_ops or a filter
 * send FUSE_SYMLINK to the daemon.
 */
bool fuse_bpf_symlink(int *err, struct inode *dir, struct dentry *entry,
		      const char *link)
{
	struct fuse_bpf_symlink s = {
		.m.req = FUSE_BPF_REQ(dir),
		.m.entry = entry,
		.link = link,
	};

	return fuse_bpf_make(err, &fuse_bpf_symlink_op, &s.m);
}

/* link: the backing credentials; no new inode, so no LSM labelling */

struct fuse_bpf_link {
	struct fuse_bpf_make m;
	struct fuse_link_in in;
	struct dentry *old;	/* the existing entry */
};

static int fuse_bpf_link_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_link *l = container_of(req, typeof(*l), m.req);

	fuse_bpf_arg_in(req, sizeof(l->in), &l->in);
	fuse_bpf_make_name(&l->m);
	fuse_bpf_make_out(&l->m);
	return 0;
}

static int fuse_bpf_link_pre(struct fuse_bpf_req *req,
			     const struct fuse_ops *ops)
{
	struct fuse_bpf_link *l = container_of(req, typeof(*l), m.req);

	if (!ops->link_prefilter)
		return fuse_bpf_no_prefilter(ops->link_postfilter);
	return ops->link_prefilter(&req->meta, &l->in, &l->m.name);
}

static int fuse_bpf_link_lower(struct fuse_bpf_make *m, struct inode *ldir,
			       struct dentry *child)
{
	struct fuse_bpf_link *l = container_of(m, typeof(*l), m);

	return vfs_link(fuse_bpf_dentry(d_inode(l->old)),
			fuse_bpf_idmap(m->req.inode), ldir, child, NULL);
}

static int fuse_bpf_link_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_link *l = container_of(req, typeof(*l), m.req);

	return fuse_bpf_make_backing(&l->m, 0, fuse_bpf_link_lower);
}

static int fuse_bpf_link_post(struct fuse_bpf_req *req,
			      const struct fuse_ops *ops)
{
	struct fuse_bpf_link *l = container_of(req, typeof(*l), m.req);

	if (!ops->link_postfilter)
		return 0;
	return ops->link_postfilter(&req->meta, &l->in, &l->m.name);
}

/* The existing inode, under one more name */
static int fuse_bpf_link_finish(struct fuse_bpf_req *req, int err)
{
	struct fuse_bpf_link *l = container_of(req, typeof(*l), m.req);
	struct inode *inode = d_inode(l->old);

	fuse_bpf_copyattr(req->inode);
	dput(l->m.made.dentry);
	if (err)
		return err;
	ihold(inode);
	fuse_bpf_copyattr(inode);
	d_instantiate(l->m.entry, inode);
	return 0;
}

static const struct fuse_bpf_op fuse_bpf_link_op = {
	.opcode = FUSE_LINK,
	.setup = fuse_bpf_link_setup,
	.prefilter = fuse_bpf_link_pre,
	.backing = fuse_bpf_link_backing,
	.postfilter = fuse_bpf_link_post,
	.finish = fuse_bpf_link_finish,
	.flags = FUSE_BPF_WRITE,
};

/**
 * fuse_bpf_link() - Make a hard link in a backed directory
 * @err: where the result goes: 0 or an errno
 * @old: the dentry of the existing inode
 * @dir: the FUSE directory of the new name
 * @entry: the negative dentry of the new name
 *
 * Links the lower inode of @old under the new name with vfs_link(), with
 * the backing credentials, and instantiates @entry with @old's inode.
 *
 * Return: true if FUSE-BPF served the operation, its result in @err (-EXDEV
 * if @old has no backing inode, or one on another lower mount than @dir's,
 * as link(2) across mounts); false if @dir has no backing inode, or its
 * daemon_ops or a filter send FUSE_LINK to the daemon.
 */
bool fuse_bpf_link(int *err, struct dentry *old, struct inode *dir,
		   struct dentry *entry)
{
	struct fuse_bpf_link l = {
		.m.req = FUSE_BPF_REQ(dir),
		.m.entry = entry,
		.old = old,
	};

	if (!fuse_bpf_backed(dir))
		return false;
	if (!fuse_bpf_backed(d_inode(old)) ||
	    fuse_bpf_path(d_inode(old))->mnt != fuse_bpf_path(dir)->mnt) {
		*err = -EXDEV;
		return true;
	}
	l.in.oldnodeid = get_node_id(d_inode(old));
	l.m.req.other = d_inode(old);
	return fuse_bpf_make(err, &fuse_bpf_link_op, &l.m);
}

/* unlink, rmdir */

struct fuse_bpf_remove {
	struct fuse_bpf_req req;
	struct fuse_buffer name;
	struct dentry *entry;
};

static int fuse_bpf_remove_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_remove *r = container_of(req, typeof(*r), req);

	fuse_bpf_buf_name(req, &r->name, &r->entry->d_name);
	fuse_bpf_arg_buf(req, &r->name);
	return 0;
}

static int fuse_bpf_unlink_pre(struct fuse_bpf_req *req,
			       const struct fuse_ops *ops)
{
	struct fuse_bpf_remove *r = container_of(req, typeof(*r), req);

	if (!ops->unlink_prefilter)
		return fuse_bpf_no_prefilter(ops->unlink_postfilter);
	return ops->unlink_prefilter(&req->meta, &r->name);
}

static int fuse_bpf_unlink_post(struct fuse_bpf_req *req,
				const struct fuse_ops *ops)
{
	struct fuse_bpf_remove *r = container_of(req, typeof(*r), req);

	if (!ops->unlink_postfilter)
		return 0;
	return ops->unlink_postfilter(&req->meta, &r->name);
}

static int fuse_bpf_rmdir_pre(struct fuse_bpf_req *req,
			      const struct fuse_ops *ops)
{
	struct fuse_bpf_remove *r = container_of(req, typeof(*r), req);

	if (!ops->rmdir_prefilter)
		return fuse_bpf_no_prefilter(ops->rmdir_postfilter);
	return ops->rmdir_prefilter(&req->meta, &r->name);
}

static int fuse_bpf_rmdir_post(struct fuse_bpf_req *req,
			       const struct fuse_ops *ops)
{
	struct fuse_bpf_remove *r = container_of(req, typeof(*r), req);

	if (!ops->rmdir_postfilter)
		return 0;
	return ops->rmdir_postfilter(&req->meta, &r->name);
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
 * (a stacked filesystem above) see the -ESTALE.  The lower names are
 * those the filter left: a view that renames entries maps them back in
 * its prefilters.
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
	struct qstr name;
	int err;

	err = fuse_bpf_buf_qstr(&r->name, &name);
	if (err)
		return err;
	inode_lock_nested(ldir, I_MUTEX_PARENT);
	child = fuse_bpf_lookup_child(parent, &name);
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

static const struct fuse_bpf_op fuse_bpf_unlink_op = {
	.opcode = FUSE_UNLINK,
	.setup = fuse_bpf_remove_setup,
	.prefilter = fuse_bpf_unlink_pre,
	.backing = fuse_bpf_remove_backing,
	.postfilter = fuse_bpf_unlink_post,
	.finish = fuse_bpf_remove_finish,
	.flags = FUSE_BPF_WRITE,
};

static const struct fuse_bpf_op fuse_bpf_rmdir_op = {
	.opcode = FUSE_RMDIR,
	.setup = fuse_bpf_remove_setup,
	.prefilter = fuse_bpf_rmdir_pre,
	.backing = fuse_bpf_remove_backing,
	.postfilter = fuse_bpf_rmdir_post,
	.finish = fuse_bpf_remove_finish,
	.flags = FUSE_BPF_WRITE,
};

static bool fuse_bpf_remove(int *err, const struct fuse_bpf_op *op,
			    struct inode *dir,
			    struct dentry *entry)
{
	struct fuse_bpf_remove r = {
		.req = FUSE_BPF_REQ(dir),
		.entry = entry,
	};

	if (!fuse_bpf_backed(dir))
		return false;
	return fuse_bpf_result(err, fuse_bpf_run(op, &r.req));
}

/**
 * fuse_bpf_unlink() - Remove a name from a backed directory
 * @err: where the result goes: 0 or an errno
 * @dir: the FUSE directory
 * @entry: the dentry to remove
 *
 * Unlinks the lower name the filters leave with vfs_unlink().  It must still
 * hold @entry's lower inode: -ESTALE if it holds another (the VFS walks
 * again with LOOKUP_REVAL and retries), -ENOENT if it is gone.
 *
 * Return: true if FUSE-BPF served the operation, its result in @err; false
 * if @dir has no backing inode, or its daemon_ops or a filter send
 * FUSE_UNLINK to the daemon.
 */
bool fuse_bpf_unlink(int *err, struct inode *dir, struct dentry *entry)
{
	return fuse_bpf_remove(err, &fuse_bpf_unlink_op, dir, entry);
}

/**
 * fuse_bpf_rmdir() - Remove a directory from a backed directory
 * @err: where the result goes: 0 or an errno
 * @dir: the FUSE directory
 * @entry: the dentry of the directory to remove
 *
 * Removes the lower directory with vfs_rmdir(), checked as in
 * fuse_bpf_unlink().
 *
 * Return: true if FUSE-BPF served the operation, its result in @err; false
 * if @dir has no backing inode, or its daemon_ops or a filter send
 * FUSE_RMDIR to the daemon.
 */
bool fuse_bpf_rmdir(int *err, struct inode *dir, struct dentry *entry)
{
	return fuse_bpf_remove(err, &fuse_bpf_rmdir_op, dir, entry);
}

/* rename */

/* FUSE_RENAME when there are no flags, FUSE_RENAME2 otherwise, as FUSE */
struct fuse_bpf_rename {
	struct fuse_bpf_req req;
	struct fuse_rename2_in in;
	struct fuse_rename_in in_noflags;
	u32 flags;		/* the caller's, as the VFS checked them */
	struct fuse_buffer old_name;
	struct fuse_buffer new_name;
	struct inode *newdir;
	struct dentry *oldent;
	struct dentry *newent;
};

static int fuse_bpf_rename_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_rename *r = container_of(req, typeof(*r), req);

	r->in_noflags.newdir = r->in.newdir;
	if (req->args.opcode == FUSE_RENAME)
		fuse_bpf_arg_in(req, sizeof(r->in_noflags), &r->in_noflags);
	else
		fuse_bpf_arg_in(req, sizeof(r->in), &r->in);
	fuse_bpf_buf_name(req, &r->old_name, &r->oldent->d_name);
	fuse_bpf_buf_name(req, &r->new_name, &r->newent->d_name);
	fuse_bpf_arg_buf(req, &r->old_name);
	fuse_bpf_arg_buf(req, &r->new_name);
	return 0;
}

static int fuse_bpf_rename_pre(struct fuse_bpf_req *req,
			       const struct fuse_ops *ops)
{
	struct fuse_bpf_rename *r = container_of(req, typeof(*r), req);

	if (req->args.opcode == FUSE_RENAME) {
		if (!ops->rename_prefilter)
			return fuse_bpf_no_prefilter(ops->rename_postfilter);
		return ops->rename_prefilter(&req->meta, &r->in_noflags,
					     &r->old_name, &r->new_name);
	}
	if (!ops->rename2_prefilter)
		return fuse_bpf_no_prefilter(ops->rename2_postfilter);
	return ops->rename2_prefilter(&req->meta, &r->in, &r->old_name,
				      &r->new_name);
}

static int fuse_bpf_rename_post(struct fuse_bpf_req *req,
				const struct fuse_ops *ops)
{
	struct fuse_bpf_rename *r = container_of(req, typeof(*r), req);

	if (req->args.opcode == FUSE_RENAME) {
		if (!ops->rename_postfilter)
			return 0;
		return ops->rename_postfilter(&req->meta, &r->in_noflags,
					      &r->old_name, &r->new_name);
	}
	if (!ops->rename2_postfilter)
		return 0;
	return ops->rename2_postfilter(&req->meta, &r->in, &r->old_name,
				       &r->new_name);
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

	/* A filter may drop flags, not add one the VFS did not check */
	if (r->in.flags & ~r->flags)
		return -EPERM;
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
	struct qstr oldname, newname;
	int err;

	err = fuse_bpf_buf_qstr(&r->old_name, &oldname);
	if (!err)
		err = fuse_bpf_buf_qstr(&r->new_name, &newname);
	if (err)
		return err;
	trap = lock_rename(lnewdir, lolddir);
	if (IS_ERR(trap))
		return PTR_ERR(trap);
	lold = fuse_bpf_lookup_child(lolddir, &oldname);
	err = PTR_ERR(lold);
	if (IS_ERR(lold))
		goto out_unlock;
	lnew = fuse_bpf_lookup_child(lnewdir, &newname);
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

#define FUSE_BPF_RENAME_OP(code) {		\
	.opcode = (code),			\
	.setup = fuse_bpf_rename_setup,		\
	.prefilter = fuse_bpf_rename_pre,	\
	.backing = fuse_bpf_rename_backing,	\
	.postfilter = fuse_bpf_rename_post,	\
	.finish = fuse_bpf_rename_finish,	\
	.flags = FUSE_BPF_WRITE,		\
}

static const struct fuse_bpf_op fuse_bpf_rename_op = FUSE_BPF_RENAME_OP(FUSE_RENAME);
static const struct fuse_bpf_op fuse_bpf_rename2_op = FUSE_BPF_RENAME_OP(FUSE_RENAME2);

/**
 * fuse_bpf_rename() - Rename an entry of a backed directory
 * @err: where the result goes: 0 or an errno
 * @olddir: the FUSE directory of the source
 * @oldent: the source dentry
 * @newdir: the FUSE directory of the target
 * @newent: the target dentry
 * @flags: RENAME_* flags, as the VFS checked them
 *
 * The filters (@olddir's) see FUSE_RENAME, or FUSE_RENAME2 if @flags is
 * set; they may drop flags, not add them (-EPERM).  The lower names are
 * checked as in fuse_bpf_unlink(), then renamed with vfs_rename().
 *
 * Return: false if neither directory has a backing inode, or @olddir's
 * daemon_ops or a filter send the rename to the daemon; otherwise true, the
 * result in @err (-EXDEV if only one of them has one, or their backings
 * are on different lower mounts, as rename(2) across mounts).
 */
bool fuse_bpf_rename(int *err, struct inode *olddir, struct dentry *oldent,
		     struct inode *newdir, struct dentry *newent,
		     unsigned int flags)
{
	struct fuse_bpf_rename r = {
		.req = FUSE_BPF_REQ(olddir),
		.in = { .newdir = get_node_id(newdir), .flags = flags },
		.flags = flags,
		.newdir = newdir,
		.oldent = oldent,
		.newent = newent,
	};

	if (!fuse_bpf_backed(olddir) && !fuse_bpf_backed(newdir))
		return false;
	if (!fuse_bpf_backed(olddir) || !fuse_bpf_backed(newdir) ||
	    fuse_bpf_path(olddir)->mnt != fuse_bpf_path(newdir)->mnt) {
		*err = -EXDEV;
		return true;
	}
	r.req.other = newdir;
	return fuse_bpf_result(err, fuse_bpf_run(flags ? &fuse_bpf_rename2_op :
						   &fuse_bpf_rename_op, &r.req));
}

/* O_TMPFILE */

struct fuse_bpf_tmpfile {
	struct fuse_bpf_req req;
	struct fuse_create_in in;
	umode_t mode;		/* the caller's, as checked */
	struct file *file;
	struct file *lower;
};

static int fuse_bpf_tmpfile_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_tmpfile *t = container_of(req, typeof(*t), req);

	fuse_bpf_arg_in(req, sizeof(t->in), &t->in);
	return 0;
}

static int fuse_bpf_tmpfile_pre(struct fuse_bpf_req *req,
				const struct fuse_ops *ops)
{
	struct fuse_bpf_tmpfile *t = container_of(req, typeof(*t), req);

	if (!ops->tmpfile_prefilter)
		return fuse_bpf_no_prefilter(ops->tmpfile_postfilter);
	return ops->tmpfile_prefilter(&req->meta, &t->in);
}

static int fuse_bpf_tmpfile_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_tmpfile *t = container_of(req, typeof(*t), req);
	umode_t mode = S_IFREG | (t->in.mode & S_IALLUGO);
	struct dentry *entry = t->file->f_path.dentry;
	struct file *lower;
	int flags, err;

	flags = fuse_bpf_open_flags(t->file, S_IFREG, t->file->f_flags,
				    t->in.flags);
	if (flags < 0)
		return flags;
	err = fuse_bpf_check_mode(t->mode, mode);
	if (!err)
		err = fuse_bpf_create_creds(req, entry, mode, &entry->d_name);
	if (err)
		return err;
	lower = backing_tmpfile_open(t->file, flags, fuse_bpf_path(req->inode),
				     mode, current_cred());
	if (IS_ERR(lower))
		return PTR_ERR(lower);
	t->lower = lower;
	return 0;
}

static int fuse_bpf_tmpfile_post(struct fuse_bpf_req *req,
				 const struct fuse_ops *ops)
{
	struct fuse_bpf_tmpfile *t = container_of(req, typeof(*t), req);

	if (!ops->tmpfile_postfilter)
		return 0;
	return ops->tmpfile_postfilter(&req->meta, &t->in);
}

static int fuse_bpf_tmpfile_finish(struct fuse_bpf_req *req, int err)
{
	struct fuse_bpf_tmpfile *t = container_of(req, typeof(*t), req);
	struct inode *inode;

	if (err) {
		if (t->lower)
			fput(t->lower);
		return err;
	}
	inode = fuse_bpf_iget(req->inode, &t->lower->f_path);
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

static const struct fuse_bpf_op fuse_bpf_tmpfile_op = {
	.opcode = FUSE_TMPFILE,
	.setup = fuse_bpf_tmpfile_setup,
	.prefilter = fuse_bpf_tmpfile_pre,
	.backing = fuse_bpf_tmpfile_backing,
	.postfilter = fuse_bpf_tmpfile_post,
	.finish = fuse_bpf_tmpfile_finish,
	.flags = FUSE_BPF_WRITE,	/* for the caller: fuse_bpf_create_creds() */
};

/**
 * fuse_bpf_tmpfile() - Make and open an unnamed file in a backed directory
 * @err: where the result goes: 0 or an errno
 * @dir: the FUSE directory
 * @file: the O_TMPFILE file to open
 * @mode: the file's mode
 *
 * Makes an O_TMPFILE file in the lower directory, for the caller, with the
 * permission bits the filters leave (no S_ISUID or S_ISGID they add:
 * -EPERM, fuse_bpf_check_mode()) and the VFS's flags (but the O_DIRECT,
 * O_DSYNC and O_SYNC they leave: fuse_bpf_open_flags()), gives @file's
 * dentry its FUSE inode and opens @file.
 *
 * Return: true if FUSE-BPF served the operation, its result in @err; false
 * if @dir has no backing inode, or its daemon_ops or a filter send
 * FUSE_TMPFILE to the daemon.
 */
bool fuse_bpf_tmpfile(int *err, struct inode *dir, struct file *file,
		      umode_t mode)
{
	struct fuse_bpf_tmpfile t = {
		.req = FUSE_BPF_REQ(dir),
		.in = {
			.mode = mode,
			.flags = file->f_flags,
			.umask = current_umask(),
		},
		.mode = mode,
		.file = file,
	};

	if (!fuse_bpf_backed(dir))
		return false;
	return fuse_bpf_result(err, fuse_bpf_run(&fuse_bpf_tmpfile_op, &t.req));
}

/**
 * fuse_bpf_atomic_open() - Look up, create and open in one go
 * @err: where the result goes: 0 or an errno
 * @dir: the FUSE directory
 * @entry: the dentry, in lookup or negative
 * @file: the file to open
 * @flags: the open flags
 * @mode: the mode of a file to create
 *
 * Looks @entry up if it is in lookup (fuse_bpf_lookup()).  Without O_CREAT,
 * or if the name exists, leaves the open to the VFS (finish_no_open());
 * otherwise creates the file (fuse_bpf_create()) and opens @file on it.  A
 * name that appeared on the lower filesystem meanwhile gives -ESTALE
 * without O_EXCL, so that the VFS walks again and opens it.
 *
 * Return: false if @dir has no backing inode, or the lookup or the create
 * goes to the daemon; otherwise true, the result in @err.
 */
bool fuse_bpf_atomic_open(int *err, struct inode *dir, struct dentry *entry,
			  struct file *file, unsigned int flags, umode_t mode)
{
	struct dentry *res = NULL;

	if (!fuse_bpf_backed(dir))
		return false;
	if (d_in_lookup(entry)) {
		if (!fuse_bpf_lookup(&res, dir, entry, 0))
			return false;
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
	if (!fuse_bpf_create(err, dir, entry, mode, flags & O_EXCL)) {
		/* For the daemon: the lookup left a negative entry, res NULL */
		file->f_mode &= ~FMODE_CREATED;
		return false;
	}
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
	struct fuse_buffer name;
	struct name_snapshot snap;
	struct delayed_call *done;
	const char *link;
};

/*
 * The filters see the link's name; they may fail the call, not rename.
 * No lock holds the name while the lower filesystem reads the link: they
 * see a snapshot, which a rename cannot free (fuse_bpf_get_link()).
 */
static int fuse_bpf_readlink_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_readlink *r = container_of(req, typeof(*r), req);

	fuse_bpf_buf_in(req, &r->name, (void *)r->snap.name.name,
			r->snap.name.len + 1, NAME_MAX + 1,
			BPF_FUSE_IMMUTABLE);
	return 0;
}

static int fuse_bpf_readlink_pre(struct fuse_bpf_req *req,
				 const struct fuse_ops *ops)
{
	struct fuse_bpf_readlink *r = container_of(req, typeof(*r), req);

	if (!ops->get_link_prefilter)
		return fuse_bpf_no_prefilter(ops->get_link_postfilter);
	return ops->get_link_prefilter(&req->meta, &r->name);
}

static int fuse_bpf_readlink_post(struct fuse_bpf_req *req,
				  const struct fuse_ops *ops)
{
	struct fuse_bpf_readlink *r = container_of(req, typeof(*r), req);

	if (!ops->get_link_postfilter)
		return 0;
	return ops->get_link_postfilter(&req->meta, &r->name);
}

static int fuse_bpf_readlink_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_readlink *r = container_of(req, typeof(*r), req);

	r->link = vfs_get_link(fuse_bpf_dentry(req->inode), r->done);
	return PTR_ERR_OR_ZERO(r->link);
}

/* A postfilter failed the call: give back what vfs_get_link() took. */
static int fuse_bpf_readlink_finish(struct fuse_bpf_req *req, int err)
{
	struct fuse_bpf_readlink *r = container_of(req, typeof(*r), req);

	if (err && !IS_ERR_OR_NULL(r->link)) {
		do_delayed_call(r->done);
		clear_delayed_call(r->done);
		r->link = NULL;
	}
	return err;
}

static const struct fuse_bpf_op fuse_bpf_readlink_op = {
	.opcode = FUSE_READLINK,
	.setup = fuse_bpf_readlink_setup,
	.prefilter = fuse_bpf_readlink_pre,
	.backing = fuse_bpf_readlink_backing,
	.postfilter = fuse_bpf_readlink_post,
	.finish = fuse_bpf_readlink_finish,
};

/**
 * fuse_bpf_get_link() - Read the target of a backed symlink
 * @res: where the result goes: the target, or an ERR_PTR()
 * @entry: the symlink's dentry; NULL in RCU walk
 * @inode: the symlink's FUSE inode
 * @done: set to release the target once the caller is done with it
 *
 * Reads the lower symlink with vfs_get_link().  The filters see the link's
 * name; they may fail the call, not change the target.
 *
 * Context: in RCU walk (@entry NULL) @res is ERR_PTR(-ECHILD).
 *
 * Return: true if FUSE-BPF served the operation, its result in @res; false
 * if @inode has no backing inode, or its daemon_ops or a filter send
 * FUSE_READLINK to the daemon.
 */
bool fuse_bpf_get_link(const char **res, struct dentry *entry,
		       struct inode *inode, struct delayed_call *done)
{
	struct fuse_bpf_readlink r = {
		.req = FUSE_BPF_REQ(inode),
		.done = done,
	};
	int err;

	if (!fuse_bpf_backed(inode))
		return false;
	if (!entry) {
		*res = ERR_PTR(-ECHILD);
		return true;
	}
	take_dentry_name_snapshot(&r.snap, entry);
	err = fuse_bpf_run(&fuse_bpf_readlink_op, &r.req);
	release_dentry_name_snapshot(&r.snap);
	if (err == FUSE_BPF_FALLBACK)
		return false;
	*res = err ? ERR_PTR(err) : r.link;
	return true;
}

/* Directories: open and read */

struct fuse_bpf_open {
	struct fuse_bpf_req req;
	struct fuse_open_in in;
	struct fuse_open_out out;
	struct file *file;
	struct fuse_file *ff;
};

static int fuse_bpf_open_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_open *o = container_of(req, typeof(*o), req);

	fuse_bpf_arg_in(req, sizeof(o->in), &o->in);
	fuse_bpf_arg_out(req, sizeof(o->out), &o->out);
	return 0;
}

/*
 * A regular file opened for reading only opens its backing file on the
 * first access to its data (fuse_bpf_file_get()): an open that only
 * stats, or closes at once, costs no second file.  That access may hold
 * locks (mmap_lock, a pipe's): the lower open must not wait there.  So an
 * open for writing opens the backing file at once, and the lower mount and
 * inode refuse it when they would (EROFS of a read-only mount, ETXTBSY of
 * a running executable), counting the writer from the open; so does
 * O_DIRECT, which the lower filesystem may refuse; so does a lower whose
 * names need revalidation (NFS, FUSE: its ->open() asks a server), and a
 * lower filesystem watched by fanotify permission events (FAN_OPEN_PERM
 * waits for a listener).  A directory opens its own at once.
 */
static bool fuse_bpf_open_lazy(struct inode *inode, struct file *file,
			       int flags)
{
	struct dentry *lower = fuse_bpf_dentry(inode);

	return S_ISREG(inode->i_mode) && !(file->f_mode & FMODE_WRITE) &&
	       !(flags & O_DIRECT) &&
	       !(lower->d_flags & DCACHE_OP_REVALIDATE) &&
	       !fsnotify_sb_has_priority_watchers(lower->d_sb,
						  FSNOTIFY_PRIO_CONTENT);
}

/*
 * What the lower open does at once for a reader: break a write lease on
 * the lower inode (waiting here, in open(), as it would), and count the
 * reader, so that no write lease is granted until the backing file counts
 * it (fuse_bpf_file_get()) or the file is released (fuse_bpf_release()).
 */
static int fuse_bpf_open_later(struct inode *inode, struct fuse_file *ff,
			       int flags)
{
	struct inode *lower = fuse_bpf_inode(inode);
	int err = break_lease(lower, flags);

	if (err)
		return err;
	i_readcount_inc(lower);
	ff->bpf_open_flags = flags;
	return 0;
}

/*
 * Open @file with the open flags @in_flags (what a filter left in
 * fuse_open_in), with the backing credentials; @caller's are the opener's.
 * The lower inode's permission is checked now, even when the backing file
 * is opened later (fuse_bpf_open_lazy()).
 */
static int fuse_bpf_open_file(struct inode *inode, struct file *file,
			      u32 in_flags, const struct cred *caller)
{
	struct fuse_mount *fm = get_fuse_mount(inode);
	struct file *lower = NULL;
	struct fuse_file *ff;
	int flags, err;

	flags = fuse_bpf_open_flags(file, inode->i_mode,
				    FUSE_BPF_OPEN_IN_FLAGS(file), in_flags);
	if (flags < 0)
		return flags;
	err = fuse_bpf_may_open_backing(inode, flags);
	if (err)
		return err;
	ff = fuse_file_alloc(fm, false);
	if (!ff)
		return -ENOMEM;
	/* Writes through the file take space for the opener */
	if (S_ISREG(inode->i_mode) && (file->f_mode & FMODE_WRITE))
		ff->cred = fuse_bpf_get_caller_creds(caller);
	else
		ff->cred = get_cred(current_cred());
	err = ff->cred ? 0 : -ENOMEM;
	if (!err && fuse_bpf_open_lazy(inode, file, flags)) {
		err = fuse_bpf_open_later(inode, ff, flags);
	} else if (!err) {
		lower = fuse_bpf_open_backing(inode, file, flags);
		err = PTR_ERR_OR_ZERO(lower);
	}
	if (err) {
		if (ff->cred)
			put_cred(ff->cred);
		fuse_file_free(ff);
		return err;
	}
	ff->nodeid = get_node_id(inode);
	ff->passthrough = lower;
	file->private_data = ff;
	return 0;
}

static int fuse_bpf_open_step(struct fuse_bpf_req *req)
{
	struct fuse_bpf_open *o = container_of(req, typeof(*o), req);
	int err;

	err = fuse_bpf_open_file(req->inode, o->file, o->in.flags,
				 req->caller);
	if (!err)
		o->ff = o->file->private_data;
	return err;
}

static int fuse_bpf_open_pre(struct fuse_bpf_req *req,
			     const struct fuse_ops *ops)
{
	struct fuse_bpf_open *o = container_of(req, typeof(*o), req);

	if (!ops->open_prefilter)
		return fuse_bpf_no_prefilter(ops->open_postfilter);
	return ops->open_prefilter(&req->meta, &o->in);
}

static int fuse_bpf_open_post(struct fuse_bpf_req *req,
			      const struct fuse_ops *ops)
{
	struct fuse_bpf_open *o = container_of(req, typeof(*o), req);

	if (!ops->open_postfilter)
		return 0;
	return ops->open_postfilter(&req->meta, &o->in, &o->out);
}

static int fuse_bpf_opendir_pre(struct fuse_bpf_req *req,
				const struct fuse_ops *ops)
{
	struct fuse_bpf_open *o = container_of(req, typeof(*o), req);

	if (!ops->opendir_prefilter)
		return fuse_bpf_no_prefilter(ops->opendir_postfilter);
	return ops->opendir_prefilter(&req->meta, &o->in);
}

static int fuse_bpf_opendir_post(struct fuse_bpf_req *req,
				 const struct fuse_ops *ops)
{
	struct fuse_bpf_open *o = container_of(req, typeof(*o), req);

	if (!ops->opendir_postfilter)
		return 0;
	return ops->opendir_postfilter(&req->meta, &o->in, &o->out);
}

/*
 * The file handle an open or opendir postfilter gave: the later filters
 * of the file see it in their fuse_*_in, the requests the daemon gets for
 * the file carry it, and the daemon gets the file's FUSE_RELEASE or
 * FUSE_RELEASEDIR with it, to free what it tied to it.  For that the node
 * is introduced to the daemon now: the release names a node id it gave.
 * A mount without a daemon keeps the handle for its filters.
 */
static int fuse_bpf_open_fh(struct inode *inode, struct fuse_file *ff, u64 fh)
{
	int err;

	ff->fh = fh;
	if (!fh || get_fuse_conn(inode)->no_daemon)
		return 0;
	err = fuse_bpf_introduce(inode);
	if (err)
		return err;
	ff->args = kzalloc(sizeof(*ff->args), GFP_KERNEL_ACCOUNT);
	if (!ff->args)
		return -ENOMEM;
	ff->nodeid = get_node_id(inode);
	return 0;
}

/*
 * The postfilters' file handle; an open that failed, in a postfilter or
 * here, gives back what the open step took.
 */
static int fuse_bpf_open_finish(struct fuse_bpf_req *req, int err)
{
	struct fuse_bpf_open *o = container_of(req, typeof(*o), req);

	if (!err && o->ff)
		err = fuse_bpf_open_fh(req->inode, o->ff, o->out.fh);
	if (err && o->ff) {
		if (o->ff->passthrough)
			fput(o->ff->passthrough);
		else
			i_readcount_dec(fuse_bpf_inode(req->inode));
		put_cred(o->ff->cred);
		fuse_file_free(o->ff);
		o->file->private_data = NULL;
	}
	return err;
}

static const struct fuse_bpf_op fuse_bpf_opendir_op = {
	.opcode = FUSE_OPENDIR,
	.setup = fuse_bpf_open_setup,
	.prefilter = fuse_bpf_opendir_pre,
	.backing = fuse_bpf_open_step,
	.postfilter = fuse_bpf_opendir_post,
	.finish = fuse_bpf_open_finish,
};

static const struct fuse_bpf_op fuse_bpf_open_op = {
	.opcode = FUSE_OPEN,
	.setup = fuse_bpf_open_setup,
	.prefilter = fuse_bpf_open_pre,
	.backing = fuse_bpf_open_step,
	.postfilter = fuse_bpf_open_post,
	.finish = fuse_bpf_open_finish,
};

/*
 * Out of line: the request is set up only for a node that has a filter
 * or whose daemon takes the open, every field of it, but not its lists
 * (fuse_bpf_req_init()).
 */
static noinline int fuse_bpf_open_run(const struct fuse_bpf_op *op,
				      struct inode *inode, struct file *file)
{
	struct fuse_bpf_open o __uninitialized;

	fuse_bpf_req_init(&o.req, inode);
	o.in = (struct fuse_open_in) {
		.flags = FUSE_BPF_OPEN_IN_FLAGS(file),
	};
	o.out = (struct fuse_open_out) {};
	o.file = file;
	o.ff = NULL;
	return fuse_bpf_run(op, &o.req);
}

/**
 * fuse_bpf_open_common() - Open a file or directory of a backed node
 * @err: where the result goes: 0 or an errno
 * @opcode: FUSE_OPEN or FUSE_OPENDIR, as the filters see it
 * @inode: the FUSE inode
 * @file: the file being opened
 *
 * Gives @file a fuse_file that holds its backing file in ff->passthrough,
 * opened with the backing credentials (fuse_bpf_open_backing()): now, or
 * for a regular file opened for reading only, on the first access to its
 * data.  A regular file opened for writing keeps credentials acting for
 * the opener (fuse_bpf_get_caller_creds()).  The filters may fail the
 * open, and set or clear O_DIRECT, O_DSYNC and O_SYNC of the backing file
 * (fuse_bpf_open_flags()).  With no filter of @opcode and no daemon to
 * ask, no request is set up, as for getattr.
 *
 * Return: true if FUSE-BPF served the open, its result in @err; false if
 * @inode has no backing inode, or its daemon_ops or a filter send @opcode
 * to the daemon (which then serves the open file).
 */
bool fuse_bpf_open_common(int *err, u32 opcode, struct inode *inode,
			  struct file *file)
{
	const struct fuse_bpf_op *op = opcode == FUSE_OPENDIR ?
		&fuse_bpf_opendir_op : &fuse_bpf_open_op;
	const struct cred *old;

	if (!fuse_bpf_backed(inode))
		return false;
	if (opcode == FUSE_OPENDIR ?
	    !fuse_bpf_kernel_only(inode, opendir, opcode) :
	    !fuse_bpf_kernel_only(inode, open, opcode))
		return fuse_bpf_result(err, fuse_bpf_open_run(op, inode, file));
	old = fuse_bpf_override_creds(inode);
	*err = fuse_bpf_open_file(inode, file, FUSE_BPF_OPEN_IN_FLAGS(file),
				  old);
	revert_creds(old);
	return true;
}

/**
 * fuse_bpf_opendir() - Open a backed directory
 * @err: where the result goes: 0 or an errno
 * @inode: the FUSE inode
 * @file: the file being opened
 *
 * fuse_bpf_open_common() for FUSE_OPENDIR.
 *
 * Return: true if FUSE-BPF served the open, its result in @err; false if
 * @inode has no backing inode, or its daemon_ops or a filter send
 * FUSE_OPENDIR to the daemon.
 */
bool fuse_bpf_opendir(int *err, struct inode *inode, struct file *file)
{
	return fuse_bpf_open_common(err, FUSE_OPENDIR, inode, file);
}

/*
 * readdir.  Without a postfilter the lower directory fills the caller's
 * context directly.  With one, a chunk of the lower directory is read as
 * FUSE_READDIR would return it (fuse_dirent records, each off the cookie
 * of the next entry), the postfilter may rewrite it, and finish hands the
 * records to the caller; chunks follow one another, in one page, until
 * the caller's buffer is full or the directory ends.
 */
struct fuse_bpf_readdir {
	struct fuse_bpf_req req;
	struct fuse_read_in in;
	struct fuse_read_out out;
	struct fuse_buffer buffer;
	struct file *file;
	struct dir_context *ctx;
	void *page;		/* one for all the chunks of a call */
	bool chunk;		/* a chunk was read into it */
	bool emitted;		/* the caller took records of it */
	bool again;
	bool steered;		/* the postfilter chose the next offset */
	loff_t lower_next;	/* the lower directory's next offset */
};

/*
 * Chunks in a row that a postfilter sends elsewhere than the lower
 * directory would go, with no record for the caller: past this, the call
 * fails with -EIO (a filter that keeps changing the offset would spin).
 * A filter that only hides entries is not bounded: the lower directory
 * ends.
 */
#define FUSE_BPF_READDIR_MAX_STEERED	256

struct fuse_bpf_dirents {
	struct dir_context ctx;
	struct fuse_dirent *last;
	char *buf;
	unsigned int len;
};

static bool fuse_bpf_fill_dirent(struct dir_context *ctx, const char *name,
				 int namelen, loff_t offset, u64 ino,
				 unsigned int d_type)
{
	struct fuse_bpf_dirents *d = container_of(ctx, typeof(*d), ctx);
	size_t reclen = FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET + namelen);
	struct fuse_dirent *de;

	if (d->len + reclen > PAGE_SIZE)
		return false;
	/* The cookie of an entry is where the next one starts. */
	if (d->last)
		d->last->off = offset;
	de = (struct fuse_dirent *)(d->buf + d->len);
	/* The padding is within the record's last u64: zeroed first */
	*(u64 *)((char *)de + reclen - sizeof(u64)) = 0;
	de->ino = ino;
	de->off = 0;
	de->namelen = namelen;
	de->type = d_type;
	memcpy(de->name, name, namelen);
	d->last = de;
	d->len += reclen;
	return true;
}

static int fuse_bpf_readdir_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_readdir *r = container_of(req, typeof(*r), req);

	r->in.fh = fuse_bpf_fh(r->file);
	fuse_bpf_arg_in(req, sizeof(r->in), &r->in);
	/*
	 * The postfilters' view of the reply, as the RFC's: where listing
	 * goes on, then the records, read for a postfilter.
	 */
	fuse_bpf_arg_out(req, sizeof(r->out), &r->out);
	fuse_bpf_arg_out_buf(req, &r->buffer);
	return 0;
}

static int fuse_bpf_readdir_pre(struct fuse_bpf_req *req,
				const struct fuse_ops *ops)
{
	struct fuse_bpf_readdir *r = container_of(req, typeof(*r), req);

	if (!ops->readdir_prefilter)
		return fuse_bpf_no_prefilter(ops->readdir_postfilter);
	return ops->readdir_prefilter(&req->meta, &r->in);
}

/* A chunk of the lower directory from r->in.offset, for the postfilter. */
static int fuse_bpf_readdir_chunk(struct fuse_bpf_readdir *r,
				  struct file *lower)
{
	struct fuse_bpf_dirents d = { .ctx.actor = fuse_bpf_fill_dirent };
	int err;

	if (!r->page)
		r->page = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!r->page)
		return -ENOMEM;
	r->chunk = true;
	d.buf = r->page;
	err = iterate_dir(lower, &d.ctx);
	if (err)
		return err;
	if (d.last)
		d.last->off = d.ctx.pos;
	r->out.offset = d.ctx.pos;
	r->lower_next = d.ctx.pos;
	r->buffer = (struct fuse_buffer) {
		.data = r->page,
		.size = d.len,
		.alloc_size = PAGE_SIZE,
		.max_size = 2 * PAGE_SIZE,
		.flags = BPF_FUSE_VARIABLE_SIZE,
	};
	return 0;
}

/*
 * The lower directory's own offsets are ours: seek the backing file to
 * the offset asked first, so telldir()/seekdir() work as on the lower
 * directory.
 */
static int fuse_bpf_readdir_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_readdir *r = container_of(req, typeof(*r), req);
	struct file *lower = fuse_bpf_file(r->file);
	loff_t pos;

	if (lower->f_pos != r->in.offset) {
		pos = vfs_llseek(lower, r->in.offset, SEEK_SET);
		if (pos < 0)
			return pos;
	}
	if (req->post)
		return fuse_bpf_readdir_chunk(r, lower);
	return iterate_dir(lower, r->ctx);
}

static int fuse_bpf_readdir_post(struct fuse_bpf_req *req,
				 const struct fuse_ops *ops)
{
	struct fuse_bpf_readdir *r = container_of(req, typeof(*r), req);

	if (!ops->readdir_postfilter)
		return 0;
	return ops->readdir_postfilter(&req->meta, &r->in, &r->out,
				       &r->buffer);
}

/* A record a filter wrote: one name, within the buffer */
static bool fuse_bpf_dirent_bad(const struct fuse_dirent *de, size_t len)
{
	return !de->namelen || de->namelen > NAME_MAX ||
	       FUSE_DIRENT_SIZE(de) > len ||
	       memchr(de->name, '/', de->namelen) ||
	       memchr(de->name, 0, de->namelen);
}

/*
 * Hand the (filtered) records to the caller, as fuse_parse_dirfile().
 * Records are checked only if the filter wrote to them.
 */
static int fuse_bpf_readdir_emit(struct fuse_bpf_readdir *r)
{
	bool check = r->buffer.flags & BPF_FUSE_MODIFIED;
	const char *buf = r->buffer.data;
	size_t len = r->buffer.size;

	while (len >= FUSE_NAME_OFFSET) {
		const struct fuse_dirent *de = (const void *)buf;
		size_t reclen = FUSE_DIRENT_SIZE(de);

		if (check && fuse_bpf_dirent_bad(de, len))
			return -EIO;
		if (!dir_emit(r->ctx, de->name, de->namelen, de->ino,
			      de->type))
			return 0;
		r->ctx->pos = de->off;
		r->emitted = true;
		buf += reclen;
		len -= reclen;
	}
	/*
	 * The caller took the whole chunk: read on, unless at the end.  A
	 * filter that rewrites out.offset steers this, a bounded number of
	 * times without a record (fuse_bpf_readdir()); a SIGKILL ends it.
	 */
	if (r->out.offset != r->in.offset) {
		r->ctx->pos = r->out.offset;
		r->again = true;
		r->steered = r->out.offset != r->lower_next;
	}
	return 0;
}

static int fuse_bpf_readdir_finish(struct fuse_bpf_req *req, int err)
{
	struct fuse_bpf_readdir *r = container_of(req, typeof(*r), req);

	if (!r->chunk)
		return err;
	if (!err)
		err = fuse_bpf_readdir_emit(r);
	bpf_fuse_free_buffer(&r->buffer);
	return err;
}

static const struct fuse_bpf_op fuse_bpf_readdir_op = {
	.opcode = FUSE_READDIR,
	.setup = fuse_bpf_readdir_setup,
	.prefilter = fuse_bpf_readdir_pre,
	.backing = fuse_bpf_readdir_backing,
	.postfilter = fuse_bpf_readdir_post,
	.finish = fuse_bpf_readdir_finish,
};

/**
 * fuse_bpf_readdir() - Read a directory from its backing directory
 * @err: where the result goes: 0 or an errno
 * @file: the open FUSE directory
 * @ctx: the caller's directory context
 *
 * Reads the lower directory from ctx->pos, at the lower directory's own
 * offsets.  Without a postfilter the lower directory fills @ctx directly;
 * with one, pages of FUSE_READDIR records go through it first, one after
 * the other until the caller's buffer is full or the directory ends.
 *
 * Return: false if @file is not served from a backing file (its node has
 * no backing inode, or the daemon opened it), or a filter sends the read to
 * the daemon; otherwise true, the result in @err.
 */
bool fuse_bpf_readdir(int *err, struct file *file, struct dir_context *ctx)
{
	struct inode *inode = file_inode(file);
	unsigned int steered = 0;
	struct fuse_bpf_readdir r;
	bool emitted = false;
	void *page = NULL;
	int ret;

	if (!fuse_bpf_file_backed(file))
		return false;
	do {
		cond_resched();
		r = (struct fuse_bpf_readdir) {
			.req = FUSE_BPF_REQ(inode),
			.in = { .offset = ctx->pos, .size = PAGE_SIZE },
			.file = file,
			.ctx = ctx,
			.page = page,
		};
		ret = fuse_bpf_run(&fuse_bpf_readdir_op, &r.req);
		page = r.page;
		emitted |= r.emitted;
		steered = r.steered && !r.emitted ? steered + 1 : 0;
		if (steered > FUSE_BPF_READDIR_MAX_STEERED)
			ret = -EIO;
	} while (!ret && r.again && !fatal_signal_pending(current));
	kfree(page);
	/*
	 * A filter sends a later chunk to the daemon: this call ends with the
	 * records the caller has, the next one starts with that chunk.
	 */
	if (ret == FUSE_BPF_FALLBACK && emitted)
		ret = 0;
	return fuse_bpf_result(err, ret);
}
