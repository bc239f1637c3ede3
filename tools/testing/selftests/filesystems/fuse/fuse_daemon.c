// SPDX-License-Identifier: GPL-2.0
/*
 * A minimal FUSE daemon for selftests, speaking the /dev/fuse protocol
 * directly.  See fuse_daemon.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "fuse_daemon.h"

#define FUSE_DAEMON_MAX_WRITE	(128 * 1024)
/* Room for the largest request: a WRITE of max_write, or a SETXATTR */
#define FUSE_DAEMON_BUF_EXTRA	(128 * 1024)
#define FUSE_DAEMON_BLKSIZE	4096
#define FUSE_DAEMON_UMOUNT_WAIT_MS	2000

static inline __u64 min_u64(__u64 a, __u64 b)
{
	return a < b ? a : b;
}

struct fuse_daemon *fuse_daemon_new(void)
{
	struct fuse_daemon *d;
	__u32 op;

	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->fd = -1;
	d->pid = -1;
	d->max_write = FUSE_DAEMON_MAX_WRITE;
	d->init_flags = FUSE_ASYNC_READ;
	d->shared = mmap(NULL, sizeof(*d->shared), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (d->shared == MAP_FAILED) {
		free(d);
		return NULL;
	}
	for (op = 0; op < FUSE_DAEMON_NR_OPCODES; op++)
		d->handlers[op] = fuse_daemon_default_handler(op);

	/* The root: add_node() makes it its own parent */
	if (fuse_daemon_add_dir(d, 0, "", 0755) != FUSE_ROOT_ID) {
		fuse_daemon_free(d);
		return NULL;
	}
	return d;
}

void fuse_daemon_free(struct fuse_daemon *d)
{
	size_t i;

	if (!d)
		return;
	if (d->mounted)
		fuse_daemon_umount(d);
	for (i = 0; i < d->nr_nodes; i++) {
		free(d->nodes[i]->name);
		free(d->nodes[i]->data);
		free(d->nodes[i]);
	}
	free(d->nodes);
	free(d->mountpoint);
	free(d->buf);
	if (d->fd >= 0)
		close(d->fd);
	munmap(d->shared, sizeof(*d->shared));
	free(d);
}

struct fuse_daemon_node *fuse_daemon_node(struct fuse_daemon *d,
					  __u64 nodeid)
{
	if (nodeid < 1 || nodeid > d->nr_nodes)
		return NULL;
	return d->nodes[nodeid - 1];
}

struct fuse_daemon_node *fuse_daemon_find_child(struct fuse_daemon *d,
						__u64 parent,
						const char *name)
{
	struct fuse_daemon_node *dir = fuse_daemon_node(d, parent);
	size_t i;

	if (!dir || !S_ISDIR(dir->mode))
		return NULL;
	if (!strcmp(name, "."))
		return dir;
	if (!strcmp(name, ".."))
		return fuse_daemon_node(d, dir->parent);
	/* The root (index 0) is nobody's child */
	for (i = 1; i < d->nr_nodes; i++) {
		if (d->nodes[i]->parent == parent &&
		    !strcmp(d->nodes[i]->name, name))
			return d->nodes[i];
	}
	return NULL;
}

__u64 fuse_daemon_lookup_path(struct fuse_daemon *d, const char *path)
{
	struct fuse_daemon_node *node = fuse_daemon_node(d, FUSE_ROOT_ID);
	char name[NAME_MAX + 1];
	size_t len;

	while (node && *path) {
		while (*path == '/')
			path++;
		len = strcspn(path, "/");
		if (!len)
			break;
		if (len > NAME_MAX)
			return 0;
		memcpy(name, path, len);
		name[len] = '\0';
		node = fuse_daemon_find_child(d, node->nodeid, name);
		path += len;
	}
	return node ? node->nodeid : 0;
}

static __u64 add_node(struct fuse_daemon *d, __u64 parent, const char *name,
		      mode_t mode, const void *data, size_t size)
{
	struct fuse_daemon_node *node, *dir = NULL;
	struct timespec now;

	if (d->mounted) {
		/* The serving child would not see the new node */
		errno = EBUSY;
		return 0;
	}
	if (d->nr_nodes) {
		dir = fuse_daemon_node(d, parent);
		if (!dir) {
			errno = ENOENT;
			return 0;
		}
		if (!S_ISDIR(dir->mode)) {
			errno = ENOTDIR;
			return 0;
		}
		if (!*name || strchr(name, '/') || !strcmp(name, ".") ||
		    !strcmp(name, "..")) {
			errno = EINVAL;
			return 0;
		}
		if (strlen(name) > NAME_MAX) {
			errno = ENAMETOOLONG;
			return 0;
		}
		if (fuse_daemon_find_child(d, parent, name)) {
			errno = EEXIST;
			return 0;
		}
	}
	if (d->nr_nodes == d->max_nodes) {
		size_t max = d->max_nodes ? 2 * d->max_nodes : 64;
		struct fuse_daemon_node **nodes;

		nodes = realloc(d->nodes, max * sizeof(*nodes));
		if (!nodes)
			return 0;
		d->nodes = nodes;
		d->max_nodes = max;
	}
	node = calloc(1, sizeof(*node));
	if (!node)
		return 0;
	node->name = strdup(name);
	node->data = malloc(size ? size : 1);
	if (!node->name || !node->data) {
		free(node->name);
		free(node->data);
		free(node);
		return 0;
	}
	if (size)
		memcpy(node->data, data, size);
	node->size = size;
	node->nodeid = d->nr_nodes + 1;
	node->parent = dir ? dir->nodeid : node->nodeid;
	node->mode = mode;
	node->nlink = S_ISDIR(mode) ? 2 : 1;
	node->uid = getuid();
	node->gid = getgid();
	clock_gettime(CLOCK_REALTIME, &now);
	node->atime = now;
	node->mtime = now;
	node->ctime = now;
	if (dir && S_ISDIR(mode))
		dir->nlink++;
	d->nodes[d->nr_nodes++] = node;
	return node->nodeid;
}

__u64 fuse_daemon_add_dir(struct fuse_daemon *d, __u64 parent,
			  const char *name, mode_t mode)
{
	return add_node(d, parent, name, S_IFDIR | (mode & 07777), NULL, 0);
}

__u64 fuse_daemon_add_file(struct fuse_daemon *d, __u64 parent,
			   const char *name, mode_t mode,
			   const void *data, size_t size)
{
	return add_node(d, parent, name, S_IFREG | (mode & 07777), data, size);
}

__u64 fuse_daemon_add_symlink(struct fuse_daemon *d, __u64 parent,
			      const char *name, const char *target)
{
	return add_node(d, parent, name, S_IFLNK | 0777, target,
			strlen(target));
}

void fuse_daemon_fill_attr(struct fuse_daemon *d,
			   const struct fuse_daemon_node *node,
			   struct fuse_attr *attr)
{
	(void)d;
	memset(attr, 0, sizeof(*attr));
	attr->ino = node->nodeid;
	attr->size = node->size;
	attr->blocks = (node->size + 511) / 512;
	attr->atime = node->atime.tv_sec;
	attr->mtime = node->mtime.tv_sec;
	attr->ctime = node->ctime.tv_sec;
	attr->atimensec = node->atime.tv_nsec;
	attr->mtimensec = node->mtime.tv_nsec;
	attr->ctimensec = node->ctime.tv_nsec;
	attr->mode = node->mode;
	attr->nlink = node->nlink;
	attr->uid = node->uid;
	attr->gid = node->gid;
	attr->blksize = FUSE_DAEMON_BLKSIZE;
}

void fuse_daemon_fill_entry(struct fuse_daemon *d,
			    const struct fuse_daemon_node *node,
			    struct fuse_entry_out *entry)
{
	memset(entry, 0, sizeof(*entry));
	entry->nodeid = node->nodeid;
	entry->entry_valid = d->entry_timeout_ms / 1000;
	entry->entry_valid_nsec = (d->entry_timeout_ms % 1000) * 1000000;
	entry->attr_valid = d->attr_timeout_ms / 1000;
	entry->attr_valid_nsec = (d->attr_timeout_ms % 1000) * 1000000;
	fuse_daemon_fill_attr(d, node, &entry->attr);
}

static void count_error(struct fuse_daemon *d)
{
	__atomic_fetch_add(&d->shared->errors, 1, __ATOMIC_SEQ_CST);
}

/* Returns 0, -ENODEV once unmounted, or another negative errno */
int fuse_daemon_read_request(struct fuse_daemon *d,
			     struct fuse_daemon_req *req)
{
	const struct fuse_in_header *hdr = (void *)d->buf;
	ssize_t n;

