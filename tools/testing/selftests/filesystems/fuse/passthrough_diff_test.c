// SPDX-License-Identifier: GPL-2.0
/*
 * Differential test of the FUSE-BPF pure passthrough (no daemon).
 *
 * A seeded PRNG (xorshift64) makes a random sequence of filesystem
 * operations over a small namespace: up to three levels, names from a pool
 * of twelve, so that EEXIST, ENOENT, ENOTDIR, EISDIR and ENOTEMPTY are
 * frequent.  Each operation is applied to two trees on the same lower
 * filesystem:
 *
 *   A  a directory of the lower fs, reached through the passthrough mount
 *   B  a sibling directory, reached on the lower fs directly
 *
 * and the results are compared after every operation: return value, errno,
 * data read, the attributes that two different inodes with the same history
 * share (mode, nlink, size, uid, gid, rdev, and blocks on tmpfs), and sorted
 * directory listings.  A is also compared with itself seen on the lower fs
 * ("L"): the mount must show exactly the lower inode (st_ino, times, blocks,
 * d_ino), the data must be the lower's page cache, and the locks taken
 * through the mount must conflict with locks taken on the lower file.  A few
 * operations are done on A through L, to check that the mount follows
 * changes made below it.  At the end the trees are compared completely
 * (names, types, attributes, contents, xattrs, symlink targets).
 *
 * On a mismatch the seed, the operation and both results are printed, and
 * the failing prefix of the sequence is shrunk by delta debugging (bounded
 * by PT_DIFF_MIN_SECS, 60 s by default) to a short replay that shows it.
 *
 * Environment: PT_DIFF_SEED (default 0x5eedf00dcafe), PT_DIFF_OPS (10000).
 */
#define _GNU_SOURCE
#include <ftw.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/xattr.h>
#include <linux/falloc.h>

#include "passthrough.h"

#define DEFAULT_SEED	0x5eedf00dcafeULL
#define DEFAULT_OPS	10000
#define DEFAULT_MIN_SECS 60
#define NAMES		"abcdefghijkl"
#define NR_NAMES	12
#define NR_DIR_NAMES	4	/* a-d: usually directories */
#define NR_DEEP_NAMES	8	/* a-h: the names below the first level */
#define NSLOTS		4
#define MAX_WRITE	8192
#define MAX_OFF		100000
#define MAX_READ	16384
#define BUF_SIZE	(2 * MAX_READ)
#define MAX_ENTS	64
#define MAX_PRINTED	5
#define LOWER_MB	256

enum op_type {
	OP_CREATE, OP_WRITE, OP_TRUNCATE, OP_RENAME, OP_LINK, OP_UNLINK,
	OP_MKDIR, OP_RMDIR, OP_SYMLINK, OP_READLINK, OP_SETXATTR,
	OP_REMOVEXATTR, OP_GETXATTR, OP_CHMOD, OP_CHOWN, OP_FALLOCATE,
	OP_MMAP, OP_READDIR, OP_LOCK, OP_READ, OP_STAT, OP_OPEN, OP_CLOSE,
	OP_FWRITE, OP_FREAD, OP_FTRUNCATE, OP_FSTAT, OP_FLOCK, OP_FSYNC,
	OP_RMTREE, NR_OPS
};

static const struct {
	const char *name;
	int weight;
	unsigned int paths;	/* 1: p1 is a path, 2: p2 too */
	bool readonly;		/* also compared between A and L */
	bool lower_ok;		/* may be done on A through L */
	char kind;		/* usual target: F file, D directory, A any */
	bool ns;		/* changes its parent directory */
} optab[NR_OPS] = {
	[OP_CREATE]	 = { "create",	    9, 1, false, true, 'F', true },
	[OP_WRITE]	 = { "write",	    8, 1, false, true, 'F', false },
	[OP_TRUNCATE]	 = { "truncate",    4, 1, false, true, 'F', false },
	[OP_RENAME]	 = { "rename",	    8, 2, false, true, 'F', true },
	[OP_LINK]	 = { "link",	    4, 2, false, true, 'F', true },
	[OP_UNLINK]	 = { "unlink",	    6, 1, false, true, 'F', true },
	[OP_MKDIR]	 = { "mkdir",	    6, 1, false, true, 'D', true },
	[OP_RMDIR]	 = { "rmdir",	    4, 1, false, true, 'D', true },
	[OP_SYMLINK]	 = { "symlink",	    2, 1, false, true, 'F', true },
	[OP_READLINK]	 = { "readlink",    1, 1, true, false, 'F', false },
	[OP_SETXATTR]	 = { "setxattr",    4, 1, false, true, 'A', false },
	[OP_REMOVEXATTR] = { "removexattr", 2, 1, false, false, 'A', false },
	[OP_GETXATTR]	 = { "getxattr",    2, 1, true, false, 'A', false },
	[OP_CHMOD]	 = { "chmod",	    2, 1, false, true, 'A', false },
	[OP_CHOWN]	 = { "chown",	    1, 1, false, false, 'A', false },
	[OP_FALLOCATE]	 = { "fallocate",   4, 1, false, false, 'F', false },
	[OP_MMAP]	 = { "mmap",	    3, 1, false, false, 'F', false },
	[OP_READDIR]	 = { "readdir",	    4, 1, true, false, 'D', false },
	[OP_LOCK]	 = { "lock",	    3, 1, false, false, 'F', false },
	[OP_READ]	 = { "read",	    5, 1, true, false, 'F', false },
	[OP_STAT]	 = { "stat",	    2, 1, true, false, 'A', false },
	[OP_OPEN]	 = { "open",	    6, 1, false, false, 'F', false },
	[OP_CLOSE]	 = { "close",	    1, 0, false, false, 'A', false },
	[OP_FWRITE]	 = { "fwrite",	    3, 0, false, false, 'A', false },
	[OP_FREAD]	 = { "fread",	    2, 0, false, false, 'A', false },
	[OP_FTRUNCATE]	 = { "ftruncate",   1, 0, false, false, 'A', false },
	[OP_FSTAT]	 = { "fstat",	    1, 0, false, false, 'A', false },
	[OP_FLOCK]	 = { "flock",	    2, 0, false, false, 'A', false },
	[OP_FSYNC]	 = { "fsync",	    1, 0, false, false, 'A', false },
	[OP_RMTREE]	 = { "rm -r",	    1, 1, false, true, 'A', true },
};

struct op {
	unsigned char type;
	unsigned char slot;
	bool via_lower;		/* done on A through L instead of the mount */
	char p1[8];		/* "a/b/c" */
	char p2[8];		/* second path, or symlink target */
	int flags;
	int mode;
	int arg;
	long long off, len, off2, len2;
	unsigned int seed;	/* data pattern */
};

