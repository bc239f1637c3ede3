// SPDX-License-Identifier: GPL-2.0
/*
 * fusebpf_viewd: a view of a directory whose top-level entries each caller
 * sees or not, by a policy file, and whose contents the kernel serves.
 *
 *   fusebpf_viewd LOWER MOUNTPOINT POLICYFILE
 *
 * Mounts FUSE at MOUNTPOINT (as root: FUSE-BPF backings need CAP_SYS_ADMIN)
 * and serves it in the foreground until it is unmounted, then exits 0.
 *
 * POLICYFILE has lines "UID NAME...": the top-level entries NAME of LOWER
 * that the user UID sees; UID "*" is everyone.  Nothing else is visible,
 * to root neither.  '#' starts a comment.  The file is read again when its
 * mtime (or size, or inode) changes; an unreadable policy hides everything.
 *
 * The root directory is the daemon's: it answers LOOKUP of a top-level name
 * for the calling uid (fuse_in_header.uid) with ENOENT, or with the lower
 * entry as the node's FUSE-BPF backing (fuse_bpf_reply.h).  The kernel then
 * serves that node and everything below it; the daemon never hears of
 * them.  entry_valid is 0, so the kernel asks again at each path walk
 * through the name, for the caller of that walk, and drops the name when
 * the answer is ENOENT.  A file or directory already open (or a cwd) keeps
 * working after the policy hides its name.  The root's listing (plain
 * READDIR) is that of LOWER less the names hidden from the uid that opened
 * the directory.  Names cannot be made or removed in the root (EROFS).
 *
 * LOWER and POLICYFILE must not be below MOUNTPOINT: the daemon would wait
 * for itself.  Single-threaded; the raw /dev/fuse protocol, no libfuse.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "fuse_bpf_reply.h"

/* Room for any request: at least FUSE_MIN_READ_BUFFER, and max_write */
#define VIEWD_BUFSIZE		(128 * 1024)
#define VIEWD_MAX_WRITE		4096
#define VIEWD_ROOT_MODE		(S_IFDIR | 0555)
#define VIEWD_ROOT_ATTR_VALID	1	/* seconds; the root never changes */
#define VIEWD_FIRST_NODEID	(FUSE_ROOT_ID + 1)

struct rule {
	bool any;		/* uid "*" */
	__u32 uid;
	char *name;
};

struct policy {
	const char *path;
	struct rule *rules;
	size_t nr;
	bool have_st;		/* st: the version of the file read last */
	struct stat st;
};

/* A snapshot of the root's listing, taken at OPENDIR: its fh */
struct dir_handle {
	size_t nr;
	struct {
		__u64 ino;
		__u32 type;		/* DT_* */
		char name[NAME_MAX + 1];
	} ents[];
};

struct viewd {
	int devfd;
	int lowerfd;
	struct policy policy;
	char (*names)[NAME_MAX + 1];	/* node id: VIEWD_FIRST_NODEID + i */
	size_t nr_names;
	char *in;		/* the request read */
	char *out;		/* READDIR replies */
};

static void policy_clear(struct policy *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++)
		free(p->rules[i].name);
	free(p->rules);
	p->rules = NULL;
	p->nr = 0;
}

static bool parse_uid(const char *s, __u32 *uid)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v >= UINT32_MAX)	/* (uid_t)-1 is no uid */
		return false;
	*uid = v;
	return true;
}

static bool top_name(const char *name)
{
	return *name && strlen(name) <= NAME_MAX && !strchr(name, '/') &&
	       strcmp(name, ".") && strcmp(name, "..");
}

/* Adds a rule to @p: 0 or -ENOMEM */
static int policy_add(struct policy *p, bool any, __u32 uid, const char *name)
{
	char *copy = strdup(name);
	struct rule *rules;

	rules = copy ? realloc(p->rules, (p->nr + 1) * sizeof(*rules)) : NULL;
	if (!rules) {
		free(copy);
		return -ENOMEM;
	}
	p->rules = rules;
	rules[p->nr].any = any;
	rules[p->nr].uid = uid;
	rules[p->nr].name = copy;
	p->nr++;
	return 0;
}