	do {
		n = read(d->fd, d->buf, d->bufsize);
		/* ENOENT: the request went away (interrupted) while read */
	} while (n < 0 && (errno == EINTR || errno == EAGAIN ||
			   errno == ENOENT));
	if (n < 0)
		return -errno;
	if ((size_t)n < sizeof(*hdr) || hdr->len != n) {
		count_error(d);
		return -EPROTO;
	}
	req->hdr = hdr;
	req->arg = hdr + 1;
	req->arglen = n - sizeof(*hdr);
	return 0;
}

/* The request's argument if it has at least size bytes, else NULL */
const void *fuse_daemon_req_arg(struct fuse_daemon *d,
				const struct fuse_daemon_req *req,
				size_t size)
{
	if (req->arglen < size) {
		count_error(d);
		return NULL;
	}
	return req->arg;
}

/* A NUL-terminated name at the start of arg (at offset off), or NULL */
static const char *req_name(struct fuse_daemon *d,
			    const struct fuse_daemon_req *req, size_t off)
{
	const char *name = (const char *)req->arg + off;

	if (req->arglen <= off || !memchr(name, '\0', req->arglen - off)) {
		count_error(d);
		return NULL;
	}
	return name;
}

static int send_reply(struct fuse_daemon *d, const struct fuse_daemon_req *req,
		      int error, const struct iovec *iov, int iovcnt)
{
	struct fuse_out_header out = {
		.error = error,
		.unique = req->hdr->unique,
	};
	struct iovec vec[8];
	size_t len = sizeof(out);
	ssize_t n;
	int i;

	if (d->replied || iovcnt < 0 || iovcnt >= 8) {
		count_error(d);
		return -EINVAL;
	}
	d->replied = true;
	vec[0].iov_base = &out;
	vec[0].iov_len = sizeof(out);
	for (i = 0; i < iovcnt; i++) {
		vec[i + 1] = iov[i];
		len += iov[i].iov_len;
	}
	out.len = len;
	n = writev(d->fd, vec, iovcnt + 1);
	if (n < 0) {
		/* ENOENT: the request was interrupted and is gone */
		if (errno == ENOENT)
			return 0;
		count_error(d);
		return -errno;
	}
	if ((size_t)n != len) {
		count_error(d);
		return -EIO;
	}
	return 0;
}

int fuse_daemon_reply_iov(struct fuse_daemon *d,
			  const struct fuse_daemon_req *req,
			  const struct iovec *iov, int iovcnt)
{
	return send_reply(d, req, 0, iov, iovcnt);
}

int fuse_daemon_reply(struct fuse_daemon *d,
		      const struct fuse_daemon_req *req,
		      const void *payload, size_t size)
{
	struct iovec iov = {
		.iov_base = (void *)payload,
		.iov_len = size,
	};

	return send_reply(d, req, 0, &iov, size ? 1 : 0);
}

int fuse_daemon_reply_err(struct fuse_daemon *d,
			  const struct fuse_daemon_req *req, int err)
{
	if (err > 0)
		err = -err;
	return send_reply(d, req, err, NULL, 0);
}

static struct fuse_daemon_node *req_node(struct fuse_daemon *d,
					 const struct fuse_daemon_req *req)
{
	return fuse_daemon_node(d, req->hdr->nodeid);
}

static int handle_init(struct fuse_daemon *d, const struct fuse_daemon_req *req)
{
	struct fuse_init_in in = { 0 };
	struct fuse_init_out out = { 0 };
	__u64 flags, offered;
	size_t size;

	if (!fuse_daemon_req_arg(d, req, offsetof(struct fuse_init_in, flags2)))
		return -EINVAL;
	memcpy(&in, req->arg, min_u64(req->arglen, sizeof(in)));
	d->shared->kernel_major = in.major;
	d->shared->kernel_minor = in.minor;
	if (in.major != FUSE_KERNEL_VERSION) {
		count_error(d);
		return -EPROTO;
	}

	offered = in.flags;
	if (in.flags & FUSE_INIT_EXT)
		offered |= (__u64)in.flags2 << 32;
	flags = offered & d->init_flags;

	out.major = FUSE_KERNEL_VERSION;
	out.minor = min_u64(in.minor, FUSE_KERNEL_MINOR_VERSION);
	out.max_readahead = in.max_readahead;
	out.flags = flags;
	out.flags2 = flags >> 32;
	if (out.flags2)
		out.flags |= FUSE_INIT_EXT;
	out.max_write = d->max_write;
	out.time_gran = 1;
#ifdef FUSE_PASSTHROUGH
	if (flags & FUSE_PASSTHROUGH)
		out.max_stack_depth = d->max_stack_depth;
#endif
	d->proto_minor = out.minor;
	d->shared->proto_minor = out.minor;

	if (out.minor < 5)
		size = FUSE_COMPAT_INIT_OUT_SIZE;
	else if (out.minor < 23)
		size = FUSE_COMPAT_22_INIT_OUT_SIZE;
	else
		size = sizeof(out);
	return fuse_daemon_reply(d, req, &out, size);
}

static int handle_lookup(struct fuse_daemon *d,
			 const struct fuse_daemon_req *req)
{
	struct fuse_daemon_node *dir = req_node(d, req), *node;
	const char *name = req_name(d, req, 0);
	struct fuse_entry_out out;

	if (!name)
		return -EINVAL;
	if (!dir)
		return -ESTALE;
	if (!S_ISDIR(dir->mode))
		return -ENOTDIR;
	node = fuse_daemon_find_child(d, dir->nodeid, name);
	if (!node)
		return -ENOENT;
	fuse_daemon_fill_entry(d, node, &out);
	node->nlookup++;
	return fuse_daemon_reply(d, req, &out, d->proto_minor < 9 ?
				 FUSE_COMPAT_ENTRY_OUT_SIZE : sizeof(out));
}

static void forget_one(struct fuse_daemon *d, __u64 nodeid, __u64 nlookup)
{
	struct fuse_daemon_node *node = fuse_daemon_node(d, nodeid);

	if (!node || node->nlookup < nlookup) {
		count_error(d);
		return;
	}
	node->nlookup -= nlookup;
}

/* FORGET and BATCH_FORGET get no reply */
static int handle_forget(struct fuse_daemon *d,
			 const struct fuse_daemon_req *req)
{
	const struct fuse_forget_in *in;

	in = fuse_daemon_req_arg(d, req, sizeof(*in));
	if (in)
		forget_one(d, req->hdr->nodeid, in->nlookup);
	return 0;
}

static int handle_batch_forget(struct fuse_daemon *d,
			       const struct fuse_daemon_req *req)
{
	const struct fuse_batch_forget_in *in;
	const struct fuse_forget_one *one;
	__u32 i;

	in = fuse_daemon_req_arg(d, req, sizeof(*in));
	if (!in)
		return 0;
	if (req->arglen < sizeof(*in) + (size_t)in->count * sizeof(*one)) {
		count_error(d);
		return 0;
	}
	one = (const void *)(in + 1);
	for (i = 0; i < in->count; i++)
		forget_one(d, one[i].nodeid, one[i].nlookup);
	return 0;
}

static int handle_getattr(struct fuse_daemon *d,
			  const struct fuse_daemon_req *req)
{
	struct fuse_daemon_node *node = req_node(d, req);
	struct fuse_attr_out out = { 0 };

	if (!node)
		return -ESTALE;
	out.attr_valid = d->attr_timeout_ms / 1000;
	out.attr_valid_nsec = (d->attr_timeout_ms % 1000) * 1000000;
	fuse_daemon_fill_attr(d, node, &out.attr);
	return fuse_daemon_reply(d, req, &out, d->proto_minor < 9 ?
				 FUSE_COMPAT_ATTR_OUT_SIZE : sizeof(out));
}

static int handle_readlink(struct fuse_daemon *d,
			   const struct fuse_daemon_req *req)
{
	struct fuse_daemon_node *node = req_node(d, req);

	if (!node)
		return -ESTALE;
	if (!S_ISLNK(node->mode))
		return -EINVAL;
	return fuse_daemon_reply(d, req, node->data, node->size);
}

static int reply_open(struct fuse_daemon *d, const struct fuse_daemon_req *req,
		      struct fuse_daemon_node *node)
{
	struct fuse_open_out out = {
		.fh = node->nodeid,
		.open_flags = d->fopen_flags,
	};