/* One view of a tree: A (mount), L (A on the lower fs) or B (lower fs) */
struct tree {
	const char *name;
	char path[1024];
	int root;
	int fd[NSLOTS];
	struct tree *lower;	/* the L view for A; itself otherwise */
	unsigned char *buf;
};

struct op_res {
	long ret;
	int err;
	int naux;
	bool is_stat;		/* aux holds put_stat()'s fields */
	long long aux[16];
	size_t dlen;
	unsigned char *data;
};

struct ctx {
	const char *lowerdir, *mntdir;
	bool tmpfs;
	bool quiet;
	unsigned int gen;
	struct tree A, L, B;
	long mismatches;	/* operations with at least one mismatch */
	long printed;
	bool bad_now;		/* the current operation mismatched */
	long first_bad;
	char why[2048];		/* the first mismatch of this run */
	unsigned long count[NR_OPS][2];	/* A's results: ok, error */
};

static unsigned int rn(__u64 *s, unsigned int n)
{
	return pt_rnd(s) % n;
}

static const char *errname(int err)
{
	const char *s = err ? strerrorname_np(err) : "0";
	static char buf[4][16];
	static int n;

	if (s)
		return s;
	snprintf(buf[n & 3], sizeof(buf[0]), "%d", err);
	return buf[n++ & 3];
}

static void fill(unsigned char *buf, size_t len, unsigned int seed)
{
	__u64 s = seed * 0x9e3779b97f4a7c15ULL + 1;
	size_t i;

	for (i = 0; i < len; i++) {
		if (!(i & 7))
			pt_rnd(&s);
		buf[i] = s >> ((i & 7) * 8);
	}
}

/* Operation generation: a pure function of the seed */

/*
 * A path of one to three components.  Directories are usually made with
 * the names a-d and files with e-l (e-h below the first level), but every
 * name is sometimes used for the other kind, for EISDIR and ENOTDIR.
 */
static void gen_last(__u64 *s, char *p, int depth, char kind)
{
	int nr = depth > 1 ? NR_DEEP_NAMES : NR_NAMES;

	if (kind == 'D' && rn(s, 10))
		*p = NAMES[rn(s, NR_DIR_NAMES)];
	else if (kind == 'F' && rn(s, 5))
		*p = NAMES[NR_DIR_NAMES + rn(s, nr - NR_DIR_NAMES)];
	else
		*p = NAMES[rn(s, nr)];
}

static void gen_path(__u64 *s, char *p, char kind, bool allow_root)
{
	unsigned int r = rn(s, 100);
	int depth, i, n = 0;

	if (allow_root && r < 8) {
		snprintf(p, 8, ".");
		return;
	}
	depth = r < 55 ? 1 : r < 85 ? 2 : 3;
	for (i = 1; i < depth; i++) {
		p[n++] = NAMES[rn(s, NR_DIR_NAMES)];
		p[n++] = '/';
	}
	gen_last(s, p + n, depth, kind);
	p[n + 1] = 0;
}

/* A second path: often a sibling of the first, for more collisions */
static void gen_path2(__u64 *s, const char *p1, char *p2, char kind)
{
	const char *slash = strrchr(p1, '/');

	if (rn(s, 2) && strcmp(p1, ".")) {
		size_t n = slash ? slash - p1 + 1 : 0;

		memcpy(p2, p1, n);
		gen_last(s, p2 + n, n / 2 + 1, kind);
		p2[n + 1] = 0;
	} else {
		gen_path(s, p2, kind, false);
	}
}

/*
 * Symlink targets go sideways or down, never up: whatever renames do to
 * the link, it cannot point out of its tree.
 */
static void gen_target(__u64 *s, char *t)
{
	if (rn(s, 3)) {
		t[0] = NAMES[rn(s, NR_DEEP_NAMES)];
		t[1] = 0;
	} else {
		t[0] = NAMES[rn(s, NR_DEEP_NAMES)];
		t[1] = '/';
		t[2] = NAMES[rn(s, NR_DEEP_NAMES)];
		t[3] = 0;
	}
}

static long long gen_off(__u64 *s)
{
	switch (rn(s, 4)) {
	case 0:
		return 0;
	case 1:	/* near a page boundary */
		return (long long)(rn(s, MAX_OFF / 4096) + 1) * 4096 +
		       rn(s, 16) - 8;
	default:
		return rn(s, MAX_OFF);
	}
}

static void gen_op(__u64 *s, struct op *op)
{
	static const int cmodes[] = { 0644, 0600, 0755, 0444, 04755, 0 };
	static const int dmodes[] = { 0755, 0700, 0777, 01777, 02755, 0500 };
	static const int open_flags[] = {
		O_RDONLY, O_RDWR, O_WRONLY | O_APPEND, O_RDWR | O_CREAT,
		O_RDONLY | O_DIRECTORY, O_RDWR | O_TRUNC, O_RDWR | O_CREAT,
		O_RDWR | O_CREAT,
	};
	static const int falloc_modes[] = {
		0, FALLOC_FL_KEEP_SIZE, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		FALLOC_FL_ZERO_RANGE,
	};
	static const int ids[] = { 0, 65534, 1000, -1 };
	int total = 0, i, r;

	memset(op, 0, sizeof(*op));
	for (i = 0; i < NR_OPS; i++)
		total += optab[i].weight;
	r = rn(s, total);
	for (i = 0; r >= optab[i].weight; i++)
		r -= optab[i].weight;
	op->type = i;
	op->slot = rn(s, NSLOTS);
	op->seed = pt_rnd(s);
	op->off = gen_off(s);
	op->len = rn(s, 4) ? rn(s, MAX_WRITE) + 1 : rn(s, 4096) + 1;
	if (optab[i].paths)
		gen_path(s, op->p1, optab[i].kind,
			 i == OP_READDIR || i == OP_STAT);
	if (optab[i].paths > 1)
		gen_path2(s, op->p1, op->p2, optab[i].kind);
	if (optab[i].lower_ok)
		op->via_lower = !rn(s, 10);

	switch (op->type) {
	case OP_CREATE:
		op->flags = (rn(s, 3) ? 0 : O_EXCL) | (rn(s, 4) ? 0 : O_TRUNC) |
			    (rn(s, 2) ? O_WRONLY : O_RDWR);
		op->mode = cmodes[rn(s, 5)];
		break;
	case OP_WRITE:
		op->flags = rn(s, 5) ? 0 : O_APPEND;
		break;
	case OP_TRUNCATE:
	case OP_FTRUNCATE:
		op->len = rn(s, 3) ? rn(s, MAX_OFF + MAX_WRITE) : rn(s, 3) * 4096;
		break;
	case OP_RENAME: {
		static const int rflags[] = {
			0, 0, RENAME_NOREPLACE, RENAME_EXCHANGE,
		};
		op->flags = rflags[rn(s, 4)];
		break;
	}
	case OP_MKDIR:
		op->mode = dmodes[rn(s, 6)];
		break;
	case OP_SYMLINK:
		gen_target(s, op->p2);
		break;
	case OP_SETXATTR:
	case OP_REMOVEXATTR:
	case OP_GETXATTR:
		op->arg = rn(s, 4);
		op->flags = rn(s, 3) == 0 ? XATTR_CREATE :
			    rn(s, 2) ? 0 : XATTR_REPLACE;
		op->len = rn(s, 48);
		break;
	case OP_CHMOD:
		op->mode = rn(s, 2) ? cmodes[rn(s, 6)] : dmodes[rn(s, 6)];
		break;
	case OP_CHOWN:
		op->mode = ids[rn(s, 4)];
		op->arg = ids[rn(s, 4)];
		break;
	case OP_FALLOCATE:
		op->flags = falloc_modes[rn(s, 4)];
		break;
	case OP_LOCK:
	case OP_FLOCK:
		op->flags = rn(s, 2);		/* 0: flock, 1: OFD lock */
		op->mode = rn(s, 3);		/* 0: shared, 1: excl, 2: unlock */
		op->arg = rn(s, 2);		/* second lock: shared/excl */
		op->off = rn(s, 4) ? rn(s, 100) : 0;
		op->len = rn(s, 4) ? rn(s, 100) : 0;
		op->off2 = rn(s, 4) ? rn(s, 100) : 0;
		op->len2 = rn(s, 4) ? rn(s, 100) : 0;
		if (op->type == OP_LOCK && op->mode == 2)
			op->mode = 1;
		break;
	case OP_READ:
	case OP_FREAD:
		op->len = rn(s, MAX_READ) + 1;
		break;
	case OP_OPEN:
		op->flags = open_flags[rn(s, 8)];
		break;
	case OP_FSYNC:
		op->flags = rn(s, 2);
		break;
	}
}

