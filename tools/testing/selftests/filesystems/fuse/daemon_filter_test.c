// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE-BPF: the daemon's own filters.  A fuse_ops prefilter that returns
 * BPF_FUSE_USER_PREFILTER sends the daemon, before the lower filesystem
 * runs the operation, a request of opcode | FUSE_PREFILTER with the
 * operation's FUSE request body; one that returns BPF_FUSE_USER_POSTFILTER,
 * after it, a request of opcode | FUSE_POSTFILTER with struct
 * fuse_postfilter_in (error_in: the lower's result), the request body and,
 * after a success, the reply body.  The daemon answers with an error, an
 * empty body (no change) or the body rewritten.
 *
 * The filter is progs/fuse_test_ufilter.c, registered as "ufilter" and
 * given with root_bpf= to a mount with both a daemon (fd=) and root_dir=
 * of a tmpfs lower (f, g, d/x, p).  Its prefilters return what the test
 * writes into its verdict[], by opcode; lookups of names "upre_*" and
 * "upost_*" go to the daemon's prefilter and postfilter whatever verdict[]
 * says, and reads below read_daemon_below to the daemon.  The daemon is the
 * raw /dev/fuse one of fuse_daemon.c, with nodes f, g, d/x, p of its own
 * for the kernel to introduce.  Its filter handler records every
 * request (opcode, node id, caller, error_in, name, body) in shared memory
 * and answers as the rule the test set for the opcode and name says:
 * nothing, an error, a body given, the request's own body rewritten, or no
 * reply at all.  Each test checks a result that only the daemon's answer
 * explains.
 *
 * - lookup_prefilter_rewrites_name: LOOKUP | FUSE_PREFILTER on the root's
 *   node id with the caller's ids; the name the daemon answers is the one
 *   looked up on the lower, and an empty answer keeps the name.
 * - lookup_prefilter_error: the daemon's errno fails a lookup of a name
 *   the lower has.
 * - lookup_postfilter_sees_error_in: the postfilter gets error_in 0 and a
 *   fuse_entry_out of the lower inode, or -ENOENT and no reply body.
 * - lookup_postfilter_rewrites_errno: the daemon's errno replaces the
 *   lower's result, a success or a failure.
 * - getattr_postfilter_rewrites_attr: the fuse_attr_out the daemon gives
 *   back is what stat() shows.
 * - readdir_postfilter_adds_entry: a record the daemon appends to the
 *   first chunk is listed.
 * - getxattr_postfilter_rewrites_value: the value, and the size a size
 *   query gets, are the daemon's.
 * - setxattr_prefilter_rewrites_value: the value the daemon answers is
 *   the one the lower stores.
 * - mkdir_prefilter_rewrites_name: the lower directory gets the daemon's
 *   name.
 * - mkdir_postfilter_sees_entry: the postfilter sees the entry of the
 *   directory made, and its errno fails the mkdir.
 * - unlink_prefilter_denies: the daemon's errno keeps the lower file.
 * - statfs_postfilter_errno: the daemon fails a statfs the lower served.
 * - bad_prefilter_replies: a name is checked as a BPF filter's rewrite
 *   is, a body that does not parse fails the operation with EIO, and the
 *   connection goes on.
 * - postfilter_body_after_error_refused: a body after a failure fails the
 *   daemon's write() with EINVAL and the operation with EIO.
 * - subdir_node_introduced: nodes the kernel made are introduced by
 *   LOOKUPs before the filter request, which carries the daemon's id.
 * - rewrites_keep_what_was_checked: an answer may not change a mknod's
 *   file type nor move an xattr name out of its namespace.
 * - listxattr_unterminated_list: a list without its last NUL gives EIO.
 * - write_filter_clears_setuid: a filtered write clears the setuid bit
 *   as an unfiltered one does.
 * - access_daemon_cannot_grant: an access(2) the filter sends to the
 *   daemon cannot be granted by it where the lower refused.
 * - mkdir_reply_inherits_filter: a directory the daemon makes and backs
 *   inherits its parent's filter, unless its reply removes it.
 * - read_partial_passthrough: a read filter sends one page of a file to
 *   the daemon and leaves the other to the lower file.
 * - read_postfilter: the daemon's postfilter of a read fails it.
 * - open_fh_to_daemon: the file handle an open postfilter gives (the BPF
 *   one's, the daemon's) is in the daemon's FUSE_READ and FUSE_RELEASE.
 * - open_fh_release_hostile_daemon: that FUSE_RELEASE answered with an
 *   error or never answered: close() returns 0, nothing leaks.
 * - lookup_postfilter_gives_daemon_node: a lookup postfilter's answer with
 *   a node id gives the name the daemon's node; a BPF postfilter that
 *   writes one fails with EINVAL (lookup_postfilter_bpf_nodeid_refused).
 * - readdir_postfilter_steers_offset: the daemon's READDIR postfilter sees
 *   struct fuse_read_out and steers the listing with its offset.
 * - write_partial_passthrough, write_postfilter: the same for writes.
 * - abort_mid_filter: the connection aborted while the daemon holds a
 *   filter request: the caller gets the connection's error, no hang.
 *
 * Each test runs as root in a mount namespace of its own, on a tmpfs over
 * /tmp.  Whatever the test, the daemon never hears of a node id the kernel
 * made, and a kernel warning fails it.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <linux/const.h>
#include <bpf/libbpf.h>

#include "passthrough.h"
#include "fuse_bpf_reply.h"
#include "fuse_daemon.h"
#include "fuse_test_ufilter.skel.h"

#ifndef FUSE_PASSTHROUGH
#define FUSE_PASSTHROUGH	_BITULL(37)
#endif

/* include/uapi/linux/bpf.h of the series: not in older headers */
#ifndef FUSE_PREFILTER
#define FUSE_PREFILTER		0x10000
#endif
#ifndef FUSE_POSTFILTER
#define FUSE_POSTFILTER		0x20000
#endif
#ifndef BPF_FUSE_CONTINUE
#define BPF_FUSE_CONTINUE	0
#endif
#ifndef BPF_FUSE_USER_PREFILTER
#define BPF_FUSE_USER_PREFILTER	2
#endif
#ifndef BPF_FUSE_USER_POSTFILTER
#define BPF_FUSE_USER_POSTFILTER	4
#endif

/* The head of a postfilter request's body */
#define PIN		sizeof(struct fuse_postfilter_in)

#define LOWER_F		"lower-f"
#define LOWER_G		"lower-g"
#define LOWER_X		"lower-x"
#define PAGE		4096			/* of p, lower and daemon's */
#define DAEMON_DATA	"the daemon's own data"	/* never shown */
#define SHOWN_SIZE	4242
#define DAEMON_INO	4242
#define DAEMON_NAME	"from_daemon"

#define KERNEL_ID_BIT	_BITULL(63)	/* node ids the kernel makes */
#define NR_RULES	16
#define NR_SEEN		64		/* requests recorded, the last ones */
#define NAME_LEN	64
#define BODY_MAX	1024		/* bytes of a request body recorded */
#define NOT_SENT	(-1)		/* an errno of a reply: none sent */
#define WAIT_MS		5000

/* How the daemon answers a filter request */
enum answer {
	ANS_EMPTY,	/* no body: the operation goes on unchanged */
	ANS_ERROR,	/* the rule's errno */
	ANS_BODY,	/* the rule's data, through fuse_daemon_reply() */
	ANS_RAW,	/* the rule's data, by a write() of our own */
	ANS_REWRITE,	/* the request's own body with the rule's in: rewrite() */
	ANS_HANG,	/* no answer at all, and shm.hung set */
};

/* The answer to the filter requests of an opcode, for one name or all */
struct rule {
	__u32 opcode;		/* OP | FUSE_PREFILTER or FUSE_POSTFILTER */
	char name[NAME_LEN];	/* the request's first name; "" for any */
	enum answer how;
	int err;		/* ANS_ERROR: a positive errno */
	__u64 size;		/* ANS_REWRITE of GETATTR: st_size shown */
	__u32 len;		/* ANS_BODY, ANS_RAW: bytes of data */
	char data[NAME_LEN];	/* or, ANS_REWRITE, a string: name, value */
};

/* A request as the daemon saw it, and what became of its answer */
struct seen {
	__u32 opcode;
	__u32 uid;
	__u32 gid;
	__u32 pid;
	__u64 nodeid;
	__s32 error_in;		/* postfilters */
	__u32 arglen;		/* bytes of body */
	char name[NAME_LEN];	/* its first name, "" if none */
	bool rewrote;		/* ANS_REWRITE sent a body */
	int reply_err;		/* errno of the answer, 0 if taken */
	int reply_err2;		/* of the answer sent again after a refusal */
	__u8 body[BODY_MAX];	/* its first bytes */
};

/* Shared between the test and the serving child */
struct shm {
	struct rule rule[NR_RULES];
	struct seen seen[NR_SEEN];
	unsigned long nr_seen;		/* seen[nr_seen % NR_SEEN] is next */
	unsigned long kernel_ids;	/* kernel-made node ids seen */
	unsigned long bad;		/* filter requests that did not parse */
	unsigned long hung;		/* ANS_HANG requests held */
	int mkdir_err;			/* of the last MKDIR reply sent */
	struct fuse_write_in write_in;	/* of the last FUSE_WRITE */
	char write_data[16];		/* its first bytes */
	__u64 mkdir_id;			/* the node id it gave */
	int release_answer;		/* FUSE_RELEASE: 0 served, or below */
};

/* shm.release_answer: a positive errno to answer with, or never answer */
#define RELEASE_HANG	(-1)

static void bump(unsigned long *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_SEQ_CST);
}

static unsigned long load(unsigned long *counter)
{
	return __atomic_load_n(counter, __ATOMIC_SEQ_CST);
}

static struct iovec iov_of(const void *base, size_t len)
{
	return (struct iovec){ .iov_base = (void *)base, .iov_len = len };
}

/* ------------------------------------------------------------------ */
/* The daemon's handlers (in the serving child)                         */
/* ------------------------------------------------------------------ */

/* A filter request taken apart */
struct freq {
	const struct fuse_daemon_req *req;
	__u32 opcode;		/* with its filter bit */
	__u32 op;		/* without */
	__s32 error_in;		/* postfilters */
	const char *in;		/* the operation's request body */
	size_t len;		/* its bytes, and those of a reply body after */
	const char *name;	/* the first name of the request, or NULL */
	size_t fixed;		/* the bytes before it */
};

#define NO_NAME		(-1)
#define BAD_BODY	(-2)

/*
 * SETXATTR: struct fuse_setxattr_in, the name, the value of in.size bytes.
 * The structure has the size that accounts for the @len bytes: the whole
 * of it, or (without FUSE_SETXATTR_EXT) FUSE_COMPAT_SETXATTR_IN_SIZE.
 */
static ssize_t setxattr_fixed(const char *in, size_t len)
{
	static const size_t sizes[] = {
		sizeof(struct fuse_setxattr_in), FUSE_COMPAT_SETXATTR_IN_SIZE,
	};
	const char *nul;
	unsigned int i;
	__u32 size;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		if (len <= sizes[i])
			continue;
		memcpy(&size, in, sizeof(size));
		nul = memchr(in + sizes[i], '\0', len - sizes[i]);
		if (nul && (size_t)(nul + 1 - in) + size == len)
			return sizes[i];
	}
	return BAD_BODY;
}

/* The bytes before the first name of a request body of @op, or NO_NAME */
static ssize_t name_offset(__u32 op, const char *in, size_t len)
{
	switch (op) {
	case FUSE_LOOKUP:
	case FUSE_UNLINK:
	case FUSE_RMDIR:
	case FUSE_REMOVEXATTR:
		return 0;
	case FUSE_MKDIR:
		return sizeof(struct fuse_mkdir_in);
	case FUSE_MKNOD:
		return sizeof(struct fuse_mknod_in);
	case FUSE_GETXATTR:
		return sizeof(struct fuse_getxattr_in);
	case FUSE_SETXATTR:
		return setxattr_fixed(in, len);
	}
	return NO_NAME;
}