	return fuse_daemon_reply(d, req, &out, sizeof(out));
}

static int handle_open(struct fuse_daemon *d, const struct fuse_daemon_req *req)
{
	struct fuse_daemon_node *node = req_node(d, req);
	const struct fuse_open_in *in;

	in = fuse_daemon_req_arg(d, req, sizeof(*in));
	if (!in)
		return -EINVAL;
	if (!node)
		return -ESTALE;
	if (S_ISDIR(node->mode))
		return -EISDIR;
	/* The tree is read-only */
	if ((in->flags & O_ACCMODE) != O_RDONLY || (in->flags & O_TRUNC))
		return -EROFS;
	return reply_open(d, req, node);
}

static int handle_read(struct fuse_daemon *d, const struct fuse_daemon_req *req)
{
	struct fuse_daemon_node *node = req_node(d, req);
	const struct fuse_read_in *in;
	size_t size = 0;

	in = fuse_daemon_req_arg(d, req, sizeof(*in));
	if (!in)
		return -EINVAL;
	if (!node)
		return -ESTALE;
	if (S_ISDIR(node->mode))
		return -EISDIR;
	if (in->offset < node->size)
		size = min_u64(in->size, node->size - in->offset);
	return fuse_daemon_reply(d, req, node->data + (size ? in->offset : 0),
				 size);
}

/* Replies without payload: RELEASE, RELEASEDIR, FLUSH, DESTROY */
static int handle_ok(struct fuse_daemon *d, const struct fuse_daemon_req *req)
{
	return fuse_daemon_reply(d, req, NULL, 0);
}

static int handle_statfs(struct fuse_daemon *d,
			 const struct fuse_daemon_req *req)
{
	struct fuse_statfs_out out = { 0 };
	__u64 bytes = 0;
	size_t i;

	for (i = 0; i < d->nr_nodes; i++)
		bytes += d->nodes[i]->size;
	out.st.bsize = FUSE_DAEMON_BLKSIZE;
	out.st.frsize = FUSE_DAEMON_BLKSIZE;
	out.st.blocks = (bytes + FUSE_DAEMON_BLKSIZE - 1) / FUSE_DAEMON_BLKSIZE;
	out.st.files = d->nr_nodes;
	out.st.namelen = NAME_MAX;
	return fuse_daemon_reply(d, req, &out, d->proto_minor < 4 ?
				 FUSE_COMPAT_STATFS_SIZE : sizeof(out));
}

static int handle_getxattr(struct fuse_daemon *d,
			   const struct fuse_daemon_req *req)
{
	if (!fuse_daemon_req_arg(d, req, sizeof(struct fuse_getxattr_in)))
		return -EINVAL;
	return -ENODATA;
}

/* No extended attributes: an empty list */
static int handle_listxattr(struct fuse_daemon *d,
			    const struct fuse_daemon_req *req)
{
	const struct fuse_getxattr_in *in;
	struct fuse_getxattr_out out = { 0 };

	in = fuse_daemon_req_arg(d, req, sizeof(*in));
	if (!in)
		return -EINVAL;
	if (!in->size)
		return fuse_daemon_reply(d, req, &out, sizeof(out));
	return fuse_daemon_reply(d, req, NULL, 0);
}

static int handle_opendir(struct fuse_daemon *d,
			  const struct fuse_daemon_req *req)
{
	struct fuse_daemon_node *node = req_node(d, req);

	if (!node)
		return -ESTALE;
	if (!S_ISDIR(node->mode))
		return -ENOTDIR;
	return reply_open(d, req, node);
}

/* Appends a record if it fits in size bytes; returns false if not */
static bool add_dirent(char *buf, size_t size, size_t *used,
		       const struct fuse_daemon_node *node, const char *name,
		       __u64 off)
{
	size_t namelen = strlen(name);
	size_t reclen = FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET + namelen);
	struct fuse_dirent *de = (void *)(buf + *used);

