// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE-BPF: open files of backed nodes.
 *
 * An open file of a backed node carries its backing file in
 * ff->passthrough, so read_iter, write_iter, splice and mmap take the FUSE
 * passthrough path (fs/fuse/passthrough.c over fs/backing-file.c).  A
 * regular file opened for reading only opens its backing file on the first
 * access to its data (fuse_bpf_file_get()).  The operations here are the
 * rest: flush, fsync, llseek, fallocate, copy_file_range and locks, and
 * read_iter and write_iter for a node whose filter has read or write
 * filters.
 */

#include "fuse_i.h"

#include <linux/file.h>
#include <linux/filelock.h>
#include <linux/uio.h>

/**
 * fuse_bpf_open() - Open a file of a backed node
 * @err: where the result goes: 0 or an errno
 * @inode: the FUSE inode
 * @file: the file being opened
 *
 * fuse_bpf_open_common() for FUSE_OPEN: @file then reads and writes through
 * its backing file, by the FUSE passthrough path.
 *
 * Return: true if FUSE-BPF served the open, its result in @err; false if
 * @inode has no backing inode, or its daemon_ops or a filter send FUSE_OPEN
 * to the daemon.
 */
bool fuse_bpf_open(int *err, struct inode *inode, struct file *file)
{
	return fuse_bpf_open_common(err, FUSE_OPEN, inode, file);
}

/**
 * fuse_bpf_file_get() - the backing file of a file FUSE-BPF opened
 * @file: an open FUSE file, fuse_bpf_file_backed()
 *
 * A regular file opened for reading only has its open check the lower
 * inode's permission but leave the backing file to the first access to
 * data: read, splice, mmap, fsync, copy_file_range, llseek, locks, poll,
 * fadvise.  It is opened then, with the backing credentials and the flags
 * @file was opened with (fuse_passthrough_setfl() carries a later F_SETFL's before
 * reads, as for any backing file), as ovl_open_realfile() would have at
 * open.  Two first accesses may race: one backing file is kept.
 *
 * Context: process context, may sleep.
 *
 * Return: the backing file, or an ERR_PTR() of the lower open.
 */
struct file *fuse_bpf_file_get(struct file *file)
{
	struct fuse_file *ff = file->private_data;
	struct inode *inode = file_inode(file);
	struct file *lower = fuse_bpf_file(file);
	const struct cred *old;
	struct file *first;

	if (lower)
		return lower;
	old = fuse_bpf_override_creds(inode);
	lower = fuse_bpf_open_backing(inode, file, ff->bpf_open_flags);
	revert_creds(old);
	if (IS_ERR(lower))
		return lower;
	first = cmpxchg(&ff->passthrough, NULL, lower);
	if (first) {
		fput(lower);
		return first;
	}
	/* The backing file counts the reader now */
	i_readcount_dec(fuse_bpf_inode(inode));
	return lower;
}

/**
 * fuse_bpf_release() - Release a file whose open FUSE-BPF served
 * @file: the FUSE file, its last reference gone
 *
 * fuse_bpf_open_common() made its fuse_file: never on the inode's write
 * files nor among the connection's polled files (poll asks the backing
 * file), and with no release request for the daemon (no ff->args) unless
 * an open postfilter gave it a file handle.  Releasing it is putting the
 * backing file (or, never opened, the reader count of its open) and
 * credentials, then the fuse_file with its last reference, what
 * fuse_file_release() would do after taking two spinlocks and waking poll
 * waiters there are none of.  Flock and POSIX
 * locks went with the backing file's.
 *
 * Return: true if @file was released; false for any other file, which
 * fuse_file_release() releases.
 */
bool fuse_bpf_release(struct file *file)
{
	struct fuse_file *ff = file->private_data;

	if (!fuse_bpf_file_backed(file))
		return false;
	/* A read-only file never read: its open's reader count, credentials */
	if (!ff->passthrough) {
		i_readcount_dec(fuse_bpf_inode(file_inode(file)));
		put_cred(ff->cred);
		ff->cred = NULL;
	}
	/*
	 * A file handle a postfilter gave at open (fuse_bpf_open_fh()), or
	 * one of the daemon's FOPEN_PASSTHROUGH: FUSE sends its
	 * FUSE_RELEASE(DIR), and puts a backing file that was opened.
	 */
	if (ff->args || !RB_EMPTY_NODE(&ff->polled_node) ||
	    !list_empty(&ff->write_entry))
		return false;
	if (ff->passthrough)
		fuse_passthrough_release(ff, NULL);
	if (refcount_dec_and_test(&ff->count))
		fuse_file_free(ff);
	return true;
}

/**
 * fuse_bpf_fadvise() - fadvise() and readahead() of a FUSE file
 * @file: the FUSE file
 * @offset: the start of the range
 * @len: its length, 0 for the rest of the file
 * @advice: POSIX_FADV_*
 *
 * A file served from a backing file reads from the backing file's page
 * cache: the advice is for it, as in ovl_fadvise(), given with the
 * backing credentials.  It is no FUSE operation, so no filter sees it.
 * Any other file is advised as before (generic_fadvise(), which reads
 * ahead through FUSE_READ).
 *
 * Return: 0 or an errno, as vfs_fadvise().
 */
int fuse_bpf_fadvise(struct file *file, loff_t offset, loff_t len, int advice)
{
	const struct cred *old;
	struct file *lower;
	int err;

	if (!fuse_bpf_file_backed(file))
		return generic_fadvise(file, offset, len, advice);
	lower = fuse_bpf_file_get(file);
	if (IS_ERR(lower))
		return PTR_ERR(lower);
	old = fuse_bpf_override_creds(file_inode(file));
	err = vfs_fadvise(lower, offset, len, advice);
	revert_creds(old);
	return err;
}

/*
 * A request on one open file of a backed node.  Each operation's own
 * request embeds it, with the operation's arguments as FUSE sends them.
 */
struct fuse_bpf_file_req {
	struct fuse_bpf_req req;
	struct file *file;
};

