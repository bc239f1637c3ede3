// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE-BPF: the fuse_ops filters of backed nodes.
 *
 * A node's filter (root_bpf= at mount, inherited by the nodes below) is a
 * registered fuse_ops struct_ops map.  fuse_bpf_run() calls its prefilter
 * after an operation's setup and its postfilter after the backing step;
 * each operation's own prefilter/postfilter step hands the filter the
 * operation's FUSE arguments.  Variable-length arguments are fuse_buffers:
 * what a filter's kfunc call allocates in one is freed when the operation
 * ends, whatever its result.
 */

#include "fuse_i.h"

/*
 * The errno a filter's negative return value fails an operation with: a
 * user errno (-1 to -511, the range FUSE takes from a daemon's reply) as
 * it is, anything else -EINVAL.  The kernel's own codes above it are not
 * for the VFS to see: -EIOCBQUEUED from a read or write reaches a BUG_ON()
 * in new_sync_read(), -ERESTARTSYS without a signal restarts the call
 * forever.
 */
static int fuse_bpf_filter_errno(int ret)
{
	return ret < 0 && ret > -ERESTARTSYS ? ret : -EINVAL;
}

/**
 * fuse_bpf_prefilter() - run the node's prefilter of an operation
 * @op: the operation
 * @req: the request, set up
 * @ops: the node's filter
 *
 * Return: 0 to run the backing operation (req->user_pre says whether the
 * daemon's prefilter comes first, req->post whether a postfilter follows,
 * req->user_post whether it is the daemon's), FUSE_BPF_FALLBACK to send
 * the operation to the daemon, or the error the operation fails with:
 * the filter's user errno, -EINVAL for any other value.
 */
int fuse_bpf_prefilter(const struct fuse_bpf_op *op, struct fuse_bpf_req *req,
		       const struct fuse_ops *ops)
{
	int ret;

	if (!op->prefilter)
		return 0;
	req->meta.opcode = req->args.opcode | FUSE_PREFILTER;
	ret = op->prefilter(req, ops);
	switch (ret) {
	case BPF_FUSE_CONTINUE:
		return 0;
	case BPF_FUSE_POSTFILTER:
		req->post = !!op->postfilter;
		return 0;
	case BPF_FUSE_USER:
	case BPF_FUSE_USER_PREFILTER:
	case BPF_FUSE_USER_POSTFILTER:
		/* A mount with no daemon has nobody to send it to. */
		if (get_fuse_conn(req->inode)->no_daemon)
			return -EOPNOTSUPP;
		break;
	default:
		return fuse_bpf_filter_errno(ret);
	}
	if (ret == BPF_FUSE_USER)
		return FUSE_BPF_FALLBACK;
	req->user_pre = ret == BPF_FUSE_USER_PREFILTER;
	req->user_post = ret == BPF_FUSE_USER_POSTFILTER;
	req->post = req->user_post;
	return 0;
}

/**
 * fuse_bpf_inputs_done() - make the inputs of an operation read-only
 * @req: the request, before its backing step
 *
 * The inputs are the postfilters' to read, not to change: each buffer of
 * @req is marked BPF_FUSE_IMMUTABLE.
 */
void fuse_bpf_inputs_done(struct fuse_bpf_req *req)
{
	unsigned int i;

	for (i = 0; i < req->nbufs; i++)
		req->bufs[i]->flags |= BPF_FUSE_IMMUTABLE;
}

/**
 * fuse_bpf_postfilter() - run the node's postfilter of an operation
 * @op: the operation
 * @req: the request
 * @ops: the node's filter
 * @err: the backing operation's result, the filter's error_in
 *
 * A lookup that finds no lower entry succeeds (with a negative dentry),
 * but its postfilters see error_in -ENOENT, as the RFC's did.  A filter
 * that returns %BPF_FUSE_USER_POSTFILTER hands the result, as it left it,
 * to the daemon's postfilter, as in the RFC.
 *
 * Return: the operation's result: the filter's errno if it returned a
 * negative value (-EINVAL for one that is not a user errno), the daemon's
 * postfilter's (-EOPNOTSUPP on a mount without a daemon), else @err.
 */
int fuse_bpf_postfilter(const struct fuse_bpf_op *op, struct fuse_bpf_req *req,
			const struct fuse_ops *ops, int err)
{
	int ret;

	req->meta.opcode = req->args.opcode | FUSE_POSTFILTER;
	/* A backing step may have set it (a lookup finding no entry) */
	req->meta.error_in = err ?: req->meta.error_in;
	ret = op->postfilter(req, ops);
	if (ret == BPF_FUSE_USER_POSTFILTER) {
		if (get_fuse_conn(req->inode)->no_daemon)
			return -EOPNOTSUPP;
		return fuse_bpf_user_postfilter(req, err);
	}
	return ret < 0 ? fuse_bpf_filter_errno(ret) : err;
}

/**
 * fuse_bpf_buf_in() - describe a variable-length input of an operation
 * @req: the request
 * @buf: the buffer
 * @data: what it holds, not the filter's to change in place
 * @size: the bytes in use
 * @max_size: the protocol's limit for this argument
 * @flags: BPF_FUSE_* flags (BPF_FUSE_IMMUTABLE: the filter may only read it)
 *
 * A filter that rewrites @buf gets a copy of @data (BPF_FUSE_MUST_ALLOCATE),
 * freed by fuse_bpf_buffers_free().  A request has at most
 * FUSE_BPF_MAX_BUFS buffers: past that, @buf is set up but not counted,
 * with a warning.
 */
