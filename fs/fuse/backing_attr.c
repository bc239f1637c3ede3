// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE-BPF: attributes, permission, xattrs and ACLs of backed nodes.
 *
 * The FUSE inode mirrors the lower inode's attributes.  The caller's
 * permission is checked against the lower inode as it is now, as with
 * default_permissions; the lower filesystem is then asked with the backing
 * credentials.
 */

#include "fuse_i.h"

#include <linux/error-injection.h>
#include <linux/fileattr.h>
#include <linux/magic.h>
#include <linux/posix_acl.h>
#include <linux/posix_acl_xattr.h>
#include <linux/statfs.h>
#include <linux/xattr.h>

/*
 * In RCU walk the inode may be under eviction: the backing dentry is read
 * once, and nothing is written (the mirror is refreshed in ref-walk only).
 * Lower mounts are never idmapped (see fuse_bpf_parse_root_dir()).
 */
static int fuse_bpf_lower_permission(struct inode *linode, int mask)
{
	if ((mask & MAY_WRITE) && IS_IMMUTABLE(linode))
		return -EPERM;
	return generic_permission(&nop_mnt_idmap, linode, mask);
}

/*
 * access(2) and chdir(2), FUSE_ACCESS to a daemon: the filters run around
 * the check already made with the caller's credentials.  They may fail it,
 * or send it to the daemon; they cannot grant what the lower refused (a
 * postfilter's non-negative return keeps the result).  A prefilter that
 * asks for other access has the lower inode checked for it too.
 */
struct fuse_bpf_access {
	struct fuse_bpf_req req;
	struct fuse_access_in in;
	int mask;	/* the VFS's */
	int result;
};

static int fuse_bpf_access_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_access *a = container_of(req, typeof(*a), req);

	fuse_bpf_arg_in(req, sizeof(a->in), &a->in);
	return 0;
}

static int fuse_bpf_access_pre(struct fuse_bpf_req *req,
			       const struct fuse_ops *ops)
{
	struct fuse_bpf_access *a = container_of(req, typeof(*a), req);

	if (!ops->access_prefilter)
		return fuse_bpf_no_prefilter(ops->access_postfilter);
	return ops->access_prefilter(&req->meta, &a->in);
}

#define FUSE_BPF_MAY_RWX	(MAY_READ | MAY_WRITE | MAY_EXEC)

/* Run with the caller's credentials (FUSE_BPF_CALLER_CREDS) */
static int fuse_bpf_access_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_access *a = container_of(req, typeof(*a), req);

	if (a->in.mask == (a->mask & FUSE_BPF_MAY_RWX) || a->result)
		return a->result;
	if (a->in.mask & ~FUSE_BPF_MAY_RWX)
		return -EINVAL;
	return fuse_bpf_lower_permission(fuse_bpf_inode(req->inode),
					 (a->mask & ~FUSE_BPF_MAY_RWX) |
					 a->in.mask);
}

static int fuse_bpf_access_post(struct fuse_bpf_req *req,
				const struct fuse_ops *ops)
{
	struct fuse_bpf_access *a = container_of(req, typeof(*a), req);

	if (!ops->access_postfilter)
		return 0;
	return ops->access_postfilter(&req->meta, &a->in);
}

static const struct fuse_bpf_op fuse_bpf_access_op = {
	.opcode = FUSE_ACCESS,
	.setup = fuse_bpf_access_setup,
	.prefilter = fuse_bpf_access_pre,
	.backing = fuse_bpf_access_backing,
	.postfilter = fuse_bpf_access_post,
	.flags = FUSE_BPF_CALLER_CREDS,
};

static bool fuse_bpf_access(int *err, struct inode *inode, int mask)
{
	struct fuse_bpf_access a = {
		.req = FUSE_BPF_REQ(inode),
		.in.mask = mask & FUSE_BPF_MAY_RWX,
		.mask = mask,
		.result = *err,
	};
	int ret = fuse_bpf_run(&fuse_bpf_access_op, &a.req);

	/* The daemon may deny what the lower allowed, not grant what it refused */
	if (ret == FUSE_BPF_FALLBACK && *err)
		return true;
	return fuse_bpf_result(err, ret);
}

/**
 * fuse_bpf_permission() - Check permission on a backed node
 * @err: where the result goes: 0 or an errno
 * @inode: the FUSE inode
 * @mask: MAY_* flags
 *
 * Judges the caller on the lower inode as it is now (generic_permission(),
 * and no writing to an immutable inode).  For access(2) and chdir(2) on a
 * node with a filter, the filters then see FUSE_ACCESS: they may fail the
 * check, not grant what the lower inode refused.
 *
 * Context: RCU walk if @mask has MAY_NOT_BLOCK: the mirror is not refreshed
 * and no filter runs.
 *
 * Return: false if @inode has no backing dentry, or if, for access(2) or
 * chdir(2) on a node with a filter, its daemon_ops or a filter send
 * FUSE_ACCESS to the daemon and the lower inode allowed it (the daemon
 * may deny it then, never grant what the lower refused); otherwise true,
 * the result in @err (-ECHILD if the backing dentry has no inode).
 */
bool fuse_bpf_permission(int *err, struct inode *inode, int mask)
{
	struct dentry *lower = fuse_bpf_dentry_rcu(inode);
	struct inode *linode;

	if (!lower)
		return false;
	linode = d_inode_rcu(lower);
	if (!linode) {
		*err = -ECHILD;
		return true;
	}
	if (!(mask & MAY_NOT_BLOCK))
		fuse_bpf_copyattr(inode);
	*err = fuse_bpf_lower_permission(linode, mask);
	/* Never in RCU walk: both come from ref-walk permission checks. */
	if ((mask & (MAY_ACCESS | MAY_CHDIR)) && !(mask & MAY_NOT_BLOCK) &&
	    fuse_bpf_filters(inode, access))
		return fuse_bpf_access(err, inode, mask);
	return true;
}

/* getattr */

struct fuse_bpf_getattr {
	struct fuse_bpf_req req;
	struct fuse_getattr_in in;
	struct fuse_attr_out out;
	struct kstat *stat;
	u32 mask;
	unsigned int flags;
};

static int fuse_bpf_getattr_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_getattr *g = container_of(req, typeof(*g), req);

	fuse_bpf_arg_in(req, sizeof(g->in), &g->in);
	fuse_bpf_arg_out(req, sizeof(g->out), &g->out);
	return 0;
}

static int fuse_bpf_getattr_pre(struct fuse_bpf_req *req,
				const struct fuse_ops *ops)
{
	struct fuse_bpf_getattr *g = container_of(req, typeof(*g), req);

	if (!ops->getattr_prefilter)
		return fuse_bpf_no_prefilter(ops->getattr_postfilter);
	return ops->getattr_prefilter(&req->meta, &g->in);
}

/* What the postfilter left in the attributes is what stat() returns. */
static void fuse_bpf_attr_to_kstat(const struct fuse_attr *attr,
				   struct kstat *stat)
{
	stat->size = attr->size;
	stat->blocks = attr->blocks;
	stat->atime = (struct timespec64){ attr->atime, attr->atimensec };
	stat->mtime = (struct timespec64){ attr->mtime, attr->mtimensec };
	stat->ctime = (struct timespec64){ attr->ctime, attr->ctimensec };
	stat->mode = (stat->mode & S_IFMT) | (attr->mode & ~S_IFMT);
	stat->nlink = attr->nlink;
	stat->uid = fuse_bpf_kuid(attr->uid);
	stat->gid = fuse_bpf_kgid(attr->gid);
	stat->blksize = attr->blksize;
}

/*
 * As ovl_do_getattr(): the caller may have done the LSM check.  Both paths
 * of getattr come here, a point for fault injection.
 */
static noinline int fuse_bpf_getattr_lower(struct inode *inode,
					   struct kstat *stat, u32 mask,
					   unsigned int flags)
{
	if (flags & AT_GETATTR_NOSEC)
		return vfs_getattr_nosec(fuse_bpf_path(inode), stat, mask,
					 flags);
	return vfs_getattr(fuse_bpf_path(inode), stat, mask, flags);
}
ALLOW_ERROR_INJECTION(fuse_bpf_getattr_lower, ERRNO);