static bool fuse_bpf_file_run(int *err, const struct fuse_bpf_op *op,
			      struct file *file, struct fuse_bpf_file_req *f)
{
	struct inode *inode = file_inode(file);

	if (!fuse_bpf_file_backed(file))
		return false;
	f->req.inode = inode;
	f->file = file;
	return fuse_bpf_result(err, fuse_bpf_run(op, &f->req));
}

/* What the operation changed in the lower inode, the mirror shows */
static int fuse_bpf_file_finish(struct fuse_bpf_req *req, int err)
{
	fuse_bpf_copyattr(req->inode);
	return err;
}

/* flush */

struct fuse_bpf_flush {
	struct fuse_bpf_file_req f;
	struct fuse_flush_in in;
	fl_owner_t owner;
};

static int fuse_bpf_flush_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_flush *fr = container_of(req, typeof(*fr), f.req);

	fr->in.fh = fuse_bpf_fh(fr->f.file);
	fuse_bpf_arg_in(req, sizeof(fr->in), &fr->in);
	return 0;
}

static int fuse_bpf_flush_pre(struct fuse_bpf_req *req,
			      const struct fuse_ops *ops)
{
	struct fuse_bpf_flush *fr = container_of(req, typeof(*fr), f.req);

	if (!ops->flush_prefilter)
		return fuse_bpf_no_prefilter(ops->flush_postfilter);
	return ops->flush_prefilter(&req->meta, &fr->in);
}

/*
 * A lower filesystem with neither ->flush() nor ->lock() (tmpfs, ext4) has
 * nothing to ask at close(): dropping the POSIX locks is all, as in
 * ovl_flush(), with no credentials to switch.
 */
static bool fuse_bpf_flush_locks_only(const struct file *lower)
{
	return !lower->f_op->flush && !lower->f_op->lock;
}

/*
 * Every close() flushes.  The POSIX locks taken on the backing file are
 * dropped with ours, then the lower ->flush() runs, both with the backing
 * credentials as setlk and ovl_flush() use them.
 */
static int fuse_bpf_flush_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_flush *fr = container_of(req, typeof(*fr), f.req);
	struct file *lower = fuse_bpf_file(fr->f.file);
	const struct cred *old;
	int err = 0;

	/* A file never read nor written has nothing to flush, no locks */
	if (!lower)
		return 0;
	if (fuse_bpf_flush_locks_only(lower)) {
		locks_remove_posix(lower, fr->owner);
		return 0;
	}
	old = fuse_bpf_override_creds(req->inode);
	locks_remove_posix(lower, fr->owner);
	if (lower->f_op->flush)
		err = lower->f_op->flush(lower, fr->owner);
	revert_creds(old);
	return err;
}

static int fuse_bpf_flush_post(struct fuse_bpf_req *req,
			       const struct fuse_ops *ops)
{
	struct fuse_bpf_flush *fr = container_of(req, typeof(*fr), f.req);

	if (!ops->flush_postfilter)
		return 0;
	return ops->flush_postfilter(&req->meta, &fr->in);
}

static const struct fuse_bpf_op fuse_bpf_flush_op = {
	.opcode = FUSE_FLUSH,
	.setup = fuse_bpf_flush_setup,
	.prefilter = fuse_bpf_flush_pre,
	.backing = fuse_bpf_flush_backing,
	.postfilter = fuse_bpf_flush_post,
	.flags = FUSE_BPF_CALLER_CREDS,
};

/*
 * Out of line: the request is made only when it is sent, every field of
 * it, but not its lists (fuse_bpf_req_init()).
 */
static noinline bool fuse_bpf_flush_run(int *err, struct file *file,
					fl_owner_t id)
{
	struct fuse_bpf_flush fr __uninitialized;

	fuse_bpf_req_init(&fr.f.req, file_inode(file));
	fr.f.file = file;
	fr.in = (struct fuse_flush_in) {};
	fr.owner = id;
	return fuse_bpf_file_run(err, &fuse_bpf_flush_op, file, &fr.f);
}

/**
 * fuse_bpf_flush() - Flush an open file of a backed node
 * @err: where the result goes: 0 or an errno
 * @file: the FUSE file
 * @id: the lock owner (the file table being closed)
 *
 * Drops @id's POSIX locks on the backing file, then calls its ->flush().
 * Without a filter, a daemon or a ->flush() to run, the request is not
 * even set up.
 *
 * Return: true if FUSE-BPF served the operation, its result in @err;
 * false if @file is not served from a backing file, or a filter
 * sends FUSE_FLUSH to the daemon.
 */
bool fuse_bpf_flush(int *err, struct file *file, fl_owner_t id)
{
	struct file *lower;

	if (!fuse_bpf_file_backed(file))
		return false;
	/* No filter to run and no daemon to ask: no request either */
	lower = fuse_bpf_file(file);
	if (fuse_bpf_kernel_only(file_inode(file), flush, FUSE_FLUSH) &&
	    (!lower || fuse_bpf_flush_locks_only(lower))) {
		if (lower)
			locks_remove_posix(lower, id);
		*err = 0;
		return true;
	}
	return fuse_bpf_flush_run(err, file, id);
}

/* fsync, fsyncdir: the same request and backing step, their own filters */

struct fuse_bpf_fsync {
	struct fuse_bpf_file_req f;
	struct fuse_fsync_in in;
	loff_t start, end;
};

static int fuse_bpf_fsync_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_fsync *s = container_of(req, typeof(*s), f.req);

	s->in.fh = fuse_bpf_fh(s->f.file);
	fuse_bpf_arg_in(req, sizeof(s->in), &s->in);
	return 0;
}

static int fuse_bpf_fsync_pre(struct fuse_bpf_req *req,
			      const struct fuse_ops *ops)
{
	struct fuse_bpf_fsync *s = container_of(req, typeof(*s), f.req);

	if (!ops->fsync_prefilter)
		return fuse_bpf_no_prefilter(ops->fsync_postfilter);
	return ops->fsync_prefilter(&req->meta, &s->in);
}