static void op_str(const struct op *op, char *buf, size_t len)
{
	const char *v = op->via_lower ? " [on lower]" : "";
	int n;

	n = snprintf(buf, len, "%s(", optab[op->type].name);
	switch (op->type) {
	case OP_CREATE:
	case OP_OPEN:
		if (op->type == OP_OPEN)
			n += snprintf(buf + n, len - n, "slot %d, ", op->slot);
		snprintf(buf + n, len - n, "%s, %s%s%s%s%s%s, 0%o)%s", op->p1,
			 (op->flags & O_ACCMODE) == O_RDONLY ? "O_RDONLY" :
			 (op->flags & O_ACCMODE) == O_WRONLY ? "O_WRONLY" : "O_RDWR",
			 op->type == OP_CREATE || op->flags & O_CREAT ? "|O_CREAT" : "",
			 op->flags & O_EXCL ? "|O_EXCL" : "",
			 op->flags & O_TRUNC ? "|O_TRUNC" : "",
			 op->flags & O_APPEND ? "|O_APPEND" : "",
			 op->flags & O_DIRECTORY ? "|O_DIRECTORY" : "",
			 op->mode, v);
		break;
	case OP_WRITE:
		snprintf(buf + n, len - n, "%s, off %lld, len %lld%s)%s", op->p1,
			 op->off, op->len, op->flags ? ", O_APPEND" : "", v);
		break;
	case OP_TRUNCATE:
	case OP_READLINK:
	case OP_UNLINK:
	case OP_RMDIR:
	case OP_READDIR:
	case OP_STAT:
	case OP_RMTREE:
		if (op->type == OP_TRUNCATE)
			snprintf(buf + n, len - n, "%s, %lld)%s", op->p1, op->len, v);
		else
			snprintf(buf + n, len - n, "%s)%s", op->p1, v);
		break;
	case OP_RENAME:
		snprintf(buf + n, len - n, "%s, %s%s)%s", op->p1, op->p2,
			 op->flags == RENAME_NOREPLACE ? ", RENAME_NOREPLACE" :
			 op->flags == RENAME_EXCHANGE ? ", RENAME_EXCHANGE" : "",
			 v);
		break;
	case OP_LINK:
		snprintf(buf + n, len - n, "%s, %s)%s", op->p1, op->p2, v);
		break;
	case OP_SYMLINK:
		snprintf(buf + n, len - n, "\"%s\", %s)%s", op->p2, op->p1, v);
		break;
	case OP_MKDIR:
	case OP_CHMOD:
		snprintf(buf + n, len - n, "%s, 0%o)%s", op->p1, op->mode, v);
		break;
	case OP_CHOWN:
		snprintf(buf + n, len - n, "%s, %d, %d)", op->p1, op->mode, op->arg);
		break;
	case OP_SETXATTR:
		snprintf(buf + n, len - n, "%s, user.%c, %lld bytes, %s)%s",
			 op->p1, 'w' + op->arg, op->len,
			 op->flags == XATTR_CREATE ? "XATTR_CREATE" :
			 op->flags == XATTR_REPLACE ? "XATTR_REPLACE" : "0", v);
		break;
	case OP_REMOVEXATTR:
	case OP_GETXATTR:
		snprintf(buf + n, len - n, "%s, user.%c)", op->p1, 'w' + op->arg);
		break;
	case OP_FALLOCATE:
		snprintf(buf + n, len - n, "%s, %s, off %lld, len %lld)", op->p1,
			 op->flags == 0 ? "0" :
			 op->flags == FALLOC_FL_KEEP_SIZE ? "KEEP_SIZE" :
			 op->flags & FALLOC_FL_PUNCH_HOLE ? "PUNCH_HOLE|KEEP_SIZE" :
			 "ZERO_RANGE", op->off, op->len);
		break;
	case OP_MMAP:
		snprintf(buf + n, len - n, "%s, MAP_SHARED write + msync, seed %u)",
			 op->p1, op->seed);
		break;
	case OP_LOCK:
		snprintf(buf + n, len - n,
			 "%s, %s: fd1 %s [%lld,+%lld], then fd2 %s [%lld,+%lld])",
			 op->p1, op->flags ? "OFD" : "flock",
			 op->mode ? "excl" : "shared", op->off, op->len,
			 op->arg ? "excl" : "shared", op->off2, op->len2);
		break;
	case OP_READ:
	case OP_FREAD:
	case OP_FWRITE:
		if (op->type == OP_READ)
			n += snprintf(buf + n, len - n, "%s, ", op->p1);
		else
			n += snprintf(buf + n, len - n, "slot %d, ", op->slot);
		snprintf(buf + n, len - n, "off %lld, len %lld)", op->off, op->len);
		break;
	case OP_FTRUNCATE:
		snprintf(buf + n, len - n, "slot %d, %lld)", op->slot, op->len);
		break;
	case OP_FLOCK:
		snprintf(buf + n, len - n, "slot %d, %s %s [%lld,+%lld])", op->slot,
			 op->flags ? "OFD" : "flock",
			 op->mode == 2 ? "unlock" : op->mode ? "excl" : "shared",
			 op->off, op->len);
		break;
	case OP_FSYNC:
		snprintf(buf + n, len - n, "slot %d%s)", op->slot,
			 op->flags ? ", datasync" : "");
		break;
	default:
		snprintf(buf + n, len - n, "slot %d)", op->slot);
		break;
	}
}