/* st_dev is the FUSE superblock's; the mirror is refreshed. */
static void fuse_bpf_getattr_done(struct inode *inode, struct kstat *stat)
{
	stat->dev = inode->i_sb->s_dev;
	fuse_bpf_copyattr(inode);
}

static int fuse_bpf_getattr_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_getattr *g = container_of(req, typeof(*g), req);
	int err;

	err = fuse_bpf_getattr_lower(req->inode, g->stat, g->mask, g->flags);
	/* The postfilter's attributes: the lower's, or zeroes on a failure */
	if (req->post && !err)
		fuse_bpf_kstat_to_attr(g->stat, &g->out.attr);
	else if (req->post)
		g->out.attr = (struct fuse_attr) {};
	return err;
}

static int fuse_bpf_getattr_post(struct fuse_bpf_req *req,
				 const struct fuse_ops *ops)
{
	struct fuse_bpf_getattr *g = container_of(req, typeof(*g), req);

	if (!ops->getattr_postfilter)
		return 0;
	return ops->getattr_postfilter(&req->meta, &g->in, &g->out);
}

/*
 * st_ino is the lower inode's; st_dev is the FUSE superblock's.  The file
 * type is the node's: a filter may change the rest.
 */
static int fuse_bpf_getattr_finish(struct fuse_bpf_req *req, int err)
{
	struct fuse_bpf_getattr *g = container_of(req, typeof(*g), req);

	if (err)
		return err;
	if (req->post)
		fuse_bpf_attr_to_kstat(&g->out.attr, g->stat);
	fuse_bpf_getattr_done(req->inode, g->stat);
	return 0;
}

static const struct fuse_bpf_op fuse_bpf_getattr_op = {
	.opcode = FUSE_GETATTR,
	.setup = fuse_bpf_getattr_setup,
	.prefilter = fuse_bpf_getattr_pre,
	.backing = fuse_bpf_getattr_backing,
	.postfilter = fuse_bpf_getattr_post,
	.finish = fuse_bpf_getattr_finish,
};

/*
 * Out of line: the request is set up only for a node that has a filter
 * or whose daemon takes FUSE_GETATTR, every field of it, but not its
 * lists (fuse_bpf_req_init()).
 */
static noinline int fuse_bpf_getattr_run(struct inode *inode,
					 struct kstat *stat, u32 mask,
					 unsigned int flags)
{
	struct fuse_bpf_getattr g __uninitialized;

	fuse_bpf_req_init(&g.req, inode);
	g.in = (struct fuse_getattr_in) {};
	/* Its attributes are only seen after the backing step, which sets them */
	g.out.attr_valid = 0;
	g.out.attr_valid_nsec = 0;
	g.out.dummy = 0;
	g.stat = stat;
	g.mask = mask;
	g.flags = flags;
	return fuse_bpf_run(&fuse_bpf_getattr_op, &g.req);
}

/**
 * fuse_bpf_getattr() - Get the attributes of a backed node
 * @err: where the result goes: 0 or an errno
 * @path: the FUSE path
 * @stat: where the attributes go
 * @mask: STATX_* fields asked for
 * @flags: AT_* flags (AT_GETATTR_NOSEC: no LSM check)
 *
 * Gets the lower inode's attributes (vfs_getattr()), with st_dev the FUSE
 * superblock's.  A postfilter may change them, except the file type,
 * st_ino and st_rdev.  Refreshes the mirror.  stat() is the hottest path:
 * a node whose filter (if any) has no getattr member, and whose daemon
 * does not take FUSE_GETATTR, is served with no request set up, as
 * ovl_getattr() serves it.
 *
 * Return: true if FUSE-BPF served the operation, its result in @err; false
 * if the node has no backing inode, or a filter sends FUSE_GETATTR to the
 * daemon.
 */
bool fuse_bpf_getattr(int *err, const struct path *path, struct kstat *stat,
		      u32 mask, unsigned int flags)
{
	struct inode *inode = d_inode(path->dentry);
	const struct cred *old;

	if (!fuse_bpf_backed(inode))
		return false;
	if (!fuse_bpf_kernel_only(inode, getattr, FUSE_GETATTR))
		return fuse_bpf_result(err, fuse_bpf_getattr_run(inode, stat,
								 mask, flags));
	old = fuse_bpf_override_creds(inode);
	*err = fuse_bpf_getattr_lower(inode, stat, mask, flags);
	revert_creds(old);
	if (!*err)
		fuse_bpf_getattr_done(inode, stat);
	return true;
}

/* setattr */

struct fuse_bpf_setattr {
	struct fuse_bpf_req req;
	struct fuse_setattr_in in;
	struct fuse_setattr_in asked;	/* in, as the VFS asked it */
	struct fuse_attr_out out;
	struct dentry *entry;
	struct iattr attr;
};

static int fuse_bpf_setattr_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_setattr *s = container_of(req, typeof(*s), req);
	struct iattr *attr = &s->attr;
	unsigned int v = attr->ia_valid;
	struct fuse_setattr_in *in = &s->in;

	in->valid = (v & ATTR_MODE ? FATTR_MODE : 0) |
		    (v & ATTR_UID ? FATTR_UID : 0) |
		    (v & ATTR_GID ? FATTR_GID : 0) |
		    (v & ATTR_SIZE ? FATTR_SIZE : 0) |
		    (v & ATTR_ATIME ? FATTR_ATIME : 0) |
		    (v & ATTR_MTIME ? FATTR_MTIME : 0);
	/* As iattr_to_fattr(): a time not given is the current time */
	if ((v & ATTR_ATIME) && !(v & ATTR_ATIME_SET))
		in->valid |= FATTR_ATIME_NOW;
	if ((v & ATTR_MTIME) && !(v & ATTR_MTIME_SET))
		in->valid |= FATTR_MTIME_NOW;
	/* The VFS sets the fields of the changes it asks for, no others */
	if (v & ATTR_MODE)
		in->mode = attr->ia_mode;
	if (v & ATTR_UID)
		in->uid = from_kuid(&init_user_ns, attr->ia_uid);
	if (v & ATTR_GID)
		in->gid = from_kgid(&init_user_ns, attr->ia_gid);
	if (v & ATTR_SIZE)
		in->size = attr->ia_size;
	if (v & ATTR_ATIME) {
		in->atime = attr->ia_atime.tv_sec;
		in->atimensec = attr->ia_atime.tv_nsec;
	}
	if (v & ATTR_MTIME) {
		in->mtime = attr->ia_mtime.tv_sec;
		in->mtimensec = attr->ia_mtime.tv_nsec;
	}
	s->asked = *in;
	fuse_bpf_arg_in(req, sizeof(*in), in);
	fuse_bpf_arg_out(req, sizeof(s->out), &s->out);
	return 0;
}

/*
 * Whether the caller may make the change is decided on the lower inode as
 * it is now, under its lock, with the caller's credentials: the FUSE
 * inode's mirror may be stale (the lower inode changed owner under a file
 * kept open), and the change itself runs with the backing credentials.
 * may_setattr() runs on the FUSE inode, refreshed under that lock, so
 * that its permission check is ours (fuse_bpf_permission()), not the
 * lower filesystem's ->permission with the caller's credentials.
 */
static int fuse_bpf_setattr_prepare(struct fuse_bpf_req *req,
				    struct dentry *lower, struct iattr *attr)
{
	struct mnt_idmap *idmap = fuse_bpf_idmap(req->inode);
	const struct cred *old;
	int err;

	fuse_bpf_copyattr(req->inode);
	old = override_creds(req->caller);
	err = may_setattr(&nop_mnt_idmap, req->inode, attr->ia_valid);
	if (!err)
		err = setattr_prepare(idmap, lower, attr);
	/* A truncate drops the set-id bits the lower inode has now */
	if (!err && (attr->ia_valid & ATTR_SIZE) && !(attr->ia_valid & ATTR_MODE))
		attr->ia_valid |= setattr_should_drop_suidgid(idmap,
							      d_inode(lower));
	revert_creds(old);
	return err;
}