void fuse_bpf_buf_in(struct fuse_bpf_req *req, struct fuse_buffer *buf,
		     void *data, unsigned int size, unsigned int max_size,
		     int flags)
{
	*buf = (struct fuse_buffer) {
		.data = data,
		.size = size,
		.alloc_size = size,
		.max_size = max_size,
		.flags = flags | BPF_FUSE_MUST_ALLOCATE,
	};
	if (!WARN_ON_ONCE(req->nbufs >= FUSE_BPF_MAX_BUFS))
		req->bufs[req->nbufs++] = buf;
}

/**
 * fuse_bpf_buf_name() - describe a name input of an operation
 * @req: the request
 * @buf: the buffer
 * @name: the name
 *
 * A name, as FUSE sends it: NUL-terminated, at most NAME_MAX long.  A
 * filter may change its length (BPF_FUSE_VARIABLE_SIZE).
 */
void fuse_bpf_buf_name(struct fuse_bpf_req *req, struct fuse_buffer *buf,
		       const struct qstr *name)
{
	fuse_bpf_buf_in(req, buf, (void *)name->name, name->len + 1,
			NAME_MAX + 1, BPF_FUSE_VARIABLE_SIZE);
}

/**
 * fuse_bpf_buf_str() - the string a buffer holds
 * @buf: a buffer, possibly rewritten by a filter
 *
 * Return: the buffer's data if it is a string: not empty, one NUL, at its
 * end; ERR_PTR(-EINVAL) otherwise.
 */
const char *fuse_bpf_buf_str(const struct fuse_buffer *buf)
{
	const char *s = buf->data;

	if (buf->size < 2 || s[buf->size - 1] ||
	    strnlen(s, buf->size) != buf->size - 1)
		return ERR_PTR(-EINVAL);
	return s;
}

/**
 * fuse_bpf_buf_qstr() - the name a name buffer holds
 * @buf: a name buffer, possibly rewritten by a filter
 * @name: set to the name, which points into @buf's data
 *
 * The name is to be one path component: "." and ".." and slashes are
 * refused by the lower lookup itself.  A buffer no filter rewrote
 * (no %BPF_FUSE_MODIFIED) holds the name it was set up with, a dentry's
 * (fuse_bpf_buf_name(), or the copy fuse_bpf_refilter() checks): a
 * string already, not scanned again (every lookup and revalidation under
 * a lookup filter comes here).
 *
 * Return: 0, or -EINVAL if @buf does not hold a string (fuse_bpf_buf_str()).
 */
int fuse_bpf_buf_qstr(const struct fuse_buffer *buf, struct qstr *name)
{
	const char *s;

	if (!(buf->flags & BPF_FUSE_MODIFIED)) {
		*name = (struct qstr)QSTR_INIT(buf->data, buf->size - 1);
		return 0;
	}
	s = fuse_bpf_buf_str(buf);
	if (IS_ERR(s))
		return PTR_ERR(s);
	*name = (struct qstr)QSTR_INIT(s, buf->size - 1);
	return 0;
}

/**
 * fuse_bpf_buffers_free() - free what the filters allocated for an operation
 * @req: the request, its operation over
 *
 * Frees what the filters' kfunc calls allocated in each buffer of @req,
 * whatever the operation's result.
 */
void fuse_bpf_buffers_free(struct fuse_bpf_req *req)
{
	unsigned int i;

	for (i = 0; i < req->nbufs; i++)
		bpf_fuse_free_buffer(req->bufs[i]);
}

/**
 * fuse_bpf_fill_attr() - the FUSE attributes of a lower inode
 * @inode: the lower inode
 * @attr: filled in
 *
 * For the entry and attr outputs the filters see: the inode's fields as
 * generic_fillattr() reads them, put straight in @attr (a warm lookup
 * under a lookup postfilter fills one per path component).
 */
void fuse_bpf_fill_attr(struct inode *inode, struct fuse_attr *attr)
{
	struct timespec64 atime = inode_get_atime(inode);
	struct timespec64 mtime = inode_get_mtime(inode);
	struct timespec64 ctime = inode_get_ctime(inode);

	/* As fuse_bpf_kstat_to_attr(): no compound literal to zero first */
	attr->ino = inode->i_ino;
	attr->size = i_size_read(inode);
	attr->blocks = inode->i_blocks;
	attr->atime = atime.tv_sec;
	attr->mtime = mtime.tv_sec;
	attr->ctime = ctime.tv_sec;
	attr->atimensec = atime.tv_nsec;
	attr->mtimensec = mtime.tv_nsec;
	attr->ctimensec = ctime.tv_nsec;
	attr->mode = inode->i_mode;
	attr->nlink = inode->i_nlink;
	attr->uid = fuse_bpf_uid(inode->i_uid);
	attr->gid = fuse_bpf_gid(inode->i_gid);
	attr->rdev = new_encode_dev(inode->i_rdev);
	attr->blksize = i_blocksize(inode);
	attr->flags = 0;
}