	if (reclen > size - *used)
		return false;
	/* buf is zeroed, and so is the padding */
	de->ino = node->nodeid;
	de->off = off;
	de->namelen = namelen;
	de->type = (node->mode & S_IFMT) >> 12;
	memcpy(de->name, name, namelen);
	*used += reclen;
	return true;
}

/*
 * Entry i of a directory is ".", "..", then the children in the order they
 * were added; a record's offset is the index of the entry after it.
 */
static int handle_readdir(struct fuse_daemon *d,
			  const struct fuse_daemon_req *req)
{
	struct fuse_daemon_node *dir = req_node(d, req), *node;
	const struct fuse_read_in *in;
	size_t size, used = 0, i;
	__u64 idx = 2;
	char *buf;
	int ret;

	in = fuse_daemon_req_arg(d, req, sizeof(*in));
	if (!in)
		return -EINVAL;
	if (!dir)
		return -ESTALE;
	if (!S_ISDIR(dir->mode))
		return -ENOTDIR;
	size = min_u64(in->size, d->bufsize);
	buf = calloc(1, size + 1);
	if (!buf)
		return -ENOMEM;

	if (in->offset == 0 && !add_dirent(buf, size, &used, dir, ".", 1))
		goto out;
	if (in->offset <= 1 &&
	    !add_dirent(buf, size, &used, fuse_daemon_node(d, dir->parent),
			"..", 2))
		goto out;
	for (i = 1; i < d->nr_nodes; i++) {
		node = d->nodes[i];
		if (node->parent != dir->nodeid)
			continue;
		if (idx >= in->offset &&
		    !add_dirent(buf, size, &used, node, node->name, idx + 1))
			break;
		idx++;
	}
out:
	ret = fuse_daemon_reply(d, req, buf, used);
	free(buf);
	return ret;
}