/* The changes a setattr request makes; a filter may drop them */
#define FUSE_BPF_FATTR_CHANGES	(FATTR_MODE | FATTR_UID | FATTR_GID | \
				 FATTR_SIZE | FATTR_ATIME | FATTR_MTIME)
#define FUSE_BPF_ATTR_CHANGES	(ATTR_MODE | ATTR_UID | ATTR_GID | ATTR_SIZE | \
				 ATTR_ATIME | ATTR_MTIME)

/* A time a filter left in a setattr request; ATTR_*_SET if it is given */
static int fuse_bpf_setattr_time(struct iattr *attr, u32 valid, u32 fattr,
				 u32 fattr_now, unsigned int attr_bit,
				 unsigned int attr_set, struct timespec64 *ts,
				 u64 sec, u32 nsec)
{
	attr->ia_valid &= ~(attr_bit | attr_set);
	if (!(valid & fattr))
		return 0;
	if (nsec >= NSEC_PER_SEC)
		return -EINVAL;
	*ts = (struct timespec64){ sec, nsec };
	attr->ia_valid |= attr_bit | (valid & fattr_now ? 0 : attr_set);
	return 0;
}

/*
 * What the filters (the node's prefilter, the daemon's) left in the
 * request is the change made: they may drop changes and give others
 * values, not ask for a change the caller did not ask for (-EPERM).  The
 * caller is judged on the change as it is then (setattr_prepare() in
 * fuse_bpf_setattr_prepare()), so a rewrite grants nothing the lower
 * inode would refuse the caller: an owner or group must be one of the
 * caller's user namespace, as chown() requires, and a time the filters
 * made explicit is judged as one the caller gave, even in a truncate
 * that kills set-id bits (ATTR_FORCE).
 *
 * Return: 0, or -EPERM, -EINVAL for a change that cannot be made.
 */
static int fuse_bpf_setattr_rewrite(struct fuse_bpf_setattr *s)
{
	struct user_namespace *ns = s->req.caller->user_ns;
	const struct fuse_setattr_in *in = &s->in;
	struct iattr *attr = &s->attr;
	unsigned int asked_set = attr->ia_valid &
				 (ATTR_ATIME_SET | ATTR_MTIME_SET);
	u32 valid = in->valid;
	int err;

	if (!memcmp(in, &s->asked, sizeof(*in)))
		return 0;
	if (valid & ~s->asked.valid)
		return -EPERM;
	attr->ia_valid &= ~(ATTR_MODE | ATTR_UID | ATTR_GID | ATTR_SIZE);
	if (valid & FATTR_MODE) {
		attr->ia_mode = (attr->ia_mode & ~S_IALLUGO) |
				(in->mode & S_IALLUGO);
		attr->ia_valid |= ATTR_MODE;
	}
	if (valid & FATTR_UID) {
		attr->ia_uid = make_kuid(&init_user_ns, in->uid);
		if (!kuid_has_mapping(ns, attr->ia_uid))
			return -EINVAL;
		attr->ia_valid |= ATTR_UID;
	}
	if (valid & FATTR_GID) {
		attr->ia_gid = make_kgid(&init_user_ns, in->gid);
		if (!kgid_has_mapping(ns, attr->ia_gid))
			return -EINVAL;
		attr->ia_valid |= ATTR_GID;
	}
	if (valid & FATTR_SIZE) {
		if ((loff_t)in->size < 0)
			return -EINVAL;
		attr->ia_size = in->size;
		attr->ia_valid |= ATTR_SIZE;
	}
	err = fuse_bpf_setattr_time(attr, valid, FATTR_ATIME, FATTR_ATIME_NOW,
				    ATTR_ATIME, ATTR_ATIME_SET, &attr->ia_atime,
				    in->atime, in->atimensec);
	if (!err)
		err = fuse_bpf_setattr_time(attr, valid, FATTR_MTIME,
					    FATTR_MTIME_NOW, ATTR_MTIME,
					    ATTR_MTIME_SET, &attr->ia_mtime,
					    in->mtime, in->mtimensec);
	if (attr->ia_valid & (ATTR_ATIME_SET | ATTR_MTIME_SET) & ~asked_set)
		attr->ia_valid &= ~ATTR_FORCE;
	return err;
}

static int fuse_bpf_setattr_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_setattr *s = container_of(req, typeof(*s), req);
	struct dentry *lower = fuse_bpf_dentry(req->inode);
	struct inode *linode = d_inode(lower);
	struct iattr asked = s->attr;
	bool none;
	int err;

	err = fuse_bpf_setattr_rewrite(s);
	if (err)
		return err;
	/*
	 * The filters dropped every change the VFS asked for: the caller is
	 * still judged on what it asked, and nothing is changed.
	 */
	none = (s->asked.valid & FUSE_BPF_FATTR_CHANGES) &&
	       !(s->attr.ia_valid & FUSE_BPF_ATTR_CHANGES);
	if (s->attr.ia_valid & ATTR_SIZE) {
		err = get_write_access(linode);
		if (err)
			return err;
	}
	inode_lock(linode);
	err = fuse_bpf_setattr_prepare(req, lower, none ? &asked : &s->attr);
	if (!err && !none)
		err = notify_change(fuse_bpf_idmap(req->inode), lower,
				    &s->attr, NULL);
	inode_unlock(linode);
	if (s->attr.ia_valid & ATTR_SIZE)
		put_write_access(linode);
	if (!err && req->post)
		fuse_bpf_fill_attr(linode, &s->out.attr);
	return err;
}

static int fuse_bpf_attr_finish(struct fuse_bpf_req *req, int err)
{
	fuse_bpf_copyattr(req->inode);
	return err;
}

static int fuse_bpf_setattr_pre(struct fuse_bpf_req *req,
				const struct fuse_ops *ops)
{
	struct fuse_bpf_setattr *s = container_of(req, typeof(*s), req);

	if (!ops->setattr_prefilter)
		return fuse_bpf_no_prefilter(ops->setattr_postfilter);
	return ops->setattr_prefilter(&req->meta, &s->in);
}

static int fuse_bpf_setattr_post(struct fuse_bpf_req *req,
				 const struct fuse_ops *ops)
{
	struct fuse_bpf_setattr *s = container_of(req, typeof(*s), req);

	if (!ops->setattr_postfilter)
		return 0;
	return ops->setattr_postfilter(&req->meta, &s->in, &s->out);
}

static const struct fuse_bpf_op fuse_bpf_setattr_op = {
	.opcode = FUSE_SETATTR,
	.setup = fuse_bpf_setattr_setup,
	.prefilter = fuse_bpf_setattr_pre,
	.backing = fuse_bpf_setattr_backing,
	.postfilter = fuse_bpf_setattr_post,
	.finish = fuse_bpf_attr_finish,
	.flags = FUSE_BPF_WRITE,
};

/**
 * fuse_bpf_setattr() - Change the attributes of a backed node
 * @err: where the result goes: 0 or an errno
 * @entry: the FUSE dentry
 * @attr: the change, as the VFS checked it
 *
 * Judges the caller again on the lower inode as it is now, under its lock
 * and with the caller's credentials, then makes the change with
 * notify_change() and the backing credentials.  The lower filesystem works
 * out which set-id bits a kill request drops; a truncate through a file
 * the daemon opened goes by path.  The filters may fail it, drop changes
 * or give them other values (fuse_bpf_setattr_rewrite()); the caller is
 * judged on the change they leave.
 *
 * Return: true if FUSE-BPF served the operation, its result in @err; false
 * if the node has no backing inode, or its daemon_ops or a filter send
 * FUSE_SETATTR to the daemon.
 */