/* Applying an operation to one tree */

static long removed;

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	int ret = flag == FTW_DP ? rmdir(path) : unlink(path);

	if (!ret)
		removed++;
	return ret;
}

static void put(struct op_res *r, long long v)
{
	if (r->naux < (int)ARRAY_SIZE(r->aux))
		r->aux[r->naux++] = v;
}

static void put_sys(struct op_res *r, long ret)
{
	put(r, ret);
	put(r, ret < 0 ? errno : 0);
}

static void set(struct op_res *r, long ret)
{
	r->ret = ret;
	r->err = ret < 0 ? errno : 0;
}

static const char *apath(struct tree *t, const char *rel)
{
	static char buf[2][2048 + 8];
	static int n;
	char *p = buf[n++ & 1];

	snprintf(p, sizeof(buf[0]), "%s/%s", t->path, rel);
	return p;
}

struct dent {
	char name[NAME_MAX + 1];
	unsigned char type;
	ino_t ino;
};

static int dent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct dent *)a)->name,
		      ((const struct dent *)b)->name);
}

/* Sorted listing of @rel without "." and "..", or -1 with errno */
static int list_dir(struct tree *t, const char *rel, struct dent *ents)
{
	struct dirent *de;
	int fd, n = 0;
	DIR *d;

	fd = openat(t->root, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	errno = 0;
	while ((de = readdir(d)) && n < MAX_ENTS) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(ents[n].name, sizeof(ents[n].name), "%s", de->d_name);
		ents[n].type = de->d_type;
		ents[n].ino = de->d_ino;
		n++;
	}
	if (errno) {
		int err = errno;

		closedir(d);
		errno = err;
		return -1;
	}
	closedir(d);
	qsort(ents, n, sizeof(*ents), dent_cmp);
	return n;
}

static void list_res(struct tree *t, const char *rel, struct op_res *r, bool ino)
{
	struct dent ents[MAX_ENTS];
	int n, i;

	n = list_dir(t, rel, ents);
	set(r, n);
	for (i = 0; i < n; i++) {
		int len = snprintf((char *)r->data + r->dlen, BUF_SIZE - r->dlen,
				   ino ? "%s:%d:%llu " : "%s:%d ", ents[i].name,
				   ents[i].type,
				   (unsigned long long)ents[i].ino);

		r->dlen += len;
	}
}

static const char * const stat_names[] = {
	"mode", "nlink", "size", "uid", "gid", "rdev", "blocks", "ino",
	"mtime", "ctime",
};