static int handle_access(struct fuse_daemon *d,
			 const struct fuse_daemon_req *req)
{
	struct fuse_daemon_node *node = req_node(d, req);
	const struct fuse_access_in *in;

	in = fuse_daemon_req_arg(d, req, sizeof(*in));
	if (!in)
		return -EINVAL;
	if (!node)
		return -ESTALE;
	if (in->mask & W_OK)
		return -EROFS;
	return fuse_daemon_reply(d, req, NULL, 0);
}

fuse_daemon_handler_fn fuse_daemon_default_handler(__u32 opcode)
{
	switch (opcode) {
	case FUSE_INIT:
		return handle_init;
	case FUSE_LOOKUP:
		return handle_lookup;
	case FUSE_FORGET:
		return handle_forget;
	case FUSE_BATCH_FORGET:
		return handle_batch_forget;
	case FUSE_GETATTR:
		return handle_getattr;
	case FUSE_READLINK:
		return handle_readlink;
	case FUSE_OPEN:
		return handle_open;
	case FUSE_READ:
		return handle_read;
	case FUSE_STATFS:
		return handle_statfs;
	case FUSE_RELEASE:
	case FUSE_FLUSH:
	case FUSE_RELEASEDIR:
	case FUSE_DESTROY:
		return handle_ok;
	case FUSE_GETXATTR:
		return handle_getxattr;
	case FUSE_LISTXATTR:
		return handle_listxattr;
	case FUSE_OPENDIR:
		return handle_opendir;
	case FUSE_READDIR:
		return handle_readdir;
	case FUSE_ACCESS:
		return handle_access;
	default:
		return NULL;
	}
}