bool fuse_bpf_setattr(int *err, struct dentry *entry, struct iattr *attr)
{
	struct inode *inode = d_inode(entry);
	struct fuse_bpf_setattr s = {
		.req = FUSE_BPF_REQ(inode),
		.entry = entry,
	};

	if (!fuse_bpf_backed(inode))
		return false;
	s.attr = *attr;
	/*
	 * The lower filesystem works out from its own inode which of the
	 * setuid and setgid bits a kill request drops.
	 */
	if (s.attr.ia_valid & (ATTR_KILL_SUID | ATTR_KILL_SGID))
		s.attr.ia_valid &= ~ATTR_MODE;
	/* A file the daemon opened has no backing file: truncate by path */
	if (s.attr.ia_valid & ATTR_FILE)
		s.attr.ia_file = fuse_bpf_file(attr->ia_file);
	if (!s.attr.ia_file)
		s.attr.ia_valid &= ~ATTR_FILE;
	return fuse_bpf_result(err, fuse_bpf_run(&fuse_bpf_setattr_op, &s.req));
}

/* statfs */

struct fuse_bpf_statfs {
	struct fuse_bpf_req req;
	struct fuse_statfs_out out;
	struct kstatfs *buf;
};

static int fuse_bpf_statfs_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_statfs *s = container_of(req, typeof(*s), req);

	fuse_bpf_arg_out(req, sizeof(s->out), &s->out);
	return 0;
}

static int fuse_bpf_statfs_pre(struct fuse_bpf_req *req,
			       const struct fuse_ops *ops)
{
	if (!ops->statfs_prefilter)
		return fuse_bpf_no_prefilter(ops->statfs_postfilter);
	return ops->statfs_prefilter(&req->meta);
}

static int fuse_bpf_statfs_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_statfs *s = container_of(req, typeof(*s), req);
	struct kstatfs *buf = s->buf;
	int err;

	err = vfs_statfs(fuse_bpf_path(req->inode), buf);
	buf->f_type = FUSE_SUPER_MAGIC;
	if (!err && req->post)
		s->out.st = (struct fuse_kstatfs) {
			.blocks = buf->f_blocks, .bfree = buf->f_bfree,
			.bavail = buf->f_bavail, .files = buf->f_files,
			.ffree = buf->f_ffree, .bsize = buf->f_bsize,
			.namelen = buf->f_namelen, .frsize = buf->f_frsize,
		};
	return err;
}

static int fuse_bpf_statfs_post(struct fuse_bpf_req *req,
				const struct fuse_ops *ops)
{
	struct fuse_bpf_statfs *s = container_of(req, typeof(*s), req);

	if (!ops->statfs_postfilter)
		return 0;
	return ops->statfs_postfilter(&req->meta, &s->out);
}

/* What the postfilter left is what statfs() returns. */
static int fuse_bpf_statfs_finish(struct fuse_bpf_req *req, int err)
{
	struct fuse_bpf_statfs *s = container_of(req, typeof(*s), req);
	struct kstatfs *buf = s->buf;

	if (err || !req->post)
		return err;
	buf->f_blocks = s->out.st.blocks;
	buf->f_bfree = s->out.st.bfree;
	buf->f_bavail = s->out.st.bavail;
	buf->f_files = s->out.st.files;
	buf->f_ffree = s->out.st.ffree;
	buf->f_bsize = s->out.st.bsize;
	buf->f_namelen = s->out.st.namelen;
	buf->f_frsize = s->out.st.frsize;
	return 0;
}

static const struct fuse_bpf_op fuse_bpf_statfs_op = {
	.opcode = FUSE_STATFS,
	.setup = fuse_bpf_statfs_setup,
	.prefilter = fuse_bpf_statfs_pre,
	.backing = fuse_bpf_statfs_backing,
	.postfilter = fuse_bpf_statfs_post,
	.finish = fuse_bpf_statfs_finish,
};

/**
 * fuse_bpf_statfs() - Get the statistics of a backed node's filesystem
 * @err: where the result goes: 0 or an errno
 * @entry: the FUSE dentry
 * @buf: where the statistics go
 *
 * Gets the lower filesystem's statistics (vfs_statfs()), as a postfilter
 * leaves them, with f_type FUSE_SUPER_MAGIC.
 *
 * Return: true if FUSE-BPF served the operation, its result in @err; false
 * if the node has no backing inode, or its daemon_ops or a filter send
 * FUSE_STATFS to the daemon.
 */
bool fuse_bpf_statfs(int *err, struct dentry *entry, struct kstatfs *buf)
{
	struct fuse_bpf_statfs s = {
		.req = FUSE_BPF_REQ(d_inode(entry)),
		.buf = buf,
	};

	if (!fuse_bpf_backed(d_inode(entry)))
		return false;
	return fuse_bpf_result(err, fuse_bpf_run(&fuse_bpf_statfs_op, &s.req));
}

/*
 * Extended attributes.  POSIX ACLs travel the same way (a daemon sees them
 * as system.posix_acl_* xattrs), in their kernel form.  Each operation has
 * its own request, around the part they share: struct fuse_bpf_xattr.
 */

/* The attribute's name (a listxattr has none), and whether it is an ACL */
struct fuse_bpf_xattr {
	struct fuse_bpf_req req;
	struct fuse_buffer name_buf;
	const char *name;
	bool is_acl;
};

/*
 * The reply of a getxattr or listxattr: the value or list in the caller's
 * buffer, @data of @size bytes; for a size query (@size 0) its size, in
 * @out.  @res is the result, the size or an errno.
 */
struct fuse_bpf_xattr_reply {
	struct fuse_getxattr_out out;
	struct fuse_buffer buf;
	void *data;
	size_t size;
	ssize_t res;
};

/* An ACL is read into @acl, without a reply */
struct fuse_bpf_getxattr {
	struct fuse_bpf_xattr x;
	struct fuse_getxattr_in in;
	struct fuse_bpf_xattr_reply reply;
	struct posix_acl *acl;
};

/* On the wire as a getxattr, without a name */
struct fuse_bpf_listxattr {
	struct fuse_bpf_xattr x;
	struct fuse_getxattr_in in;
	struct fuse_bpf_xattr_reply reply;
};

/* An ACL is set from @acl, without a value */
struct fuse_bpf_setxattr {
	struct fuse_bpf_xattr x;
	struct fuse_setxattr_in in;
	struct fuse_buffer value_buf;
	const void *value;
	size_t size;
	int flags;
	struct posix_acl *acl;
};

struct fuse_bpf_removexattr {
	struct fuse_bpf_xattr x;
};

/*
 * Names are the filters' to rewrite, but for an ACL's: ACLs travel in their
 * kernel form, which the filters may only read.
 */
static void fuse_bpf_xattr_arg_name(struct fuse_bpf_xattr *x)
{
	int ro = x->is_acl ? BPF_FUSE_IMMUTABLE : 0;

	fuse_bpf_buf_in(&x->req, &x->name_buf, (void *)x->name,
			strlen(x->name) + 1, XATTR_NAME_MAX + 1,
			BPF_FUSE_VARIABLE_SIZE | ro);
	fuse_bpf_arg_buf(&x->req, &x->name_buf);
}

/* The output: the value or list, or its size for a size query */
static void fuse_bpf_xattr_arg_reply(struct fuse_bpf_req *req,
				     struct fuse_bpf_xattr_reply *r)
{
	if (r->size)
		fuse_bpf_arg_out_buf(req, &r->buf);
	else
		fuse_bpf_arg_out(req, sizeof(r->out), &r->out);
}

/*
 * The value (or list) the postfilter sees, in the caller's buffer; one it
 * grows past that buffer gives -ERANGE, as the lower would have.  For a
 * size query (in.size 0) it sees and may change out.size instead.
 *
 * Return: 0, or the errno the lower getxattr or listxattr failed with.
 */
static int fuse_bpf_xattr_out(struct fuse_bpf_req *req,
			      struct fuse_bpf_xattr_reply *r)
{
	int err = r->res < 0 ? r->res : 0;