/* Takes the request apart (fuse_bpf_reply.h): false if it does not parse */
static bool freq_parse(const struct fuse_daemon_req *req, struct freq *f)
{
	struct fuse_bpf_filter bf;
	ssize_t off;

	memset(f, 0, sizeof(*f));
	f->req = req;
	f->opcode = req->hdr->opcode;
	if (fuse_bpf_filter_decode(req->hdr, req->arg, req->arglen, &bf))
		return false;
	f->op = bf.opcode;
	f->error_in = bf.error_in;
	f->in = bf.body;
	f->len = bf.size;
	off = name_offset(f->op, f->in, f->len);
	if (off == NO_NAME)
		return true;
	if (off < 0 || (size_t)off >= f->len ||
	    !memchr(f->in + off, '\0', f->len - off))
		return false;
	f->fixed = off;
	f->name = f->in + off;
	return true;
}

static void note_nodeid(struct shm *s, __u64 nodeid)
{
	if (nodeid & KERNEL_ID_BIT)
		bump(&s->kernel_ids);
}

/* Records @req in the next slot of the log */
static struct seen *record(struct shm *s, const struct fuse_daemon_req *req)
{
	struct seen *w = &s->seen[load(&s->nr_seen) % NR_SEEN];

	memset(w, 0, sizeof(*w));
	w->opcode = req->hdr->opcode;
	w->uid = req->hdr->uid;
	w->gid = req->hdr->gid;
	w->pid = req->hdr->pid;
	w->nodeid = req->hdr->nodeid;
	w->arglen = req->arglen;
	w->reply_err = NOT_SENT;
	w->reply_err2 = NOT_SENT;
	memcpy(w->body, req->arg,
	       req->arglen < BODY_MAX ? req->arglen : BODY_MAX);
	bump(&s->nr_seen);
	return w;
}

/* The rule for @opcode and @name: one for the name first, then for any */
static const struct rule *rule_find(struct shm *s, __u32 opcode,
				    const char *name)
{
	const struct rule *r, *any = NULL;
	int i;

	for (i = 0; i < NR_RULES; i++) {
		r = &s->rule[i];
		if (!r->opcode || r->opcode != opcode)
			continue;
		if (!r->name[0])
			any = r;
		else if (name && !strcmp(r->name, name))
			return r;
	}
	return any;
}

/*
 * Writes an answer to @req on /dev/fuse ourselves: the errno of the
 * write(), 0 when the kernel took it.
 */
static int write_reply(struct fuse_daemon *d,
		       const struct fuse_daemon_req *req, int error,
		       const void *body, size_t len)
{
	struct fuse_out_header oh = {
		.len = sizeof(oh) + len,
		.error = error,
		.unique = req->hdr->unique,
	};
	struct iovec iov[2] = { iov_of(&oh, sizeof(oh)), iov_of(body, len) };
	ssize_t n;

	d->replied = true;
	n = writev(d->fd, iov, len ? 2 : 1);
	if (n < 0)
		return errno;
	return (size_t)n == oh.len ? 0 : EMSGSIZE;
}

/*
 * After an answer the kernel refused: if it did not end the request
 * itself, answer again with an errno no test expects, so that the caller
 * does not hang.  ENOENT in reply_err2 tells that it did.
 */
static void after_refusal(struct fuse_daemon *d,
			  const struct fuse_daemon_req *req, struct seen *w)
{
	if (w->reply_err > 0 && w->reply_err != ENOENT)
		w->reply_err2 = write_reply(d, req, -EBADMSG, NULL, 0);
}

/* Answers with the @n pieces of @iov as body, through fuse_daemon.c */
static int reply_iov(struct fuse_daemon *d, const struct freq *f,
		     struct seen *w, const struct iovec *iov, int n)
{
	w->reply_err = -fuse_daemon_reply_iov(d, f->req, iov, n);
	after_refusal(d, f->req, w);
	return 0;
}

static int reply_error(struct fuse_daemon *d, const struct freq *f,
		       struct seen *w, int err)
{
	w->reply_err = -fuse_daemon_reply_err(d, f->req, -err);
	after_refusal(d, f->req, w);
	return 0;
}

/* A request the handler cannot answer as asked: -EIO, and counted */
static int bad_request(struct fuse_daemon *d)
{
	struct shm *s = d->priv;

	bump(&s->bad);
	return -EIO;
}

/* SETXATTR prefilter: the same name, the value @text */
static int rewrite_setxattr(struct fuse_daemon *d, const struct freq *f,
			    struct seen *w, const char *text)
{
	struct fuse_setxattr_in in = { 0 };
	struct iovec iov[3];

	if (f->fixed > sizeof(in))
		return bad_request(d);
	memcpy(&in, f->in, f->fixed);
	in.size = strlen(text);
	iov[0] = iov_of(&in, f->fixed);
	iov[1] = iov_of(f->name, strlen(f->name) + 1);
	iov[2] = iov_of(text, strlen(text));
	w->rewrote = true;
	return reply_iov(d, f, w, iov, 3);
}

/* GETATTR postfilter: the kernel's fuse_attr_out, of another size */
static int rewrite_getattr(struct fuse_daemon *d, const struct freq *f,
			   struct seen *w, __u64 size)
{
	size_t off = sizeof(struct fuse_getattr_in);
	struct fuse_attr_out out;
	struct iovec iov;

	if (f->error_in)
		return reply_iov(d, f, w, NULL, 0);
	if (f->len != off + sizeof(out))
		return bad_request(d);
	memcpy(&out, f->in + off, sizeof(out));
	out.attr.size = size;
	iov = iov_of(&out, sizeof(out));
	w->rewrote = true;
	return reply_iov(d, f, w, &iov, 1);
}

/*
 * GETXATTR postfilter: the value @text, or for a size query (in.size 0)
 * its size
 */
static int rewrite_getxattr(struct fuse_daemon *d, const struct freq *f,
			    struct seen *w, const char *text)
{
	struct fuse_getxattr_out out = { .size = strlen(text) };
	struct fuse_getxattr_in in;
	struct iovec iov;

	if (f->error_in)
		return reply_iov(d, f, w, NULL, 0);
	memcpy(&in, f->in, sizeof(in));
	if (in.size)
		iov = iov_of(text, strlen(text));
	else
		iov = iov_of(&out, sizeof(out));
	w->rewrote = true;
	return reply_iov(d, f, w, &iov, 1);
}

/* READDIR_END: the rule's size that ends the call with the first chunk */
#define READDIR_END	1

/*
 * READDIR postfilter: struct fuse_read_out, whose offset must be the off
 * of the chunk's last record (where the lower directory goes on), then the
 * records.  In the first chunk only (appended to every chunk, a record
 * would keep the listing from ever ending), @size READDIR_END: the same
 * records, the offset set back to the chunk's own, which ends the call
 * there; otherwise the records and one of the daemon, named @text, whose
 * off is that of the chunk's last record.
 */
static int rewrite_readdir(struct fuse_daemon *d, const struct freq *f,
			   struct seen *w, const char *text, __u64 size)
{
	__u64 rec[FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET + NAME_LEN) / 8] = { 0 };
	struct fuse_dirent de, *nd = (struct fuse_dirent *)rec;
	size_t len, pos = 0, reclen;
	struct fuse_read_out out;
	struct fuse_read_in in;
	struct iovec iov[3];
	const char *recs;
	__u64 off = 0;

	if (f->error_in)
		return reply_iov(d, f, w, NULL, 0);
	if (f->len < sizeof(in) + sizeof(out))
		return bad_request(d);
	memcpy(&in, f->in, sizeof(in));
	memcpy(&out, f->in + sizeof(in), sizeof(out));
	recs = f->in + sizeof(in) + sizeof(out);
	len = f->len - sizeof(in) - sizeof(out);
	while (pos < len) {
		if (len - pos < FUSE_NAME_OFFSET)
			return bad_request(d);
		memcpy(&de, recs + pos, FUSE_NAME_OFFSET);
		reclen = FUSE_DIRENT_SIZE(&de);
		if (!de.namelen || reclen > len - pos)
			return bad_request(d);
		off = de.off;
		pos += reclen;
	}
	if (len && out.offset != off)
		return bad_request(d);
	if (in.offset || !len)
		return reply_iov(d, f, w, NULL, 0);
	iov[0] = iov_of(&out, sizeof(out));
	iov[1] = iov_of(recs, len);
	if (size == READDIR_END) {
		out.offset = in.offset;
		w->rewrote = true;
		return reply_iov(d, f, w, iov, 2);
	}
	nd->ino = DAEMON_INO;
	nd->off = off;
	nd->namelen = strlen(text);
	nd->type = DT_REG;
	memcpy(nd->name, text, nd->namelen);
	reclen = FUSE_DIRENT_SIZE(nd);
	if (len + reclen > in.size)
		return bad_request(d);
	iov[2] = iov_of(rec, reclen);
	w->rewrote = true;
	return reply_iov(d, f, w, iov, 3);
}

/*
 * LOOKUP postfilter: the daemon gives the name its own node of that name
 * in the root, counted as a LOOKUP reply counts it (a FORGET follows).
 */
static int rewrite_lookup(struct fuse_daemon *d, const struct freq *f,
			  struct seen *w)
{
	struct fuse_daemon_node *node;
	struct fuse_entry_out out;
	struct iovec iov;

	if (f->error_in || !f->name)
		return bad_request(d);
	node = fuse_daemon_find_child(d, FUSE_ROOT_ID, f->name);
	if (!node)
		return bad_request(d);
	fuse_daemon_fill_entry(d, node, &out);
	node->nlookup++;
	iov = iov_of(&out, sizeof(out));
	w->rewrote = true;
	return reply_iov(d, f, w, &iov, 1);
}

/* ANS_REWRITE: the request's own body, with the rule's data in */
static int rewrite(struct fuse_daemon *d, const struct freq *f,
		   struct seen *w, const struct rule *r)
{
	struct iovec iov[2];

	switch (f->opcode) {
	case FUSE_MKDIR | FUSE_PREFILTER:
		/* fuse_mkdir_in as it came, the new name */
		if (!f->name)
			return bad_request(d);
		iov[0] = iov_of(f->in, f->fixed);
		iov[1] = iov_of(r->data, strlen(r->data) + 1);
		w->rewrote = true;
		return reply_iov(d, f, w, iov, 2);
	case FUSE_SETXATTR | FUSE_PREFILTER:
		return rewrite_setxattr(d, f, w, r->data);
	case FUSE_GETATTR | FUSE_POSTFILTER:
		return rewrite_getattr(d, f, w, r->size);
	case FUSE_GETXATTR | FUSE_POSTFILTER:
		return rewrite_getxattr(d, f, w, r->data);
	case FUSE_READDIR | FUSE_POSTFILTER:
		return rewrite_readdir(d, f, w, r->data, r->size);
	case FUSE_LOOKUP | FUSE_POSTFILTER:
		return rewrite_lookup(d, f, w);
	}
	return bad_request(d);
}

static int answer(struct fuse_daemon *d, const struct freq *f,
		  struct seen *w, const struct rule *r)
{
	struct shm *s = d->priv;
	struct iovec iov;

	switch (r ? r->how : ANS_EMPTY) {
	case ANS_EMPTY:
		return reply_iov(d, f, w, NULL, 0);
	case ANS_ERROR:
		return reply_error(d, f, w, r->err);
	case ANS_BODY:
		iov = iov_of(r->data, r->len);
		return reply_iov(d, f, w, &iov, 1);
	case ANS_RAW:
		w->reply_err = write_reply(d, f->req, 0, r->data, r->len);
		after_refusal(d, f->req, w);
		return 0;
	case ANS_REWRITE:
		return rewrite(d, f, w, r);
	case ANS_HANG:
		/* The request stays with us until the connection goes */
		bump(&s->hung);
		return 0;
	}
	return bad_request(d);
}

/* Every request of the daemon's filters: recorded, answered by its rule */
static int filter(struct fuse_daemon *d, const struct fuse_daemon_req *req)
{
	struct shm *s = d->priv;
	struct seen *w;
	struct freq f;
	int ret;

	note_nodeid(s, req->hdr->nodeid);
	w = record(s, req);
	if (freq_parse(req, &f)) {
		w->error_in = f.error_in;
		if (f.name)
			snprintf(w->name, sizeof(w->name), "%s", f.name);
		ret = answer(d, &f, w, rule_find(s, f.opcode, f.name));
	} else {
		ret = bad_request(d);
	}
	return ret;
}