static void put_stat(struct op_res *r, const struct stat *st, bool same,
		     bool tmpfs)
{
	r->is_stat = true;
	put(r, st->st_mode);
	put(r, st->st_nlink);
	put(r, st->st_size);
	put(r, st->st_uid);
	put(r, st->st_gid);
	put(r, st->st_rdev);
	if (same || tmpfs)
		put(r, st->st_blocks);
	else
		put(r, -1);
	if (same) {
		put(r, st->st_ino);
		put(r, st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec);
		put(r, st->st_ctim.tv_sec * 1000000000LL + st->st_ctim.tv_nsec);
	}
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* The sorted, NUL-separated names from listxattr(), into @out */
static long sorted_xattrs(const char *path, char *out, size_t size)
{
	char raw[1024], *names[64];
	long len, n = 0, i, pos = 0;
	char *p;

	len = llistxattr(path, raw, sizeof(raw));
	if (len < 0)
		return -1;
	for (p = raw; p < raw + len && n < 64; p += strlen(p) + 1)
		names[n++] = p;
	qsort(names, n, sizeof(names[0]), name_cmp);
	for (i = 0; i < n && pos + strlen(names[i]) + 1 <= size; i++)
		pos += snprintf(out + pos, size - pos, "%s", names[i]) + 1;
	return pos;
}

static sigjmp_buf sigbus_env;
static volatile sig_atomic_t in_mmap;

static void sigbus(int sig)
{
	if (in_mmap)
		siglongjmp(sigbus_env, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void do_mmap(int fd, const struct op *op, unsigned char *buf,
		    struct op_res *r)
{
	unsigned char *m;
	unsigned long long sum = 0;
	long long off, len, i, woff, wlen;
	struct stat st;

	if (fstat(fd, &st)) {
		set(r, -1);
		return;
	}
	if (st.st_size == 0) {
		set(r, 0);
		return;
	}
	off = (op->off % st.st_size) & ~4095LL;
	len = st.st_size - off;
	if (len > 3 * 4096 + (op->seed & 4095))
		len = 3 * 4096 + (op->seed & 4095);
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
	if (m == MAP_FAILED) {
		set(r, -1);
		return;
	}
	woff = (op->seed >> 12) % len;
	wlen = op->len % (len - woff) + 1;
	fill(buf, wlen, op->seed);
	in_mmap = 1;
	if (sigsetjmp(sigbus_env, 1)) {
		in_mmap = 0;
		munmap(m, len);
		r->ret = -2;
		r->err = 0;
		put(r, SIGBUS);
		return;
	}
	for (i = 0; i < wlen; i++)
		m[woff + i] = buf[i];
	put_sys(r, msync(m, len, MS_SYNC));
	for (i = 0; i < len; i++)
		sum = sum * 31 + m[i];
	in_mmap = 0;
	put(r, sum);
	munmap(m, len);
	set(r, wlen);
}

static void do_lock(struct tree *t, const struct op *op, struct op_res *r)
{
	struct flock fl = { 0 };
	int fd1, fd2, t2;

	/* A's second fd is opened on the lower fs: the locks must meet */
	fd1 = openat(t->root, op->p1, O_RDWR | O_CLOEXEC);
	if (fd1 < 0) {
		set(r, -1);
		return;
	}
	fd2 = openat(t->lower->root, op->p1, O_RDWR | O_CLOEXEC);
	if (fd2 < 0) {
		set(r, -1);
		close(fd1);
		return;
	}
	if (!op->flags) {
		t2 = op->arg ? LOCK_EX : LOCK_SH;
		put_sys(r, flock(fd1, (op->mode ? LOCK_EX : LOCK_SH) | LOCK_NB));
		put_sys(r, flock(fd2, t2 | LOCK_NB));
		put_sys(r, flock(fd1, LOCK_UN));
		put_sys(r, flock(fd2, t2 | LOCK_NB));
	} else {
		t2 = op->arg ? F_WRLCK : F_RDLCK;
		fl.l_whence = SEEK_SET;
		fl.l_type = op->mode ? F_WRLCK : F_RDLCK;
		fl.l_start = op->off;
		fl.l_len = op->len;
		put_sys(r, fcntl(fd1, F_OFD_SETLK, &fl));
		memset(&fl, 0, sizeof(fl));
		fl.l_type = t2;
		fl.l_start = op->off2;
		fl.l_len = op->len2;
		put_sys(r, fcntl(fd2, F_OFD_GETLK, &fl));
		put(r, fl.l_type);
		put(r, fl.l_start);
		put(r, fl.l_len);
		put(r, fl.l_pid);
		fl.l_type = t2;
		fl.l_start = op->off2;
		fl.l_len = op->len2;
		put_sys(r, fcntl(fd2, F_OFD_SETLK, &fl));
		memset(&fl, 0, sizeof(fl));
		fl.l_type = F_UNLCK;
		put_sys(r, fcntl(fd1, F_OFD_SETLK, &fl));
		fl.l_type = t2;
		fl.l_start = op->off2;
		fl.l_len = op->len2;
		put_sys(r, fcntl(fd2, F_OFD_SETLK, &fl));
	}
	close(fd2);
	close(fd1);
	set(r, 0);
}

static void do_fstat(int fd, struct op_res *r, bool tmpfs)
{
	struct stat st;

	set(r, fstat(fd, &st));
	if (!r->ret)
		put_stat(r, &st, false, tmpfs);
}

/*
 * Apply @op to tree @t.  @same: fields that only one inode seen twice has in
 * common (inode numbers, times) go into the result too.
 */
static void apply(struct ctx *c, struct tree *t, const struct op *op,
		  struct op_res *r, bool same)
{
	struct tree *v = op->via_lower ? t->lower : t;
	int *slot = &t->fd[op->slot];
	struct flock fl = { 0 };
	char name[16];
	struct stat st;
	long ret;
	int fd;

	memset(r, 0, sizeof(*r));
	r->data = t->buf;
	snprintf(name, sizeof(name), "user.%c", 'w' + op->arg);
	errno = 0;
	switch (op->type) {
	case OP_CREATE:
		fd = openat(v->root, op->p1, O_CREAT | O_CLOEXEC | op->flags,
			    op->mode);
		set(r, fd < 0 ? -1 : 0);
		if (fd >= 0)
			close(fd);
		break;
	case OP_WRITE:
		fd = openat(v->root, op->p1, O_WRONLY | O_CLOEXEC | op->flags);
		if (fd < 0) {
			set(r, -1);
			break;
		}
		fill(t->buf, op->len, op->seed);
		if (op->flags & O_APPEND)
			set(r, write(fd, t->buf, op->len));
		else
			set(r, pwrite(fd, t->buf, op->len, op->off));
		close(fd);
		break;
	case OP_TRUNCATE:
		set(r, truncate(apath(v, op->p1), op->len));
		break;
	case OP_RENAME:
		set(r, renameat2(v->root, op->p1, v->root, op->p2, op->flags));
		break;
	case OP_LINK:
		set(r, linkat(v->root, op->p1, v->root, op->p2, 0));
		break;
	case OP_UNLINK:
		set(r, unlinkat(v->root, op->p1, 0));
		break;
	case OP_MKDIR:
		set(r, mkdirat(v->root, op->p1, op->mode));
		break;
	case OP_RMDIR:
		set(r, unlinkat(v->root, op->p1, AT_REMOVEDIR));
		break;
	case OP_SYMLINK:
		set(r, symlinkat(op->p2, v->root, op->p1));
		break;
	case OP_READLINK:
		ret = readlinkat(v->root, op->p1, (char *)t->buf, BUF_SIZE);
		set(r, ret);
		r->dlen = ret > 0 ? ret : 0;
		break;
	case OP_SETXATTR:
		fill(t->buf, op->len, op->seed);
		set(r, setxattr(apath(v, op->p1), name, t->buf, op->len,
				op->flags));
		break;
	case OP_REMOVEXATTR:
		set(r, removexattr(apath(v, op->p1), name));
		break;
	case OP_GETXATTR:
		ret = getxattr(apath(v, op->p1), name, t->buf, 1024);
		set(r, ret);
		r->dlen = ret > 0 ? ret : 0;
		ret = sorted_xattrs(apath(v, op->p1), (char *)t->buf + r->dlen,
				    1024);
		put_sys(r, ret);
		r->dlen += ret > 0 ? ret : 0;
		break;
	case OP_CHMOD:
		set(r, fchmodat(v->root, op->p1, op->mode, 0));
		break;
	case OP_CHOWN:
		set(r, fchownat(v->root, op->p1, op->mode, op->arg,
				AT_SYMLINK_NOFOLLOW));
		break;
	case OP_FALLOCATE:
		fd = openat(v->root, op->p1, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			set(r, -1);
			break;
		}
		set(r, fallocate(fd, op->flags, op->off, op->len));
		close(fd);
		break;
	case OP_MMAP:
		fd = openat(v->root, op->p1, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			set(r, -1);
			break;
		}
		do_mmap(fd, op, t->buf, r);
		close(fd);
		break;
	case OP_READDIR:
		list_res(v, op->p1, r, same);
		break;
	case OP_LOCK:
		do_lock(v, op, r);
		break;
	case OP_READ:
		fd = openat(v->root, op->p1, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			set(r, -1);
			break;
		}
		ret = pread(fd, t->buf, op->len, op->off);
		set(r, ret);
		r->dlen = ret > 0 ? ret : 0;
		close(fd);
		break;
	case OP_STAT:
		ret = fstatat(v->root, op->p1, &st, 0);
		set(r, ret);
		if (!ret)
			put_stat(r, &st, same, c->tmpfs);
		break;
	case OP_OPEN:
		if (*slot >= 0)
			close(*slot);
		*slot = openat(v->root, op->p1, op->flags | O_CLOEXEC, 0640);
		set(r, *slot < 0 ? -1 : 0);
		break;
	case OP_CLOSE:
		set(r, close(*slot));
		*slot = -1;
		break;
	case OP_FWRITE:
		fill(t->buf, op->len, op->seed);
		set(r, pwrite(*slot, t->buf, op->len, op->off));
		break;
	case OP_FREAD:
		ret = pread(*slot, t->buf, op->len, op->off);
		set(r, ret);
		r->dlen = ret > 0 ? ret : 0;
		break;
	case OP_FTRUNCATE:
		set(r, ftruncate(*slot, op->len));
		break;
	case OP_FSTAT:
		do_fstat(*slot, r, c->tmpfs);
		break;
	case OP_FLOCK:
		if (!op->flags) {
			set(r, flock(*slot, (op->mode == 2 ? LOCK_UN :
				     op->mode ? LOCK_EX : LOCK_SH) | LOCK_NB));
			break;
		}
		fl.l_type = op->mode == 2 ? F_UNLCK :
			    op->mode ? F_WRLCK : F_RDLCK;
		fl.l_start = op->off;
		fl.l_len = op->len;
		set(r, fcntl(*slot, F_OFD_SETLK, &fl));
		break;
	case OP_FSYNC:
		set(r, op->flags ? fdatasync(*slot) : fsync(*slot));
		break;
	case OP_RMTREE:
		removed = 0;
		set(r, nftw(apath(v, op->p1), rm_entry, 16,
			    FTW_DEPTH | FTW_PHYS));
		put(r, removed);
		break;
	}
}

/* Comparing */

static void res_str(const struct op_res *r, char *buf, size_t len)
{
	int n, i;

	n = snprintf(buf, len, "ret=%ld errno=%s", r->ret, errname(r->err));
	if (r->is_stat) {
		for (i = 0; i < r->naux && n < (int)len; i++)
			n += snprintf(buf + n, len - n,
				      i ? " %s=%lld" : " %s=0%llo",
				      stat_names[i], r->aux[i]);
	} else if (r->naux) {
		n += snprintf(buf + n, len - n, " aux=[");
		for (i = 0; i < r->naux && n < (int)len; i++)
			n += snprintf(buf + n, len - n, "%s%lld", i ? " " : "",
				      r->aux[i]);
		n += snprintf(buf + n, len - n, "]");
	}
	if (r->dlen && n < (int)len) {
		bool text = true;
		size_t j;

		for (j = 0; j < r->dlen && j < 160; j++)
			if (r->data[j] < 0x20 || r->data[j] > 0x7e)
				text = false;
		if (text)
			snprintf(buf + n, len - n, " data=\"%.*s\"",
				 (int)(r->dlen < 160 ? r->dlen : 160),
				 (const char *)r->data);
		else
			snprintf(buf + n, len - n, " data=%zu bytes", r->dlen);
	}
}

static bool res_eq(const struct op_res *a, const struct op_res *b, size_t *at)
{
	size_t i;

	*at = (size_t)-1;
	if (a->ret != b->ret || a->err != b->err || a->naux != b->naux ||
	    memcmp(a->aux, b->aux, a->naux * sizeof(a->aux[0])))
		return false;
	if (a->dlen != b->dlen)
		return false;
	for (i = 0; i < a->dlen; i++) {
		if (a->data[i] != b->data[i]) {
			*at = i;
			return false;
		}
	}
	return true;
}

static void mismatch(struct ctx *c, long idx, const struct op *op,
		     const char *fmt, ...)
{
	char opbuf[256] = "final tree comparison", msg[1536];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (op)
		op_str(op, opbuf, sizeof(opbuf));
	if (!c->bad_now) {
		c->bad_now = true;
		c->mismatches++;
	}
	if (c->first_bad < 0) {
		c->first_bad = idx;
		snprintf(c->why, sizeof(c->why), "op #%ld %s: %s", idx, opbuf,
			 msg);
	}
	if (!c->quiet && c->printed++ < MAX_PRINTED) {
		printf("# MISMATCH at op #%ld %s:\n#   %s\n", idx, opbuf, msg);
		fflush(stdout);
	}
}

static bool compare(struct ctx *c, long idx, const struct op *op,
		    const char *what, struct tree *x, const struct op_res *a,
		    struct tree *y, const struct op_res *b)
{
	char sa[640], sb[640];
	size_t at;

	if (res_eq(a, b, &at))
		return true;
	res_str(a, sa, sizeof(sa));
	res_str(b, sb, sizeof(sb));
	if (at != (size_t)-1)
		mismatch(c, idx, op, "%s: data differs at byte %zu\n#   %s: %s\n#   %s: %s",
			 what, at, x->name, sa, y->name, sb);
	else
		mismatch(c, idx, op, "%s:\n#   %s: %s\n#   %s: %s", what,
			 x->name, sa, y->name, sb);
	return false;
}

static void lstat_res(struct ctx *c, struct tree *t, int ret,
		      const struct stat *st, struct op_res *r, bool same)
{
	memset(r, 0, sizeof(*r));
	r->data = t->buf;
	r->ret = ret;
	r->err = ret ? errno : 0;
	if (!ret)
		put_stat(r, st, same, c->tmpfs);
}

/* lstat of @rel: A against B, and A against L */
static void check_path(struct ctx *c, long idx, const struct op *op,
		       const char *rel)
{
	struct stat sa, sb, sl;
	int ra, rb, rl, ea, eb, el;
	struct op_res a, b;
	char what[64];
	size_t at;

	ra = fstatat(c->A.root, rel, &sa, AT_SYMLINK_NOFOLLOW);
	ea = errno;
	rl = fstatat(c->L.root, rel, &sl, AT_SYMLINK_NOFOLLOW);
	el = errno;
	rb = fstatat(c->B.root, rel, &sb, AT_SYMLINK_NOFOLLOW);
	eb = errno;
	snprintf(what, sizeof(what), "lstat(%s)", rel);
	errno = ea;
	lstat_res(c, &c->A, ra, &sa, &a, false);
	errno = eb;
	lstat_res(c, &c->B, rb, &sb, &b, false);
	compare(c, idx, op, what, &c->A, &a, &c->B, &b);
	errno = ea;
	lstat_res(c, &c->A, ra, &sa, &a, true);
	errno = el;
	lstat_res(c, &c->L, rl, &sl, &b, true);
	if (!res_eq(&a, &b, &at)) {
		/* ext4 may allocate an extent block between the two calls */
		rl = fstatat(c->L.root, rel, &sl, AT_SYMLINK_NOFOLLOW);
		lstat_res(c, &c->L, rl, &sl, &b, true);
		ra = fstatat(c->A.root, rel, &sa, AT_SYMLINK_NOFOLLOW);
		lstat_res(c, &c->A, ra, &sa, &a, true);
	}
	compare(c, idx, op, what, &c->A, &a, &c->L, &b);
}

/*
 * After an operation: lstat its paths, and the parents of the paths
 * whose directory it changes.
 */
static void check_paths(struct ctx *c, long idx, const struct op *op)
{
	bool ns = optab[op->type].ns ||
		  (op->type == OP_OPEN && op->flags & O_CREAT);
	char paths[4][8];
	int i, j, n = 0;

	for (i = 0; i < (int)optab[op->type].paths; i++) {
		const char *p = i ? op->p2 : op->p1;
		const char *slash = strrchr(p, '/');

		snprintf(paths[n++], sizeof(paths[0]), "%s", p);
		if (!ns)
			continue;
		if (slash)
			snprintf(paths[n++], sizeof(paths[0]), "%.*s",
				 (int)(slash - p), p);
		else if (strcmp(p, "."))
			snprintf(paths[n++], sizeof(paths[0]), ".");
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < i && strcmp(paths[i], paths[j]); j++)
			;
		if (j == i)
			check_path(c, idx, op, paths[i]);
	}
}

static void run_op(struct ctx *c, long idx, const struct op *op)
{
	struct op_res a, b;

	c->bad_now = false;
	apply(c, &c->A, op, &a, false);
	apply(c, &c->B, op, &b, false);
	c->count[op->type][a.ret < 0]++;
	compare(c, idx, op, "result", &c->A, &a, &c->B, &b);
	if (!optab[op->type].readonly) {
		/* an operation that failed on both sides changed nothing */
		if (op->type != OP_LOCK && (a.ret >= 0 || b.ret >= 0))
			check_paths(c, idx, op);
		return;
	}
	/* and the same inodes seen on the lower fs directly */
	if (op->type == OP_STAT || op->type == OP_READDIR)
		apply(c, &c->A, op, &a, true);
	apply(c, &c->L, op, &b, op->type == OP_STAT || op->type == OP_READDIR);
	compare(c, idx, op, "result", &c->A, &a, &c->L, &b);
}

/* File data (a checksum beyond BUF_SIZE) or symlink target of @rel */
static void contents(struct tree *t, const char *rel, const struct stat *st,
		     struct op_res *x)
{
	unsigned long long sum = 0;
	unsigned char blk[4096];
	off_t off = 0;
	long ret, j;
	int fd;

	memset(x, 0, sizeof(*x));
	x->data = t->buf;
	if (S_ISLNK(st->st_mode)) {
		ret = readlinkat(t->root, rel, (char *)x->data, BUF_SIZE);
		set(x, ret);
		x->dlen = ret > 0 ? ret : 0;
		return;
	}
	if (!S_ISREG(st->st_mode))
		return;
	fd = openat(t->root, rel, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		set(x, -1);
		return;
	}
	ret = pread(fd, x->data, BUF_SIZE, 0);
	set(x, ret);
	x->dlen = ret > 0 ? ret : 0;
	if (ret == BUF_SIZE) {
		while ((ret = pread(fd, blk, sizeof(blk), off)) > 0) {
			for (j = 0; j < ret; j++)
				sum = sum * 31 + blk[j];
			off += ret;
		}
		put(x, off);
		put(x, sum);
		x->dlen = 0;
	}
	close(fd);
}

/* Recursive comparison of A, L and B below @rel */
static void compare_dir(struct ctx *c, long idx, const char *rel, int depth)
{
	static struct dent ea[MAX_ENTS];
	struct dent (*copy)[MAX_ENTS];
	struct op_res a, b, l;
	char sub[1024], what[1100];
	int n, i;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&l, 0, sizeof(l));
	a.data = c->A.buf;
	b.data = c->B.buf;
	l.data = c->L.buf;
	snprintf(what, sizeof(what), "listing of %s", rel);
	list_res(&c->A, rel, &a, false);
	list_res(&c->B, rel, &b, false);
	compare(c, idx, NULL, what, &c->A, &a, &c->B, &b);
	a.dlen = 0;
	list_res(&c->A, rel, &a, true);
	list_res(&c->L, rel, &l, true);
	compare(c, idx, NULL, what, &c->A, &a, &c->L, &l);
	n = list_dir(&c->A, rel, ea);
	if (n <= 0 || depth > 8)
		return;
	copy = malloc(sizeof(*copy));
	if (!copy)
		return;
	memcpy(*copy, ea, n * sizeof(ea[0]));
	for (i = 0; i < n; i++) {
		struct tree *t[3] = { &c->A, &c->B, &c->L };
		struct op_res r[3];
		struct stat st;
		int k;

		snprintf(sub, sizeof(sub), "%s/%s", rel, (*copy)[i].name);
		check_path(c, idx, NULL, sub);
		if (fstatat(c->A.root, sub, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		for (k = 0; k < 3; k++)
			contents(t[k], sub, &st, &r[k]);
		snprintf(what, sizeof(what), "contents of %s", sub);
		compare(c, idx, NULL, what, &c->A, &r[0], &c->B, &r[1]);
		compare(c, idx, NULL, what, &c->A, &r[0], &c->L, &r[2]);
		for (k = 0; k < 3; k++) {
			char names[1024], val[256];
			struct op_res *x = &r[k];
			long len, pos;

			memset(x, 0, sizeof(*x));
			x->data = t[k]->buf;
			len = sorted_xattrs(apath(t[k], sub), names, sizeof(names));
			set(x, len);
			for (pos = 0; pos < len; pos += strlen(names + pos) + 1) {
				long vl = lgetxattr(apath(t[k], sub), names + pos,
						    val, sizeof(val));

				if (vl < 0 || x->dlen + vl + NAME_MAX > BUF_SIZE)
					continue;
				x->dlen += sprintf((char *)x->data + x->dlen,
						   "%s=", names + pos);
				memcpy(x->data + x->dlen, val, vl);
				x->dlen += vl;
			}
		}
		snprintf(what, sizeof(what), "xattrs of %s", sub);
		compare(c, idx, NULL, what, &c->A, &r[0], &c->B, &r[1]);
		compare(c, idx, NULL, what, &c->A, &r[0], &c->L, &r[2]);
		if (S_ISDIR(st.st_mode))
			compare_dir(c, idx, sub, depth + 1);
	}
	free(copy);
}

/* Fresh trees for a run */

static int trees_open(struct ctx *c)
{
	struct tree *t[3] = { &c->A, &c->L, &c->B };
	int i, j;

	c->gen++;
	snprintf(c->A.path, sizeof(c->A.path), "%s/a.%u", c->mntdir, c->gen);
	snprintf(c->L.path, sizeof(c->L.path), "%s/a.%u", c->lowerdir, c->gen);
	snprintf(c->B.path, sizeof(c->B.path), "%s/b.%u", c->lowerdir, c->gen);
	if (mkdir(c->A.path, 0755) || mkdir(c->B.path, 0755))
		return -1;
	c->A.lower = &c->L;
	c->L.lower = &c->L;
	c->B.lower = &c->B;
	for (i = 0; i < 3; i++) {
		t[i]->root = open(t[i]->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (t[i]->root < 0)
			return -1;
		for (j = 0; j < NSLOTS; j++)
			t[i]->fd[j] = -1;
	}
	c->first_bad = -1;
	c->mismatches = 0;
	c->printed = 0;
	c->why[0] = 0;
	return 0;
}

static void trees_close(struct ctx *c)
{
	struct tree *t[3] = { &c->A, &c->L, &c->B };
	int i, j;

	for (i = 0; i < 3; i++) {
		for (j = 0; j < NSLOTS; j++)
			if (t[i]->fd[j] >= 0)
				close(t[i]->fd[j]);
		close(t[i]->root);
	}
	/* A through the mount, B on the lower fs */
	nftw(c->A.path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	nftw(c->B.path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/*
 * Run @ops on fresh trees, then compare the trees.  Returns the index of
 * the first mismatching operation, @n for the final comparison, or -1.
 */
static long run_ops(struct ctx *c, const struct op *ops, long n, bool stop)
{
	long i, bad;

	if (trees_open(c)) {
		printf("# cannot make the trees a.%u, b.%u: %s\n", c->gen,
		       c->gen, strerror(errno));
		return -2;
	}
	for (i = 0; i < n; i++) {
		run_op(c, i, &ops[i]);
		if (stop && c->first_bad >= 0)
			break;
	}
	if (c->first_bad < 0 || !stop) {
		c->bad_now = false;
		compare_dir(c, n, ".", 0);
	}
	bad = c->first_bad;
	trees_close(c);
	return bad;
}

/*
 * Delta debugging (ddmin, complements only) of ops[0..n): the shortest
 * sequence found within the time budget that still mismatches somewhere.
 */
static void minimise(struct ctx *c, const struct op *ops, long n,
		     double budget)
{
	struct op *cur, *cand;
	double start = pt_now();
	long m = n, gran = 2, runs = 0, bad;
	char buf[256], why[sizeof(c->why)];
	long i, j, k;

	cur = malloc(n * sizeof(*cur));
	cand = malloc(n * sizeof(*cand));
	if (!cur || !cand)
		goto out;
	memcpy(cur, ops, n * sizeof(*cur));
	c->quiet = true;
	bad = run_ops(c, cur, m, true);
	runs++;
	if (bad < 0) {
		printf("# the mismatch does not reproduce on fresh trees\n");
		goto out;
	}
	m = bad < m ? bad + 1 : m;
	snprintf(why, sizeof(why), "%s", c->why);
	while (m >= 2 && pt_now() - start < budget) {
		long chunk = (m + gran - 1) / gran;
		bool reduced = false;

		for (i = 0; i < gran && pt_now() - start < budget; i++) {
			long lo = i * chunk, hi = lo + chunk < m ? lo + chunk : m;

			if (lo >= m)
				break;
			for (j = 0, k = 0; j < m; j++)
				if (j < lo || j >= hi)
					cand[k++] = cur[j];
			if (!k)
				continue;
			bad = run_ops(c, cand, k, true);
			runs++;
			if (bad < 0)
				continue;
			m = bad < k ? bad + 1 : k;
			memcpy(cur, cand, m * sizeof(*cur));
			snprintf(why, sizeof(why), "%s", c->why);
			gran = gran > 2 ? gran - 1 : 2;
			reduced = true;
			break;
		}
		if (!reduced) {
			if (gran >= m)
				break;
			gran = gran * 2 < m ? gran * 2 : m;
		}
	}
	printf("# shortest replay found: %ld ops (%ld replays, %.1f s%s):\n",
	       m, runs, pt_now() - start,
	       pt_now() - start >= budget ? ", budget exhausted" : "");
	for (i = 0; i < m; i++) {
		op_str(&cur[i], buf, sizeof(buf));
		printf("#   [%ld] %s\n", i, buf);
	}
	printf("# which fails with: %s\n", why);
out:
	c->quiet = false;
	free(cur);
	free(cand);
}

static void print_counts(struct ctx *c)
{
	char line[2048];
	int i, n = 0;

	for (i = 0; i < NR_OPS; i++) {
		n += snprintf(line + n, sizeof(line) - n, " %s %lu/%lu",
			      optab[i].name, c->count[i][0], c->count[i][1]);
		if (n > 90 || i == NR_OPS - 1) {
			printf("# ok/failed:%s\n", line);
			n = 0;
		}
	}
}

PT_FIXTURE(diff, pt_env_lower, LOWER_MB)

TEST_F_TIMEOUT(diff, random_ops, 600)
{
	unsigned long long seed = pt_env_num("PT_DIFF_SEED", DEFAULT_SEED);
	long nops = pt_env_num("PT_DIFF_OPS", DEFAULT_OPS);
	double budget = pt_env_num("PT_DIFF_MIN_SECS", DEFAULT_MIN_SECS);
	struct ctx *c;
	struct op *ops;
	__u64 s;
	double t0;
	long bad, i;

	c = calloc(1, sizeof(*c));
	ops = calloc(nops ? nops : 1, sizeof(*ops));
	ASSERT_NE(NULL, c);
	ASSERT_NE(NULL, ops);
	c->A.buf = malloc(BUF_SIZE);
	c->B.buf = malloc(BUF_SIZE);
	c->L.buf = malloc(BUF_SIZE);
	ASSERT_TRUE(c->A.buf && c->B.buf && c->L.buf);
	c->A.name = "A (mount)";
	c->L.name = "L (A on lower)";
	c->B.name = "B (lower)";
	c->lowerdir = PT_LOWER;
	c->mntdir = PT_MNT;
	c->tmpfs = variant->kind == PT_TMPFS;
	signal(SIGBUS, sigbus);
	umask(022);

	s = seed ? seed : DEFAULT_SEED;
	for (i = 0; i < nops; i++)
		gen_op(&s, &ops[i]);

	printf("# seed 0x%llx, %ld operations (PT_DIFF_SEED, PT_DIFF_OPS)\n",
	       seed, nops);
	t0 = pt_now();
	bad = run_ops(c, ops, nops, false);
	ASSERT_NE(-2, bad);
	printf("# %ld operations, %ld mismatches (%.1f s)\n", nops,
	       c->mismatches, pt_now() - t0);
	print_counts(c);
	if (bad >= 0) {
		long mism = c->mismatches;

		printf("# first mismatch: seed 0x%llx %s\n", seed, c->why);
		printf("# minimising the first %ld operations (budget %.0f s)\n",
		       bad < nops ? bad + 1 : nops, budget);
		fflush(stdout);
		minimise(c, ops, bad < nops ? bad + 1 : nops, budget);
		c->mismatches = mism;
	}
	EXPECT_EQ(0, c->mismatches);
	free(ops);
	free(c->A.buf);
	free(c->B.buf);
	free(c->L.buf);
	free(c);
}

int main(int argc, char **argv)
{
	pt_ext4_template(LOWER_MB);
	return test_harness_run(argc, argv);
}