	if (!req->post)
		return err;
	r->out.size = err ? 0 : r->res;
	r->buf = (struct fuse_buffer) {
		.data = r->data,
		.size = r->size && !err ? r->res : 0,
		.alloc_size = r->size,
		.max_size = r->size ? XATTR_SIZE_MAX : 0,
		/* After a failure there is nothing to rewrite */
		.flags = err ? BPF_FUSE_IMMUTABLE : BPF_FUSE_VARIABLE_SIZE,
	};
	return err;
}

static int fuse_bpf_xattr_out_done(struct fuse_bpf_xattr_reply *r)
{
	struct fuse_buffer *b = &r->buf;

	if (!r->size) {
		r->res = r->out.size;
		return 0;
	}
	r->res = b->size;
	if (b->data == r->data)
		return 0;
	if (b->size > r->size)
		return -ERANGE;
	memcpy(r->data, b->data, b->size);
	return 0;
}

/* The value or list the postfilter left, for the caller */
static int fuse_bpf_xattr_reply_done(struct fuse_bpf_req *req,
				     struct fuse_bpf_xattr_reply *r, int err)
{
	if (req->post && !err)
		err = fuse_bpf_xattr_out_done(r);
	bpf_fuse_free_buffer(&r->buf);
	return err;
}

/*
 * Namespaces whose names the VFS and the LSMs judge one by one, for the
 * caller: security.capability asks CAP_SETFCAP (cap_convert_nscap()) and
 * is read back through cap_inode_getsecurity(), other security.* names
 * CAP_SYS_ADMIN or an LSM's own rules (SELinux's relabel permissions for
 * security.selinux), system.* names are ACLs of one kind or another, and
 * trusted.* names mean something of their own to the lower filesystem
 * (overlayfs's trusted.overlay.*).
 */
static bool fuse_bpf_xattr_exact_ns(const char *name)
{
	return str_has_prefix(name, XATTR_SECURITY_PREFIX) ||
	       str_has_prefix(name, XATTR_SYSTEM_PREFIX) ||
	       str_has_prefix(name, XATTR_TRUSTED_PREFIX);
}

/**
 * fuse_bpf_xattr_name() - Check the xattr name the filters left
 * @x: the operation's name, as the caller gave it, and its buffer
 *
 * The VFS checked the caller on the name it gave, and the lower
 * filesystem is asked with the backing credentials, which would pass
 * whatever a filter asks for.  So a name a filter (a BPF program or the
 * daemon's prefilter) rewrote must be NUL-terminated, not empty, and in
 * the namespace of the caller's (the part up to the first '.'): a filter
 * may not move a name into trusted.* or security.* for a caller who may
 * only write user.*.  In security.*, system.* and trusted.*, where the
 * full name decides who may read or write it, it must be the caller's
 * name: a filter may not turn security.selinux into security.capability,
 * which would be set with the mounter's CAP_SETFCAP.  Refusing is simpler
 * and safer than judging the caller again on the new name, which would
 * need the FUSE dentry for security_inode_setxattr() and a second
 * cap_convert_nscap() of the value.
 *
 * Context: the backing step of a getxattr, setxattr or removexattr.
 *
 * Return: 0, with @x->name the name to use; -EINVAL for a name that is not
 * a string; -EPERM for one out of the caller's namespace, or other than
 * the caller's in security.*, system.* or trusted.*.
 */
static int fuse_bpf_xattr_name(struct fuse_bpf_xattr *x)
{
	const char *name, *dot;

	if (!(x->name_buf.flags & BPF_FUSE_MODIFIED))
		return 0;
	name = fuse_bpf_buf_str(&x->name_buf);
	if (IS_ERR(name))
		return PTR_ERR(name);
	dot = strchr(x->name, '.');
	if (!dot || strncmp(name, x->name, dot - x->name + 1))
		return -EPERM;
	if (fuse_bpf_xattr_exact_ns(x->name) && strcmp(name, x->name))
		return -EPERM;
	x->name = name;
	return 0;
}

static int fuse_bpf_getxattr_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_getxattr *g = container_of(req, typeof(*g), x.req);

	g->in.size = g->reply.size;
	fuse_bpf_arg_in(req, sizeof(g->in), &g->in);
	fuse_bpf_xattr_arg_name(&g->x);
	if (!g->x.is_acl)
		fuse_bpf_xattr_arg_reply(req, &g->reply);
	return 0;
}

static int fuse_bpf_getxattr_pre(struct fuse_bpf_req *req,
				 const struct fuse_ops *ops)
{
	struct fuse_bpf_getxattr *g = container_of(req, typeof(*g), x.req);

	if (!ops->getxattr_prefilter)
		return fuse_bpf_no_prefilter(ops->getxattr_postfilter);
	return ops->getxattr_prefilter(&req->meta, &g->in, &g->x.name_buf);
}

static int fuse_bpf_getxattr_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_getxattr *g = container_of(req, typeof(*g), x.req);
	struct mnt_idmap *idmap = fuse_bpf_idmap(req->inode);
	struct dentry *lower = fuse_bpf_dentry(req->inode);
	struct fuse_bpf_xattr_reply *r = &g->reply;
	int err;

	err = fuse_bpf_xattr_name(&g->x);
	if (err)
		return err;
	if (g->x.is_acl) {
		g->acl = vfs_get_acl(idmap, lower, g->x.name);
		return PTR_ERR_OR_ZERO(g->acl);
	}
	r->res = vfs_getxattr(idmap, lower, g->x.name, r->data, r->size);
	return fuse_bpf_xattr_out(req, r);
}

static int fuse_bpf_getxattr_post(struct fuse_bpf_req *req,
				  const struct fuse_ops *ops)
{
	struct fuse_bpf_getxattr *g = container_of(req, typeof(*g), x.req);

	if (!ops->getxattr_postfilter || g->x.is_acl)
		return 0;
	return ops->getxattr_postfilter(&req->meta, &g->in, &g->x.name_buf,
					&g->reply.buf, &g->reply.out);
}

/*
 * The value the postfilter left, for the caller; an ACL the daemon's
 * postfilter failed is released.
 */
static int fuse_bpf_getxattr_finish(struct fuse_bpf_req *req, int err)
{
	struct fuse_bpf_getxattr *g = container_of(req, typeof(*g), x.req);

	if (g->x.is_acl) {
		if (err && !IS_ERR_OR_NULL(g->acl))
			posix_acl_release(g->acl);
		return err;
	}
	return fuse_bpf_xattr_reply_done(req, &g->reply, err);
}

static const struct fuse_bpf_op fuse_bpf_getxattr_op = {
	.opcode = FUSE_GETXATTR,
	.setup = fuse_bpf_getxattr_setup,
	.prefilter = fuse_bpf_getxattr_pre,
	.backing = fuse_bpf_getxattr_backing,
	.postfilter = fuse_bpf_getxattr_post,
	.finish = fuse_bpf_getxattr_finish,
};

static int fuse_bpf_listxattr_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_listxattr *l = container_of(req, typeof(*l), x.req);

	l->in.size = l->reply.size;
	fuse_bpf_arg_in(req, sizeof(l->in), &l->in);
	fuse_bpf_xattr_arg_reply(req, &l->reply);
	return 0;
}

static int fuse_bpf_listxattr_pre(struct fuse_bpf_req *req,
				  const struct fuse_ops *ops)
{
	struct fuse_bpf_listxattr *l = container_of(req, typeof(*l), x.req);

	if (!ops->listxattr_prefilter)
		return fuse_bpf_no_prefilter(ops->listxattr_postfilter);
	return ops->listxattr_prefilter(&req->meta, &l->in);
}

static int fuse_bpf_listxattr_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_listxattr *l = container_of(req, typeof(*l), x.req);
	struct fuse_bpf_xattr_reply *r = &l->reply;

	r->res = vfs_listxattr(fuse_bpf_dentry(req->inode), r->data, r->size);
	return fuse_bpf_xattr_out(req, r);
}

