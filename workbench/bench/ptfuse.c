// SPDX-License-Identifier: GPL-2.0
/*
 * ptfuse: a passthrough FUSE daemon on the raw /dev/fuse protocol, for
 * make bench.  It mirrors a lower directory the way libfuse's
 * passthrough_ll does (one O_PATH descriptor per inode, *at() calls,
 * READDIRPLUS, entry and attribute timeouts of one second, no writeback
 * cache, no xattrs), served by a few threads reading the device.
 *
 *   ptfuse [-bpv] [-t THREADS] [-T TIMEOUT] [-n NAME] [-o OPTS] LOWER MOUNTPOINT
 *
 *   -b   FUSE-BPF: each LOOKUP reply gives the node its lower descriptor
 *        as backing (FUSE_ENTRY_BACKING, sent with the
 *        FUSE_DEV_IOC_BPF_RESPONSE ioctl), and the kernel serves the node
 *        and everything below it; plain READDIR, so that no node comes
 *        from READDIRPLUS without a backing.  Needs CAP_SYS_ADMIN.
 *   -p   6.12 upstream passthrough: regular files are opened with
 *        FOPEN_PASSTHROUGH on a backing id from FUSE_DEV_IOC_BACKING_OPEN,
 *        so reads, writes and mmap go to the lower file in the kernel;
 *        everything else still comes here
 *   -t   threads serving requests (default 2)
 *   -T   entry and attribute timeout in seconds (default 1.0)
 *   -v   at unmount, print to stderr how many requests of each opcode came
 *   -n   the mount's source, as /proc/mounts shows it (default "ptfuse")
 *   -o   more FUSE mount options for the kernel (default_permissions, ...)
 *
 * It mounts, forks, prints the serving process's pid and returns; the
 * server exits when the filesystem is unmounted.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fuse_bpf_reply.h"	/* samples/fuse: the reply library */

#ifndef FUSE_PASSTHROUGH
#error "needs the 6.12 uapi headers (FUSE_PASSTHROUGH): build with -isystem <build>/usr/include"
#endif

#define MAX_WRITE	(1024 * 1024)
#define BUFSZ		(MAX_WRITE + 4096)
#define HASH		65536

struct node {
	struct node *next;
	dev_t dev;
	ino_t ino;
	int fd;			/* O_PATH, O_NOFOLLOW */
	uint64_t nlookup;
	int backing_id;		/* -p: while the node has open files */
	int nopen;
};

struct dirh {
	pthread_mutex_t lock;
	int fd;
	off_t off;		/* offset of the next entry in buf */
	int bpos, blen;
	char buf[32768];
};

static int devfd, passthrough, backing, verbose, nthreads = 2;
static unsigned long counts[64];
static double timeout = 1.0;
static struct node root;
static struct node *table[HASH];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static struct node *node_of(uint64_t nodeid)
{
	return nodeid == FUSE_ROOT_ID ? &root : (struct node *)(uintptr_t)nodeid;
}

static uint64_t id_of(struct node *n)
{
	return n == &root ? FUSE_ROOT_ID : (uint64_t)(uintptr_t)n;
}

static unsigned int hash(dev_t dev, ino_t ino)
{
	return (ino ^ (ino >> 16) ^ dev) % HASH;
}

static void procpath(char *buf, int fd)
{
	snprintf(buf, 64, "/proc/self/fd/%d", fd);
}

static int reply(uint64_t unique, int err, const void *data, size_t len)
{
	struct fuse_out_header oh = {
		.len = sizeof(oh) + (err ? 0 : len),
		.error = -err,
		.unique = unique,
	};
	struct iovec iov[2] = {
		{ &oh, sizeof(oh) },
		{ (void *)data, err ? 0 : len },
	};

	if (writev(devfd, iov, 2) < 0 && errno != ENOENT)
		perror("ptfuse: writev");
	return 0;
}

static int reply2(uint64_t unique, const void *a, size_t alen, const void *b, size_t blen)
{
	struct fuse_out_header oh = {
		.len = sizeof(oh) + alen + blen,
		.unique = unique,
	};
	struct iovec iov[3] = { { &oh, sizeof(oh) }, { (void *)a, alen }, { (void *)b, blen } };

	if (writev(devfd, iov, 3) < 0 && errno != ENOENT)
		perror("ptfuse: writev");
	return 0;
}

static void set_valid(uint64_t *sec, uint32_t *nsec)
{
	*sec = (uint64_t)timeout;
	*nsec = (uint32_t)((timeout - (uint64_t)timeout) * 1e9);
}