/* The rules of @f in place of those of @p; -errno, @p unchanged, if not */
static int policy_parse(struct policy *p, FILE *f)
{
	struct policy np = { .path = p->path };
	size_t lineno = 0, linesz = 0;
	char *line = NULL, *save, *tok;
	__u32 uid = 0;
	int err = 0;
	bool any;

	while (!err && getline(&line, &linesz, f) >= 0) {
		lineno++;
		line[strcspn(line, "#")] = '\0';
		tok = strtok_r(line, " \t\r\n", &save);
		if (!tok)
			continue;
		any = !strcmp(tok, "*");
		if (!any && !parse_uid(tok, &uid)) {
			warnx("%s:%zu: bad uid \"%s\"", p->path, lineno, tok);
			continue;
		}
		while (!err && (tok = strtok_r(NULL, " \t\r\n", &save))) {
			if (top_name(tok))
				err = policy_add(&np, any, uid, tok);
			else
				warnx("%s:%zu: bad name \"%s\"", p->path,
				      lineno, tok);
		}
	}
	if (!err && ferror(f))
		err = -EIO;
	free(line);
	if (err) {
		policy_clear(&np);
		return err;
	}
	policy_clear(p);
	p->rules = np.rules;
	p->nr = np.nr;
	return 0;
}

/*
 * Reads the policy again if the file changed since.  On failure nothing is
 * visible (fail closed) until the file changes again.
 */
static void policy_refresh(struct policy *p)
{
	struct stat st;
	FILE *f;
	int err;

	if (stat(p->path, &st)) {
		if (p->have_st)
			warn("%s: hiding everything", p->path);
		p->have_st = false;
		policy_clear(p);
		return;
	}
	if (p->have_st && st.st_dev == p->st.st_dev &&
	    st.st_ino == p->st.st_ino && st.st_size == p->st.st_size &&
	    st.st_mtim.tv_sec == p->st.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == p->st.st_mtim.tv_nsec)
		return;

	p->have_st = true;
	f = fopen(p->path, "re");
	if (!f) {
		err = -errno;
	} else {
		/* The version read is that of the file opened */
		if (fstat(fileno(f), &st))
			err = -errno;
		else
			err = policy_parse(p, f);
		fclose(f);
	}
	p->st = st;
	if (err) {
		warnx("%s: %s: hiding everything", p->path, strerror(-err));
		policy_clear(p);
	}
}

static bool visible(const struct policy *p, __u32 uid, const char *name)
{
	size_t i;

	for (i = 0; i < p->nr; i++) {
		if ((p->rules[i].any || p->rules[i].uid == uid) &&
		    !strcmp(p->rules[i].name, name))
			return true;
	}
	return false;
}

/* A node id per top-level name, never reused (no FORGET count); 0: ENOMEM */
static __u64 node_id(struct viewd *v, const char *name)
{
	char (*names)[NAME_MAX + 1];
	size_t i;

	for (i = 0; i < v->nr_names; i++) {
		if (!strcmp(v->names[i], name))
			return VIEWD_FIRST_NODEID + i;
	}
	names = realloc(v->names, (i + 1) * sizeof(*names));
	if (!names)
		return 0;
	v->names = names;
	memcpy(names[i], name, strlen(name) + 1);	/* top_name(): fits */
	v->nr_names++;
	return VIEWD_FIRST_NODEID + i;
}

/*
 * A reply: @len bytes of @data (or @err < 0 and nothing).  ENOENT means the
 * request is gone (interrupted, or answered already): not worth a word.
 * Returns 0 if the kernel took the reply.
 */
static int reply(struct viewd *v, __u64 unique, int err,
		 const void *data, size_t len)
{
	int ret = fuse_bpf_answer(v->devfd, unique, err, data, len);

	if (ret && ret != -ENOENT)
		warnx("answer to request %llu: %s",
		      (unsigned long long)unique, strerror(-ret));
	return ret ? -1 : 0;
}

static void reply_err(struct viewd *v, __u64 unique, int err)
{
	reply(v, unique, err, NULL, 0);
}