static int fuse_bpf_listxattr_post(struct fuse_bpf_req *req,
				   const struct fuse_ops *ops)
{
	struct fuse_bpf_listxattr *l = container_of(req, typeof(*l), x.req);

	if (!ops->listxattr_postfilter)
		return 0;
	return ops->listxattr_postfilter(&req->meta, &l->in, &l->reply.buf,
					 &l->reply.out);
}

/* Drop the trusted.* names from the list in the caller's buffer */
static int fuse_bpf_listxattr_strip(struct fuse_bpf_xattr_reply *r)
{
	char *p = r->data, *end = p + r->res;
	size_t len;

	while (p < end) {
		/* A filter may have left a name without its NUL */
		len = strnlen(p, end - p);
		if (len == end - p)
			return -EIO;
		len++;
		if (!strncmp(p, XATTR_TRUSTED_PREFIX, XATTR_TRUSTED_PREFIX_LEN)) {
			memmove(p, p + len, end - p - len);
			end -= len;
			r->res -= len;
		} else {
			p += len;
		}
	}
	return 0;
}

/*
 * The lower filesystem listed names with the backing credentials: drop the
 * ones the caller could not list itself (trusted.*, as overlayfs does).  A
 * size query may overestimate.
 */
static int fuse_bpf_listxattr_finish(struct fuse_bpf_req *req, int err)
{
	struct fuse_bpf_listxattr *l = container_of(req, typeof(*l), x.req);

	err = fuse_bpf_xattr_reply_done(req, &l->reply, err);
	if (err || !l->reply.size || capable(CAP_SYS_ADMIN))
		return err;
	return fuse_bpf_listxattr_strip(&l->reply);
}

static const struct fuse_bpf_op fuse_bpf_listxattr_op = {
	.opcode = FUSE_LISTXATTR,
	.setup = fuse_bpf_listxattr_setup,
	.prefilter = fuse_bpf_listxattr_pre,
	.backing = fuse_bpf_listxattr_backing,
	.postfilter = fuse_bpf_listxattr_post,
	.finish = fuse_bpf_listxattr_finish,
};

/* The value of a setxattr is the filters' to rewrite, unlike an ACL */
static int fuse_bpf_setxattr_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_setxattr *s = container_of(req, typeof(*s), x.req);

	s->in.size = s->size;
	s->in.flags = s->flags;
	fuse_bpf_arg_in(req, sizeof(s->in), &s->in);
	fuse_bpf_xattr_arg_name(&s->x);
	if (s->x.is_acl)
		return 0;
	fuse_bpf_buf_in(req, &s->value_buf, (void *)s->value, s->size,
			XATTR_SIZE_MAX, BPF_FUSE_VARIABLE_SIZE);
	fuse_bpf_arg_buf(req, &s->value_buf);
	return 0;
}

static int fuse_bpf_setxattr_pre(struct fuse_bpf_req *req,
				 const struct fuse_ops *ops)
{
	struct fuse_bpf_setxattr *s = container_of(req, typeof(*s), x.req);

	if (!ops->setxattr_prefilter)
		return fuse_bpf_no_prefilter(ops->setxattr_postfilter);
	return ops->setxattr_prefilter(&req->meta, &s->in, &s->x.name_buf,
				       &s->value_buf);
}

/**
 * fuse_bpf_setxattr_value() - Check the value the filters left
 * @s: the setxattr, its name checked (fuse_bpf_xattr_name())
 *
 * The value of a security.* attribute was judged with the caller's
 * credentials too: an LSM checks the label it sets (SELinux's relabelto),
 * and cap_convert_nscap() made a security.capability value the caller's
 * (a v3 one with the root id of the caller's user namespace).  The lower
 * call, with the backing credentials, would judge neither for the
 * caller, so a filter may not change such a value.  Other values are the
 * filters' to rewrite.
 *
 * Return: 0, with @s->value and @s->size the value to set; -EPERM for a
 * security.* value a filter changed.
 */
static int fuse_bpf_setxattr_value(struct fuse_bpf_setxattr *s)
{
	const struct fuse_buffer *b = &s->value_buf;

	if (!(b->flags & BPF_FUSE_MODIFIED))
		return 0;
	if (str_has_prefix(s->x.name, XATTR_SECURITY_PREFIX) &&
	    (b->size != s->size || memcmp(b->data, s->value, s->size)))
		return -EPERM;
	s->value = b->data;
	s->size = b->size;
	return 0;
}

static int fuse_bpf_setxattr_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_setxattr *s = container_of(req, typeof(*s), x.req);
	struct mnt_idmap *idmap = fuse_bpf_idmap(req->inode);
	struct dentry *lower = fuse_bpf_dentry(req->inode);
	int err;

	err = fuse_bpf_xattr_name(&s->x);
	if (err)
		return err;
	if (s->x.is_acl)
		return vfs_set_acl(idmap, lower, s->x.name, s->acl);
	err = fuse_bpf_setxattr_value(s);
	if (err)
		return err;
	return vfs_setxattr(idmap, lower, s->x.name, s->value, s->size,
			    s->flags);
}

static int fuse_bpf_setxattr_post(struct fuse_bpf_req *req,
				  const struct fuse_ops *ops)
{
	struct fuse_bpf_setxattr *s = container_of(req, typeof(*s), x.req);

	if (!ops->setxattr_postfilter)
		return 0;
	return ops->setxattr_postfilter(&req->meta, &s->in, &s->x.name_buf,
					&s->value_buf);
}

static const struct fuse_bpf_op fuse_bpf_setxattr_op = {
	.opcode = FUSE_SETXATTR,
	.setup = fuse_bpf_setxattr_setup,
	.prefilter = fuse_bpf_setxattr_pre,
	.backing = fuse_bpf_setxattr_backing,
	.postfilter = fuse_bpf_setxattr_post,
	.finish = fuse_bpf_attr_finish,
	.flags = FUSE_BPF_WRITE | FUSE_BPF_AS_CALLER,
};

static int fuse_bpf_removexattr_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_removexattr *r = container_of(req, typeof(*r), x.req);

	fuse_bpf_xattr_arg_name(&r->x);
	return 0;
}

static int fuse_bpf_removexattr_pre(struct fuse_bpf_req *req,
				    const struct fuse_ops *ops)
{
	struct fuse_bpf_removexattr *r = container_of(req, typeof(*r), x.req);

	if (!ops->removexattr_prefilter)
		return fuse_bpf_no_prefilter(ops->removexattr_postfilter);
	return ops->removexattr_prefilter(&req->meta, &r->x.name_buf);
}

static int fuse_bpf_removexattr_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_removexattr *r = container_of(req, typeof(*r), x.req);
	struct mnt_idmap *idmap = fuse_bpf_idmap(req->inode);
	struct dentry *lower = fuse_bpf_dentry(req->inode);
	int err;

	err = fuse_bpf_xattr_name(&r->x);
	if (err)
		return err;
	if (r->x.is_acl)
		return vfs_remove_acl(idmap, lower, r->x.name);
	return vfs_removexattr(idmap, lower, r->x.name);
}

static int fuse_bpf_removexattr_post(struct fuse_bpf_req *req,
				     const struct fuse_ops *ops)
{
	struct fuse_bpf_removexattr *r = container_of(req, typeof(*r), x.req);

	if (!ops->removexattr_postfilter)
		return 0;
	return ops->removexattr_postfilter(&req->meta, &r->x.name_buf);
}

static const struct fuse_bpf_op fuse_bpf_removexattr_op = {
	.opcode = FUSE_REMOVEXATTR,
	.setup = fuse_bpf_removexattr_setup,
	.prefilter = fuse_bpf_removexattr_pre,
	.backing = fuse_bpf_removexattr_backing,
	.postfilter = fuse_bpf_removexattr_post,
	.finish = fuse_bpf_attr_finish,
	.flags = FUSE_BPF_WRITE,
};

static bool fuse_bpf_xattr_run(int *err, const struct fuse_bpf_op *op,
			       struct inode *inode, struct fuse_bpf_xattr *x)
{
	if (!fuse_bpf_backed(inode))
		return false;
	x->req.inode = inode;
	return fuse_bpf_result(err, fuse_bpf_run(op, &x->req));
}