void fuse_daemon_set_handler(struct fuse_daemon *d, __u32 opcode,
			     fuse_daemon_handler_fn fn)
{
	if (opcode < FUSE_DAEMON_NR_OPCODES)
		d->handlers[opcode] = fn;
}

/* Counts a request of the daemon's filters; its handler is filter_handler */
static fuse_daemon_handler_fn count_filter(struct fuse_daemon *d, __u32 op)
{
	__u32 base = op & FUSE_DAEMON_OPCODE_MASK;

	if (base < FUSE_DAEMON_NR_OPCODES) {
		if (op & FUSE_DAEMON_PREFILTER)
			__atomic_fetch_add(&d->shared->pre[base], 1,
					   __ATOMIC_SEQ_CST);
		if (op & FUSE_DAEMON_POSTFILTER)
			__atomic_fetch_add(&d->shared->post[base], 1,
					   __ATOMIC_SEQ_CST);
	}
	return d->filter_handler;
}

/*
 * Counts the request, runs its handler and sends an error reply if asked;
 * counts it finished then (fuse_daemon_quiesce())
 */
int fuse_daemon_dispatch(struct fuse_daemon *d,
			 const struct fuse_daemon_req *req)
{
	__u32 op = req->hdr->opcode;
	fuse_daemon_handler_fn fn = NULL;
	int ret;

	__atomic_fetch_add(&d->shared->started, 1, __ATOMIC_SEQ_CST);
	if (op < FUSE_DAEMON_NR_OPCODES) {
		__atomic_fetch_add(&d->shared->count[op], 1, __ATOMIC_SEQ_CST);
		fn = d->handlers[op];
	} else {
		__atomic_fetch_add(&d->shared->count_other, 1,
				   __ATOMIC_SEQ_CST);
		if (op & FUSE_DAEMON_FILTER_BITS)
			fn = count_filter(d, op);
	}
	d->replied = false;
	/* Opcodes not implemented: the kernel knows -ENOSYS */
	ret = fn ? fn(d, req) : -ENOSYS;
	if (ret < 0) {
		if (d->replied)	/* The handler replied, then failed */
			count_error(d);
		else
			ret = fuse_daemon_reply_err(d, req, ret);
	} else {
		ret = 0;
	}
	__atomic_fetch_add(&d->shared->finished, 1, __ATOMIC_SEQ_CST);
	return ret;
}