/* Accepts FUSE_PASSTHROUGH only; returns -1 if the kernel cannot back */
static int do_init(struct viewd *v, const struct fuse_in_header *in,
		   const void *arg, size_t arglen)
{
	struct fuse_init_in init = { 0 };
	struct fuse_init_out out = { 0 };
	__u64 flags;

	memcpy(&init, arg, arglen < sizeof(init) ? arglen : sizeof(init));
	flags = init.flags;
	if (init.flags & FUSE_INIT_EXT)
		flags |= (__u64)init.flags2 << 32;
	if (arglen < offsetof(struct fuse_init_in, flags2) ||
	    init.major != FUSE_KERNEL_VERSION || !(flags & FUSE_PASSTHROUGH)) {
		warnx("FUSE_INIT %u.%u without FUSE_PASSTHROUGH: no FUSE-BPF",
		      init.major, init.minor);
		reply_err(v, in->unique, -EPROTO);
		return -1;
	}
	out.major = FUSE_KERNEL_VERSION;
	out.minor = init.minor < FUSE_KERNEL_MINOR_VERSION ?
		    init.minor : FUSE_KERNEL_MINOR_VERSION;
	out.max_readahead = init.max_readahead;
	/* No FUSE_DO_READDIRPLUS: the root's listing is plain READDIR */
	flags = FUSE_INIT_EXT | FUSE_PASSTHROUGH;
	out.flags = (__u32)flags;
	out.flags2 = flags >> 32;
	out.max_write = VIEWD_MAX_WRITE;
	out.time_gran = 1;
	out.max_stack_depth = 1;	/* backings on non-stacked filesystems */
	reply(v, in->unique, 0, &out, sizeof(out));
	return 0;
}

static void do_lookup(struct viewd *v, const struct fuse_in_header *in,
		      const char *name)
{
	struct fuse_entry_out entry = { 0 };
	struct fuse_bpf_reply r;
	struct stat st;
	int fd = -1, err;

	policy_refresh(&v->policy);
	if (!top_name(name) || !visible(&v->policy, in->uid, name)) {
		err = -ENOENT;
		goto out;
	}
	/* O_PATH: any file type will do as a backing */
	fd = openat(v->lowerfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		err = -errno;
		goto out;
	}
	entry.nodeid = node_id(v, name);
	if (!entry.nodeid) {
		err = -ENOMEM;
		goto out;
	}
	/* generation 0, entry_valid and attr_valid 0: asked at each walk */
	fuse_bpf_fill_attr(&entry.attr, &st);

	fuse_bpf_reply_init(&r, in->unique, &entry);
	err = fuse_bpf_reply_backing_fd(&r, fd, 0);
	if (!err)
		err = fuse_bpf_reply_send(v->devfd, &r);
	if (err) {
		/* ENOENT: the request is gone; else it may wait for a reply */
		if (err != -ENOENT)
			warnx("LOOKUP %s: reply refused: %s", name,
			      strerror(-err));
		err = -EIO;
	}
out:
	if (fd >= 0)
		close(fd);
	if (err)
		reply_err(v, in->unique, err);
}

static void do_getattr(struct viewd *v, const struct fuse_in_header *in)
{
	struct fuse_attr_out out = { 0 };
	struct stat st;

	if (fstat(v->lowerfd, &st)) {
		reply_err(v, in->unique, -errno);
		return;
	}
	fuse_bpf_fill_attr(&out.attr, &st);
	out.attr.ino = FUSE_ROOT_ID;
	out.attr.mode = VIEWD_ROOT_MODE;
	out.attr.nlink = 2;
	out.attr.uid = getuid();
	out.attr.gid = getgid();
	out.attr_valid = VIEWD_ROOT_ATTR_VALID;
	reply(v, in->unique, 0, &out, sizeof(out));
}