/**
 * fuse_bpf_getxattr() - Get an extended attribute of a backed node
 * @res: where the result goes: the value's size, or an errno
 * @inode: the FUSE inode
 * @name: the attribute's full name
 * @value: the buffer for the value
 * @size: its size; 0 asks for the value's size only
 *
 * Reads the lower attribute (vfs_getxattr()) by the name the filters
 * leave, which must stay in @name's namespace, and be @name in
 * security.*, system.* and trusted.* (-EPERM, fuse_bpf_xattr_name()).  A
 * postfilter may rewrite the value, within @size (-ERANGE).
 *
 * Return: true if FUSE-BPF served the operation, its result in @res; false
 * if @inode has no backing inode, or its daemon_ops or a filter send
 * FUSE_GETXATTR to the daemon.
 */
bool fuse_bpf_getxattr(ssize_t *res, struct inode *inode, const char *name,
		       void *value, size_t size)
{
	struct fuse_bpf_getxattr g = {
		.x.name = name,
		.reply = { .data = value, .size = size },
	};
	int err;

	if (!fuse_bpf_xattr_run(&err, &fuse_bpf_getxattr_op, inode, &g.x))
		return false;
	*res = err ? err : g.reply.res;
	return true;
}

/**
 * fuse_bpf_listxattr() - List the extended attributes of a backed node
 * @res: where the result goes: the list's size, or an errno
 * @entry: the FUSE dentry
 * @list: the buffer for the NUL-terminated names
 * @size: its size; 0 asks for the list's size only
 *
 * Lists the lower inode's attributes (vfs_listxattr()); a postfilter may
 * rewrite the list.  trusted.* names are dropped for a caller without
 * CAP_SYS_ADMIN, as overlayfs does; a size query may overestimate.
 *
 * Return: true if FUSE-BPF served the operation, its result in @res; false
 * if the node has no backing inode, or its daemon_ops or a filter send
 * FUSE_LISTXATTR to the daemon.
 */
bool fuse_bpf_listxattr(ssize_t *res, struct dentry *entry, char *list,
			size_t size)
{
	struct fuse_bpf_listxattr l = {
		.reply = { .data = list, .size = size },
	};
	int err;

	if (!fuse_bpf_xattr_run(&err, &fuse_bpf_listxattr_op, d_inode(entry), &l.x))
		return false;
	*res = err ? err : l.reply.res;
	return true;
}

/*
 * xattr_permission() judged the caller on the FUSE inode's mirror: judge
 * user.* again on the lower inode as it is now, just before the change
 * (write permission, and the owner in a sticky directory).  trusted.* and
 * security.* are decided by the caller's capabilities, which do not go
 * stale.  The VFS lets every other namespace through (system.* beyond
 * POSIX ACLs: NFSv4 and CIFS ACLs), to be judged by the filesystem, which
 * would see the backing credentials: those need the caller to own the
 * inode.
 */
static int fuse_bpf_xattr_may_write(struct inode *inode, const char *name)
{
	struct inode *lower = fuse_bpf_inode(inode);

	if (!strncmp(name, XATTR_TRUSTED_PREFIX, XATTR_TRUSTED_PREFIX_LEN) ||
	    !strncmp(name, XATTR_SECURITY_PREFIX, XATTR_SECURITY_PREFIX_LEN))
		return 0;
	if (strncmp(name, XATTR_USER_PREFIX, XATTR_USER_PREFIX_LEN))
		return fuse_bpf_caller_owns(inode);
	if (S_ISDIR(lower->i_mode) && (lower->i_mode & S_ISVTX) &&
	    fuse_bpf_caller_owns(inode))
		return -EPERM;
	return fuse_bpf_lower_permission(lower, MAY_WRITE);
}

static bool fuse_bpf_xattr_write(int *err, const struct fuse_bpf_op *op,
				 struct inode *inode,
				 struct fuse_bpf_xattr *x)
{
	if (!fuse_bpf_backed(inode))
		return false;
	if (x->is_acl)
		*err = fuse_bpf_caller_owns(inode);
	else
		*err = fuse_bpf_xattr_may_write(inode, x->name);
	if (*err)
		return true;
	return fuse_bpf_xattr_run(err, op, inode, x);
}

/**
 * fuse_bpf_setxattr() - Set an extended attribute of a backed node
 * @err: where the result goes: 0 or an errno
 * @inode: the FUSE inode
 * @name: the attribute's full name
 * @value: the value
 * @size: its size
 * @flags: XATTR_CREATE, XATTR_REPLACE or 0
 *
 * Judges the caller again on the lower inode: user.* needs write permission
 * (and ownership of a sticky directory), namespaces other than trusted.*
 * and security.* need ownership.  Then sets the attribute with
 * vfs_setxattr(), for the caller.  The filters may rewrite the value but
 * in security.* (fuse_bpf_setxattr_value()), and the name within its
 * namespace but in security.*, system.* and trusted.*, where it must stay
 * @name (fuse_bpf_xattr_name()); -EPERM otherwise.
 *
 * Return: true if FUSE-BPF served the operation, its result in @err; false
 * if @inode has no backing inode, or its daemon_ops or a filter send
 * FUSE_SETXATTR to the daemon.
 */
bool fuse_bpf_setxattr(int *err, struct inode *inode, const char *name,
		       const void *value, size_t size, int flags)
{
	struct fuse_bpf_setxattr s = {
		.x.name = name,
		.value = value,
		.size = size,
		.flags = flags,
	};

	return fuse_bpf_xattr_write(err, &fuse_bpf_setxattr_op, inode, &s.x);
}

/* An ACL's setting: a setxattr of its xattr name, without a value */
static bool fuse_bpf_xattr_set_acl(int *err, struct inode *inode,
				   const char *name, struct posix_acl *acl)
{
	struct fuse_bpf_setxattr s = {
		.x = { .name = name, .is_acl = true },
		.acl = acl,
	};

	return fuse_bpf_xattr_write(err, &fuse_bpf_setxattr_op, inode, &s.x);
}

/* An attribute's removal, or an ACL's (@is_acl) */
static bool fuse_bpf_xattr_remove(int *err, struct inode *inode,
				  const char *name, bool is_acl)
{
	struct fuse_bpf_removexattr r = {
		.x = { .name = name, .is_acl = is_acl },
	};

	return fuse_bpf_xattr_write(err, &fuse_bpf_removexattr_op, inode, &r.x);
}

/**
 * fuse_bpf_removexattr() - Remove an extended attribute of a backed node
 * @err: where the result goes: 0 or an errno
 * @inode: the FUSE inode
 * @name: the attribute's full name
 *
 * Judges the caller again as fuse_bpf_setxattr() does, then removes the
 * attribute with vfs_removexattr() and the backing credentials.  The
 * filters may rewrite the name within its namespace, but in security.*,
 * system.* and trusted.*, where it must stay @name (-EPERM,
 * fuse_bpf_xattr_name()).
 *
 * Return: true if FUSE-BPF served the operation, its result in @err; false
 * if @inode has no backing inode, or its daemon_ops or a filter send
 * FUSE_REMOVEXATTR to the daemon.
 */
bool fuse_bpf_removexattr(int *err, struct inode *inode, const char *name)
{
	return fuse_bpf_xattr_remove(err, inode, name, false);
}

/**
 * fuse_bpf_get_inode_acl() - Get a POSIX ACL of a backed node to check with
 * @res: where the result goes, as ->get_inode_acl() returns it
 * @inode: the FUSE inode
 * @type: ACL_TYPE_ACCESS or ACL_TYPE_DEFAULT
 * @rcu: true in RCU walk: the lower inode's cached ACL only
 *
 * Backed inodes never cache ACLs (ACL_DONT_CACHE): permission checks read
 * the lower inode's, so a change made on the lower filesystem is seen.  No
 * filter runs.
 *
 * Context: under RCU if @rcu is set, and the inode may be under eviction
 * (see fuse_bpf_permission()).
 *
 * Return: false if @inode has no backing dentry; otherwise true, with @res
 * the lower inode's ACL (ERR_PTR(-ECHILD) if the backing dentry has no
 * inode).
 */