/* Serves requests until unmounted (returns 0) or an error */
int fuse_daemon_serve(struct fuse_daemon *d)
{
	struct fuse_daemon_req req;
	int ret;

	for (;;) {
		ret = fuse_daemon_read_request(d, &req);
		if (ret == -ENODEV)
			return 0;
		if (ret == -EPROTO)
			continue;
		if (ret)
			return ret;
		fuse_daemon_dispatch(d, &req);
	}
}

int fuse_daemon_mount(struct fuse_daemon *d, const char *mountpoint,
		      const char *extra_opts)
{
	int fd;

	if (d->mounted)
		return -EBUSY;
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	return fuse_daemon_mount_fd(d, fd, mountpoint, extra_opts);
}

/*
 * fuse_daemon_mount() on a /dev/fuse fd the caller opened, e.g. with
 * other credentials.  The fd is the daemon's: it is closed here, in the
 * caller, whatever the outcome.
 */
int fuse_daemon_mount_fd(struct fuse_daemon *d, int fd,
			 const char *mountpoint, const char *extra_opts)
{
	struct fuse_daemon_node *root = fuse_daemon_node(d, FUSE_ROOT_ID);
	pid_t parent = getpid();
	char opts[512];
	pid_t pid;
	int ret;

	if (d->mounted) {
		close(fd);
		return -EBUSY;
	}
	if (d->max_write < 4096)
		d->max_write = 4096;
	free(d->buf);
	d->bufsize = d->max_write + FUSE_DAEMON_BUF_EXTRA;
	d->buf = malloc(d->bufsize);
	free(d->mountpoint);
	d->mountpoint = strdup(mountpoint);
	if (!d->buf || !d->mountpoint) {
		close(fd);
		return -ENOMEM;
	}

	ret = snprintf(opts, sizeof(opts),
		       "fd=%d,rootmode=%o,user_id=%u,group_id=%u%s%s",
		       fd, root->mode & S_IFMT, getuid(), getgid(),
		       extra_opts && *extra_opts ? "," : "",
		       extra_opts ? extra_opts : "");
	if (ret < 0 || (size_t)ret >= sizeof(opts)) {
		close(fd);
		return -E2BIG;
	}
	if (mount("fuse_test", mountpoint, "fuse", MS_NOSUID | MS_NODEV,
		  opts)) {
		ret = -errno;
		close(fd);
		return ret;
	}

	/*
	 * The kernel queues FUSE_INIT and mount(2) returns without waiting
	 * for the reply: the first access to the mount blocks until the
	 * daemon answers.  So fork the server now, before anything touches
	 * the mountpoint.
	 */
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		umount2(mountpoint, MNT_DETACH);
		close(fd);
		return ret;
	}
	if (!pid) {
		/* Do not outlive the test, nor keep its mount alive */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(2);
		d->fd = fd;
		_exit(fuse_daemon_serve(d) ? 1 : 0);
	}
	/*
	 * Only the child holds the connection open: should it die, the
	 * connection is aborted rather than requests hanging.
	 */
	close(fd);
	d->pid = pid;
	d->mounted = true;
	return 0;
}

