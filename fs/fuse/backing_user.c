// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE-BPF: the daemon's own filters.
 *
 * A node's prefilter may return BPF_FUSE_USER_PREFILTER: before the lower
 * filesystem runs the operation, the daemon gets its inputs in a request
 * of opcode | FUSE_PREFILTER, the body a FUSE request of that opcode has.
 * It answers with an error, which fails the operation, with nothing, which
 * keeps the inputs, or with the whole body again, rewritten.
 *
 * Or BPF_FUSE_USER_POSTFILTER: after the lower filesystem ran it, the
 * daemon gets opcode | FUSE_POSTFILTER with struct fuse_postfilter_in (the
 * result, error_in), the inputs and, on success, the outputs, as the reply
 * of that opcode would carry them.  It answers with an error, which becomes
 * the result, with nothing, or with the outputs rewritten.  A failure
 * stays one.
 *
 * The daemon's answer rewrites the same arguments a BPF filter would, with
 * the same effect: fixed-size structures in place, variable-length ones
 * (names, values, directory records) through their fuse_buffer, within the
 * protocol's limits.  An answer that does not parse fails the operation
 * with -EIO.  See Documentation/filesystems/fuse-bpf.rst.
 */

#include "fuse_i.h"

#include <linux/mm.h>

/* One argument of an operation, as the daemon's filters see it now */
struct fuse_bpf_uarg {
	void *value;
	unsigned int size;
	struct fuse_buffer *buf;
};

static struct fuse_bpf_uarg fuse_bpf_uarg(struct fuse_bpf_req *req, bool out,
					  unsigned int i)
{
	struct fuse_buffer *buf = out ? req->out_bufs[i] : req->in_bufs[i];
	struct fuse_args *args = &req->args;

	if (buf)
		return (struct fuse_bpf_uarg){ buf->data, buf->size, buf };
	if (out)
		return (struct fuse_bpf_uarg){ args->out_args[i].value,
					       args->out_args[i].size };
	/* Fixed-size inputs are the operation's own, for filters to rewrite */
	return (struct fuse_bpf_uarg){ (void *)args->in_args[i].value,
				       args->in_args[i].size };
}

static unsigned int fuse_bpf_nargs(struct fuse_bpf_req *req, bool out)
{
	return out ? req->args.out_numargs : req->args.in_numargs;
}

/* The bytes of the inputs (or outputs), now or at most */
static size_t fuse_bpf_uargs_size(struct fuse_bpf_req *req, bool out,
				  bool most)
{
	unsigned int i, n = fuse_bpf_nargs(req, out);
	struct fuse_bpf_uarg a;
	size_t size = 0;

	for (i = 0; i < n; i++) {
		a = fuse_bpf_uarg(req, out, i);
		if (most && a.buf && (a.buf->flags & BPF_FUSE_VARIABLE_SIZE))
			size += a.buf->max_size;
		else
			size += a.size;
	}
	return size;
}

static void *fuse_bpf_uargs_copy(void *p, struct fuse_bpf_req *req, bool out)
{
	unsigned int i, n = fuse_bpf_nargs(req, out);
	struct fuse_bpf_uarg a;

	for (i = 0; i < n; i++) {
		a = fuse_bpf_uarg(req, out, i);
		memcpy(p, a.value, a.size);
		p += a.size;
	}
	return p;
}

/* Argument @a becomes @size bytes at @p */
static int fuse_bpf_uarg_set(const struct fuse_bpf_uarg *a, const void *p,
			     unsigned int size)
{
	int err;

	if (size == a->size && !memcmp(a->value, p, size))
		return 0;
	if (!a->buf) {
		memcpy(a->value, p, size);
		return 0;
	}
	/* An argument no filter may change (a postfilter's inputs) */
	if (a->buf->flags & BPF_FUSE_IMMUTABLE)
		return -EIO;
	/* Past the protocol's limit, or a fixed size changed: not parsed */
	err = bpf_fuse_set_buffer(a->buf, p, size);
	return err && err != -ENOMEM ? -EIO : err;
}

/*
 * The daemon's answer, @len bytes at @p, in the layout of the inputs (or
 * outputs): fixed-size arguments keep their size, a variable-length one
 * but the last is a string up to its NUL, the last runs to the end.
 */