/* Adds an entry to *@hp: 0 or -ENOMEM */
static int dir_add(struct dir_handle **hp, const char *name, __u64 ino,
		   __u32 type)
{
	size_t nr = *hp ? (*hp)->nr : 0;
	struct dir_handle *h;

	h = realloc(*hp, sizeof(*h) + (nr + 1) * sizeof(h->ents[0]));
	if (!h)
		return -ENOMEM;
	h->nr = nr + 1;
	h->ents[nr].ino = ino;
	h->ents[nr].type = type;
	memcpy(h->ents[nr].name, name, strlen(name) + 1); /* a name: fits */
	*hp = h;
	return 0;
}

/* The listing of the root for @uid: the lower's visible names */
static int dir_snapshot(struct viewd *v, __u32 uid, struct dir_handle **hp)
{
	struct dir_handle *h = NULL;
	struct dirent *de;
	DIR *dir;
	int fd, err;

	fd = openat(v->lowerfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	dir = fdopendir(fd);
	if (!dir) {
		err = -errno;
		close(fd);
		return err;
	}
	err = dir_add(&h, ".", FUSE_ROOT_ID, DT_DIR);
	if (!err)
		err = dir_add(&h, "..", FUSE_ROOT_ID, DT_DIR);
	while (!err) {
		errno = 0;
		de = readdir(dir);
		if (!de) {
			err = -errno;
			break;
		}
		if (top_name(de->d_name) && visible(&v->policy, uid, de->d_name))
			err = dir_add(&h, de->d_name, de->d_ino, de->d_type);
	}
	closedir(dir);
	if (err) {
		free(h);
		h = NULL;
	}
	*hp = h;
	return err;
}

static void do_opendir(struct viewd *v, const struct fuse_in_header *in)
{
	struct fuse_open_out out = { 0 };
	struct dir_handle *h = NULL;
	int err;

	policy_refresh(&v->policy);
	err = dir_snapshot(v, in->uid, &h);
	if (err) {
		reply_err(v, in->unique, err);
		return;
	}
	out.fh = (uintptr_t)h;
	if (reply(v, in->unique, 0, &out, sizeof(out)))
		free(h);		/* no RELEASEDIR will come */
}

/* struct fuse_dirent records from entry rd->offset on, as many as fit */
static void do_readdir(struct viewd *v, const struct fuse_in_header *in,
		       const struct fuse_read_in *rd)
{
	struct dir_handle *h = (struct dir_handle *)(uintptr_t)rd->fh;
	size_t size = rd->size < VIEWD_BUFSIZE ? rd->size : VIEWD_BUFSIZE;
	size_t len = 0, namelen, reclen;
	struct fuse_dirent *d;
	__u64 i;

	if (!h) {
		reply_err(v, in->unique, -EBADF);
		return;
	}
	for (i = rd->offset; i < h->nr; i++) {
		namelen = strlen(h->ents[i].name);
		reclen = FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET + namelen);
		if (len + reclen > size)
			break;
		d = (struct fuse_dirent *)(v->out + len);
		memset(d, 0, reclen);
		d->ino = h->ents[i].ino;
		d->off = i + 1;		/* where the next READDIR starts */
		d->namelen = namelen;
		d->type = h->ents[i].type;
		memcpy(d->name, h->ents[i].name, namelen);
		len += reclen;
	}
	reply(v, in->unique, 0, v->out, len);
}

/* Zeros but for the sizes: the root has no space of its own */
static void do_statfs(struct viewd *v, const struct fuse_in_header *in)
{
	struct fuse_statfs_out out = { 0 };

	out.st.bsize = 4096;
	out.st.frsize = 4096;
	out.st.namelen = NAME_MAX;
	reply(v, in->unique, 0, &out, sizeof(out));
}