static int fuse_bpf_fsyncdir_pre(struct fuse_bpf_req *req,
				 const struct fuse_ops *ops)
{
	struct fuse_bpf_fsync *s = container_of(req, typeof(*s), f.req);

	if (!ops->dir_fsync_prefilter)
		return fuse_bpf_no_prefilter(ops->dir_fsync_postfilter);
	return ops->dir_fsync_prefilter(&req->meta, &s->in);
}

static int fuse_bpf_fsync_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_fsync *s = container_of(req, typeof(*s), f.req);
	struct file *lower = fuse_bpf_file_get(s->f.file);

	if (IS_ERR(lower))
		return PTR_ERR(lower);
	return vfs_fsync_range(lower, s->start, s->end,
			       s->in.fsync_flags & FUSE_FSYNC_FDATASYNC);
}

static int fuse_bpf_fsync_post(struct fuse_bpf_req *req,
			       const struct fuse_ops *ops)
{
	struct fuse_bpf_fsync *s = container_of(req, typeof(*s), f.req);

	if (!ops->fsync_postfilter)
		return 0;
	return ops->fsync_postfilter(&req->meta, &s->in);
}

static int fuse_bpf_fsyncdir_post(struct fuse_bpf_req *req,
				  const struct fuse_ops *ops)
{
	struct fuse_bpf_fsync *s = container_of(req, typeof(*s), f.req);

	if (!ops->dir_fsync_postfilter)
		return 0;
	return ops->dir_fsync_postfilter(&req->meta, &s->in);
}

static const struct fuse_bpf_op fuse_bpf_fsync_op = {
	.opcode = FUSE_FSYNC,
	.setup = fuse_bpf_fsync_setup,
	.prefilter = fuse_bpf_fsync_pre,
	.backing = fuse_bpf_fsync_backing,
	.postfilter = fuse_bpf_fsync_post,
};

static const struct fuse_bpf_op fuse_bpf_fsyncdir_op = {
	.opcode = FUSE_FSYNCDIR,
	.setup = fuse_bpf_fsync_setup,
	.prefilter = fuse_bpf_fsyncdir_pre,
	.backing = fuse_bpf_fsync_backing,
	.postfilter = fuse_bpf_fsyncdir_post,
};

/**
 * fuse_bpf_fsync() - Sync an open file or directory of a backed node
 * @err: where the result goes: 0 or an errno
 * @file: the FUSE file
 * @start: the first byte of the range
 * @end: the last byte of the range
 * @datasync: sync only the data and what reading it needs
 *
 * Syncs the backing file with vfs_fsync_range().  The filters see
 * FUSE_FSYNCDIR for a directory, FUSE_FSYNC otherwise.
 *
 * Return: true if FUSE-BPF served the operation, its result in @err;
 * false if @file is not served from a backing file, or a filter
 * sends the operation to the daemon.
 */
bool fuse_bpf_fsync(int *err, struct file *file, loff_t start, loff_t end,
		    int datasync)
{
	struct fuse_bpf_fsync s = {
		.in.fsync_flags = datasync ? FUSE_FSYNC_FDATASYNC : 0,
		.start = start,
		.end = end,
	};

	return fuse_bpf_file_run(err, S_ISDIR(file_inode(file)->i_mode) ?
				 &fuse_bpf_fsyncdir_op : &fuse_bpf_fsync_op,
				 file, &s.f);
}

/* lseek */

struct fuse_bpf_lseek {
	struct fuse_bpf_file_req f;
	struct fuse_lseek_in in;
	struct fuse_lseek_out out;
};

static int fuse_bpf_lseek_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_lseek *l = container_of(req, typeof(*l), f.req);

	l->in.fh = fuse_bpf_fh(l->f.file);
	fuse_bpf_arg_in(req, sizeof(l->in), &l->in);
	fuse_bpf_arg_out(req, sizeof(l->out), &l->out);
	return 0;
}

static int fuse_bpf_lseek_pre(struct fuse_bpf_req *req,
			      const struct fuse_ops *ops)
{
	struct fuse_bpf_lseek *l = container_of(req, typeof(*l), f.req);

	if (!ops->lseek_prefilter)
		return fuse_bpf_no_prefilter(ops->lseek_postfilter);
	return ops->lseek_prefilter(&req->meta, &l->in);
}

/* As overlayfs: the backing file keeps the position, under the inode lock. */
static int fuse_bpf_lseek_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_lseek *l = container_of(req, typeof(*l), f.req);
	/* Opened by fuse_bpf_llseek(), before the inode lock */
	struct file *lower = fuse_bpf_file(l->f.file);
	loff_t pos;

	lower->f_pos = l->f.file->f_pos;
	pos = vfs_llseek(lower, l->in.offset, l->in.whence);
	l->out.offset = pos;
	return pos < 0 ? pos : 0;
}

static int fuse_bpf_lseek_post(struct fuse_bpf_req *req,
			       const struct fuse_ops *ops)
{
	struct fuse_bpf_lseek *l = container_of(req, typeof(*l), f.req);

	if (!ops->lseek_postfilter)
		return 0;
	return ops->lseek_postfilter(&req->meta, &l->in, &l->out);
}

static const struct fuse_bpf_op fuse_bpf_lseek_op = {
	.opcode = FUSE_LSEEK,
	.setup = fuse_bpf_lseek_setup,
	.prefilter = fuse_bpf_lseek_pre,
	.backing = fuse_bpf_lseek_backing,
	.postfilter = fuse_bpf_lseek_post,
};

/**
 * fuse_bpf_llseek() - Reposition an open file of a backed node
 * @res: where the result goes: the new position, or an errno
 * @file: the FUSE file
 * @offset: the offset
 * @whence: SEEK_* from where
 *
 * Seeks the backing file from @file's position with vfs_llseek(), and
 * gives @file the position the filters leave: the backing file's, or
 * what a postfilter made of it.  A negative one gives -EINVAL, and a
 * failed seek leaves @file's position as it was.
 *
 * Context: takes the inode lock of @file's inode.
 *
 * Return: true if FUSE-BPF served the operation, its result in @res;
 * false if @file is not served from a backing file, or a filter
 * sends FUSE_LSEEK to the daemon.
 */