static int fuse_bpf_uargs_apply(struct fuse_bpf_req *req, bool out,
				const char *p, size_t len)
{
	unsigned int i, n = fuse_bpf_nargs(req, out);
	struct fuse_bpf_uarg a;
	const char *nul;
	size_t size;
	int err;

	for (i = 0; i < n; i++) {
		a = fuse_bpf_uarg(req, out, i);
		if (!a.buf || !(a.buf->flags & BPF_FUSE_VARIABLE_SIZE)) {
			size = a.size;
		} else if (i == n - 1) {
			size = len;
		} else {
			nul = memchr(p, 0, len);
			if (!nul)
				return -EIO;
			size = nul - p + 1;
		}
		if (size > len)
			return -EIO;
		err = fuse_bpf_uarg_set(&a, p, size);
		if (err)
			return err;
		p += size;
		len -= size;
	}
	return len ? -EIO : 0;
}

/*
 * Send the daemon @in, @in_size bytes, as a request of the operation's
 * opcode | @phase on the operation's node, first introduced to the daemon
 * if the kernel made it, and apply its answer to the inputs (a prefilter)
 * or the outputs (a postfilter), if it has one.
 *
 * Return: 0, or the daemon's (or the connection's) error.
 */
static int fuse_bpf_user_request(struct fuse_bpf_req *req, u32 phase,
				 const void *in, size_t in_size)
{
	struct fuse_mount *fm = get_fuse_mount(req->inode);
	bool out = phase == FUSE_POSTFILTER;
	size_t out_size = 0;
	struct fuse_args args = {};
	void *reply;
	ssize_t ret;

	/* Outputs of a failed operation are neither sent nor answered */
	if (!out || !((struct fuse_postfilter_in *)in)->error_in)
		out_size = fuse_bpf_uargs_size(req, out, true);
	ret = fuse_bpf_introduce(req->inode);
	if (ret)
		return ret;
	reply = kvmalloc(out_size ?: 1, GFP_KERNEL);
	if (!reply)
		return -ENOMEM;
	args.opcode = req->args.opcode | phase;
	args.nodeid = get_node_id(req->inode);
	args.in_numargs = in_size ? 1 : 0;
	args.in_args[0].size = in_size;
	args.in_args[0].value = in;
	args.out_numargs = 1;
	args.out_argvar = true;
	args.out_args[0].size = out_size;
	args.out_args[0].value = reply;
	ret = fuse_simple_request(fm, &args);
	if (ret > 0)
		ret = fuse_bpf_uargs_apply(req, out, reply, ret);
	kvfree(reply);
	return ret;
}

/**
 * fuse_bpf_user_prefilter() - the daemon's prefilter of an operation
 * @req: the request, set up and through the node's prefilter
 *
 * Sends the daemon the inputs in a request of opcode | FUSE_PREFILTER and
 * applies its answer to them.
 *
 * Context: process context, may sleep: waits for the daemon's answer.
 *
 * Return: 0 to run the operation with the inputs the daemon left, or the
 * error it fails with.
 */
int fuse_bpf_user_prefilter(struct fuse_bpf_req *req)
{
	size_t size = fuse_bpf_uargs_size(req, false, false);
	void *in = kvmalloc(size ?: 1, GFP_KERNEL);
	int err = -ENOMEM;

	if (in) {
		fuse_bpf_uargs_copy(in, req, false);
		err = fuse_bpf_user_request(req, FUSE_PREFILTER, in, size);
	}
	kvfree(in);
	return err;
}

/**
 * fuse_bpf_user_postfilter() - the daemon's postfilter of an operation
 * @req: the request
 * @err: the backing operation's result, the daemon's error_in
 *
 * A lookup that finds no lower entry succeeds with a negative dentry; the
 * daemon sees error_in -ENOENT, and may only fail it.
 *
 * Context: process context, may sleep: waits for the daemon's answer.
 *
 * Return: the operation's result: the daemon's error if it answered with
 * one, else @err, or -EIO when its answer does not parse.
 */
int fuse_bpf_user_postfilter(struct fuse_bpf_req *req, int err)
{
	/* A backing step may have set it (a lookup finding no entry) */
	struct fuse_postfilter_in post = {
		.error_in = err ?: req->meta.error_in,
	};
	size_t size = sizeof(post) + fuse_bpf_uargs_size(req, false, false);
	void *in, *p;
	int ret;

	if (!post.error_in)
		size += fuse_bpf_uargs_size(req, true, false);
	in = kvmalloc(size, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	memcpy(in, &post, sizeof(post));
	p = fuse_bpf_uargs_copy(in + sizeof(post), req, false);
	if (!post.error_in)
		fuse_bpf_uargs_copy(p, req, true);
	ret = fuse_bpf_user_request(req, FUSE_POSTFILTER, in, size);
	kvfree(in);
	return ret ?: err;
}