/*
 * MKDIR, which ufilter sends to the daemon when verdict[FUSE_MKDIR] is
 * BPF_FUSE_USER: the daemon makes the directory on the lower itself and
 * answers with a node of its own backed by it (fuse_bpf_reply.h), without
 * a filter entry, or, for names starting with "drop_", with
 * FUSE_ENTRY_REMOVE_BPF.
 */
static int entry_mkdir(struct fuse_daemon *d,
		       const struct fuse_daemon_req *req)
{
	const struct fuse_mkdir_in *in = req->arg;
	const char *name = (const char *)(in + 1);
	struct fuse_entry_out entry = { 0 };
	struct shm *s = d->priv;
	struct fuse_bpf_reply r;
	char path[PATH_MAX];
	__u64 id;
	int fd;

	if (req->arglen <= sizeof(*in) ||
	    !memchr(name, '\0', req->arglen - sizeof(*in)))
		return bad_request(d);
	snprintf(path, sizeof(path), "%s/%s", PT_LOWER, name);
	if (mkdir(path, in->mode & ~in->umask & 07777))
		return -errno;
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	id = fuse_daemon_add_dir(d, req->hdr->nodeid, name, in->mode & 07777);
	if (!id) {
		close(fd);
		return -ENOMEM;
	}
	fuse_daemon_fill_entry(d, fuse_daemon_node(d, id), &entry);
	fuse_bpf_reply_init(&r, req->hdr->unique, &entry);
	s->mkdir_err = fuse_bpf_reply_backing_fd(&r, fd, 0);
	if (!s->mkdir_err && !strncmp(name, "drop_", 5))
		s->mkdir_err = fuse_bpf_reply_remove_bpf(&r);
	if (!s->mkdir_err)
		s->mkdir_err = fuse_bpf_reply_send(d->fd, &r);
	close(fd);
	s->mkdir_id = id;
	d->replied = true;
	return s->mkdir_err;
}

/* FUSE_WRITE, which ufilter sends for writes below write_daemon_below */
static int entry_write(struct fuse_daemon *d,
		       const struct fuse_daemon_req *req)
{
	const struct fuse_write_in *in = req->arg;
	struct fuse_write_out out = { 0 };
	struct shm *s = d->priv;
	size_t len;

	if (req->arglen < sizeof(*in) || req->arglen - sizeof(*in) != in->size)
		return bad_request(d);
	s->write_in = *in;
	len = in->size < sizeof(s->write_data) ? in->size :
						 sizeof(s->write_data);
	memcpy(s->write_data, in + 1, len);
	out.size = in->size;
	return fuse_daemon_reply(d, req, &out, sizeof(out));
}

/* The handlers under the recorder, by opcode */
static fuse_daemon_handler_fn inner[FUSE_DAEMON_NR_OPCODES];

/*
 * The other requests with a handler: their node ids checked; LOOKUP,
 * READ, WRITE and the releases recorded
 */