bool fuse_bpf_llseek(loff_t *res, struct file *file, loff_t offset,
		     int whence)
{
	struct inode *inode = file_inode(file);
	struct fuse_bpf_lseek l = {
		.in = { .offset = offset, .whence = whence },
	};
	bool backed;
	int err;

	if (!fuse_bpf_file_backed(file))
		return false;
	/* Not under the inode lock: a first access opens the backing file */
	if (fuse_bpf_file_io(&err, file)) {
		*res = err;
		return true;
	}
	inode_lock(inode);
	backed = fuse_bpf_file_run(&err, &fuse_bpf_lseek_op, file, &l.f);
	/*
	 * The file's position is the one the caller gets, which a postfilter
	 * may have changed, or failed: never a negative one.
	 */
	if (backed && !err && (loff_t)l.out.offset < 0)
		err = -EINVAL;
	if (backed && !err)
		file->f_pos = l.out.offset;
	inode_unlock(inode);
	if (backed)
		*res = err ? err : l.out.offset;
	return backed;
}

/*
 * As before a write (backing_file_write_iter()): drop the set-id bits with
 * the caller's credentials, judged on the lower inode as it is now.  The
 * lower operation itself runs with credentials that keep CAP_FSETID.
 */
static int fuse_bpf_remove_privs(struct file *file)
{
	struct inode *inode = file_inode(file);
	int err;

	inode_lock(inode);
	fuse_bpf_copyattr(inode);
	err = file_remove_privs(file);
	inode_unlock(inode);
	return err;
}

/* fallocate */

struct fuse_bpf_fallocate {
	struct fuse_bpf_file_req f;
	struct fuse_fallocate_in in;
};

static int fuse_bpf_fallocate_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_fallocate *a = container_of(req, typeof(*a), f.req);

	a->in.fh = fuse_bpf_fh(a->f.file);
	fuse_bpf_arg_in(req, sizeof(a->in), &a->in);
	return 0;
}

static int fuse_bpf_fallocate_pre(struct fuse_bpf_req *req,
				  const struct fuse_ops *ops)
{
	struct fuse_bpf_fallocate *a = container_of(req, typeof(*a), f.req);

	if (!ops->file_fallocate_prefilter)
		return fuse_bpf_no_prefilter(ops->file_fallocate_postfilter);
	return ops->file_fallocate_prefilter(&req->meta, &a->in);
}

static int fuse_bpf_fallocate_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_fallocate *a = container_of(req, typeof(*a), f.req);
	struct file *lower = fuse_bpf_file_get(a->f.file);

	if (IS_ERR(lower))
		return PTR_ERR(lower);
	return vfs_fallocate(lower, a->in.mode, a->in.offset, a->in.length);
}

static int fuse_bpf_fallocate_post(struct fuse_bpf_req *req,
				   const struct fuse_ops *ops)
{
	struct fuse_bpf_fallocate *a = container_of(req, typeof(*a), f.req);

	if (!ops->file_fallocate_postfilter)
		return 0;
	return ops->file_fallocate_postfilter(&req->meta, &a->in);
}

static const struct fuse_bpf_op fuse_bpf_fallocate_op = {
	.opcode = FUSE_FALLOCATE,
	.setup = fuse_bpf_fallocate_setup,
	.prefilter = fuse_bpf_fallocate_pre,
	.backing = fuse_bpf_fallocate_backing,
	.postfilter = fuse_bpf_fallocate_post,
	.finish = fuse_bpf_file_finish,
	.flags = FUSE_BPF_AS_CALLER,
};

/**
 * fuse_bpf_fallocate() - Allocate or free space of a backed file
 * @err: where the result goes: 0 or an errno
 * @file: the FUSE file
 * @mode: FALLOC_FL_* flags
 * @offset: the start of the range
 * @length: the length of the range
 *
 * Drops the set-id bits first, judged with the caller's credentials
 * (file_remove_privs()), then runs vfs_fallocate() on the backing file,
 * for the caller.
 *
 * Context: takes the inode lock of @file's inode.
 *
 * Return: true if FUSE-BPF served the operation, its result in @err;
 * false if @file is not served from a backing file, or a filter
 * sends FUSE_FALLOCATE to the daemon.
 */
bool fuse_bpf_fallocate(int *err, struct file *file, int mode,
			loff_t offset, loff_t length)
{
	struct fuse_bpf_fallocate a = {
		.in = {
			.offset = offset,
			.length = length,
			.mode = mode,
		},
	};

	if (!fuse_bpf_file_backed(file))
		return false;
	*err = fuse_bpf_remove_privs(file);
	if (*err)
		return true;
	return fuse_bpf_file_run(err, &fuse_bpf_fallocate_op, file, &a.f);
}

/* copy_file_range */

struct fuse_bpf_copy {
	struct fuse_bpf_file_req f;	/* the source */
	struct fuse_copy_file_range_in in;
	struct fuse_write_out out;
	struct file *dst;
	size_t len;			/* the caller's */
	ssize_t res;
};

static int fuse_bpf_copy_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_copy *c = container_of(req, typeof(*c), f.req);

	c->in.fh_in = fuse_bpf_fh(c->f.file);
	c->in.fh_out = fuse_bpf_fh(c->dst);
	fuse_bpf_arg_in(req, sizeof(c->in), &c->in);
	fuse_bpf_arg_out(req, sizeof(c->out), &c->out);
	return 0;
}

static int fuse_bpf_copy_pre(struct fuse_bpf_req *req,
			     const struct fuse_ops *ops)
{
	struct fuse_bpf_copy *c = container_of(req, typeof(*c), f.req);

	if (!ops->copy_file_range_prefilter)
		return fuse_bpf_no_prefilter(ops->copy_file_range_postfilter);
	return ops->copy_file_range_prefilter(&req->meta, &c->in);
}