/* Look name up below parent and count one lookup of its node. */
static int do_lookup(struct node *parent, const char *name, struct fuse_entry_out *e)
{
	struct stat st;
	struct node *n;
	int fd;

	memset(e, 0, sizeof(*e));
	fd = openat(parent->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (fstatat(fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW)) {
		int err = errno;

		close(fd);
		return err;
	}
	pthread_mutex_lock(&lock);
	for (n = table[hash(st.st_dev, st.st_ino)]; n; n = n->next)
		if (n->dev == st.st_dev && n->ino == st.st_ino)
			break;
	if (n) {
		close(fd);
	} else {
		n = calloc(1, sizeof(*n));
		n->dev = st.st_dev;
		n->ino = st.st_ino;
		n->fd = fd;
		n->backing_id = -1;
		n->next = table[hash(st.st_dev, st.st_ino)];
		table[hash(st.st_dev, st.st_ino)] = n;
	}
	n->nlookup++;
	pthread_mutex_unlock(&lock);
	e->nodeid = id_of(n);
	set_valid(&e->entry_valid, &e->entry_valid_nsec);
	set_valid(&e->attr_valid, &e->attr_valid_nsec);
	fuse_bpf_fill_attr(&e->attr, &st);
	return 0;
}

static void forget(uint64_t nodeid, uint64_t count)
{
	struct node *n = node_of(nodeid), **p;

	if (n == &root)
		return;
	pthread_mutex_lock(&lock);
	n->nlookup -= count < n->nlookup ? count : n->nlookup;
	if (!n->nlookup) {
		for (p = &table[hash(n->dev, n->ino)]; *p != n; p = &(*p)->next)
			;
		*p = n->next;
		close(n->fd);
		free(n);
	}
	pthread_mutex_unlock(&lock);
}

/* -b: the entry, and the node's descriptor as its backing */
static int reply_backing(uint64_t unique, const struct fuse_entry_out *e)
{
	struct fuse_bpf_reply r;
	int err;

	fuse_bpf_reply_init(&r, unique, e);
	err = fuse_bpf_reply_backing_fd(&r, node_of(e->nodeid)->fd, 0);
	if (!err)
		err = fuse_bpf_reply_send(devfd, &r);
	if (err && err != -ENOENT)
		fprintf(stderr, "ptfuse: FUSE-BPF reply: %s\n", strerror(-err));
	return 0;
}

static int reply_entry(uint64_t unique, struct node *parent, const char *name)
{
	struct fuse_entry_out e;
	int err = do_lookup(parent, name, &e);

	if (!err && backing)
		return reply_backing(unique, &e);
	return reply(unique, err, &e, sizeof(e));
}

static int reply_attr(uint64_t unique, int fd, int use_fd)
{
	struct fuse_attr_out out = { 0 };
	struct stat st;
	int err = 0;

	if (use_fd ? fstat(fd, &st) : fstatat(fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW))
		err = errno;
	set_valid(&out.attr_valid, &out.attr_valid_nsec);
	fuse_bpf_fill_attr(&out.attr, &st);
	return reply(unique, err, &out, sizeof(out));
}

static int do_setattr(struct node *n, struct fuse_setattr_in *in)
{
	int fh = (in->valid & FATTR_FH) ? (int)in->fh : -1;
	char path[64];

	procpath(path, n->fd);
	if (in->valid & FATTR_MODE)
		if (fh >= 0 ? fchmod(fh, in->mode) : fchmodat(AT_FDCWD, path, in->mode, 0))
			return errno;
	if (in->valid & (FATTR_UID | FATTR_GID)) {
		uid_t uid = (in->valid & FATTR_UID) ? in->uid : (uid_t)-1;
		gid_t gid = (in->valid & FATTR_GID) ? in->gid : (gid_t)-1;

		if (fchownat(n->fd, "", uid, gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW))
			return errno;
	}
	if (in->valid & FATTR_SIZE)
		if (fh >= 0 ? ftruncate(fh, in->size) : truncate(path, in->size))
			return errno;
	if (in->valid & (FATTR_ATIME | FATTR_MTIME)) {
		struct timespec tv[2] = {
			{ .tv_nsec = UTIME_OMIT }, { .tv_nsec = UTIME_OMIT },
		};
		struct stat st;

		if (in->valid & FATTR_ATIME_NOW)
			tv[0].tv_nsec = UTIME_NOW;
		else if (in->valid & FATTR_ATIME)
			tv[0] = (struct timespec){ in->atime, in->atimensec };
		if (in->valid & FATTR_MTIME_NOW)
			tv[1].tv_nsec = UTIME_NOW;
		else if (in->valid & FATTR_MTIME)
			tv[1] = (struct timespec){ in->mtime, in->mtimensec };
		if (fh >= 0) {
			if (futimens(fh, tv))
				return errno;
		} else if (!fstatat(n->fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) &&
			   S_ISLNK(st.st_mode)) {
			if (utimensat(n->fd, "", tv, AT_EMPTY_PATH))
				return errno == EINVAL ? EPERM : errno;
		} else if (utimensat(AT_FDCWD, path, tv, 0)) {
			return errno;
		}
	}
	return 0;
}

static void backing_get(struct node *n, int fd, struct fuse_open_out *out)
{
	struct fuse_backing_map map = { .fd = fd };
	int id = -1;

	pthread_mutex_lock(&lock);
	if (n->backing_id < 0) {
		n->backing_id = ioctl(devfd, FUSE_DEV_IOC_BACKING_OPEN, &map);
		if (n->backing_id < 0)
			perror("ptfuse: FUSE_DEV_IOC_BACKING_OPEN");
	}
	if (n->backing_id > 0) {
		id = n->backing_id;
		n->nopen++;
	}
	pthread_mutex_unlock(&lock);
	if (id > 0) {
		out->open_flags |= FOPEN_PASSTHROUGH;
		out->backing_id = id;
	}
}

static void backing_put(struct node *n)
{
	pthread_mutex_lock(&lock);
	if (n->nopen && !--n->nopen) {
		uint32_t id = n->backing_id;

		if (ioctl(devfd, FUSE_DEV_IOC_BACKING_CLOSE, &id))
			perror("ptfuse: FUSE_DEV_IOC_BACKING_CLOSE");
		n->backing_id = -1;
	}
	pthread_mutex_unlock(&lock);
}

static int do_readdir(uint64_t unique, struct node *n, struct fuse_read_in *in,
		      char *out, int plus)
{
	struct dirh *d = (struct dirh *)(uintptr_t)in->fh;
	size_t len = 0;
	int err = 0;

	pthread_mutex_lock(&d->lock);
	if ((off_t)in->offset != d->off) {
		if (lseek(d->fd, in->offset, SEEK_SET) < 0) {
			err = errno;
			goto out;
		}
		d->off = in->offset;
		d->bpos = d->blen = 0;
	}
	for (;;) {
		struct dirent64 *de;
		struct fuse_dirent *fd;
		size_t nlen, size;

		if (d->bpos >= d->blen) {
			long r = syscall(SYS_getdents64, d->fd, d->buf, sizeof(d->buf));

			if (r < 0) {
				err = errno;
				break;
			}
			if (!r)
				break;
			d->blen = r;
			d->bpos = 0;
		}
		de = (void *)(d->buf + d->bpos);
		nlen = strlen(de->d_name);
		size = plus ? FUSE_DIRENTPLUS_SIZE(&(struct fuse_direntplus){ .dirent.namelen = nlen })
			    : FUSE_DIRENT_SIZE(&(struct fuse_dirent){ .namelen = nlen });
		if (len + size > in->size)
			break;
		if (plus) {
			struct fuse_direntplus *dp = (void *)(out + len);

			memset(&dp->entry_out, 0, sizeof(dp->entry_out));
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
				err = do_lookup(n, de->d_name, &dp->entry_out);
				if (err)
					break;
			} else {
				dp->entry_out.attr.ino = de->d_ino;
				dp->entry_out.attr.mode = de->d_type << 12;
			}
			fd = &dp->dirent;
		} else {
			fd = (void *)(out + len);
		}
		fd->ino = de->d_ino;
		fd->off = de->d_off;
		fd->namelen = nlen;
		fd->type = de->d_type;
		memcpy(fd->name, de->d_name, nlen);
		memset(fd->name + nlen, 0, size - (fd->name - (out + len)) - nlen);
		len += size;
		d->bpos += de->d_reclen;
		d->off = de->d_off;
	}
out:
	pthread_mutex_unlock(&d->lock);
	/* Entries already packed are delivered; the error comes next time. */
	return reply(unique, len ? 0 : err, out, len);
}