static int recorder(struct fuse_daemon *d, const struct fuse_daemon_req *req)
{
	const char *name = req->arg;
	struct shm *s = d->priv;
	__u32 op = req->hdr->opcode;
	struct seen *w;
	int ret;

	note_nodeid(s, req->hdr->nodeid);
	if (op == FUSE_READ || op == FUSE_WRITE || op == FUSE_RELEASE ||
	    op == FUSE_RELEASEDIR)
		record(s, req);
	if (op == FUSE_LOOKUP) {
		w = record(s, req);
		if (req->arglen && memchr(name, '\0', req->arglen))
			snprintf(w->name, sizeof(w->name), "%s", name);
	}
	if (op == FUSE_RELEASE && s->release_answer == RELEASE_HANG) {
		/* The request stays with us until the connection goes */
		bump(&s->hung);
		ret = 0;
	} else if (op == FUSE_RELEASE && s->release_answer) {
		ret = -s->release_answer;
	} else {
		ret = inner[op](d, req);
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* Test helpers                                                         */
/* ------------------------------------------------------------------ */

FIXTURE(ufilter) {
	struct fuse_daemon *d;
	struct shm *s;
	struct fuse_test_ufilter *skel;
	struct bpf_link *link;
	__u64 id_f, id_g, id_d, id_x, id_p;
	unsigned long taint;
	char lower_p[2 * PAGE + 1];	/* a string: 2 pages and a NUL */
	char daemon_p[2 * PAGE];
};

/* Sets the answer to @opcode for @name ("" for any) */
static struct rule *rule_set(struct shm *s, __u32 opcode, const char *name,
			     enum answer how)
{
	struct rule *r = NULL;
	int i;

	for (i = 0; i < NR_RULES && !r; i++) {
		if (s->rule[i].opcode == opcode &&
		    !strcmp(s->rule[i].name, name))
			r = &s->rule[i];
	}
	for (i = 0; i < NR_RULES && !r; i++) {
		if (!s->rule[i].opcode)
			r = &s->rule[i];
	}
	if (!r || strlen(name) >= sizeof(r->name))
		abort();
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->how = how;
	r->opcode = opcode;
	return r;
}

static void rule_error(struct shm *s, __u32 opcode, const char *name,
		       int err)
{
	rule_set(s, opcode, name, ANS_ERROR)->err = err;
}

/* ANS_BODY or ANS_RAW: @len bytes of @data */
static void rule_body(struct shm *s, __u32 opcode, const char *name,
		      enum answer how, const void *data, size_t len)
{
	struct rule *r = rule_set(s, opcode, name, how);

	if (len > sizeof(r->data))
		abort();
	memcpy(r->data, data, len);
	r->len = len;
}

/* ANS_REWRITE with the string @text */
static struct rule *rule_rewrite(struct shm *s, __u32 opcode,
				 const char *name, const char *text)
{
	struct rule *r = rule_set(s, opcode, name, ANS_REWRITE);

	if (strlen(text) >= sizeof(r->data))
		abort();
	snprintf(r->data, sizeof(r->data), "%s", text);
	return r;
}

/* The last request of @opcode recorded, for @name unless NULL */
static const struct seen *last_seen(struct shm *s, __u32 opcode,
				    const char *name)
{
	unsigned long n = load(&s->nr_seen), i;
	const struct seen *w;

	for (i = n; i > 0 && n - i < NR_SEEN; i--) {
		w = &s->seen[(i - 1) % NR_SEEN];
		if (w->opcode == opcode && (!name || !strcmp(w->name, name)))
			return w;
	}
	return NULL;
}

/* The requests of @opcode, for @name unless NULL, among the last ones */
static int count_seen(struct shm *s, __u32 opcode, const char *name)
{
	unsigned long n = load(&s->nr_seen), i;
	const struct seen *w;
	int count = 0;

	for (i = n; i > 0 && n - i < NR_SEEN; i--) {
		w = &s->seen[(i - 1) % NR_SEEN];
		if (w->opcode == opcode && (!name || !strcmp(w->name, name)))
			count++;
	}
	return count;
}

/* @len bytes at @off of the body recorded, if it has them */
static bool body_get(const struct seen *w, size_t off, void *buf, size_t len)
{
	if (off + len > w->arglen || off + len > BODY_MAX)
		return false;
	memcpy(buf, w->body + off, len);
	return true;
}

/* Waits until the daemon holds a request it will not answer */
static bool wait_hung(struct shm *s)
{
	struct timespec ts = { 0, 1000000 };
	unsigned int waited = 0;

	while (!load(&s->hung)) {
		if (waited++ >= WAIT_MS)
			return false;
		nanosleep(&ts, NULL);
	}
	return true;
}

/*
 * Reaps the child @pid within @ms: 0, or -ETIMEDOUT once it had to be
 * killed
 */
static int wait_exit(pid_t pid, unsigned int ms, int *status)
{
	struct timespec ts = { 0, 1000000 };
	unsigned int waited = 0;

	while (waitpid(pid, status, WNOHANG) != pid) {
		if (waited++ >= ms) {
			kill(pid, SIGKILL);
			waitpid(pid, status, 0);
			return -ETIMEDOUT;
		}
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* The daemon answered the request @w saw, and the kernel took it */
#define EXPECT_TAKEN(w) do { \
	const struct seen *__w = (w); \
	EXPECT_EQ(0, __w->reply_err) \
		TH_LOG("the answer to %#x of \"%s\": %s", __w->opcode, \
		       __w->name, __w->reply_err == NOT_SENT ? "not sent" : \
		       strerror(__w->reply_err)); \
} while (0)

/*
 * The lower: f, g, d/x, and p (two pages of 'L').  The daemon's tree: f,
 * g, d/x and p (two pages of 'D') too, of its own data, for the kernel to
 * introduce the nodes it made.  The filter is
 * registered, the mount made and its FUSE_INIT answered; verdict[] is
 * BPF_FUSE_CONTINUE for every opcode, and the daemon answers every filter
 * request with an empty body, until the test says otherwise.
 */
FIXTURE_SETUP(ufilter)
{
	struct fuse_daemon *d;
	char opts[64];
	struct stat st;
	int dirfd, ret;
	__u32 op;

	self->taint = pt_taint();
	umask(022);
	ASSERT_EQ(0, pt_private_mounts());
	ASSERT_EQ(0, mount("tmpfs", PT_SCRATCH, "tmpfs", 0, "mode=1777"));
	ASSERT_EQ(0, mkdir(PT_LOWER, 0755));
	ASSERT_EQ(0, mkdir(PT_MNT, 0755));
	ASSERT_EQ(0, pt_write_file(LO("f"), LOWER_F, 0644));
	ASSERT_EQ(0, pt_write_file(LO("g"), LOWER_G, 0644));
	ASSERT_EQ(0, mkdir(LO("d"), 0755));
	ASSERT_EQ(0, pt_write_file(LO("d/x"), LOWER_X, 0644));
	memset(self->lower_p, 'L', 2 * PAGE);
	memset(self->daemon_p, 'D', sizeof(self->daemon_p));
	ASSERT_EQ(0, pt_write_file(LO("p"), self->lower_p, 0644));

	self->s = mmap(NULL, sizeof(*self->s), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->s);

	self->skel = fuse_test_ufilter__open_and_load();
	ASSERT_NE(NULL, self->skel)
		TH_LOG("loading ufilter: %s", strerror(errno));
	self->link = bpf_map__attach_struct_ops(self->skel->maps.ufilter_ops);
	ASSERT_NE(NULL, self->link)
		TH_LOG("registering ufilter: %s", strerror(errno));

	d = fuse_daemon_new();
	ASSERT_NE(NULL, d);
	self->d = d;
	d->priv = self->s;
	self->id_f = fuse_daemon_add_file(d, FUSE_ROOT_ID, "f", 0644,
					  DAEMON_DATA, strlen(DAEMON_DATA));
	ASSERT_NE(0ULL, self->id_f);
	self->id_g = fuse_daemon_add_file(d, FUSE_ROOT_ID, "g", 0644,
					  DAEMON_DATA, strlen(DAEMON_DATA));
	ASSERT_NE(0ULL, self->id_g);
	self->id_d = fuse_daemon_add_dir(d, FUSE_ROOT_ID, "d", 0755);
	ASSERT_NE(0ULL, self->id_d);
	self->id_x = fuse_daemon_add_file(d, self->id_d, "x", 0644,
					  DAEMON_DATA, strlen(DAEMON_DATA));
	ASSERT_NE(0ULL, self->id_x);
	self->id_p = fuse_daemon_add_file(d, FUSE_ROOT_ID, "p", 0644,
					  self->daemon_p,
					  sizeof(self->daemon_p));
	ASSERT_NE(0ULL, self->id_p);
	d->init_flags |= FUSE_PASSTHROUGH;
	d->max_stack_depth = 1;
	d->handlers[FUSE_MKDIR] = entry_mkdir;
	d->handlers[FUSE_WRITE] = entry_write;
	for (op = 0; op < FUSE_DAEMON_NR_OPCODES; op++) {
		inner[op] = d->handlers[op];
		if (inner[op])
			d->handlers[op] = recorder;
	}
	ASSERT_EQ(FUSE_DAEMON_PREFILTER, FUSE_PREFILTER);
	ASSERT_EQ(FUSE_DAEMON_POSTFILTER, FUSE_POSTFILTER);
	d->filter_handler = filter;

	dirfd = open(PT_LOWER, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, dirfd);
	/* allow_other: some tests act as an unprivileged user */
	snprintf(opts, sizeof(opts), "root_dir=%d,root_bpf=ufilter,allow_other",
		 dirfd);
	ret = fuse_daemon_mount(d, PT_MNT, opts);
	close(dirfd);
	ASSERT_EQ(0, ret)
		TH_LOG("mounting with %s: %s", opts, strerror(-ret));
	/* The first access waits for the daemon's FUSE_INIT reply */
	ASSERT_EQ(0, stat(PT_MNT, &st))
		TH_LOG("stat of the root: %s", strerror(errno));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
}

FIXTURE_TEARDOWN(ufilter)
{
	if (self->d) {
		EXPECT_EQ(0, fuse_daemon_umount(self->d));
		EXPECT_EQ(0UL, self->s->kernel_ids)
			TH_LOG("the daemon saw node ids of the kernel");
		EXPECT_EQ(0UL, self->s->bad)
			TH_LOG("the daemon's filter could not parse a request");
		fuse_daemon_free(self->d);
	}
	bpf_link__destroy(self->link);
	fuse_test_ufilter__destroy(self->skel);
	if (self->s)
		munmap(self->s, sizeof(*self->s));
	EXPECT_EQ(self->taint, pt_taint())
		TH_LOG("the kernel warned during this test: see dmesg");
}

/* ------------------------------------------------------------------ */
/* LOOKUP                                                               */
/* ------------------------------------------------------------------ */

#define SAME_DATA	"same-data"

/*
 * upre_alias: the daemon answers "f", and the lower's f is what the name
 * shows.  upre_same: an empty answer keeps the name, which the lower has
 * once made there.
 */
TEST_F(ufilter, lookup_prefilter_rewrites_name)
{
	__u32 opcode = FUSE_LOOKUP | FUSE_PREFILTER;
	unsigned long pre, other;
	const struct seen *w;
	struct stat st, lst;

	pre = fuse_daemon_filter_count(self->d, opcode);
	other = fuse_daemon_count(self->d, opcode);
	rule_body(self->s, opcode, "upre_alias", ANS_BODY, "f", sizeof("f"));
	ASSERT_EQ(0, stat(MN("upre_alias"), &st))
		TH_LOG("stat of upre_alias: %s", strerror(errno));
	ASSERT_EQ(0, stat(LO("f"), &lst));
	EXPECT_EQ(lst.st_ino, st.st_ino);
	EXPECT_EQ((off_t)strlen(LOWER_F), st.st_size);
	EXPECT_FILE(LOWER_F, MN("upre_alias"));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	w = last_seen(self->s, opcode, "upre_alias");
	ASSERT_NE(NULL, w)
		TH_LOG("no LOOKUP | FUSE_PREFILTER of upre_alias");
	EXPECT_EQ((__u64)FUSE_ROOT_ID, w->nodeid);
	EXPECT_EQ(sizeof("upre_alias"), w->arglen);
	EXPECT_EQ((__u32)getuid(), w->uid);
	EXPECT_EQ((__u32)getgid(), w->gid);
	EXPECT_EQ((__u32)getpid(), w->pid);
	EXPECT_TAKEN(w);
	/* Counted as filter requests, and as opcodes out of the table */
	EXPECT_LT(pre, fuse_daemon_filter_count(self->d, opcode));
	EXPECT_LT(other, fuse_daemon_count(self->d, opcode));
	EXPECT_EQ(0UL, fuse_daemon_filter_count(self->d, FUSE_LOOKUP |
						FUSE_POSTFILTER));

	/* Nothing answered: the name as it came, on the lower */
	EXPECT_EQ(ENOENT, err_of(stat(MN("upre_same"), &st)));
	ASSERT_EQ(0, pt_write_file(LO("upre_same"), SAME_DATA, 0644));
	ASSERT_EQ(0, stat(MN("upre_same"), &st))
		TH_LOG("stat of upre_same: %s", strerror(errno));
	EXPECT_EQ((off_t)strlen(SAME_DATA), st.st_size);
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_LE(2, count_seen(self->s, opcode, "upre_same"));
	w = last_seen(self->s, opcode, "upre_same");
	ASSERT_NE(NULL, w);
	EXPECT_EQ((__u64)FUSE_ROOT_ID, w->nodeid);
	EXPECT_TAKEN(w);
}

/* The daemon's EACCES, though the lower has the name */
TEST_F(ufilter, lookup_prefilter_error)
{
	__u32 opcode = FUSE_LOOKUP | FUSE_PREFILTER;
	const struct seen *w;
	struct stat st;

	ASSERT_EQ(0, pt_write_file(LO("upre_deny"), "deny", 0644));
	rule_error(self->s, opcode, "upre_deny", EACCES);
	EXPECT_EQ(EACCES, err_of(stat(MN("upre_deny"), &st)));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	w = last_seen(self->s, opcode, "upre_deny");
	ASSERT_NE(NULL, w);
	EXPECT_EQ((__u64)FUSE_ROOT_ID, w->nodeid);
	EXPECT_TAKEN(w);

	/* Nothing to say: the lower's file */
	rule_set(self->s, opcode, "upre_deny", ANS_EMPTY);
	ASSERT_EQ(0, stat(MN("upre_deny"), &st))
		TH_LOG("stat of upre_deny: %s", strerror(errno));
	EXPECT_EQ((off_t)strlen("deny"), st.st_size);
}

#define HERE_DATA	"here-data"

/*
 * A name the lower has: error_in 0, then struct fuse_entry_out of the lower
 * inode.  One it does not have: error_in -ENOENT and no reply body.
 */
TEST_F(ufilter, lookup_postfilter_sees_error_in)
{
	__u32 opcode = FUSE_LOOKUP | FUSE_POSTFILTER;
	struct fuse_postfilter_in pin;
	struct fuse_entry_out entry;
	const struct seen *w;
	struct stat st, lst;

	ASSERT_EQ(0, pt_write_file(LO("upost_here"), HERE_DATA, 0644));
	ASSERT_EQ(0, stat(LO("upost_here"), &lst));
	ASSERT_EQ(0, stat(MN("upost_here"), &st))
		TH_LOG("stat of upost_here: %s", strerror(errno));
	EXPECT_EQ((off_t)strlen(HERE_DATA), st.st_size);
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	w = last_seen(self->s, opcode, "upost_here");
	ASSERT_NE(NULL, w)
		TH_LOG("no LOOKUP | FUSE_POSTFILTER of upost_here");
	EXPECT_EQ((__u64)FUSE_ROOT_ID, w->nodeid);
	EXPECT_EQ((__u32)getpid(), w->pid);
	EXPECT_EQ(0, w->error_in);
	ASSERT_EQ(PIN + sizeof("upost_here") + sizeof(entry), w->arglen);
	ASSERT_TRUE(body_get(w, 0, &pin, sizeof(pin)));
	EXPECT_EQ(0U, pin.padding);
	ASSERT_TRUE(body_get(w, PIN + sizeof("upost_here"), &entry,
			     sizeof(entry)));
	EXPECT_EQ((__u64)strlen(HERE_DATA), entry.attr.size);
	EXPECT_EQ((__u64)lst.st_ino, entry.attr.ino);
	EXPECT_EQ(lst.st_mode, entry.attr.mode);
	EXPECT_TAKEN(w);

	EXPECT_EQ(ENOENT, err_of(stat(MN("upost_missing"), &st)));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	w = last_seen(self->s, opcode, "upost_missing");
	ASSERT_NE(NULL, w)
		TH_LOG("no LOOKUP | FUSE_POSTFILTER of upost_missing");
	EXPECT_EQ(-ENOENT, w->error_in);
	EXPECT_EQ(PIN + sizeof("upost_missing"), w->arglen);
	EXPECT_TAKEN(w);
}

/*
 * The daemon's EPERM replaces a success of the lower, and its failure: a
 * name the lower lacks fails with the daemon's errno, not ENOENT.
 */
TEST_F(ufilter, lookup_postfilter_rewrites_errno)
{
	__u32 opcode = FUSE_LOOKUP | FUSE_POSTFILTER;
	const struct seen *w;
	struct stat st;

	ASSERT_EQ(0, pt_write_file(LO("upost_errno"), "errno", 0644));
	rule_error(self->s, opcode, "upost_errno", EPERM);
	EXPECT_EQ(EPERM, err_of(stat(MN("upost_errno"), &st)));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	w = last_seen(self->s, opcode, "upost_errno");
	ASSERT_NE(NULL, w);
	EXPECT_EQ(0, w->error_in);
	EXPECT_TAKEN(w);

	rule_error(self->s, opcode, "upost_gone", EPERM);
	EXPECT_EQ(EPERM, err_of(stat(MN("upost_gone"), &st)));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	w = last_seen(self->s, opcode, "upost_gone");
	ASSERT_NE(NULL, w);
	EXPECT_EQ(-ENOENT, w->error_in);
	EXPECT_TAKEN(w);

	/* Nothing to say: the lower's file */
	rule_set(self->s, opcode, "upost_errno", ANS_EMPTY);
	ASSERT_EQ(0, stat(MN("upost_errno"), &st))
		TH_LOG("stat of upost_errno: %s", strerror(errno));
	EXPECT_EQ((off_t)strlen("errno"), st.st_size);
}

/* ------------------------------------------------------------------ */
/* Other operations                                                     */
/* ------------------------------------------------------------------ */

/*
 * GETATTR | FUSE_POSTFILTER on the daemon's id of f, with the lower's
 * attributes: the size the daemon gives back is what stat() shows.
 */
TEST_F(ufilter, getattr_postfilter_rewrites_attr)
{
	__u32 opcode = FUSE_GETATTR | FUSE_POSTFILTER;
	struct fuse_attr_out out;
	const struct seen *w;
	struct stat st, lst;
	size_t off;

	self->skel->bss->verdict[FUSE_GETATTR] = BPF_FUSE_USER_POSTFILTER;
	rule_rewrite(self->s, opcode, "", "")->size = SHOWN_SIZE;
	ASSERT_EQ(0, stat(MN("f"), &st))
		TH_LOG("stat of f: %s", strerror(errno));
	ASSERT_EQ(0, stat(LO("f"), &lst));
	EXPECT_EQ(SHOWN_SIZE, st.st_size);
	EXPECT_EQ((off_t)strlen(LOWER_F), lst.st_size);
	EXPECT_EQ(lst.st_ino, st.st_ino);
	EXPECT_EQ(lst.st_mode, st.st_mode);
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	w = last_seen(self->s, opcode, NULL);
	ASSERT_NE(NULL, w)
		TH_LOG("no GETATTR | FUSE_POSTFILTER");
	EXPECT_EQ(self->id_f, w->nodeid);
	EXPECT_EQ(0, w->error_in);
	off = PIN + sizeof(struct fuse_getattr_in);
	ASSERT_EQ(off + sizeof(out), w->arglen);
	ASSERT_TRUE(body_get(w, off, &out, sizeof(out)));
	EXPECT_EQ((__u64)strlen(LOWER_F), out.attr.size);
	EXPECT_EQ((__u64)lst.st_ino, out.attr.ino);
	EXPECT_TRUE(w->rewrote);
	EXPECT_TAKEN(w);

	/* Nothing to say: the lower's size */
	rule_set(self->s, opcode, "", ANS_EMPTY);
	ASSERT_EQ(0, stat(MN("f"), &st));
	EXPECT_EQ((off_t)strlen(LOWER_F), st.st_size);
}

/*
 * A BPF postfilter that returns BPF_FUSE_USER_POSTFILTER hands the result
 * to the daemon's postfilter (the RFC's "call bpf for pre/post filters"):
 * the daemon sees the lower's attributes and its rewrite reaches stat().
 */
TEST_F(ufilter, bpf_postfilter_hands_to_daemon)
{
	__u32 opcode = FUSE_GETATTR | FUSE_POSTFILTER;
	const struct seen *w;
	struct stat st;

	self->skel->bss->verdict[FUSE_GETATTR] = BPF_FUSE_POSTFILTER;
	self->skel->bss->post_verdict[FUSE_GETATTR] = BPF_FUSE_USER_POSTFILTER;
	rule_rewrite(self->s, opcode, "", "")->size = SHOWN_SIZE;
	ASSERT_EQ(0, stat(MN("f"), &st))
		TH_LOG("stat of f: %s", strerror(errno));
	EXPECT_EQ(SHOWN_SIZE, st.st_size);
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	w = last_seen(self->s, opcode, NULL);
	ASSERT_NE(NULL, w)
		TH_LOG("no GETATTR | FUSE_POSTFILTER");
	EXPECT_EQ(self->id_f, w->nodeid);
	EXPECT_EQ(0, w->error_in);
	EXPECT_TAKEN(w);

	/* A postfilter that keeps the result sends nothing */
	self->skel->bss->post_verdict[FUSE_GETATTR] = BPF_FUSE_CONTINUE;
	ASSERT_EQ(0, stat(MN("f"), &st));
	EXPECT_EQ((off_t)strlen(LOWER_F), st.st_size);
}

/*
 * READDIR | FUSE_POSTFILTER of the root: the daemon appends a record to
 * the first chunk (offset 0), which the caller lists with the lower's
 * names, of the inode number and type the daemon gave.
 */
TEST_F(ufilter, readdir_postfilter_adds_entry)
{
	__u32 opcode = FUSE_READDIR | FUSE_POSTFILTER;
	const struct seen *w = NULL;
	struct fuse_read_in in;
	struct dirent *de;
	bool found = false;
	unsigned long i;
	DIR *dir;

	self->skel->bss->verdict[FUSE_READDIR] = BPF_FUSE_USER_POSTFILTER;
	rule_rewrite(self->s, opcode, "", DAEMON_NAME);
	EXPECT_NAMES("d f " DAEMON_NAME " g p ", PT_MNT);

	dir = opendir(PT_MNT);
	ASSERT_NE(NULL, dir);
	while ((de = readdir(dir))) {
		if (strcmp(de->d_name, DAEMON_NAME))
			continue;
		found = true;
		EXPECT_EQ(DT_REG, de->d_type);
		EXPECT_EQ((ino_t)DAEMON_INO, de->d_ino);
	}
	closedir(dir);
	EXPECT_TRUE(found);
	EXPECT_NAMES("d f g p ", PT_LOWER);

	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	for (i = 0; i < NR_SEEN && i < self->s->nr_seen; i++) {
		if (self->s->seen[i].opcode == opcode &&
		    self->s->seen[i].rewrote)
			w = &self->s->seen[i];
	}
	ASSERT_NE(NULL, w)
		TH_LOG("no READDIR | FUSE_POSTFILTER the daemon added to");
	EXPECT_EQ((__u64)FUSE_ROOT_ID, w->nodeid);
	EXPECT_EQ(0, w->error_in);
	ASSERT_TRUE(body_get(w, PIN, &in, sizeof(in)));
	EXPECT_EQ(0ULL, in.offset);
	/* ".", "..", d, f, g at least */
	EXPECT_LE(PIN + sizeof(in) + 5 * FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET + 1),
		  (size_t)w->arglen);
	EXPECT_TAKEN(w);
}

/*
 * A LOOKUP | FUSE_POSTFILTER answer that carries a node id gives the name
 * the daemon's node: the daemon serves it from then on (its data, not the
 * lower file's; its READ of that node id reaches it), and gets
 * a FORGET for it at the end (the daemon counts the answer as a lookup;
 * a FORGET it did not expect fails the unmount's status).
 */
TEST_F(ufilter, lookup_postfilter_gives_daemon_node)
{
	__u32 opcode = FUSE_LOOKUP | FUSE_POSTFILTER;
	const struct seen *w;
	struct stat st;

	self->skel->bss->verdict[FUSE_LOOKUP] = BPF_FUSE_USER_POSTFILTER;
	rule_rewrite(self->s, opcode, "f", "");

	EXPECT_FILE(DAEMON_DATA, MN("f"));
	ASSERT_EQ(0, stat(MN("f"), &st));
	EXPECT_EQ((off_t)strlen(DAEMON_DATA), st.st_size);
	/* Names the daemon's postfilter keeps stay the lower's */
	EXPECT_FILE(LOWER_G, MN("g"));
	EXPECT_FILE(LOWER_F, LO("f"));

	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	w = last_seen(self->s, opcode, "f");
	ASSERT_NE(NULL, w);
	EXPECT_TRUE(w->rewrote);
	EXPECT_EQ(0, w->reply_err);
	w = last_seen(self->s, FUSE_READ, NULL);
	ASSERT_NE(NULL, w) TH_LOG("the daemon never read its node");
	EXPECT_EQ(self->id_f, w->nodeid);
}

/*
 * A BPF lookup postfilter that writes a node id fails the lookup with
 * EINVAL: a made-up id could name another node's inode.  The daemon
 * never sees it.
 */
TEST_F(ufilter, lookup_postfilter_bpf_nodeid_refused)
{
	struct stat st;

	self->skel->bss->verdict[FUSE_LOOKUP] = BPF_FUSE_POSTFILTER;
	self->skel->bss->lookup_nodeid = self->id_g;
	EXPECT_EQ(-1, stat(MN("g"), &st));
	EXPECT_EQ(EINVAL, errno);
	self->skel->bss->lookup_nodeid = 0;
	ASSERT_EQ(0, stat(MN("g"), &st));
	EXPECT_EQ((off_t)strlen(LOWER_G), st.st_size);
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(NULL, last_seen(self->s, FUSE_LOOKUP | FUSE_POSTFILTER,
				  NULL));
}

/* 40-character names: 64 bytes a record, 64 records to a chunk */
#define STEER_FILES	200
#define STEER_PREFIX	"steer-the-offset-of-the-listing-here-"

/*
 * READDIR | FUSE_POSTFILTER carries struct fuse_read_out after the
 * request, whose offset is the lower directory's next one (the handler
 * checks it against the chunk's last record), and the daemon steers the
 * listing with it as a BPF postfilter does: set back to the chunk's own
 * offset, one getdents64() call ends with the first chunk (a page of
 * records) where it would list the whole directory; the next calls go on
 * after it, every name once.
 */
TEST_F(ufilter, readdir_postfilter_steers_offset)
{
	__u32 opcode = FUSE_READDIR | FUSE_POSTFILTER;
	const int all = STEER_FILES + 6;	/* . .. d f g p */
	const struct seen *w;
	struct rule *r;
	int first;

	ASSERT_EQ(0, pt_make_files(PT_LOWER, STEER_PREFIX "%03d",
				   STEER_FILES));
	self->skel->bss->verdict[FUSE_READDIR] = BPF_FUSE_USER_POSTFILTER;

	/* Kept as it is: one call of 64 KiB lists everything */
	EXPECT_EQ(all, pt_getdents_count(PT_MNT, STEER_PREFIX, STEER_FILES,
					 65536, &first));
	EXPECT_EQ(all, first);

	r = rule_rewrite(self->s, opcode, "", "");
	r->size = READDIR_END;
	EXPECT_EQ(all, pt_getdents_count(PT_MNT, STEER_PREFIX, STEER_FILES,
					 65536, &first));
	EXPECT_LT(1, first);
	EXPECT_GT(all / 2, first)
		TH_LOG("the first getdents64() listed %d of %d entries",
		       first, all);

	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	w = last_seen(self->s, opcode, NULL);
	ASSERT_NE(NULL, w);
	EXPECT_EQ(0, w->reply_err);
	EXPECT_EQ(0UL, load(&self->s->bad));
}

#define XATTR		"user.k"
#define LOWER_VALUE	"v1"
#define DAEMON_VALUE	"v2-daemon"

/*
 * GETXATTR | FUSE_POSTFILTER: the daemon's value, and its size for a size
 * query, whatever the lower holds
 */
TEST_F(ufilter, getxattr_postfilter_rewrites_value)
{
	__u32 opcode = FUSE_GETXATTR | FUSE_POSTFILTER;
	size_t off = PIN + sizeof(struct fuse_getxattr_in) + sizeof(XATTR);
	struct fuse_getxattr_out out;
	const struct seen *w;
	char buf[64];
	ssize_t n;

	ASSERT_EQ(0, setxattr(LO("f"), XATTR, LOWER_VALUE,
			      strlen(LOWER_VALUE), 0))
		TH_LOG("setxattr on the lower: %s", strerror(errno));
	ASSERT_EQ(0, setxattr(LO("f"), "user.other", "o", 1, 0));
	self->skel->bss->verdict[FUSE_GETXATTR] = BPF_FUSE_USER_POSTFILTER;
	rule_rewrite(self->s, opcode, XATTR, DAEMON_VALUE);

	/* A size query */
	n = getxattr(MN("f"), XATTR, NULL, 0);
	EXPECT_EQ((ssize_t)strlen(DAEMON_VALUE), n)
		TH_LOG("size of %s: %s", XATTR, n < 0 ? strerror(errno) : "");
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	w = last_seen(self->s, opcode, XATTR);
	ASSERT_NE(NULL, w)
		TH_LOG("no GETXATTR | FUSE_POSTFILTER of %s", XATTR);
	EXPECT_EQ(self->id_f, w->nodeid);
	EXPECT_EQ(0, w->error_in);
	ASSERT_EQ(off + sizeof(out), w->arglen);
	ASSERT_TRUE(body_get(w, off, &out, sizeof(out)));
	EXPECT_EQ(strlen(LOWER_VALUE), out.size);
	EXPECT_TAKEN(w);

	/* The value */
	memset(buf, 0, sizeof(buf));
	n = getxattr(MN("f"), XATTR, buf, sizeof(buf));
	EXPECT_EQ((ssize_t)strlen(DAEMON_VALUE), n)
		TH_LOG("getxattr %s: %s", XATTR, n < 0 ? strerror(errno) : buf);
	EXPECT_STREQ(DAEMON_VALUE, buf);
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	w = last_seen(self->s, opcode, XATTR);
	ASSERT_NE(NULL, w);
	ASSERT_EQ(off + strlen(LOWER_VALUE), w->arglen);
	EXPECT_EQ(0, memcmp(w->body + off, LOWER_VALUE, strlen(LOWER_VALUE)));
	EXPECT_TAKEN(w);

	/* The lower keeps its value; no rule for another name */
	memset(buf, 0, sizeof(buf));
	EXPECT_EQ((ssize_t)strlen(LOWER_VALUE),
		  getxattr(LO("f"), XATTR, buf, sizeof(buf)));
	EXPECT_STREQ(LOWER_VALUE, buf);
	memset(buf, 0, sizeof(buf));
	EXPECT_EQ(1, getxattr(MN("f"), "user.other", buf, sizeof(buf)));
	EXPECT_STREQ("o", buf);
}

#define ASKED_VALUE	"orig"
#define NEW_VALUE	"rewritten"

/*
 * SETXATTR | FUSE_PREFILTER: fuse_setxattr_in, the name and the value
 * asked; the value the daemon answers is the one the lower stores
 */
TEST_F(ufilter, setxattr_prefilter_rewrites_value)
{
	__u32 opcode = FUSE_SETXATTR | FUSE_PREFILTER;
	size_t value_off, fixed;
	const struct seen *w;
	char buf[64];
	__u32 size;
	ssize_t n;

	self->skel->bss->verdict[FUSE_SETXATTR] = BPF_FUSE_USER_PREFILTER;
	rule_rewrite(self->s, opcode, XATTR, NEW_VALUE);
	ASSERT_EQ(0, setxattr(MN("f"), XATTR, ASKED_VALUE,
			      strlen(ASKED_VALUE), 0))
		TH_LOG("setxattr through the mount: %s", strerror(errno));
	memset(buf, 0, sizeof(buf));
	n = getxattr(LO("f"), XATTR, buf, sizeof(buf));
	EXPECT_EQ((ssize_t)strlen(NEW_VALUE), n)
		TH_LOG("the lower's %s: %s", XATTR,
		       n < 0 ? strerror(errno) : buf);
	EXPECT_STREQ(NEW_VALUE, buf);

	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	w = last_seen(self->s, opcode, XATTR);
	ASSERT_NE(NULL, w)
		TH_LOG("no SETXATTR | FUSE_PREFILTER of %s", XATTR);
	EXPECT_EQ(self->id_f, w->nodeid);
	ASSERT_LT(sizeof(XATTR) + strlen(ASKED_VALUE), (size_t)w->arglen);
	value_off = w->arglen - strlen(ASKED_VALUE);
	fixed = value_off - sizeof(XATTR);
	EXPECT_TRUE(fixed == sizeof(struct fuse_setxattr_in) ||
		    fixed == FUSE_COMPAT_SETXATTR_IN_SIZE)
		TH_LOG("fuse_setxattr_in of %zu bytes", fixed);
	ASSERT_TRUE(body_get(w, 0, &size, sizeof(size)));
	EXPECT_EQ(strlen(ASKED_VALUE), size);
	EXPECT_EQ(0, memcmp(w->body + value_off, ASKED_VALUE,
			    strlen(ASKED_VALUE)));
	EXPECT_TRUE(w->rewrote);
	EXPECT_TAKEN(w);
}

/*
 * MKDIR | FUSE_PREFILTER on the root: fuse_mkdir_in and the name asked;
 * the lower directory is made under the daemon's name, with the mode
 * asked
 */
TEST_F(ufilter, mkdir_prefilter_rewrites_name)
{
	__u32 opcode = FUSE_MKDIR | FUSE_PREFILTER;
	struct fuse_mkdir_in in;
	const struct seen *w;
	struct stat st;

	self->skel->bss->verdict[FUSE_MKDIR] = BPF_FUSE_USER_PREFILTER;
	rule_rewrite(self->s, opcode, "asked", "made_by_daemon");
	ASSERT_EQ(0, mkdir(MN("asked"), 0750))
		TH_LOG("mkdir through the mount: %s", strerror(errno));
	ASSERT_EQ(0, stat(LO("made_by_daemon"), &st))
		TH_LOG("the daemon's name on the lower: %s", strerror(errno));
	EXPECT_TRUE(S_ISDIR(st.st_mode));
	EXPECT_EQ(0750U, st.st_mode & 07777);
	EXPECT_EQ(ENOENT, err_of(stat(LO("asked"), &st)));

	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	w = last_seen(self->s, opcode, "asked");
	ASSERT_NE(NULL, w)
		TH_LOG("no MKDIR | FUSE_PREFILTER of asked");
	EXPECT_EQ((__u64)FUSE_ROOT_ID, w->nodeid);
	EXPECT_EQ(sizeof(in) + sizeof("asked"), w->arglen);
	ASSERT_TRUE(body_get(w, 0, &in, sizeof(in)));
	EXPECT_EQ(0750U, in.mode & 07777);
	EXPECT_TRUE(w->rewrote);
	EXPECT_TAKEN(w);
}

/*
 * MKDIR | FUSE_POSTFILTER: the daemon sees the fuse_entry_out of the
 * directory the lower made, as a MKDIR reply carries it; its errno fails
 * the mkdir, which the lower has done all the same.
 */
TEST_F(ufilter, mkdir_postfilter_sees_entry)
{
	__u32 opcode = FUSE_MKDIR | FUSE_POSTFILTER;
	struct fuse_entry_out entry;
	const struct seen *w;
	struct stat st;
	size_t off;

	self->skel->bss->verdict[FUSE_MKDIR] = BPF_FUSE_USER_POSTFILTER;
	rule_error(self->s, opcode, "failed", EPERM);
	ASSERT_EQ(0, mkdir(MN("seen"), 0710))
		TH_LOG("mkdir seen: %s", strerror(errno));
	EXPECT_EQ(EPERM, err_of(mkdir(MN("failed"), 0700)));
	EXPECT_EQ(0, stat(LO("failed"), &st));

	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	w = last_seen(self->s, opcode, "seen");
	ASSERT_NE(NULL, w);
	EXPECT_EQ(0, w->error_in);
	off = PIN + sizeof(struct fuse_mkdir_in) + sizeof("seen");
	EXPECT_EQ(off + sizeof(entry), w->arglen);
	ASSERT_TRUE(body_get(w, off, &entry, sizeof(entry)));
	EXPECT_EQ((__u32)(S_IFDIR | 0710), entry.attr.mode);
	ASSERT_EQ(0, stat(LO("seen"), &st));
	EXPECT_EQ(st.st_ino, entry.attr.ino);
	EXPECT_TAKEN(w);
}

/* UNLINK | FUSE_PREFILTER: the daemon's EPERM keeps the lower file */
TEST_F(ufilter, unlink_prefilter_denies)
{
	__u32 opcode = FUSE_UNLINK | FUSE_PREFILTER;
	const struct seen *w;

	self->skel->bss->verdict[FUSE_UNLINK] = BPF_FUSE_USER_PREFILTER;
	rule_error(self->s, opcode, "g", EPERM);
	EXPECT_EQ(EPERM, err_of(unlink(MN("g"))));
	EXPECT_FILE(LOWER_G, LO("g"));
	EXPECT_FILE(LOWER_G, MN("g"));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	w = last_seen(self->s, opcode, "g");
	ASSERT_NE(NULL, w)
		TH_LOG("no UNLINK | FUSE_PREFILTER of g");
	EXPECT_EQ((__u64)FUSE_ROOT_ID, w->nodeid);
	EXPECT_EQ(sizeof("g"), w->arglen);
	EXPECT_TAKEN(w);

	/* Nothing to say: unlinked */
	rule_set(self->s, opcode, "g", ANS_EMPTY);
	EXPECT_EQ(0, unlink(MN("g")));
	EXPECT_EQ(ENOENT, err_of(access(LO("g"), F_OK)));
}

/*
 * STATFS | FUSE_POSTFILTER: fuse_statfs_out of the lower; the daemon's
 * ENOSPC fails the statfs
 */
TEST_F(ufilter, statfs_postfilter_errno)
{
	__u32 opcode = FUSE_STATFS | FUSE_POSTFILTER;
	struct fuse_statfs_out out;
	struct statfs sfs, lsfs;
	const struct seen *w;

	self->skel->bss->verdict[FUSE_STATFS] = BPF_FUSE_USER_POSTFILTER;
	rule_error(self->s, opcode, "", ENOSPC);
	EXPECT_EQ(ENOSPC, err_of(statfs(PT_MNT, &sfs)));
	ASSERT_EQ(0, statfs(PT_LOWER, &lsfs));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	w = last_seen(self->s, opcode, NULL);
	ASSERT_NE(NULL, w)
		TH_LOG("no STATFS | FUSE_POSTFILTER");
	EXPECT_EQ((__u64)FUSE_ROOT_ID, w->nodeid);
	EXPECT_EQ(0, w->error_in);
	ASSERT_EQ(PIN + sizeof(out), w->arglen);
	ASSERT_TRUE(body_get(w, PIN, &out, sizeof(out)));
	EXPECT_EQ((__u64)lsfs.f_blocks, out.st.blocks);
	EXPECT_EQ((__u32)lsfs.f_namelen, out.st.namelen);
	EXPECT_TAKEN(w);

	/* Nothing to say: the lower's numbers */
	rule_set(self->s, opcode, "", ANS_EMPTY);
	ASSERT_EQ(0, statfs(PT_MNT, &sfs))
		TH_LOG("statfs: %s", strerror(errno));
	EXPECT_EQ(lsfs.f_blocks, sfs.f_blocks);
}

/* ------------------------------------------------------------------ */
/* Answers the kernel refuses                                           */
/* ------------------------------------------------------------------ */

/*
 * Answers the kernel cannot take.  A name is checked as a BPF filter's
 * rewrite is: one NUL-terminated path component (EINVAL without the NUL,
 * EACCES with a '/', from the lower lookup).  A body that does not parse
 * (shorter than the fixed-size structure it must start with) fails the
 * operation with EIO, the lower untouched.  The connection goes on.
 */
TEST_F(ufilter, bad_prefilter_replies)
{
	__u32 opcode = FUSE_LOOKUP | FUSE_PREFILTER;
	const struct seen *w;
	struct stat st;

	rule_body(self->s, opcode, "upre_nonul", ANS_BODY, "abc", 3);
	EXPECT_EQ(EINVAL, err_of(stat(MN("upre_nonul"), &st)));
	rule_body(self->s, opcode, "upre_slash", ANS_BODY, "d/x",
		  sizeof("d/x"));
	EXPECT_EQ(EACCES, err_of(stat(MN("upre_slash"), &st)));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	w = last_seen(self->s, opcode, "upre_nonul");
	ASSERT_NE(NULL, w);
	EXPECT_TAKEN(w);
	w = last_seen(self->s, opcode, "upre_slash");
	ASSERT_NE(NULL, w);
	EXPECT_TAKEN(w);

	self->skel->bss->verdict[FUSE_MKDIR] = BPF_FUSE_USER_PREFILTER;
	rule_body(self->s, FUSE_MKDIR | FUSE_PREFILTER, "", ANS_BODY, "abc", 3);
	EXPECT_EQ(EIO, err_of(mkdir(MN("short"), 0755)));
	EXPECT_EQ(ENOENT, err_of(stat(LO("short"), &st)));
	EXPECT_EQ(ENOENT, err_of(stat(LO("abc"), &st)));

	rule_body(self->s, opcode, "upre_alias", ANS_BODY, "f", sizeof("f"));
	ASSERT_EQ(0, stat(MN("upre_alias"), &st))
		TH_LOG("stat of upre_alias: %s", strerror(errno));
	EXPECT_EQ((off_t)strlen(LOWER_F), st.st_size);
	EXPECT_FILE(LOWER_F, MN("f"));
}

/*
 * A body to a postfilter request with error_in -ENOENT: the daemon's
 * write() fails with EINVAL, the request is ended with EIO, and the
 * connection goes on serving.
 */
TEST_F(ufilter, postfilter_body_after_error_refused)
{
	__u32 opcode = FUSE_LOOKUP | FUSE_POSTFILTER;
	static const char zeros[40];
	const struct seen *w;
	struct stat st;

	rule_body(self->s, opcode, "upost_missing", ANS_RAW, zeros,
		  sizeof(zeros));
	EXPECT_EQ(EIO, err_of(stat(MN("upost_missing"), &st)));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	w = last_seen(self->s, opcode, "upost_missing");
	ASSERT_NE(NULL, w)
		TH_LOG("no LOOKUP | FUSE_POSTFILTER of upost_missing");
	EXPECT_EQ(-ENOENT, w->error_in);
	EXPECT_EQ(EINVAL, w->reply_err)
		TH_LOG("the body after an error: %s",
		       w->reply_err == NOT_SENT ? "not sent" :
		       w->reply_err ? strerror(w->reply_err) : "taken");
	EXPECT_EQ(ENOENT, w->reply_err2)
		TH_LOG("the refused answer left its request pending (%s)",
		       w->reply_err2 == NOT_SENT ? "not sent" :
		       strerror(w->reply_err2));

	ASSERT_EQ(0, pt_write_file(LO("upost_here"), HERE_DATA, 0644));
	ASSERT_EQ(0, stat(MN("upost_here"), &st))
		TH_LOG("stat of upost_here: %s", strerror(errno));
	EXPECT_EQ((off_t)strlen(HERE_DATA), st.st_size);
	EXPECT_FILE(LOWER_F, MN("f"));
}

/* ------------------------------------------------------------------ */
/* Node ids and the connection                                          */
/* ------------------------------------------------------------------ */

/*
 * GETATTR | FUSE_POSTFILTER of d/x, nodes the kernel made: first a LOOKUP
 * of d in the root and one of x in the daemon's d, then the filter request
 * on the daemon's id of x.  Introduced once: the next requests go without
 * LOOKUPs.
 */
TEST_F(ufilter, subdir_node_introduced)
{
	__u32 opcode = FUSE_GETATTR | FUSE_POSTFILTER;
	struct fuse_attr_out out;
	unsigned long lookups;
	const struct seen *w;
	struct stat st;

	self->skel->bss->verdict[FUSE_GETATTR] = BPF_FUSE_USER_POSTFILTER;
	lookups = fuse_daemon_count(self->d, FUSE_LOOKUP);
	ASSERT_EQ(0, stat(MN("d/x"), &st))
		TH_LOG("stat of d/x: %s", strerror(errno));
	EXPECT_EQ((off_t)strlen(LOWER_X), st.st_size);
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(lookups + 2, fuse_daemon_count(self->d, FUSE_LOOKUP));
	w = last_seen(self->s, FUSE_LOOKUP, "d");
	ASSERT_NE(NULL, w)
		TH_LOG("d was not introduced");
	EXPECT_EQ((__u64)FUSE_ROOT_ID, w->nodeid);
	w = last_seen(self->s, FUSE_LOOKUP, "x");
	ASSERT_NE(NULL, w)
		TH_LOG("x was not introduced");
	EXPECT_EQ(self->id_d, w->nodeid);
	w = last_seen(self->s, opcode, NULL);
	ASSERT_NE(NULL, w)
		TH_LOG("no GETATTR | FUSE_POSTFILTER");
	EXPECT_EQ(self->id_x, w->nodeid)
		TH_LOG("GETATTR | FUSE_POSTFILTER on node %#llx",
		       (unsigned long long)w->nodeid);
	EXPECT_EQ(0, w->error_in);
	ASSERT_TRUE(body_get(w, PIN + sizeof(struct fuse_getattr_in), &out,
			     sizeof(out)));
	EXPECT_EQ((__u64)strlen(LOWER_X), out.attr.size);
	EXPECT_TAKEN(w);
	EXPECT_EQ(0UL, load(&self->s->kernel_ids));

	ASSERT_EQ(0, stat(MN("d/x"), &st));
	ASSERT_EQ(0, stat(MN("d"), &st));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(lookups + 2, fuse_daemon_count(self->d, FUSE_LOOKUP));
	w = last_seen(self->s, opcode, NULL);
	ASSERT_NE(NULL, w);
	EXPECT_EQ(self->id_d, w->nodeid);
	EXPECT_EQ(3, count_seen(self->s, opcode, NULL));
	EXPECT_EQ(0UL, load(&self->s->kernel_ids));
}

/* ------------------------------------------------------------------ */
/* What no answer may do                                                */
/* ------------------------------------------------------------------ */

/*
 * The VFS checked the caller for the node, the name and the flags it
 * asked for; the daemon's rewrites run with the mounter's credentials.
 * So an answer may not turn a FIFO into a device, move an xattr name out
 * of user.*, nor (checked on the lower) do more than the caller could:
 * each gets EPERM, and the lower is untouched.
 */
TEST_F(ufilter, rewrites_keep_what_was_checked)
{
	struct {
		struct fuse_mknod_in in;
		char name[sizeof("fifo")];
	} nod = {
		.in = { .mode = S_IFCHR | 0666, .rdev = makedev(1, 3) },
		.name = "fifo",
	};
	struct {
		struct fuse_setxattr_in in;
		char name[sizeof("trusted.k")];
		char value;
	} setx = {
		.in = { .size = 1 },
		.name = "trusted.k",
		.value = 'v',
	};
	char value[16];
	struct stat st;

	self->skel->bss->verdict[FUSE_MKNOD] = BPF_FUSE_USER_PREFILTER;
	rule_body(self->s, FUSE_MKNOD | FUSE_PREFILTER, "fifo", ANS_BODY,
		  &nod, offsetof(typeof(nod), name) + sizeof("fifo"));
	EXPECT_EQ(EPERM, err_of(mknod(MN("fifo"), S_IFIFO | 0644, 0)));
	EXPECT_EQ(ENOENT, err_of(stat(LO("fifo"), &st)));

	self->skel->bss->verdict[FUSE_SETXATTR] = BPF_FUSE_USER_PREFILTER;
	rule_body(self->s, FUSE_SETXATTR | FUSE_PREFILTER, "user.k", ANS_BODY,
		  &setx, offsetof(typeof(setx), value) + 1);
	EXPECT_EQ(EPERM, err_of(setxattr(MN("f"), "user.k", "v", 1, 0)));
	EXPECT_EQ(ENODATA, err_of(getxattr(LO("f"), "trusted.k", value,
					   sizeof(value))));
	EXPECT_EQ(ENODATA, err_of(getxattr(LO("f"), "user.k", value,
					   sizeof(value))));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
}

/*
 * A list of xattr names the daemon's postfilter leaves without its last
 * NUL, read by a caller the kernel strips trusted.* names for: EIO, not
 * a walk past the list.
 */
TEST_F(ufilter, listxattr_unterminated_list)
{
	static const char list[] = "user.a\0trusted.x";
	int status;
	pid_t pid;

	self->skel->bss->verdict[FUSE_LISTXATTR] = BPF_FUSE_USER_POSTFILTER;
	rule_body(self->s, FUSE_LISTXATTR | FUSE_POSTFILTER, "", ANS_BODY,
		  list, sizeof(list) - 1);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		char buf[256];

		if (setgid(1000) || setuid(1000))
			_exit(100);
		_exit(listxattr(MN("p"), buf, sizeof(buf)) < 0 ? errno : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(EIO, WEXITSTATUS(status));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
}

/*
 * A write filter on the node: the write through it still clears the
 * setuid bit of a file the writer does not own, as the lower would (the
 * backing file is written with the caller's credentials).
 */
TEST_F(ufilter, write_filter_clears_setuid)
{
	struct stat st;
	int status;
	pid_t pid;

	ASSERT_EQ(0, pt_write_file(LO("suid"), "", 0777));
	ASSERT_EQ(0, chmod(LO("suid"), 04777));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd;

		if (setgid(1000) || setuid(1000))
			_exit(100);
		fd = open(MN("suid"), O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			_exit(101);
		_exit(write(fd, "x", 1) == 1 ? 0 : 102);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, stat(LO("suid"), &st));
	EXPECT_EQ(0777U, st.st_mode & 07777)
		TH_LOG("mode %o after an unprivileged write", st.st_mode & 07777);
}

/* access(2) of @path as uid and gid 1000: 0 or the errno */
static int access_as_user(const char *path, int mode)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		if (setgid(1000) || setuid(1000))
			_exit(100);
		_exit(access(path, mode) ? errno : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * An access(2) the filter sends to the daemon: the daemon may deny what
 * the lower inode allows, never grant what it refused.  The lower f is
 * 0600 root's, g 0644; the daemon's handler allows reading both.
 */
TEST_F(ufilter, access_daemon_cannot_grant)
{
	unsigned long asked = fuse_daemon_count(self->d, FUSE_ACCESS);

	ASSERT_EQ(0, chmod(LO("f"), 0600));
	self->skel->bss->verdict[FUSE_ACCESS] = BPF_FUSE_USER;
	EXPECT_EQ(EACCES, access_as_user(MN("f"), R_OK));
	EXPECT_EQ(0, access_as_user(MN("g"), R_OK));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_LT(asked, fuse_daemon_count(self->d, FUSE_ACCESS))
		TH_LOG("the daemon was never asked");
	self->skel->bss->verdict[FUSE_ACCESS] = BPF_FUSE_CONTINUE;
	EXPECT_EQ(EACCES, access_as_user(MN("f"), R_OK));
}

/* ------------------------------------------------------------------ */
/* Filters of nodes the daemon makes                                    */
/* ------------------------------------------------------------------ */

/*
 * A directory the daemon makes (ufilter sends it the MKDIR) and backs in
 * its reply inherits the filter of the directory it was made in, as the
 * kernel's own nodes do; one it answers with FUSE_ENTRY_REMOVE_BPF has
 * none.  Seen by the lookups of "upre_x" in each: the inherited filter
 * sends them to the daemon's prefilter (which fails them), and without a
 * filter they are plain lookups on the lower directory.
 */
TEST_F(ufilter, mkdir_reply_inherits_filter)
{
	__u32 opcode = FUSE_LOOKUP | FUSE_PREFILTER;
	const struct seen *w;
	struct stat st;
	__u64 id_kept;
	int n;

	self->skel->bss->verdict[FUSE_MKDIR] = BPF_FUSE_USER;
	rule_error(self->s, opcode, "upre_x", EACCES);
	ASSERT_EQ(0, mkdir(MN("kept"), 0750))
		TH_LOG("mkdir kept: %s", strerror(errno));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(0, self->s->mkdir_err);
	id_kept = self->s->mkdir_id;
	ASSERT_EQ(0, mkdir(MN("drop_it"), 0750))
		TH_LOG("mkdir drop_it: %s", strerror(errno));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(0, self->s->mkdir_err);
	EXPECT_EQ(2UL, fuse_daemon_count(self->d, FUSE_MKDIR));
	ASSERT_EQ(0, stat(LO("kept"), &st));
	EXPECT_EQ(0750U, st.st_mode & 07777);

	/* Both backed by the lower directories the daemon made */
	ASSERT_EQ(0, pt_write_file(LO("kept/f"), "k", 0644));
	ASSERT_EQ(0, pt_write_file(LO("drop_it/f"), "d", 0644));
	EXPECT_FILE("k", MN("kept/f"));
	EXPECT_FILE("d", MN("drop_it/f"));

	EXPECT_EQ(EACCES, err_of(stat(MN("kept/upre_x"), &st)));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	w = last_seen(self->s, opcode, "upre_x");
	ASSERT_NE(NULL, w)
		TH_LOG("kept did not inherit the filter");
	EXPECT_EQ(id_kept, w->nodeid);
	n = count_seen(self->s, opcode, "upre_x");
	EXPECT_EQ(ENOENT, err_of(stat(MN("drop_it/upre_x"), &st)));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(n, count_seen(self->s, opcode, "upre_x"))
		TH_LOG("drop_it kept a filter");
}

/* ------------------------------------------------------------------ */
/* Reads                                                                */
/* ------------------------------------------------------------------ */

/*
 * Partial passthrough: a read filter sends reads of the first page of p
 * to the daemon (BPF_FUSE_USER) and leaves the rest to the lower file.
 * The daemon gets FUSE_READ with its own node id of p (introduced first)
 * for that page only; the kernel opened the file, so the fh is 0.
 */
TEST_F(ufilter, read_partial_passthrough)
{
	char buf[PAGE];
	struct fuse_read_in in;
	const struct seen *w;
	int fd;

	self->skel->bss->read_daemon_below = PAGE;
	fd = open(MN("p"), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(PAGE, pread(fd, buf, PAGE, 0));
	EXPECT_EQ(0, memcmp(buf, self->daemon_p, PAGE))
		TH_LOG("page 0 is not the daemon's: %.8s", buf);
	ASSERT_EQ(PAGE, pread(fd, buf, PAGE, PAGE));
	EXPECT_EQ(0, memcmp(buf, self->lower_p + PAGE, PAGE))
		TH_LOG("page 1 is not the lower file's: %.8s", buf);
	/* Past the end, from the lower file too */
	EXPECT_EQ(0, pread(fd, buf, PAGE, 2 * PAGE));
	close(fd);

	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(1, count_seen(self->s, FUSE_READ, NULL));
	w = last_seen(self->s, FUSE_READ, NULL);
	ASSERT_NE(NULL, w);
	EXPECT_EQ(self->id_p, w->nodeid);
	ASSERT_TRUE(body_get(w, 0, &in, sizeof(in)));
	EXPECT_EQ(0ULL, in.fh);
	EXPECT_EQ(0ULL, in.offset);
	EXPECT_EQ((__u32)PAGE, in.size);
}

/* Waits for the daemon to have seen @n FUSE_RELEASEs (sent in the background) */
static bool releases_seen(struct fuse_daemon *d, unsigned long n)
{
	int i;

	for (i = 0; i < WAIT_MS / 10; i++) {
		if (count_seen(d->priv, FUSE_RELEASE, NULL) >= n)
			return fuse_daemon_quiesce(d, WAIT_MS);
		usleep(10000);
	}
	return false;
}

/*
 * The file handle an open postfilter gives a file the kernel opens, the
 * BPF one's or the daemon's, goes with the file's requests to the daemon
 * (a FUSE_READ a read filter sends it) and with the FUSE_RELEASE the
 * daemon gets when the file is closed, on its own node id of p.  A file
 * without one sends no FUSE_RELEASE, as before.
 */
TEST_F(ufilter, open_fh_to_daemon)
{
	const __u64 fhs[2] = { 0x5eed0000f00dULL, 0xd00d0000beefULL };
	struct fuse_open_out out = { .fh = fhs[1] };
	struct fuse_release_in rin;
	struct fuse_read_in in;
	const struct seen *w;
	char buf[PAGE];
	int fd, i;

	self->skel->bss->verdict[FUSE_OPEN] = BPF_FUSE_POSTFILTER;
	self->skel->bss->read_daemon_below = PAGE;
	for (i = 0; i < 2; i++) {
		if (i == 0) {
			self->skel->bss->open_fh = fhs[0];
		} else {
			/* The daemon's postfilter answers with the handle */
			self->skel->bss->open_fh = 0;
			self->skel->bss->post_verdict[FUSE_OPEN] =
				BPF_FUSE_USER_POSTFILTER;
			rule_body(self->s, FUSE_OPEN | FUSE_POSTFILTER, "",
				  ANS_BODY, &out, sizeof(out));
		}
		fd = open(MN("p"), O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, fd) TH_LOG("open %d: %s", i, strerror(errno));
		ASSERT_EQ(PAGE, pread(fd, buf, PAGE, 0));
		EXPECT_EQ(0, close(fd));
		ASSERT_TRUE(releases_seen(self->d, i + 1))
			TH_LOG("no FUSE_RELEASE for handle %d", i);
		w = last_seen(self->s, FUSE_READ, NULL);
		ASSERT_NE(NULL, w);
		ASSERT_TRUE(body_get(w, 0, &in, sizeof(in)));
		EXPECT_EQ(fhs[i], in.fh);
		w = last_seen(self->s, FUSE_RELEASE, NULL);
		ASSERT_NE(NULL, w);
		EXPECT_EQ(self->id_p, w->nodeid);
		ASSERT_TRUE(body_get(w, 0, &rin, sizeof(rin)));
		EXPECT_EQ(fhs[i], rin.fh);
	}

	/* No handle: no FUSE_RELEASE for a file the kernel opened */
	self->skel->bss->post_verdict[FUSE_OPEN] = BPF_FUSE_CONTINUE;
	self->skel->bss->read_daemon_below = 0;
	fd = open(MN("f"), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_LT(0, pread(fd, buf, PAGE, 0));
	EXPECT_EQ(0, close(fd));
	usleep(200000);
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(2, count_seen(self->s, FUSE_RELEASE, NULL));
}

/*
 * A hostile daemon and the release of a file handle a postfilter gave:
 * FUSE_RELEASE answered with an error, or never answered, costs the
 * closing caller nothing (close() returns 0: the release goes in the
 * background, as FUSE's own) and leaks nothing (the unmount ends the
 * unanswered request; kmemleak scans after the run).  The file's lower
 * data was read all the same.
 */
TEST_F(ufilter, open_fh_release_hostile_daemon)
{
	const int answers[2] = { EIO, RELEASE_HANG };
	char buf[PAGE];
	int fd, i;

	self->skel->bss->verdict[FUSE_OPEN] = BPF_FUSE_POSTFILTER;
	for (i = 0; i < 2; i++) {
		self->s->release_answer = answers[i];
		self->skel->bss->open_fh = 0x6e57115eULL + i;
		fd = open(MN("p"), O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, fd) TH_LOG("open %d: %s", i, strerror(errno));
		ASSERT_EQ(PAGE, pread(fd, buf, PAGE, 0));
		EXPECT_EQ(0, memcmp(buf, self->lower_p, PAGE));
		EXPECT_EQ(0, close(fd));
		ASSERT_TRUE(releases_seen(self->d, i + 1))
			TH_LOG("no FUSE_RELEASE for answer %d", answers[i]);
	}
	EXPECT_EQ(1UL, load(&self->s->hung));
	/* The mount still serves opens and reads */
	self->skel->bss->open_fh = 0;
	EXPECT_FILE(LOWER_F, MN("f"));
}

/*
 * The same for writes: a write at offset 0 of p goes to the daemon as
 * FUSE_WRITE (the lower file keeps its data there), one at PAGE to the
 * lower file.
 */
TEST_F(ufilter, write_partial_passthrough)
{
	char buf[PAGE];
	const struct seen *w;
	int fd;

	self->skel->bss->write_daemon_below = PAGE;
	fd = open(MN("p"), O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(4, pwrite(fd, "dddd", 4, 0));
	EXPECT_EQ(4, pwrite(fd, "llll", 4, PAGE));
	close(fd);

	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(1, count_seen(self->s, FUSE_WRITE, NULL));
	w = last_seen(self->s, FUSE_WRITE, NULL);
	ASSERT_NE(NULL, w);
	EXPECT_EQ(self->id_p, w->nodeid);
	EXPECT_EQ(0ULL, self->s->write_in.fh);
	EXPECT_EQ(0ULL, self->s->write_in.offset);
	EXPECT_EQ(4U, self->s->write_in.size);
	EXPECT_EQ(0, memcmp(self->s->write_data, "dddd", 4));

	fd = open(LO("p"), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(PAGE, pread(fd, buf, PAGE, 0));
	EXPECT_EQ(0, memcmp(buf, self->lower_p, PAGE))
		TH_LOG("the daemon's write reached the lower: %.8s", buf);
	ASSERT_EQ(PAGE, pread(fd, buf, PAGE, PAGE));
	EXPECT_EQ(0, memcmp(buf, "llll", 4));
	EXPECT_EQ(0, memcmp(buf + 4, self->lower_p + PAGE + 4, PAGE - 4));
	close(fd);
}

/*
 * Two pages of which the second is not mapped: a buffer of @len bytes
 * that ends @over bytes into it.
 */
static char *buf_across_hole(size_t len, size_t over)
{
	char *map = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (map == MAP_FAILED || munmap(map + PAGE, PAGE))
		return NULL;
	memset(map, 'u', PAGE);
	return map + PAGE - (len - over);
}

/*
 * A read the filter sends to the daemon, into a buffer that faults
 * halfway: the bytes copied before the fault are the result, as a read
 * of the lower file alone gives, and the position moves by them.
 */
TEST_F(ufilter, read_daemon_partial_copy)
{
	char *buf = buf_across_hole(200, 100);
	int fd, fl;

	ASSERT_NE(NULL, buf);
	self->skel->bss->read_daemon_below = PAGE;
	fl = open(LO("p"), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fl);
	EXPECT_EQ(100, read(fl, buf, 200));
	close(fl);
	fd = open(MN("p"), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(100, read(fd, buf, 200));
	EXPECT_EQ(0, memcmp(buf, self->daemon_p, 100));
	EXPECT_EQ(100, lseek(fd, 0, SEEK_CUR));
	close(fd);
	munmap(buf + 100 - PAGE, PAGE);
}

/*
 * A write the filter sends to the daemon, from a buffer that faults
 * halfway: the bytes before the fault are written, as on the lower file
 * alone, and the daemon gets those only.
 */
TEST_F(ufilter, write_daemon_partial_copy)
{
	char *buf = buf_across_hole(200, 100);
	int fd;

	ASSERT_NE(NULL, buf);
	self->skel->bss->write_daemon_below = PAGE;
	ASSERT_EQ(0, pt_write_file(LO("q"), "", 0644));
	fd = open(LO("q"), O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(100, write(fd, buf, 200));
	close(fd);
	fd = open(MN("p"), O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(100, pwrite(fd, buf, 200, 0));
	close(fd);
	munmap(buf + 100 - PAGE, PAGE);

	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(1, count_seen(self->s, FUSE_WRITE, NULL));
	EXPECT_EQ(100U, self->s->write_in.size);
	EXPECT_EQ(0, memcmp(self->s->write_data, "uuuu", 4));
}

/*
 * The daemon's postfilter of a write the lower file took: its errno is
 * the write's, which the lower file has taken all the same.
 */
TEST_F(ufilter, write_postfilter)
{
	__u32 opcode = FUSE_WRITE | FUSE_POSTFILTER;
	const struct seen *w;
	char buf[8];
	int fd;

	self->skel->bss->verdict[FUSE_WRITE] = BPF_FUSE_USER_POSTFILTER;
	fd = open(MN("p"), O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(4, pwrite(fd, "wwww", 4, 0));
	rule_error(self->s, opcode, "", EPERM);
	EXPECT_EQ(EPERM, err_of(pwrite(fd, "xxxx", 4, 8)));
	close(fd);
	fd = open(LO("p"), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(8, pread(fd, buf, 8, 4));
	close(fd);
	EXPECT_EQ(0, memcmp(buf, "LLLLxxxx", 8));

	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(2, count_seen(self->s, opcode, NULL));
	w = last_seen(self->s, opcode, NULL);
	ASSERT_NE(NULL, w);
	EXPECT_EQ(self->id_p, w->nodeid);
	EXPECT_EQ(0, w->error_in);
	EXPECT_EQ(0, count_seen(self->s, FUSE_WRITE, NULL));
}

/*
 * The daemon's postfilter of a read the lower file served: its errno is
 * the read's; its empty answer keeps the data.
 */
TEST_F(ufilter, read_postfilter)
{
	__u32 opcode = FUSE_READ | FUSE_POSTFILTER;
	const struct seen *w;
	char buf[PAGE];
	int fd;

	self->skel->bss->verdict[FUSE_READ] = BPF_FUSE_USER_POSTFILTER;
	fd = open(MN("p"), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(PAGE, pread(fd, buf, PAGE, PAGE));
	EXPECT_EQ(0, memcmp(buf, self->lower_p + PAGE, PAGE));
	rule_error(self->s, opcode, "", EPERM);
	EXPECT_EQ(EPERM, err_of(pread(fd, buf, PAGE, 0)));
	close(fd);

	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(2, count_seen(self->s, opcode, NULL));
	w = last_seen(self->s, opcode, NULL);
	ASSERT_NE(NULL, w);
	EXPECT_EQ(self->id_p, w->nodeid);
	EXPECT_EQ(0, w->error_in);
	EXPECT_EQ(0, count_seen(self->s, FUSE_READ, NULL));
}

/*
 * The daemon holds LOOKUP | FUSE_PREFILTER of upre_hang without an answer
 * and the connection is aborted through fusectl: the caller's stat() ends,
 * no hang, with ENOTCONN or with ECONNABORTED (what upstream FUSE gives a
 * request in flight, and Documentation/filesystems/fuse-bpf.rst says).
 * Then what needs the daemon fails with ENOTCONN, and what the kernel
 * serves alone goes on.
 */
TEST_F_TIMEOUT(ufilter, abort_mid_filter, 60)
{
	__u32 opcode = FUSE_LOOKUP | FUSE_PREFILTER;
	const struct seen *w;
	int status, err;
	struct stat st;
	pid_t pid;

	rule_set(self->s, opcode, "upre_hang", ANS_HANG);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(stat(MN("upre_hang"), &st) ? errno : 0);
	EXPECT_TRUE(wait_hung(self->s))
		TH_LOG("the daemon got no LOOKUP | FUSE_PREFILTER of upre_hang");
	ASSERT_EQ(0, pt_abort_conn(PT_MNT))
		TH_LOG("aborting the connection: %s", strerror(errno));
	ASSERT_EQ(0, wait_exit(pid, WAIT_MS, &status))
		TH_LOG("the caller still waited after the abort");
	ASSERT_TRUE(WIFEXITED(status));
	err = WEXITSTATUS(status);
	/* Read by the daemon when the connection went: ECONNABORTED */
	EXPECT_EQ(ECONNABORTED, err)
		TH_LOG("stat of upre_hang: %s", err ? strerror(err) : "success");

	EXPECT_EQ(ENOTCONN, err_of(stat(MN("upre_alias"), &st)));
	EXPECT_EQ(0, stat(MN("f"), &st))
		TH_LOG("stat of f: %s", strerror(errno));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	w = last_seen(self->s, opcode, "upre_hang");
	ASSERT_NE(NULL, w);
	EXPECT_EQ((__u64)FUSE_ROOT_ID, w->nodeid);
	EXPECT_EQ(NOT_SENT, w->reply_err);
}

TEST_HARNESS_MAIN