static int fuse_bpf_copy_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_copy *c = container_of(req, typeof(*c), f.req);
	struct fuse_copy_file_range_in *in = &c->in;
	struct file *src, *dst;
	ssize_t ret;

	/* A filter may copy less than the caller asked, never more */
	if (in->len > c->len)
		return -EINVAL;
	src = fuse_bpf_file_get(c->f.file);
	if (IS_ERR(src))
		return PTR_ERR(src);
	dst = fuse_bpf_file_get(c->dst);
	if (IS_ERR(dst))
		return PTR_ERR(dst);
	ret = vfs_copy_file_range(src, in->off_in, dst, in->off_out, in->len,
				  in->flags);
	c->res = ret;
	c->out.size = ret > 0 ? ret : 0;
	return ret < 0 ? ret : 0;
}

static int fuse_bpf_copy_post(struct fuse_bpf_req *req,
			      const struct fuse_ops *ops)
{
	struct fuse_bpf_copy *c = container_of(req, typeof(*c), f.req);

	if (!ops->copy_file_range_postfilter)
		return 0;
	return ops->copy_file_range_postfilter(&req->meta, &c->in, &c->out);
}

static const struct fuse_bpf_op fuse_bpf_copy_file_range_op = {
	.opcode = FUSE_COPY_FILE_RANGE,
	.setup = fuse_bpf_copy_setup,
	.prefilter = fuse_bpf_copy_pre,
	.backing = fuse_bpf_copy_backing,
	.postfilter = fuse_bpf_copy_post,
	.flags = FUSE_BPF_AS_CALLER,
};

/**
 * fuse_bpf_copy_file_range() - Copy a range between backed files
 * @res: where the result goes: the bytes copied, or an errno
 * @src: the FUSE file to copy from
 * @src_off: the offset in @src
 * @dst: the FUSE file to copy to
 * @dst_off: the offset in @dst
 * @len: the bytes to copy
 * @flags: copy_file_range(2) flags
 *
 * Drops @dst's set-id bits first (as fuse_bpf_fallocate()), then copies
 * between the backing files with vfs_copy_file_range(), for the caller.
 * The filters are @src's node's copy_file_range members, and no other:
 * not @dst's, nor the read and write members of either (as the daemon
 * gets one FUSE_COPY_FILE_RANGE on the source's node).  A prefilter may
 * shorten the copy, not lengthen it (-EINVAL).
 *
 * Context: takes the inode lock of @dst's inode.
 *
 * Return: false if neither file is served from a backing file, or a filter
 * sends FUSE_COPY_FILE_RANGE to the daemon; otherwise true, the result in
 * @res (-EXDEV if only one of them is).
 */
bool fuse_bpf_copy_file_range(ssize_t *res, struct file *src, loff_t src_off,
			      struct file *dst, loff_t dst_off, size_t len,
			      unsigned int flags)
{
	struct fuse_bpf_copy c = {
		.in = {
			.off_in = src_off,
			.nodeid_out = get_node_id(file_inode(dst)),
			.off_out = dst_off,
			.len = len,
			.flags = flags,
		},
		.dst = dst,
		.len = len,
	};
	bool src_backed = fuse_bpf_file_backed(src);
	int err;

	if (!src_backed && !fuse_bpf_file_backed(dst))
		return false;
	if (!src_backed || !fuse_bpf_file_backed(dst)) {
		*res = -EXDEV;
		return true;
	}
	err = fuse_bpf_remove_privs(dst);
	if (err) {
		*res = err;
		return true;
	}
	if (!fuse_bpf_file_run(&err, &fuse_bpf_copy_file_range_op, src, &c.f))
		return false;
	fuse_bpf_copyattr(file_inode(dst));
	*res = err ? err : c.res;
	return true;
}

/* getlk, setlk: POSIX and flock locks, the same request; no filter runs */

struct fuse_bpf_lock {
	struct fuse_bpf_file_req f;
	struct fuse_lk_in in;
	struct file_lock *fl;
	int cmd;
	bool flock;
};

static int fuse_bpf_lock_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_lock *lk = container_of(req, typeof(*lk), f.req);

	lk->in.fh = fuse_bpf_fh(lk->f.file);
	fuse_bpf_arg_in(req, sizeof(lk->in), &lk->in);
	return 0;
}

/*
 * Locks are taken on the backing file, so they conflict with locks taken
 * on the lower file directly.  flock and OFD locks belong to an open file:
 * to the backing file there.  @test: a POSIX lock is tested (FUSE_GETLK),
 * not set.
 */
static int fuse_bpf_lock_backing(struct fuse_bpf_req *req, bool test)
{
	struct fuse_bpf_lock *lk = container_of(req, typeof(*lk), f.req);
	struct file *lower = fuse_bpf_file(lk->f.file);
	struct file_lock *fl = lk->fl;
	fl_owner_t owner = fl->c.flc_owner;
	int err;

	/* A backing file never opened holds no lock to remove */
	if (!lower && !test && lock_is_unlock(fl))
		return 0;
	lower = fuse_bpf_file_get(lk->f.file);
	if (IS_ERR(lower))
		return PTR_ERR(lower);
	fl->c.flc_file = lower;
	if (owner == lk->f.file)
		fl->c.flc_owner = lower;
	if (lk->flock && lower->f_op->flock)
		err = lower->f_op->flock(lower, lk->cmd, fl);
	else if (lk->flock)
		err = locks_lock_file_wait(lower, fl);
	else if (test)
		err = vfs_test_lock(lower, fl);
	else
		err = vfs_lock_file(lower, lk->cmd, fl, NULL);
	fl->c.flc_file = lk->f.file;
	if (fl->c.flc_owner == lower)
		fl->c.flc_owner = owner;
	return err;
}

static int fuse_bpf_getlk_backing(struct fuse_bpf_req *req)
{
	return fuse_bpf_lock_backing(req, true);
}

static int fuse_bpf_setlk_backing(struct fuse_bpf_req *req)
{
	return fuse_bpf_lock_backing(req, false);
}

static const struct fuse_bpf_op fuse_bpf_getlk_op = {
	.opcode = FUSE_GETLK,
	.setup = fuse_bpf_lock_setup,
	.backing = fuse_bpf_getlk_backing,
};