static int do_init(uint64_t unique, struct fuse_init_in *in)
{
	struct fuse_init_out out = { 0 };
	uint64_t want = FUSE_ASYNC_READ | FUSE_BIG_WRITES | FUSE_MAX_PAGES |
			FUSE_PARALLEL_DIROPS | FUSE_AUTO_INVAL_DATA |
			FUSE_ATOMIC_O_TRUNC | FUSE_DO_READDIRPLUS |
			FUSE_READDIRPLUS_AUTO | FUSE_INIT_EXT;
	uint64_t have = in->flags;

	if (in->flags & FUSE_INIT_EXT)
		have |= (uint64_t)in->flags2 << 32;
	if (passthrough || backing)
		want |= FUSE_PASSTHROUGH;
	if (backing)
		want &= ~(uint64_t)(FUSE_DO_READDIRPLUS | FUSE_READDIRPLUS_AUTO);
	want &= have;
	if (passthrough && !(want & FUSE_PASSTHROUGH)) {
		fprintf(stderr, "ptfuse: the kernel does not offer FUSE_PASSTHROUGH\n");
		passthrough = 0;
	}
	if (backing && !(want & FUSE_PASSTHROUGH))
		fprintf(stderr, "ptfuse: no FUSE_PASSTHROUGH: the kernel will refuse backings\n");
	out.major = FUSE_KERNEL_VERSION;
	out.minor = FUSE_KERNEL_MINOR_VERSION;
	out.max_readahead = in->max_readahead;
	out.flags = (uint32_t)want;
	out.flags2 = (uint32_t)(want >> 32);
	out.max_write = MAX_WRITE;
	out.max_pages = MAX_WRITE / 4096;
	out.time_gran = 1;
	if (passthrough || backing)
		out.max_stack_depth = 1;
	return reply(unique, 0, &out, sizeof(out));
}