bool fuse_bpf_get_inode_acl(struct posix_acl **res, struct inode *inode,
			    int type, bool rcu)
{
	struct dentry *lower = fuse_bpf_dentry_rcu(inode);
	struct inode *linode;

	if (!lower)
		return false;
	linode = d_inode_rcu(lower);
	if (!linode)
		*res = ERR_PTR(-ECHILD);
	else if (rcu)
		*res = get_cached_acl_rcu(linode, type);
	else
		*res = get_inode_acl(linode, type);
	return true;
}

/**
 * fuse_bpf_get_acl() - Get a POSIX ACL of a backed node
 * @res: where the result goes: the ACL, NULL if none, or an ERR_PTR()
 * @entry: the FUSE dentry
 * @type: ACL_TYPE_ACCESS or ACL_TYPE_DEFAULT
 *
 * Reads the lower inode's ACL with vfs_get_acl().  The filters see
 * FUSE_GETXATTR with the ACL's xattr name, which they may not change; the
 * node's postfilter does not run.
 *
 * Return: true if FUSE-BPF served the operation, its result in @res; false
 * if the node has no backing inode, or its daemon_ops or a filter send
 * FUSE_GETXATTR to the daemon.
 */
bool fuse_bpf_get_acl(struct posix_acl **res, struct dentry *entry, int type)
{
	struct fuse_bpf_getxattr g = {
		.x = { .name = posix_acl_xattr_name(type), .is_acl = true },
	};
	int err;

	if (!fuse_bpf_xattr_run(&err, &fuse_bpf_getxattr_op, d_inode(entry), &g.x))
		return false;
	*res = err ? ERR_PTR(err) : g.acl;
	return true;
}

/**
 * fuse_bpf_set_acl() - Set or remove a POSIX ACL of a backed node
 * @err: where the result goes: 0 or an errno
 * @entry: the FUSE dentry
 * @acl: the ACL; NULL removes it
 * @type: ACL_TYPE_ACCESS or ACL_TYPE_DEFAULT
 *
 * Needs the caller to own the lower inode (-EPERM).  Sets the lower ACL
 * with vfs_set_acl(), for the caller, or removes it with vfs_remove_acl().
 * The filters see FUSE_SETXATTR or FUSE_REMOVEXATTR with the ACL's xattr
 * name, which they may not change.
 *
 * Return: true if FUSE-BPF served the operation, its result in @err; false
 * if the node has no backing inode, or its daemon_ops or a filter send the
 * operation to the daemon.
 */
bool fuse_bpf_set_acl(int *err, struct dentry *entry, struct posix_acl *acl,
		      int type)
{
	const char *name = posix_acl_xattr_name(type);

	if (!acl)
		return fuse_bpf_xattr_remove(err, d_inode(entry), name, true);
	return fuse_bpf_xattr_set_acl(err, d_inode(entry), name, acl);
}

/* FS_IOC_[GS]ETFLAGS and FS_IOC_FS[GS]ETXATTR: a daemon sees FUSE_IOCTL. */

struct fuse_bpf_fileattr {
	struct fuse_bpf_req req;
	struct fuse_ioctl_in in;
	struct fileattr *fa;
};

static int fuse_bpf_fileattr_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_fileattr *f = container_of(req, typeof(*f), req);

	fuse_bpf_arg_in(req, sizeof(f->in), &f->in);
	return 0;
}

static int fuse_bpf_fileattr_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_fileattr *f = container_of(req, typeof(*f), req);
	struct dentry *lower = fuse_bpf_dentry(req->inode);

	struct vfsmount *mnt = fuse_bpf_path(req->inode)->mnt;
	int err;

	if (f->in.cmd == FS_IOC_GETFLAGS || f->in.cmd == FS_IOC_FSGETXATTR)
		return vfs_fileattr_get(lower, f->fa);
	err = mnt_want_write(mnt);
	if (err)
		return err;
	err = vfs_fileattr_set(fuse_bpf_idmap(req->inode), lower, f->fa);
	mnt_drop_write(mnt);
	return err;
}

static const struct fuse_bpf_op fuse_bpf_fileattr_op = {
	.opcode = FUSE_IOCTL,
	.setup = fuse_bpf_fileattr_setup,
	.backing = fuse_bpf_fileattr_backing,
	.finish = fuse_bpf_attr_finish,
};

static bool fuse_bpf_fileattr(int *err, struct dentry *entry,
			      struct fileattr *fa, bool set)
{
	struct inode *inode = d_inode(entry);
	struct fuse_bpf_fileattr f = {
		.req = FUSE_BPF_REQ(inode),
		.fa = fa,
	};

	if (!fuse_bpf_backed(inode))
		return false;
	/* Owner only, as vfs_fileattr_set() checked on the mirror */
	if (set) {
		*err = fuse_bpf_caller_owns(inode);
		if (*err)
			return true;
	}
	if (fa->fsx_valid)
		f.in.cmd = set ? FS_IOC_FSSETXATTR : FS_IOC_FSGETXATTR;
	else
		f.in.cmd = set ? FS_IOC_SETFLAGS : FS_IOC_GETFLAGS;
	return fuse_bpf_result(err, fuse_bpf_run(&fuse_bpf_fileattr_op, &f.req));
}

/**
 * fuse_bpf_fileattr_get() - Get the inode flags of a backed node
 * @err: where the result goes: 0 or an errno
 * @entry: the FUSE dentry
 * @fa: where the flags go
 *
 * Reads the lower inode's flags with vfs_fileattr_get().  No filter runs,
 * and the daemon is never asked.
 *
 * Return: true if the node has a backing inode, the result in @err; false
 * otherwise.
 */
bool fuse_bpf_fileattr_get(int *err, struct dentry *entry, struct fileattr *fa)
{
	return fuse_bpf_fileattr(err, entry, fa, false);
}

/**
 * fuse_bpf_fileattr_set() - Set the inode flags of a backed node
 * @err: where the result goes: 0 or an errno
 * @entry: the FUSE dentry
 * @fa: the new flags
 *
 * Needs the caller to own the lower inode (-EPERM), then sets its flags
 * with vfs_fileattr_set() and the backing credentials.  No filter runs,
 * and the daemon is never asked.
 *
 * Return: true if the node has a backing inode, the result in @err; false
 * otherwise.
 */
bool fuse_bpf_fileattr_set(int *err, struct dentry *entry, struct fileattr *fa)
{
	return fuse_bpf_fileattr(err, entry, fa, true);
}

/**
 * fuse_bpf_fiemap() - Map the extents of a backed file
 * @err: where the result goes: 0 or an errno
 * @inode: the FUSE inode
 * @fieinfo: the request, as ioctl_fiemap() set it up
 * @start: first byte to map
 * @len: bytes to map
 *
 * Gives the lower inode's extents, from its ->fiemap() with the backing
 * credentials, as ovl_fiemap() does (-EOPNOTSUPP if the lower has none).
 * FUSE has no request for FS_IOC_FIEMAP: no filter runs, and the daemon is
 * never asked.
 *
 * Return: true if the node has a backing inode, the result in @err; false
 * otherwise.
 */
bool fuse_bpf_fiemap(int *err, struct inode *inode,
		     struct fiemap_extent_info *fieinfo, u64 start, u64 len)
{
	struct inode *lower;
	const struct cred *old;

	if (!fuse_bpf_backed(inode))
		return false;
	lower = fuse_bpf_inode(inode);
	if (!lower->i_op->fiemap) {
		*err = -EOPNOTSUPP;
		return true;
	}
	old = fuse_bpf_override_creds(inode);
	*err = lower->i_op->fiemap(lower, fieinfo, start, len);
	revert_creds(old);
	return true;
}