static const struct fuse_bpf_op fuse_bpf_setlk_op = {
	.opcode = FUSE_SETLK,
	.setup = fuse_bpf_lock_setup,
	.backing = fuse_bpf_setlk_backing,
};

static bool fuse_bpf_lock_common(int *err, struct file *file, int cmd,
				 struct file_lock *fl, bool flock)
{
	struct fuse_bpf_lock lk = {
		.in = {
			.owner = (u64)(uintptr_t)fl->c.flc_owner,
			.lk = {
				.start = fl->fl_start,
				.end = fl->fl_end,
				.type = fl->c.flc_type,
				.pid = fl->c.flc_pid,
			},
			.lk_flags = flock ? FUSE_LK_FLOCK : 0,
		},
		.fl = fl,
		.cmd = cmd,
		.flock = flock,
	};

	return fuse_bpf_file_run(err, !flock && cmd == F_GETLK ?
				 &fuse_bpf_getlk_op : &fuse_bpf_setlk_op,
				 file, &lk.f);
}

/**
 * fuse_bpf_lock() - Test or set a POSIX lock on a backed file
 * @err: where the result goes: 0 or an errno
 * @file: the FUSE file
 * @cmd: F_GETLK to test the lock; F_SETLK, F_SETLKW or F_CANCELLK
 * @fl: the lock; during the call its file, and an owner that is @file, are
 *	the backing file
 *
 * Tests (vfs_test_lock()) or sets (vfs_lock_file()) the lock on the backing
 * file, so that it conflicts with locks taken on the lower file directly.
 * No filter runs.
 *
 * Return: true if @file is served from a backing file, the result in @err;
 * false otherwise.
 */
bool fuse_bpf_lock(int *err, struct file *file, int cmd, struct file_lock *fl)
{
	return fuse_bpf_lock_common(err, file, cmd, fl, false);
}

/**
 * fuse_bpf_flock() - Set or remove a flock lock on a backed file
 * @err: where the result goes: 0 or an errno
 * @file: the FUSE file
 * @cmd: F_SETLK or F_SETLKW
 * @fl: the lock; during the call its file, and an owner that is @file, are
 *	the backing file
 *
 * Takes the lock on the backing file (by its ->flock() if it has one), so
 * that it conflicts with locks taken on the lower file directly.  No filter
 * runs.
 *
 * Return: true if @file is served from a backing file, the result in @err;
 * false otherwise.
 */
bool fuse_bpf_flock(int *err, struct file *file, int cmd, struct file_lock *fl)
{
	return fuse_bpf_lock_common(err, file, cmd, fl, true);
}

/**
 * fuse_bpf_ioctl() - Refuse an ioctl on a backed file
 * @err: where the result goes: -ENOTTY
 * @file: the FUSE file
 *
 * ioctls other than the fileattr ones (which the VFS routes to
 * ->fileattr_get/set) would run with the backing credentials: refuse them.
 *
 * Return: true if @file is served from a backing file, @err then -ENOTTY;
 * false otherwise.
 */
bool fuse_bpf_ioctl(long *err, struct file *file)
{
	if (!fuse_bpf_file_backed(file))
		return false;
	*err = -ENOTTY;
	return true;
}

/**
 * fuse_bpf_poll() - Poll a backed file
 * @res: where the result goes: the poll mask
 * @file: the FUSE file
 * @wait: the poll table
 *
 * A backed file is as ready as its backing file (vfs_poll()).  CUSE shares
 * fuse_file_poll() on a character device's inode, which is not a FUSE one.
 *
 * Return: true if @file is a regular file served from a backing file, the
 * result in @res; false otherwise.
 */
bool fuse_bpf_poll(__poll_t *res, struct file *file, poll_table *wait)
{
	struct inode *inode = file_inode(file);
	struct file *lower;

	if (!S_ISREG(inode->i_mode) || !fuse_bpf_file_backed(file))
		return false;
	/* As vfs_poll() answers for a file without ->poll(), unopened */
	if (!fuse_bpf_file(file) && !fuse_bpf_inode(inode)->i_fop->poll) {
		*res = DEFAULT_POLLMASK;
		return true;
	}
	lower = fuse_bpf_file_get(file);
	*res = IS_ERR(lower) ? EPOLLERR : vfs_poll(lower, wait);
	return true;
}

/*
 * Reads and writes.  A node whose filter has no read (write) filter
 * reads (writes) through the FUSE passthrough path at no cost; one with
 * one runs it on each call, which may send the call to the daemon:
 * partial passthrough, some ranges from (to) the daemon, the rest from
 * (to) the backing file.
 */
struct fuse_bpf_io {
	struct fuse_bpf_req req;
	struct kiocb *iocb;
	struct iov_iter *iter;
	ssize_t res;
};

struct fuse_bpf_read {
	struct fuse_bpf_io io;
	struct fuse_read_in in;
	struct fuse_read_iter_out out;
};

struct fuse_bpf_write {
	struct fuse_bpf_io io;
	struct fuse_write_in in;
	struct fuse_write_iter_out out;
};

static int fuse_bpf_read_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_read *r = container_of(req, typeof(*r), io.req);

	r->in.fh = fuse_bpf_fh(r->io.iocb->ki_filp);
	fuse_bpf_arg_in(req, sizeof(r->in), &r->in);
	fuse_bpf_arg_out(req, sizeof(r->out), &r->out);
	return 0;
}

static int fuse_bpf_write_setup(struct fuse_bpf_req *req)
{
	struct fuse_bpf_write *w = container_of(req, typeof(*w), io.req);

	w->in.fh = fuse_bpf_fh(w->io.iocb->ki_filp);
	fuse_bpf_arg_in(req, sizeof(w->in), &w->in);
	fuse_bpf_arg_out(req, sizeof(w->out), &w->out);
	return 0;
}