static int wait_child(pid_t pid, unsigned int timeout_ms, int *status)
{
	struct timespec ts = { 0, 1000000 };
	unsigned int waited = 0;
	pid_t ret;

	for (;;) {
		ret = waitpid(pid, status, WNOHANG);
		if (ret == pid)
			return 0;
		if (ret < 0 && errno != EINTR)
			return -errno;
		if (waited++ >= timeout_ms)
			return -ETIMEDOUT;
		nanosleep(&ts, NULL);
	}
}

/*
 * Unmounts and reaps the serving child.  Returns its exit status (0 when it
 * saw the unmount and quit), 128 + signal if it was killed, or a negative
 * errno if unmounting failed.  Should the mount be busy, it is detached and
 * the child killed after a while.
 */
int fuse_daemon_umount(struct fuse_daemon *d)
{
	int ret = 0, status = 0;

	if (!d->mounted)
		return d->exit_status;
	if (umount2(d->mountpoint, 0)) {
		ret = -errno;
		umount2(d->mountpoint, MNT_DETACH);
	}
	if (wait_child(d->pid, FUSE_DAEMON_UMOUNT_WAIT_MS, &status)) {
		kill(d->pid, SIGKILL);
		if (waitpid(d->pid, &status, 0) != d->pid)
			status = 0;
		if (!ret)
			ret = -ETIMEDOUT;
	}
	if (!ret) {
		if (WIFEXITED(status))
			ret = WEXITSTATUS(status);
		else if (WIFSIGNALED(status))
			ret = 128 + WTERMSIG(status);
	}
	d->mounted = false;
	d->pid = -1;
	d->exit_status = ret;
	return ret;
}

unsigned long fuse_daemon_count(struct fuse_daemon *d, __u32 opcode)
{
	if (opcode >= FUSE_DAEMON_NR_OPCODES)
		return __atomic_load_n(&d->shared->count_other,
				       __ATOMIC_SEQ_CST);
	return __atomic_load_n(&d->shared->count[opcode], __ATOMIC_SEQ_CST);
}

/*
 * Requests of the daemon's filters seen: @opcode is the operation's with
 * FUSE_DAEMON_PREFILTER or FUSE_DAEMON_POSTFILTER
 */
unsigned long fuse_daemon_filter_count(struct fuse_daemon *d, __u32 opcode)
{
	__u32 base = opcode & FUSE_DAEMON_OPCODE_MASK;

	if (base >= FUSE_DAEMON_NR_OPCODES)
		return 0;
	if (opcode & FUSE_DAEMON_PREFILTER)
		return __atomic_load_n(&d->shared->pre[base],
				       __ATOMIC_SEQ_CST);
	if (opcode & FUSE_DAEMON_POSTFILTER)
		return __atomic_load_n(&d->shared->post[base],
				       __ATOMIC_SEQ_CST);
	return 0;
}

/* Requests dispatched so far, of every opcode */
unsigned long fuse_daemon_started(struct fuse_daemon *d)
{
	return __atomic_load_n(&d->shared->started, __ATOMIC_SEQ_CST);
}

/*
 * Waits up to @timeout_ms ms until the daemon finished every request it
 * began (its handler returned, the error reply sent); false if it did not
 */
bool fuse_daemon_quiesce(struct fuse_daemon *d, unsigned int timeout_ms)
{
	struct timespec ts = { 0, 1000000 };
	unsigned int waited = 0;

	while (__atomic_load_n(&d->shared->finished, __ATOMIC_SEQ_CST) !=
	       fuse_daemon_started(d)) {
		if (waited++ >= timeout_ms)
			return false;
		nanosleep(&ts, NULL);
	}
	return true;
}

/* Waits until at least min requests of opcode were seen */
bool fuse_daemon_wait_count(struct fuse_daemon *d, __u32 opcode,
			    unsigned long min, unsigned int timeout_ms)
{
	struct timespec ts = { 0, 1000000 };
	unsigned int waited = 0;

	while (fuse_daemon_count(d, opcode) < min) {
		if (waited++ >= timeout_ms)
			return false;
		nanosleep(&ts, NULL);
	}
	return true;
}