/* One request; -1 if the daemon cannot go on */
static int dispatch(struct viewd *v, const struct fuse_in_header *in)
{
	const char *arg = (const char *)(in + 1);
	size_t arglen = in->len - sizeof(*in);

	switch (in->opcode) {
	case FUSE_INIT:
		return do_init(v, in, arg, arglen);
	case FUSE_FORGET:		/* node ids are never reused: no count */
	case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT:		/* every request is answered at once */
		return 0;
	case FUSE_DESTROY:
		reply_err(v, in->unique, 0);
		return 0;
	}

	/* The rest is the root's: backed nodes never reach the daemon */
	if (in->nodeid != FUSE_ROOT_ID) {
		warnx("opcode %u for node %llu", in->opcode,
		      (unsigned long long)in->nodeid);
		reply_err(v, in->unique, -EIO);
		return 0;
	}
	switch (in->opcode) {
	case FUSE_LOOKUP:
		if (!arglen || arg[arglen - 1])
			reply_err(v, in->unique, -EINVAL);
		else
			do_lookup(v, in, arg);
		break;
	case FUSE_GETATTR:
		do_getattr(v, in);
		break;
	case FUSE_OPENDIR:
		do_opendir(v, in);
		break;
	case FUSE_READDIR:
		if (arglen < sizeof(struct fuse_read_in))
			reply_err(v, in->unique, -EINVAL);
		else
			do_readdir(v, in, (const struct fuse_read_in *)arg);
		break;
	case FUSE_RELEASEDIR:
		if (arglen >= sizeof(struct fuse_release_in))
			free((void *)(uintptr_t)
			     ((const struct fuse_release_in *)arg)->fh);
		reply_err(v, in->unique, 0);
		break;
	case FUSE_STATFS:
		do_statfs(v, in);
		break;
	case FUSE_SETATTR:
	case FUSE_MKNOD:
	case FUSE_MKDIR:
	case FUSE_SYMLINK:
	case FUSE_LINK:
	case FUSE_UNLINK:
	case FUSE_RMDIR:
	case FUSE_RENAME:
	case FUSE_RENAME2:
	case FUSE_CREATE:
	case FUSE_SETXATTR:
	case FUSE_REMOVEXATTR:
		reply_err(v, in->unique, -EROFS);
		break;
	default:
		reply_err(v, in->unique, -ENOSYS);
		break;
	}
	return 0;
}

/* Until unmounted (ENODEV): 0, or -1 on an error */
static int serve(struct viewd *v)
{
	const struct fuse_in_header *in = (const void *)v->in;
	ssize_t n;

	for (;;) {
		n = read(v->devfd, v->in, VIEWD_BUFSIZE);
		if (n < 0) {
			if (errno == ENODEV)
				return 0;
			/* A signal, or a request interrupted before read */
			if (errno == EINTR || errno == EAGAIN || errno == ENOENT)
				continue;
			warn("read /dev/fuse");
			return -1;
		}
		if ((size_t)n < sizeof(*in) || in->len != (size_t)n) {
			warnx("malformed request of %zd bytes", n);
			return -1;
		}
		if (dispatch(v, in))
			return -1;
	}
}

int main(int argc, char *argv[])
{
	struct viewd v = { .devfd = -1 };
	char opts[256];
	int ret;

	if (argc != 4) {
		fprintf(stderr, "usage: %s LOWER MOUNTPOINT POLICYFILE\n",
			argv[0]);
		return 2;
	}
	v.policy.path = argv[3];
	v.lowerfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (v.lowerfd < 0)
		err(1, "%s", argv[1]);
	if (access(v.policy.path, R_OK))
		err(1, "%s", v.policy.path);
	policy_refresh(&v.policy);
	v.in = malloc(VIEWD_BUFSIZE);
	v.out = malloc(VIEWD_BUFSIZE);
	if (!v.in || !v.out)
		errx(1, "out of memory");

	v.devfd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (v.devfd < 0)
		err(1, "/dev/fuse");
	ret = snprintf(opts, sizeof(opts),
		       "fd=%d,rootmode=%o,user_id=%u,group_id=%u,allow_other,default_permissions",
		       v.devfd, S_IFDIR, getuid(), getgid());
	if (ret < 0 || (size_t)ret >= sizeof(opts))
		errx(1, "mount options too long");
	if (mount("fusebpf_viewd", argv[2], "fuse", MS_NOSUID | MS_NODEV, opts))
		err(1, "mount %s", argv[2]);

	ret = serve(&v);
	if (ret)
		umount2(argv[2], MNT_DETACH);	/* no dead mount left behind */
	return ret ? 1 : 0;
}