/* The filters may fail a call or send it on; the range is the caller's */
static int fuse_bpf_read_pre(struct fuse_bpf_req *req,
			     const struct fuse_ops *ops)
{
	struct fuse_bpf_read *r = container_of(req, typeof(*r), io.req);

	if (!ops->read_iter_prefilter)
		return fuse_bpf_no_prefilter(ops->read_iter_postfilter);
	return ops->read_iter_prefilter(&req->meta, &r->in);
}

static int fuse_bpf_write_pre(struct fuse_bpf_req *req,
			      const struct fuse_ops *ops)
{
	struct fuse_bpf_write *w = container_of(req, typeof(*w), io.req);

	if (!ops->write_iter_prefilter)
		return fuse_bpf_no_prefilter(ops->write_iter_postfilter);
	return ops->write_iter_prefilter(&req->meta, &w->in);
}

/*
 * The result of a read or write on the backing file.  One the backing
 * file queued (AIO, io_uring: -EIOCBQUEUED) completes later, by itself:
 * it has no postfilter, and its result goes back to the caller as it is.
 */
static int fuse_bpf_io_done(struct fuse_bpf_req *req, ssize_t res, u64 *ret)
{
	if (res == -EIOCBQUEUED) {
		req->post = false;
		req->user_post = false;
		return 0;
	}
	*ret = max_t(ssize_t, res, 0);
	return res < 0 ? res : 0;
}

static int fuse_bpf_read_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_read *r = container_of(req, typeof(*r), io.req);

	r->io.res = fuse_passthrough_read_iter(r->io.iocb, r->io.iter);
	return fuse_bpf_io_done(req, r->io.res, &r->out.ret);
}

static int fuse_bpf_write_backing(struct fuse_bpf_req *req)
{
	struct fuse_bpf_write *w = container_of(req, typeof(*w), io.req);

	w->io.res = fuse_passthrough_write_iter(w->io.iocb, w->io.iter);
	return fuse_bpf_io_done(req, w->io.res, &w->out.ret);
}

static int fuse_bpf_read_post(struct fuse_bpf_req *req,
			      const struct fuse_ops *ops)
{
	struct fuse_bpf_read *r = container_of(req, typeof(*r), io.req);

	if (!ops->read_iter_postfilter)
		return 0;
	return ops->read_iter_postfilter(&req->meta, &r->in, &r->out);
}

static int fuse_bpf_write_post(struct fuse_bpf_req *req,
			       const struct fuse_ops *ops)
{
	struct fuse_bpf_write *w = container_of(req, typeof(*w), io.req);

	if (!ops->write_iter_postfilter)
		return 0;
	return ops->write_iter_postfilter(&req->meta, &w->in, &w->out);
}

/*
 * The FUSE passthrough path opened the backing file with the opener's
 * credentials and uses them; file_remove_privs() before a write judges the
 * caller, as without a filter.
 */
static const struct fuse_bpf_op fuse_bpf_read_op = {
	.opcode = FUSE_READ,
	.setup = fuse_bpf_read_setup,
	.prefilter = fuse_bpf_read_pre,
	.backing = fuse_bpf_read_backing,
	.postfilter = fuse_bpf_read_post,
	.flags = FUSE_BPF_CALLER_CREDS,
};

static const struct fuse_bpf_op fuse_bpf_write_op = {
	.opcode = FUSE_WRITE,
	.setup = fuse_bpf_write_setup,
	.prefilter = fuse_bpf_write_pre,
	.backing = fuse_bpf_write_backing,
	.postfilter = fuse_bpf_write_post,
	.finish = fuse_bpf_file_finish,
	.flags = FUSE_BPF_CALLER_CREDS,
};

/*
 * A read or write a filter sent to the daemon: FUSE_READ or FUSE_WRITE
 * on the node (introduced to the daemon by fuse_bpf_run()), up to a
 * request's worth of pages.  The kernel opened the file: the daemon gets
 * fh 0 and knows the file by its node id.  A write the daemon takes does
 * not change the backing file.
 */
static size_t fuse_bpf_io_max(struct fuse_conn *fc, bool write)
{
	return min_t(size_t, write ? fc->max_write : fc->max_read,
		     (size_t)fc->max_pages * PAGE_SIZE);
}