static int handle(struct fuse_in_header *in, char *out)
{
	void *arg = in + 1;
	struct node *n = node_of(in->nodeid);
	uint64_t u = in->unique;
	char path[64];

	if (verbose)
		__atomic_fetch_add(&counts[in->opcode & 63], 1, __ATOMIC_RELAXED);
	switch (in->opcode) {
	case FUSE_INIT:
		return do_init(u, arg);
	case FUSE_DESTROY:
		return reply(u, 0, NULL, 0);
	case FUSE_INTERRUPT:
		return 0;
	case FUSE_FORGET:
		forget(in->nodeid, ((struct fuse_forget_in *)arg)->nlookup);
		return 0;
	case FUSE_BATCH_FORGET: {
		struct fuse_batch_forget_in *b = arg;
		struct fuse_forget_one *f = (void *)(b + 1);

		for (uint32_t i = 0; i < b->count; i++)
			forget(f[i].nodeid, f[i].nlookup);
		return 0;
	}
	case FUSE_LOOKUP:
		return reply_entry(u, n, arg);
	case FUSE_GETATTR: {
		struct fuse_getattr_in *g = arg;

		if (g->getattr_flags & FUSE_GETATTR_FH)
			return reply_attr(u, g->fh, 1);
		return reply_attr(u, n->fd, 0);
	}
	case FUSE_SETATTR: {
		struct fuse_setattr_in *s = arg;
		int err = do_setattr(n, s);

		if (err)
			return reply(u, err, NULL, 0);
		return reply_attr(u, n->fd, 0);
	}
	case FUSE_READLINK: {
		ssize_t l = readlinkat(n->fd, "", out, 4096);

		return reply(u, l < 0 ? errno : 0, out, l);
	}
	case FUSE_SYMLINK: {
		const char *name = arg, *target = name + strlen(name) + 1;

		if (symlinkat(target, n->fd, name))
			return reply(u, errno, NULL, 0);
		return reply_entry(u, n, name);
	}
	case FUSE_MKNOD: {
		struct fuse_mknod_in *m = arg;
		const char *name = (void *)(m + 1);

		if (mknodat(n->fd, name, m->mode, m->rdev))
			return reply(u, errno, NULL, 0);
		return reply_entry(u, n, name);
	}
	case FUSE_MKDIR: {
		struct fuse_mkdir_in *m = arg;
		const char *name = (void *)(m + 1);

		if (mkdirat(n->fd, name, m->mode))
			return reply(u, errno, NULL, 0);
		return reply_entry(u, n, name);
	}
	case FUSE_UNLINK:
	case FUSE_RMDIR:
		return reply(u, unlinkat(n->fd, arg, in->opcode == FUSE_RMDIR ? AT_REMOVEDIR : 0)
			     ? errno : 0, NULL, 0);
	case FUSE_RENAME:
	case FUSE_RENAME2: {
		unsigned int flags = 0;
		uint64_t newdir;
		const char *old, *new;

		if (in->opcode == FUSE_RENAME) {
			newdir = ((struct fuse_rename_in *)arg)->newdir;
			old = (char *)arg + sizeof(struct fuse_rename_in);
		} else {
			newdir = ((struct fuse_rename2_in *)arg)->newdir;
			flags = ((struct fuse_rename2_in *)arg)->flags;
			old = (char *)arg + sizeof(struct fuse_rename2_in);
		}
		new = old + strlen(old) + 1;
		return reply(u, renameat2(n->fd, old, node_of(newdir)->fd, new, flags)
			     ? errno : 0, NULL, 0);
	}
	case FUSE_LINK: {
		struct fuse_link_in *l = arg;
		const char *name = (void *)(l + 1);

		procpath(path, node_of(l->oldnodeid)->fd);
		if (linkat(AT_FDCWD, path, n->fd, name, AT_SYMLINK_FOLLOW))
			return reply(u, errno, NULL, 0);
		return reply_entry(u, n, name);
	}
	case FUSE_OPEN: {
		struct fuse_open_in *o = arg;
		struct fuse_open_out oo = { 0 };
		int fd;

		procpath(path, n->fd);
		fd = open(path, (o->flags & ~(O_NOFOLLOW | O_CREAT | O_EXCL | O_NOCTTY)) | O_CLOEXEC);
		if (fd < 0)
			return reply(u, errno, NULL, 0);
		oo.fh = fd;
		if (passthrough)
			backing_get(n, fd, &oo);
		return reply(u, 0, &oo, sizeof(oo));
	}
	case FUSE_CREATE: {
		struct fuse_create_in *c = arg;
		const char *name = (void *)(c + 1);
		struct fuse_entry_out e;
		struct fuse_open_out oo = { 0 };
		int fd, err;

		fd = openat(n->fd, name, ((c->flags | O_CREAT) & ~O_NOFOLLOW) | O_CLOEXEC, c->mode);
		if (fd < 0)
			return reply(u, errno, NULL, 0);
		err = do_lookup(n, name, &e);
		if (err) {
			close(fd);
			return reply(u, err, NULL, 0);
		}
		oo.fh = fd;
		if (passthrough)
			backing_get(node_of(e.nodeid), fd, &oo);
		return reply2(u, &e, sizeof(e), &oo, sizeof(oo));
	}
	case FUSE_READ: {
		struct fuse_read_in *r = arg;
		ssize_t l = pread(r->fh, out, r->size, r->offset);

		return reply(u, l < 0 ? errno : 0, out, l);
	}
	case FUSE_WRITE: {
		struct fuse_write_in *w = arg;
		struct fuse_write_out wo = { 0 };
		ssize_t l = pwrite(w->fh, w + 1, w->size, w->offset);

		wo.size = l;
		return reply(u, l < 0 ? errno : 0, &wo, sizeof(wo));
	}
	case FUSE_STATFS: {
		struct fuse_statfs_out so = { 0 };
		struct statvfs s;

		if (fstatvfs(n->fd, &s))
			return reply(u, errno, NULL, 0);
		so.st.blocks = s.f_blocks;
		so.st.bfree = s.f_bfree;
		so.st.bavail = s.f_bavail;
		so.st.files = s.f_files;
		so.st.ffree = s.f_ffree;
		so.st.bsize = s.f_bsize;
		so.st.namelen = s.f_namemax;
		so.st.frsize = s.f_frsize;
		return reply(u, 0, &so, sizeof(so));
	}
	case FUSE_RELEASE: {
		struct fuse_release_in *r = arg;

		close(r->fh);
		if (passthrough)
			backing_put(n);
		return reply(u, 0, NULL, 0);
	}
	case FUSE_FLUSH:
		return reply(u, close(dup(((struct fuse_flush_in *)arg)->fh)) ? errno : 0, NULL, 0);
	case FUSE_FSYNC: {
		struct fuse_fsync_in *f = arg;

		return reply(u, ((f->fsync_flags & 1) ? fdatasync(f->fh) : fsync(f->fh))
			     ? errno : 0, NULL, 0);
	}
	case FUSE_FSYNCDIR:
		return reply(u, 0, NULL, 0);
	case FUSE_OPENDIR: {
		struct fuse_open_out oo = { 0 };
		struct dirh *d = calloc(1, sizeof(*d));

		d->fd = openat(n->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (d->fd < 0) {
			int err = errno;

			free(d);
			return reply(u, err, NULL, 0);
		}
		pthread_mutex_init(&d->lock, NULL);
		oo.fh = (uintptr_t)d;
		return reply(u, 0, &oo, sizeof(oo));
	}
	case FUSE_READDIR:
	case FUSE_READDIRPLUS:
		return do_readdir(u, n, arg, out, in->opcode == FUSE_READDIRPLUS);
	case FUSE_RELEASEDIR: {
		struct dirh *d = (struct dirh *)(uintptr_t)((struct fuse_release_in *)arg)->fh;

		close(d->fd);
		pthread_mutex_destroy(&d->lock);
		free(d);
		return reply(u, 0, NULL, 0);
	}
	case FUSE_FALLOCATE: {
		struct fuse_fallocate_in *f = arg;

		return reply(u, fallocate(f->fh, f->mode, f->offset, f->length) ? errno : 0,
			     NULL, 0);
	}
	default:
		/* access, xattrs, locks, ioctl, poll, lseek, copy_file_range...:
		 * as passthrough_ll without its options, the kernel does without.
		 */
		return reply(u, ENOSYS, NULL, 0);
	}
}

static void *serve(void *unused)
{
	char *in = malloc(BUFSZ), *out = malloc(BUFSZ);

	for (;;) {
		ssize_t r = read(devfd, in, BUFSZ);

		if (r < 0) {
			if (errno == EINTR || errno == EAGAIN || errno == ENOENT)
				continue;
			if (errno == ENODEV) {	/* unmounted */
				static int once;

				if (__atomic_exchange_n(&once, 1, __ATOMIC_SEQ_CST))
					pause();	/* another thread exits */
				for (int i = 0; verbose && i < 64; i++)
					if (counts[i])
						fprintf(stderr, "ptfuse: opcode %d: %lu\n", i, counts[i]);
				exit(0);
			}
			perror("ptfuse: read /dev/fuse");
			exit(1);
		}
		handle((struct fuse_in_header *)in, out);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *name = "ptfuse", *more = NULL;
	char opts[1024];
	pthread_t *th;
	pid_t pid;
	int c;

	while ((c = getopt(argc, argv, "bpvt:T:n:o:")) != -1) {
		switch (c) {
		case 'b': backing = 1; break;
		case 'p': passthrough = 1; break;
		case 'v': verbose = 1; break;
		case 't': nthreads = atoi(optarg); break;
		case 'T': timeout = atof(optarg); break;
		case 'n': name = optarg; break;
		case 'o': more = optarg; break;
		default: goto usage;
		}
	}
	if (argc - optind != 2 || nthreads < 1)
		goto usage;
	/* One descriptor per known inode, as passthrough_ll: raise the limit. */
	{
		struct rlimit rl;
		FILE *f = fopen("/proc/sys/fs/nr_open", "r");
		unsigned long nr = 0;

		if (f && fscanf(f, "%lu", &nr) == 1) {
			rl.rlim_cur = rl.rlim_max = nr;
			if (setrlimit(RLIMIT_NOFILE, &rl) && !getrlimit(RLIMIT_NOFILE, &rl)) {
				rl.rlim_cur = rl.rlim_max;
				setrlimit(RLIMIT_NOFILE, &rl);
			}
		}
		if (f)
			fclose(f);
	}
	root.fd = open(argv[optind], O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root.fd < 0) {
		perror(argv[optind]);
		return 1;
	}
	root.nlookup = 1;
	root.backing_id = -1;
	devfd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (devfd < 0) {
		perror("/dev/fuse");
		return 1;
	}
	if (snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other%s%s",
		     devfd, more ? "," : "", more ? more : "") >= (int)sizeof(opts)) {
		fprintf(stderr, "ptfuse: -o: too long\n");
		return 2;
	}
	if (mount(name, argv[optind + 1], "fuse", 0, opts)) {
		perror("mount");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid) {
		printf("%d\n", pid);
		return 0;
	}
	/* Let the caller's $(ptfuse ...) see the end of our output. */
	c = open("/dev/null", O_RDWR);
	dup2(c, 0);
	dup2(c, 1);
	close(c);
	setsid();
	th = calloc(nthreads, sizeof(*th));
	for (int i = 1; i < nthreads; i++)
		pthread_create(&th[i], NULL, serve, NULL);
	serve(NULL);
	return 0;
usage:
	fprintf(stderr, "usage: ptfuse [-bpv] [-t THREADS] [-T TIMEOUT] [-n NAME] [-o OPTS] LOWER MOUNTPOINT\n");
	return 2;
}