static ssize_t fuse_bpf_read_daemon(struct kiocb *iocb, struct iov_iter *to)
{
	struct file *file = iocb->ki_filp;
	struct fuse_file *ff = file->private_data;
	struct fuse_mount *fm = ff->fm;
	size_t size = min(iov_iter_count(to), fuse_bpf_io_max(fm->fc, false));
	struct fuse_read_in in = {
		.fh = ff->fh,
		.offset = iocb->ki_pos,
		.size = size,
		.flags = file->f_flags & ~O_CREAT,
	};
	struct fuse_args args = {};
	ssize_t ret;
	void *buf;

	buf = kvmalloc(size, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	args.opcode = FUSE_READ;
	args.nodeid = get_node_id(file_inode(file));
	args.in_numargs = 1;
	args.in_args[0].size = sizeof(in);
	args.in_args[0].value = &in;
	args.out_numargs = 1;
	args.out_argvar = true;
	args.out_args[0].size = size;
	args.out_args[0].value = buf;
	ret = fuse_simple_request(fm, &args);
	if (ret > 0) {
		/* As a read: the bytes copied before a fault are the result */
		ret = copy_to_iter(buf, ret, to) ?: -EFAULT;
		if (ret > 0)
			iocb->ki_pos += ret;
	}
	kvfree(buf);
	return ret;
}

static ssize_t fuse_bpf_write_daemon(struct kiocb *iocb,
				     struct iov_iter *from)
{
	struct file *file = iocb->ki_filp;
	struct inode *inode = file_inode(file);
	struct fuse_file *ff = file->private_data;
	struct fuse_mount *fm = ff->fm;
	struct fuse_write_in in = {
		.fh = ff->fh,
		.flags = file->f_flags & ~O_CREAT,
	};
	struct fuse_write_out out = {};
	struct fuse_args args = {};
	size_t size;
	ssize_t ret;
	void *buf;

	inode_lock(inode);
	fuse_bpf_refresh(inode);
	ret = generic_write_checks(iocb, from);
	if (ret <= 0)
		goto out_unlock;
	size = min_t(size_t, ret, fuse_bpf_io_max(fm->fc, true));
	ret = -ENOMEM;
	buf = kvmalloc(size, GFP_KERNEL);
	if (!buf)
		goto out_unlock;
	/* As a write: the bytes copied before a fault are what is written */
	size = copy_from_iter(buf, size, from);
	ret = -EFAULT;
	if (!size)
		goto out_free;
	in.offset = iocb->ki_pos;
	in.size = size;
	args.opcode = FUSE_WRITE;
	args.nodeid = get_node_id(inode);
	args.in_numargs = 2;
	args.in_args[0].size = sizeof(in);
	args.in_args[0].value = &in;
	args.in_args[1].size = size;
	args.in_args[1].value = buf;
	args.out_numargs = 1;
	args.out_args[0].size = sizeof(out);
	args.out_args[0].value = &out;
	ret = fuse_simple_request(fm, &args);
	if (!ret && out.size > size)
		ret = -EIO;
	if (!ret) {
		iov_iter_revert(from, size - out.size);
		iocb->ki_pos += out.size;
		ret = out.size;
	} else {
		iov_iter_revert(from, size);
	}
out_free:
	kvfree(buf);
out_unlock:
	inode_unlock(inode);
	return ret;
}

/* Does @inode's filter see this kind of call (read_iter or write_iter)? */
static bool fuse_bpf_io_filtered(struct inode *inode, bool write)
{
	if (write)
		return fuse_bpf_filters(inode, write_iter);
	return fuse_bpf_filters(inode, read_iter);
}

/*
 * The bytes of a call the node's filters see, up to U32_MAX: 0 if the
 * file is not served from a backing file, @iter is empty, or the node's
 * filter has no filter of this kind of call.
 */
static size_t fuse_bpf_io_count(struct kiocb *iocb, struct iov_iter *iter,
				bool write)
{
	struct file *file = iocb->ki_filp;
	size_t count = min_t(size_t, iov_iter_count(iter), U32_MAX);

	if (!fuse_bpf_file_backed(file) || !count ||
	    !fuse_bpf_io_filtered(file_inode(file), write))
		return 0;
	return count;
}

static ssize_t fuse_bpf_read_filtered(struct kiocb *iocb, struct iov_iter *to,
				      size_t count)
{
	struct file *file = iocb->ki_filp;
	struct fuse_bpf_read r = {
		.io = {
			.req = FUSE_BPF_REQ(file_inode(file)),
			.iocb = iocb,
			.iter = to,
		},
		.in = {
			.offset = iocb->ki_pos,
			.size = count,
			.flags = file->f_flags,
		},
	};
	int err = fuse_bpf_run(&fuse_bpf_read_op, &r.io.req);

	if (err == FUSE_BPF_FALLBACK)
		return fuse_bpf_read_daemon(iocb, to);
	return err ?: r.io.res;
}

static ssize_t fuse_bpf_write_filtered(struct kiocb *iocb,
				       struct iov_iter *from, size_t count)
{
	struct file *file = iocb->ki_filp;
	struct fuse_bpf_write w = {
		.io = {
			.req = FUSE_BPF_REQ(file_inode(file)),
			.iocb = iocb,
			.iter = from,
		},
		.in = {
			.offset = iocb->ki_pos,
			.size = count,
			.flags = file->f_flags,
		},
	};
	int err = fuse_bpf_run(&fuse_bpf_write_op, &w.io.req);

	if (err == FUSE_BPF_FALLBACK)
		return fuse_bpf_write_daemon(iocb, from);
	return err ?: w.io.res;
}

/**
 * fuse_bpf_read_iter() - Read from a backed file whose node filters reads
 * @res: where the result goes: the bytes read, -EIOCBQUEUED or an errno
 * @iocb: the I/O control block, on the FUSE file
 * @to: the destination
 *
 * Opens the backing file if the file's open left it (fuse_bpf_file_io()),
 * then runs the node's read_iter filters around a read of the backing file
 * by the FUSE passthrough path.  A read a filter sends to the daemon is a
 * FUSE_READ of up to one request's worth of @to.
 *
 * Return: false if the file is not served from a backing file, @to is
 * empty, or the node's filter has no read_iter filter: the caller reads as
 * before.  Otherwise, or if the backing file fails to open, true, the
 * result in @res.
 */
bool fuse_bpf_read_iter(ssize_t *res, struct kiocb *iocb, struct iov_iter *to)
{
	size_t count;
	int err;

	if (fuse_bpf_file_io(&err, iocb->ki_filp)) {
		*res = err;
		return true;
	}
	count = fuse_bpf_io_count(iocb, to, false);
	if (!count)
		return false;
	*res = fuse_bpf_read_filtered(iocb, to, count);
	return true;
}

/**
 * fuse_bpf_write_iter() - Write to a backed file whose node filters writes
 * @res: where the result goes: the bytes written, -EIOCBQUEUED or an errno
 * @iocb: the I/O control block, on the FUSE file
 * @from: the source
 *
 * Opens the backing file if the file's open left it (fuse_bpf_file_io()),
 * then runs the node's write_iter filters around a write of the backing
 * file by the FUSE passthrough path.  A write a filter sends to the daemon
 * is a FUSE_WRITE of up to one request's worth of @from, which does not
 * change the backing file.
 *
 * Return: false if the file is not served from a backing file, @from is
 * empty, or the node's filter has no write_iter filter: the caller writes
 * as before.  Otherwise, or if the backing file fails to open, true, the
 * result in @res.
 */
bool fuse_bpf_write_iter(ssize_t *res, struct kiocb *iocb,
			 struct iov_iter *from)
{
	size_t count;
	int err;

	if (fuse_bpf_file_io(&err, iocb->ki_filp)) {
		*res = err;
		return true;
	}
	count = fuse_bpf_io_count(iocb, from, true);
	if (!count)
		return false;
	*res = fuse_bpf_write_filtered(iocb, from, count);
	return true;
}
