// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE-BPF no-daemon passthrough: file I/O, locks and directory reading.
 *
 * Every test mounts a passthrough of a scratch lower filesystem (tmpfs or
 * ext4: the fixture variants) and does the same things through the mount
 * and on the lower directly, either on the same file (there is one page
 * cache, the lower one) or on a twin file made the same way.  Return
 * values, errno, data, sizes, block counts, lock owners and directory
 * listings must agree.
 *
 * Each test runs in a mount namespace of its own with a tmpfs on /tmp, so
 * nothing it mounts outlives it.  PT_FAKE=1 in the environment bind mounts
 * the lower instead of mounting FUSE-BPF: a check of the tests themselves
 * on a kernel without FUSE-BPF, never set in real runs.
 */
#define _GNU_SOURCE
#include <sys/fanotify.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <poll.h>
#include <pthread.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <linux/aio_abi.h>
#include <linux/falloc.h>
#include <linux/fiemap.h>
#include <linux/fs.h>

#include "passthrough.h"

#define LOWER		PT_LOWER
#define MNT		PT_MNT
#define LOWER_MB	128	/* ext4: 32768 inodes, enough for BIG_N */
#define PAGE		4096
#define BIG_N		20000
#define SEEK_N		700
#define MIB		(1024 * 1024)

/* ------------------------------------------------------------------ */
/* Small helpers                                                        */
/* ------------------------------------------------------------------ */

/* Same for calls returning an fd: only success or failure compares */
static struct res rfd(long fd)
{
	return (struct res){ fd < 0 ? -1 : 0, fd < 0 ? errno : 0 };
}

/* A shared mmap() of @fd, as a result; a mapping it makes is undone */
static struct res rmap(size_t len, int prot, int fd, off_t off)
{
	void *p = mmap(NULL, len, prot, MAP_SHARED, fd, off);
	struct res r = rfd(p == MAP_FAILED ? -1 : 0);

	if (p != MAP_FAILED)
		munmap(p, len);
	return r;
}

static void fill(void *p, size_t len, unsigned int seed)
{
	unsigned char *b = p;
	size_t i;

	/* Differs between pages, to catch data at a wrong offset */
	for (i = 0; i < len; i++)
		b[i] = (i * 31 + i / PAGE * 7 + seed * 101) % 251 + 1;
}

static int write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
	ssize_t n = -1;

	if (fd < 0)
		return -1;
	if (len)
		n = write(fd, data, len);
	close(fd);
	return len && n != (ssize_t)len ? -1 : 0;
}

/* pread() until @len bytes or end of file */
static ssize_t pread_full(int fd, void *buf, size_t len, off_t off)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pread(fd, (char *)buf + done, len - done, off + done);
		if (n < 0)
			return -1;
		if (!n)
			break;
		done += n;
	}
	return done;
}

/* Whole contents of @path into @buf (at most @max bytes) */
static ssize_t read_path(const char *path, void *buf, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread_full(fd, buf, max, 0);
	close(fd);
	return n;
}

static off_t fd_size(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? -1 : st.st_size;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* ------------------------------------------------------------------ */
/* Directory listings                                                   */
/* ------------------------------------------------------------------ */

struct linux_dirent64 {
	__u64 d_ino;
	__s64 d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

struct ent {
	char *name;
	unsigned char type;
	ino_t ino;
};

struct listing {
	struct ent *e;
	int n, cap;
};

static int listing_add(struct listing *l, const char *name,
		       unsigned char type, ino_t ino)
{
	struct ent *e;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		e = realloc(l->e, l->cap * sizeof(*e));
		if (!e)
			return -1;
		l->e = e;
	}
	e = &l->e[l->n];
	e->name = strdup(name);
	if (!e->name)
		return -1;
	e->type = type;
	e->ino = ino;
	l->n++;
	return 0;
}

static void listing_free(struct listing *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		free(l->e[i].name);
	free(l->e);
	memset(l, 0, sizeof(*l));
}

/* getdents64() on @fd until the end; 0, or -errno */
static int list_fd(int fd, size_t bufsz, struct listing *l)
{
	struct linux_dirent64 *d;
	char *buf = malloc(bufsz);
	long n, pos;
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		n = syscall(SYS_getdents64, fd, buf, bufsz);
		if (n <= 0) {
			ret = n ? -errno : 0;
			break;
		}
		for (pos = 0; pos < n; pos += d->d_reclen) {
			d = (struct linux_dirent64 *)(buf + pos);
			if (listing_add(l, d->d_name, d->d_type, d->d_ino)) {
				ret = -ENOMEM;
				goto out;
			}
		}
	}
out:
	free(buf);
	return ret;
}

static int list_path(const char *path, size_t bufsz, struct listing *l)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = list_fd(fd, bufsz, l);
	close(fd);
	return ret;
}

static int ent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ent *)a)->name,
		      ((const struct ent *)b)->name);
}

static const struct ent *listing_find(const struct listing *l,
				      const char *name)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->e[i].name, name))
			return &l->e[i];
	return NULL;
}

/*
 * Same names (each once), same d_type, same d_ino (st_ino of the mount
 * is the lower one) except for "..", which may leave the mount.
 */
static void compare_listings(struct __test_metadata *_metadata,
			     struct listing *m, struct listing *l)
{
	int i, bad = 0;

	qsort(m->e, m->n, sizeof(*m->e), ent_cmp);
	qsort(l->e, l->n, sizeof(*l->e), ent_cmp);
	EXPECT_EQ(l->n, m->n);
	for (i = 0; i < l->n && i < m->n && bad < 5; i++) {
		const struct ent *a = &m->e[i], *b = &l->e[i];

		if (!strcmp(a->name, b->name) && a->type == b->type &&
		    (a->ino == b->ino || !strcmp(a->name, "..")))
			continue;
		bad++;
		TH_LOG("entry %d: mount \"%.40s\" type %d ino %lu, lower \"%.40s\" type %d ino %lu",
		       i, a->name, a->type, (unsigned long)a->ino, b->name,
		       b->type, (unsigned long)b->ino);
	}
	EXPECT_EQ(0, bad);
}

/* ------------------------------------------------------------------ */
/* A child process that takes locks on command                          */
/* ------------------------------------------------------------------ */

enum { LK_FLOCK, LK_SETLK, LK_GETLK, LK_LATE_UNLOCK };

struct lk_cmd {
	int op;
	int arg;	/* flock() operation, or delay in ms */
	struct flock fl;
};

struct lk_rep {
	int ret;
	int err;
	struct flock fl;
};

struct locker {
	pid_t pid;
	int cmd, rep;
};

static void close_others(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a;

	if (lo > 3)
		syscall(SYS_close_range, 3, lo - 1, 0);
	if (hi > lo + 1)
		syscall(SYS_close_range, lo + 1, hi - 1, 0);
	syscall(SYS_close_range, hi + 1, ~0U, 0);
}

static void lk_serve(const char *path, int in, int out)
{
	struct lk_cmd c;
	struct lk_rep r;
	int fd;

	close_others(in, out);
	fd = open(path, O_RDWR);
	if (fd < 0)
		_exit(2);
	while (read(in, &c, sizeof(c)) == sizeof(c)) {
		memset(&r, 0, sizeof(r));
		r.fl = c.fl;
		switch (c.op) {
		case LK_FLOCK:
			r.ret = flock(fd, c.arg);
			break;
		case LK_SETLK:
			r.ret = fcntl(fd, F_SETLK, &r.fl);
			break;
		case LK_GETLK:
			r.ret = fcntl(fd, F_GETLK, &r.fl);
			break;
		case LK_LATE_UNLOCK:
			usleep(c.arg * 1000);
			r.fl.l_type = F_UNLCK;
			r.ret = fcntl(fd, F_SETLK, &r.fl);
			break;
		}
		r.err = r.ret < 0 ? errno : 0;
		if (write(out, &r, sizeof(r)) != sizeof(r))
			_exit(3);
	}
	_exit(0);
}

/* Fork a locker with @path open read-write */
static int lk_start(struct locker *lk, const char *path)
{
	int c[2], r[2];

	if (pipe2(c, O_CLOEXEC) || pipe2(r, O_CLOEXEC))
		return -1;
	lk->pid = fork();
	if (lk->pid < 0)
		return -1;
	if (!lk->pid)
		lk_serve(path, c[0], r[1]);
	close(c[0]);
	close(r[1]);
	lk->cmd = c[1];
	lk->rep = r[0];
	return 0;
}

static int lk_send(struct locker *lk, int op, int arg, short type,
		   off_t start, off_t len)
{
	struct lk_cmd c = {
		.op = op, .arg = arg,
		.fl = { .l_type = type, .l_whence = SEEK_SET,
			.l_start = start, .l_len = len },
	};

	return write(lk->cmd, &c, sizeof(c)) == sizeof(c) ? 0 : -1;
}

static struct lk_rep lk_recv(struct locker *lk)
{
	struct lk_rep r = { .ret = -2 };

	if (read(lk->rep, &r, sizeof(r)) != sizeof(r))
		r.ret = -2;
	return r;
}

static struct lk_rep lk_call(struct locker *lk, int op, int arg, short type,
			     off_t start, off_t len)
{
	struct lk_rep r = { .ret = -2 };

	if (lk_send(lk, op, arg, type, start, len))
		return r;
	return lk_recv(lk);
}

/* Stop the locker; its exit status */
static int lk_stop(struct locker *lk)
{
	int status;

	close(lk->cmd);
	close(lk->rep);
	if (waitpid(lk->pid, &status, 0) != lk->pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static struct flock lock_of(short type, off_t start, off_t len)
{
	return (struct flock){ .l_type = type, .l_whence = SEEK_SET,
			       .l_start = start, .l_len = len };
}

/* ------------------------------------------------------------------ */
/* The fixture: a lower of each kind, its passthrough mount             */
/* ------------------------------------------------------------------ */

PT_FIXTURE(io, pt_env_lower, LOWER_MB)

/* ------------------------------------------------------------------ */
/* 1. open, read, write                                                 */
/* ------------------------------------------------------------------ */

/*
 * Written through the mount, read on the lower: there is no second page
 * cache, so nothing is stale even when both sides have read the file.
 */
TEST_F(io, coherence_mount_to_lower)
{
	const size_t len = 3 * PAGE + 100, max = len + 2 * PAGE;
	char *a = malloc(max), *b = malloc(max), *want = malloc(max);
	char *got = malloc(max);
	struct stat st;
	int fm, fl;

	ASSERT_TRUE(a && b && want && got);
	fill(a, len, 1);
	fill(b, max, 2);
	fm = open(MN("f"), O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fm);
	ASSERT_EQ(len, write(fm, a, len));

	fl = open(LO("f"), O_RDWR);
	ASSERT_LE(0, fl);
	EXPECT_EQ(len, fd_size(fl));
	ASSERT_EQ(len, pread_full(fl, got, max, 0));
	EXPECT_EQ(0, memcmp(a, got, len));

	/* Both sides have the pages now: overwrite across two of them */
	ASSERT_EQ(len, pread_full(fm, got, max, 0));
	memcpy(want, a, len);
	memcpy(want + 3000, b, 5000);
	ASSERT_EQ(5000, pwrite(fm, b, 5000, 3000));
	ASSERT_EQ(len, pread_full(fl, got, max, 0));
	EXPECT_EQ(0, memcmp(want, got, len));

	/* Extend past a hole */
	ASSERT_EQ(100, pwrite(fm, b, 100, len + PAGE));
	memset(want + len, 0, PAGE);
	memcpy(want + len + PAGE, b, 100);
	EXPECT_EQ(len + PAGE + 100, fd_size(fl));
	ASSERT_EQ(len + PAGE + 100, pread_full(fl, got, max, 0));
	EXPECT_EQ(0, memcmp(want, got, len + PAGE + 100));

	/* Shrink */
	ASSERT_EQ(0, ftruncate(fm, 5000));
	EXPECT_EQ(5000, fd_size(fl));
	ASSERT_EQ(5000, pread_full(fl, got, max, 0));
	EXPECT_EQ(0, memcmp(want, got, 5000));
	ASSERT_EQ(0, stat(LO("f"), &st));
	EXPECT_EQ(5000, st.st_size);
	close(fl);
	close(fm);
	free(a);
	free(b);
	free(want);
	free(got);
}

/* Written on the lower, read through the mount, attributes included */
TEST_F(io, coherence_lower_to_mount)
{
	const size_t len = 3 * PAGE + 100, max = len + 2 * PAGE;
	char *a = malloc(max), *b = malloc(max), *want = malloc(max);
	char *got = malloc(max);
	struct stat sm, sl;
	int fm, fl;

	ASSERT_TRUE(a && b && want && got);
	fill(a, len, 3);
	fill(b, max, 4);
	ASSERT_EQ(0, write_file(LO("f"), a, len));
	fm = open(MN("f"), O_RDWR);
	ASSERT_LE(0, fm);
	fl = open(LO("f"), O_RDWR);
	ASSERT_LE(0, fl);
	ASSERT_EQ(len, pread_full(fm, got, max, 0));
	EXPECT_EQ(0, memcmp(a, got, len));
	ASSERT_EQ(len, pread_full(fl, got, max, 0));

	memcpy(want, a, len);
	memcpy(want + PAGE - 10, b, 20);
	ASSERT_EQ(20, pwrite(fl, b, 20, PAGE - 10));
	ASSERT_EQ(len, pread_full(fm, got, max, 0));
	EXPECT_EQ(0, memcmp(want, got, len));

	ASSERT_EQ(PAGE, pwrite(fl, b, PAGE, len + 50));
	memset(want + len, 0, 50);
	memcpy(want + len + 50, b, PAGE);
	ASSERT_EQ(0, fstat(fm, &sm));
	ASSERT_EQ(0, fstat(fl, &sl));
	EXPECT_EQ(sl.st_size, sm.st_size);
	EXPECT_EQ(sl.st_ino, sm.st_ino);
	EXPECT_EQ(sl.st_mtim.tv_sec, sm.st_mtim.tv_sec);
	EXPECT_EQ(sl.st_mtim.tv_nsec, sm.st_mtim.tv_nsec);
	ASSERT_EQ(len + 50 + PAGE, pread_full(fm, got, max, 0));
	EXPECT_EQ(0, memcmp(want, got, len + 50 + PAGE));

	ASSERT_EQ(0, ftruncate(fl, 1000));
	EXPECT_EQ(1000, fd_size(fm));
	ASSERT_EQ(1000, pread_full(fm, got, max, 0));
	EXPECT_EQ(0, memcmp(want, got, 1000));
	/* A fresh open through the path, too */
	ASSERT_EQ(1000, read_path(MN("f"), got, max));
	close(fl);
	close(fm);
	free(a);
	free(b);
	free(want);
	free(got);
}

/* pread/pwrite at assorted offsets: same as on a twin lower file */
TEST_F(io, pread_pwrite_offsets)
{
	static const struct {
		bool write;
		off_t off;
		size_t len;
	} ops[] = {
		{ true, 0, 100 }, { true, PAGE - 1, 2 }, { true, 2 * PAGE + 17, 5000 },
		{ true, 100000, 10 }, { false, 0, 200 }, { false, PAGE - 10, 20 },
		{ false, 99995, 100 }, { false, 200000, 10 }, { true, 50, 0 },
		{ true, -1, 10 }, { false, -4096, 10 }, { false, 3 * PAGE, 3 * PAGE },
	};
	char *buf = malloc(128 * 1024), *bm = malloc(128 * 1024);
	char *bl = malloc(128 * 1024);
	struct res m, l;
	int fm, fl, wm, wl, dm, dl;
	unsigned int i;

	ASSERT_TRUE(buf && bm && bl);
	fm = open(MN("a"), O_CREAT | O_RDWR, 0644);
	fl = open(LO("b"), O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fm);
	ASSERT_LE(0, fl);
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		char what[64];

		snprintf(what, sizeof(what), "op %u", i);
		if (ops[i].write) {
			fill(buf, ops[i].len, i);
			m = rs(pwrite(fm, buf, ops[i].len, ops[i].off));
			l = rs(pwrite(fl, buf, ops[i].len, ops[i].off));
			SAME(what, m, l);
			continue;
		}
		memset(bm, 0xaa, ops[i].len);
		memset(bl, 0x55, ops[i].len);
		m = rs(pread(fm, bm, ops[i].len, ops[i].off));
		l = rs(pread(fl, bl, ops[i].len, ops[i].off));
		SAME(what, m, l);
		if (m.ret > 0 && m.ret == l.ret)
			EXPECT_EQ(0, memcmp(bm, bl, m.ret)) TH_LOG("%s", what);
	}
	EXPECT_EQ(fd_size(fl), fd_size(fm));
	EXPECT_EQ(100010, fd_size(fm));
	m = rs(read_path(LO("a"), bm, 128 * 1024));
	l = rs(read_path(LO("b"), bl, 128 * 1024));
	SAME("contents", m, l);
	EXPECT_EQ(0, memcmp(bm, bl, 100010));

	/* Wrong access mode, directory */
	wm = open(MN("a"), O_WRONLY);
	wl = open(LO("b"), O_WRONLY);
	ASSERT_LE(0, wm);
	ASSERT_LE(0, wl);
	SAME("pread O_WRONLY", rs(pread(wm, bm, 10, 0)), rs(pread(wl, bl, 10, 0)));
	close(wm);
	close(wl);
	wm = open(MN("a"), O_RDONLY);
	wl = open(LO("b"), O_RDONLY);
	SAME("pwrite O_RDONLY", rs(pwrite(wm, bm, 10, 0)),
	     rs(pwrite(wl, bl, 10, 0)));
	close(wm);
	close(wl);
	ASSERT_EQ(0, mkdir(LO("d"), 0755));
	dm = open(MN("d"), O_RDONLY | O_DIRECTORY);
	dl = open(LO("d"), O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, dm);
	ASSERT_LE(0, dl);
	SAME("pread dir", rs(pread(dm, bm, 10, 0)), rs(pread(dl, bl, 10, 0)));
	close(dm);
	close(dl);
	close(fm);
	close(fl);
	free(buf);
	free(bm);
	free(bl);
}

/* O_APPEND from two fds on the mount and two on the lower, interleaved */
TEST_F(io, o_append)
{
	static const size_t lens[] = { 4, 6, 2, 3, 5000, 1, 7 };
	char *want = malloc(16384), *got = malloc(16384);
	size_t total = 0, i;
	int fd[4];

	ASSERT_TRUE(want && got);
	fd[0] = open(MN("app"), O_CREAT | O_WRONLY | O_APPEND, 0644);
	fd[1] = open(LO("app"), O_WRONLY | O_APPEND);
	fd[2] = open(MN("app"), O_RDWR | O_APPEND);
	fd[3] = open(LO("app"), O_RDWR | O_APPEND);
	for (i = 0; i < 4; i++)
		ASSERT_LE(0, fd[i]);
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		int f = fd[i % 4];

		memset(want + total, 'a' + i, lens[i]);
		/* The offset given is ignored: always at the end */
		if (i == 5) {
			ASSERT_EQ(lens[i], pwrite(f, want + total, lens[i], 0));
		} else {
			ASSERT_EQ(lens[i], write(f, want + total, lens[i]));
			EXPECT_EQ(total + lens[i], lseek(f, 0, SEEK_CUR))
				TH_LOG("write %zu", i);
		}
		total += lens[i];
		EXPECT_EQ(total, fd_size(fd[0]));
		EXPECT_EQ(total, fd_size(fd[1]));
	}
	ASSERT_EQ(total, read_path(LO("app"), got, 16384));
	EXPECT_EQ(0, memcmp(want, got, total));
	ASSERT_EQ(total, read_path(MN("app"), got, 16384));
	EXPECT_EQ(0, memcmp(want, got, total));
	EXPECT_EQ(total, pread_full(fd[2], got, 16384, 0));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(0, close(fd[i]));

	/* O_APPEND switched on and off by F_SETFL */
	fd[0] = open(MN("app"), O_WRONLY);
	ASSERT_LE(0, fd[0]);
	ASSERT_EQ(0, fcntl(fd[0], F_SETFL, O_APPEND));
	ASSERT_EQ(2, write(fd[0], "zz", 2));
	EXPECT_EQ(total + 2, lseek(fd[0], 0, SEEK_CUR));
	EXPECT_EQ(total + 2, fd_size(fd[0]));
	ASSERT_EQ(0, fcntl(fd[0], F_SETFL, 0));
	ASSERT_EQ(1, pwrite(fd[0], "y", 1, 0));
	EXPECT_EQ(total + 2, fd_size(fd[0]));
	ASSERT_EQ(total + 2, read_path(LO("app"), got, 16384));
	EXPECT_EQ('y', got[0]);
	EXPECT_EQ(0, memcmp(got + total, "zz", 2));
	close(fd[0]);
	free(want);
	free(got);
}

/*
 * O_DIRECT: opening it must succeed on the mount exactly when it does on
 * the lower; then direct I/O is coherent with buffered I/O on the lower
 * and misaligned requests fail (or not) as on the lower.
 */
TEST_F(io, o_direct)
{
	void *buf, *rbuf, *bm, *bl;
	int fm, fl, fb, nm, nl;
	struct res m, l;

	ASSERT_EQ(0, posix_memalign(&buf, PAGE, 4 * PAGE));
	ASSERT_EQ(0, posix_memalign(&rbuf, PAGE, 4 * PAGE));
	ASSERT_EQ(0, posix_memalign(&bm, PAGE, 4 * PAGE));
	ASSERT_EQ(0, posix_memalign(&bl, PAGE, 4 * PAGE));
	fl = open(LO("dl"), O_CREAT | O_RDWR | O_DIRECT, 0644);
	l = rfd(fl);
	fm = open(MN("dm"), O_CREAT | O_RDWR | O_DIRECT, 0644);
	m = rfd(fm);
	SAME("open O_DIRECT", m, l);
	if (variant->kind == PT_EXT4)
		ASSERT_LE(0, fl);
	if (fl < 0 || fm < 0)
		return;
	EXPECT_TRUE(fcntl(fm, F_GETFL) & O_DIRECT);

	fill(buf, 2 * PAGE, 5);
	ASSERT_EQ(2 * PAGE, pwrite(fm, buf, 2 * PAGE, 0));
	ASSERT_EQ(2 * PAGE, pwrite(fl, buf, 2 * PAGE, 0));
	ASSERT_EQ(2 * PAGE, read_path(LO("dm"), rbuf, 4 * PAGE));
	EXPECT_EQ(0, memcmp(buf, rbuf, 2 * PAGE));

	/* Buffered write on the lower, direct read through the mount */
	fb = open(LO("dm"), O_RDWR);
	ASSERT_LE(0, fb);
	fill(buf, PAGE, 6);
	ASSERT_EQ(PAGE, pwrite(fb, buf, PAGE, PAGE));
	ASSERT_EQ(PAGE, pread(fm, rbuf, PAGE, PAGE));
	EXPECT_EQ(0, memcmp(buf, rbuf, PAGE));

	/* Direct write through the mount over a page cached on the lower */
	ASSERT_EQ(PAGE, pread(fb, rbuf, PAGE, 0));
	fill(buf, PAGE, 7);
	ASSERT_EQ(PAGE, pwrite(fm, buf, PAGE, 0));
	ASSERT_EQ(PAGE, pread(fb, rbuf, PAGE, 0));
	EXPECT_EQ(0, memcmp(buf, rbuf, PAGE));
	close(fb);

	/* Misaligned buffer, offset, length */
	SAME("read buf+1", rs(pread(fm, (char *)bm + 1, PAGE, 0)),
	     rs(pread(fl, (char *)bl + 1, PAGE, 0)));
	SAME("read off 100", rs(pread(fm, bm, PAGE, 100)),
	     rs(pread(fl, bl, PAGE, 100)));
	SAME("write len 100", rs(pwrite(fm, buf, 100, 0)),
	     rs(pwrite(fl, buf, 100, 0)));
	SAME("write off 4097", rs(pwrite(fm, buf, PAGE, PAGE + 1)),
	     rs(pwrite(fl, buf, PAGE, PAGE + 1)));
	EXPECT_EQ(fd_size(fl), fd_size(fm));

	/* O_DIRECT switched on by F_SETFL */
	nm = open(MN("dm"), O_RDWR);
	nl = open(LO("dl"), O_RDWR);
	ASSERT_LE(0, nm);
	ASSERT_LE(0, nl);
	SAME("F_SETFL O_DIRECT", rs(fcntl(nm, F_SETFL, O_DIRECT)),
	     rs(fcntl(nl, F_SETFL, O_DIRECT)));
	SAME("setfl read off 100", rs(pread(nm, bm, PAGE, 100)),
	     rs(pread(nl, bl, PAGE, 100)));
	SAME("setfl read", rs(pread(nm, bm, PAGE, 0)),
	     rs(pread(nl, bl, PAGE, 0)));
	close(nm);
	close(nl);
	close(fm);
	close(fl);
	free(buf);
	free(rbuf);
	free(bm);
	free(bl);
}

/* O_TRUNC empties the lower file at open, dropping its cached pages */
TEST_F(io, o_trunc)
{
	const struct timespec old_times[2] = { { 1000, 0 }, { 1000, 0 } };
	char buf[10000], got[10000];
	struct stat st;
	int fl, fm, fr, lr;

	fill(buf, sizeof(buf), 8);
	ASSERT_EQ(0, write_file(LO("t"), buf, sizeof(buf)));
	fl = open(LO("t"), O_RDONLY);
	ASSERT_LE(0, fl);
	ASSERT_EQ(sizeof(buf), pread_full(fl, got, sizeof(got), 0));
	ASSERT_EQ(0, utimensat(AT_FDCWD, LO("t"), old_times, 0));

	fm = open(MN("t"), O_WRONLY | O_TRUNC);
	ASSERT_LE(0, fm);
	EXPECT_EQ(0, fd_size(fl));
	EXPECT_EQ(0, pread(fl, got, sizeof(got), 0));
	ASSERT_EQ(0, stat(LO("t"), &st));
	EXPECT_EQ(0, st.st_size);
	EXPECT_NE(1000, st.st_mtim.tv_sec);
	EXPECT_EQ(0, st.st_blocks);
	ASSERT_EQ(3, write(fm, "new", 3));
	EXPECT_EQ(3, pread(fl, got, sizeof(got), 0));
	EXPECT_EQ(0, memcmp(got, "new", 3));
	close(fm);
	close(fl);

	/* O_RDONLY|O_TRUNC: whatever the lower does */
	ASSERT_EQ(0, write_file(LO("r1"), buf, 100));
	ASSERT_EQ(0, write_file(LO("r2"), buf, 100));
	fr = open(MN("r1"), O_RDONLY | O_TRUNC);
	lr = open(LO("r2"), O_RDONLY | O_TRUNC);
	SAME("O_RDONLY|O_TRUNC", rfd(fr), rfd(lr));
	EXPECT_EQ(fd_size(lr), fd_size(fr));
	close(fr);
	close(lr);

	/* O_CREAT|O_TRUNC of a new file */
	fm = open(MN("new"), O_CREAT | O_TRUNC | O_WRONLY, 0640);
	ASSERT_LE(0, fm);
	ASSERT_EQ(0, stat(LO("new"), &st));
	EXPECT_EQ(S_IFREG | 0640, st.st_mode);
	EXPECT_EQ(0, st.st_size);
	close(fm);
}

static long sys_io_setup(unsigned int nr, aio_context_t *ctx)
{
	return syscall(__NR_io_setup, nr, ctx);
}

static long sys_io_submit(aio_context_t ctx, long nr, struct iocb **iocbpp)
{
	return syscall(__NR_io_submit, ctx, nr, iocbpp);
}

static long sys_io_getevents(aio_context_t ctx, long min, long max,
			     struct io_event *ev)
{
	struct timespec ts = { 10, 0 };

	return syscall(__NR_io_getevents, ctx, min, max, ev, &ts);
}

static long sys_io_destroy(aio_context_t ctx)
{
	return syscall(__NR_io_destroy, ctx);
}

/* One AIO request on @fd, waited for; its result (res) or -1000 - errno */
static long aio_one(aio_context_t ctx, int fd, int opcode, void *buf,
		    size_t len, off_t off)
{
	struct iocb cb = {
		.aio_data = 0x1234,
		.aio_lio_opcode = opcode,
		.aio_fildes = fd,
		.aio_buf = (uintptr_t)buf,
		.aio_nbytes = len,
		.aio_offset = off,
	};
	struct iocb *cbs[1] = { &cb };
	struct io_event ev;

	if (sys_io_submit(ctx, 1, cbs) != 1)
		return -1000 - errno;
	if (sys_io_getevents(ctx, 1, 1, &ev) != 1)
		return -2000 - errno;
	if (ev.data != 0x1234 || ev.obj != (uintptr_t)&cb)
		return -3000;
	return ev.res;
}

/* Native AIO through the mount: write, read, vectors, fsync, direct */
TEST_F(io, aio)
{
	char *buf = malloc(4 * PAGE), *got = malloc(8 * PAGE);
	aio_context_t ctx = 0;
	struct iovec iov[2];
	void *dbuf;
	int fm, fl, fd;

	ASSERT_TRUE(buf && got);
	ASSERT_EQ(0, sys_io_setup(8, &ctx));
	fm = open(MN("aio"), O_CREAT | O_RDWR, 0644);
	fl = open(LO("aio2"), O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fm);
	ASSERT_LE(0, fl);

	fill(buf, 10000, 9);
	EXPECT_EQ(10000, aio_one(ctx, fm, IOCB_CMD_PWRITE, buf, 10000, PAGE));
	ASSERT_EQ(PAGE + 10000, read_path(LO("aio"), got, 8 * PAGE));
	EXPECT_EQ(0, got[0]);
	EXPECT_EQ(0, got[PAGE - 1]);
	EXPECT_EQ(0, memcmp(buf, got + PAGE, 10000));

	/* Lower write, AIO read through the mount */
	fd = open(LO("aio"), O_RDWR);
	ASSERT_LE(0, fd);
	fill(buf, 300, 10);
	ASSERT_EQ(300, pwrite(fd, buf, 300, 100));
	close(fd);
	memset(got, 0xff, 8 * PAGE);
	EXPECT_EQ(2 * PAGE, aio_one(ctx, fm, IOCB_CMD_PREAD, got, 2 * PAGE, 0));
	EXPECT_EQ(0, memcmp(buf, got + 100, 300));
	EXPECT_EQ(0, got[0]);
	/* Short read at the end */
	EXPECT_EQ(10000 - PAGE, aio_one(ctx, fm, IOCB_CMD_PREAD, got,
					3 * PAGE, 2 * PAGE));

	/* Vectors */
	fill(buf, 3000, 11);
	iov[0] = (struct iovec){ buf, 1000 };
	iov[1] = (struct iovec){ buf + 1000, 2000 };
	EXPECT_EQ(3000, aio_one(ctx, fm, IOCB_CMD_PWRITEV, iov, 2, 20000));
	ASSERT_EQ(23000, read_path(LO("aio"), got, 8 * PAGE));
	EXPECT_EQ(0, memcmp(buf, got + 20000, 3000));
	memset(got, 0, 3000);
	iov[0] = (struct iovec){ got, 10 };
	iov[1] = (struct iovec){ got + 10, 2990 };
	EXPECT_EQ(3000, aio_one(ctx, fm, IOCB_CMD_PREADV, iov, 2, 20000));
	EXPECT_EQ(0, memcmp(buf, got, 3000));

	/* fsync and fdatasync: as on the lower */
	EXPECT_EQ(aio_one(ctx, fl, IOCB_CMD_FSYNC, NULL, 0, 0),
		  aio_one(ctx, fm, IOCB_CMD_FSYNC, NULL, 0, 0));
	EXPECT_EQ(aio_one(ctx, fl, IOCB_CMD_FDSYNC, NULL, 0, 0),
		  aio_one(ctx, fm, IOCB_CMD_FDSYNC, NULL, 0, 0));
	close(fm);
	close(fl);

	/* Direct AIO, where the lower has O_DIRECT */
	fd = open(LO("aiod"), O_CREAT | O_RDWR | O_DIRECT, 0644);
	fm = open(MN("aiod"), O_RDWR | O_DIRECT);
	SAME("open O_DIRECT", rfd(fm), rfd(fd));
	if (fd >= 0 && fm >= 0) {
		ASSERT_EQ(0, posix_memalign(&dbuf, PAGE, 2 * PAGE));
		fill(dbuf, 2 * PAGE, 12);
		EXPECT_EQ(2 * PAGE, aio_one(ctx, fm, IOCB_CMD_PWRITE, dbuf,
					    2 * PAGE, PAGE));
		ASSERT_EQ(3 * PAGE, read_path(LO("aiod"), got, 8 * PAGE));
		EXPECT_EQ(0, memcmp(dbuf, got + PAGE, 2 * PAGE));
		memset(dbuf, 0, 2 * PAGE);
		EXPECT_EQ(2 * PAGE, aio_one(ctx, fm, IOCB_CMD_PREAD, dbuf,
					    2 * PAGE, PAGE));
		EXPECT_EQ(0, memcmp(dbuf, got + PAGE, 2 * PAGE));
		free(dbuf);
	}
	if (fd >= 0)
		close(fd);
	if (fm >= 0)
		close(fm);
	EXPECT_EQ(0, sys_io_destroy(ctx));
	free(buf);
	free(got);
}

/* readv/writev and the RWF_ flags of preadv2/pwritev2, against a twin */
TEST_F(io, readv_writev)
{
	char a[3000], b[5000], c[7], got[20000], gl[20000];
	struct iovec iov[3] = { { a, sizeof(a) }, { b, sizeof(b) },
				{ c, sizeof(c) } };
	struct iovec rv[2];
	int fm, fl, f;
	struct res m, l;

	fill(a, sizeof(a), 13);
	fill(b, sizeof(b), 14);
	fill(c, sizeof(c), 15);
	fm = open(MN("v"), O_CREAT | O_RDWR, 0644);
	fl = open(LO("v2"), O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fm);
	ASSERT_LE(0, fl);
	SAME("writev", rs(writev(fm, iov, 3)), rs(writev(fl, iov, 3)));
	EXPECT_EQ(8007, lseek(fm, 0, SEEK_CUR));

	/* Read back on the lower, split differently */
	f = open(LO("v"), O_RDONLY);
	ASSERT_LE(0, f);
	rv[0] = (struct iovec){ got, 4095 };
	rv[1] = (struct iovec){ got + 4095, 10000 };
	ASSERT_EQ(8007, readv(f, rv, 2));
	close(f);
	EXPECT_EQ(0, memcmp(got, a, sizeof(a)));
	EXPECT_EQ(0, memcmp(got + 3000, b, sizeof(b)));
	EXPECT_EQ(0, memcmp(got + 8000, c, sizeof(c)));

	/* preadv at an offset */
	rv[0] = (struct iovec){ got, 10 };
	rv[1] = (struct iovec){ got + 10, 9000 };
	m = rs(preadv(fm, rv, 2, 5));
	rv[0] = (struct iovec){ gl, 10 };
	rv[1] = (struct iovec){ gl + 10, 9000 };
	l = rs(preadv(fl, rv, 2, 5));
	SAME("preadv", m, l);
	EXPECT_EQ(8002, m.ret);
	EXPECT_EQ(0, memcmp(got, gl, 8002));

	/* Per-call flags reach the lower */
	SAME("pwritev2 RWF_APPEND", rs(pwritev2(fm, iov, 1, 0, RWF_APPEND)),
	     rs(pwritev2(fl, iov, 1, 0, RWF_APPEND)));
	SAME("pwritev2 RWF_DSYNC", rs(pwritev2(fm, iov + 2, 1, 3, RWF_DSYNC)),
	     rs(pwritev2(fl, iov + 2, 1, 3, RWF_DSYNC)));
	SAME("pwritev2 RWF_SYNC", rs(pwritev2(fm, iov + 2, 1, 20, RWF_SYNC)),
	     rs(pwritev2(fl, iov + 2, 1, 20, RWF_SYNC)));
	SAME("pwritev2 bad flag", rs(pwritev2(fm, iov, 1, 0, 0x40000000)),
	     rs(pwritev2(fl, iov, 1, 0, 0x40000000)));
	SAME("pwritev2 -1", rs(pwritev2(fm, iov + 2, 1, -1, 0)),
	     rs(pwritev2(fl, iov + 2, 1, -1, 0)));
	EXPECT_EQ(fd_size(fl), fd_size(fm));
	EXPECT_EQ(11007, fd_size(fm));
	m = rs(read_path(LO("v"), got, sizeof(got)));
	l = rs(read_path(LO("v2"), gl, sizeof(gl)));
	SAME("contents", m, l);
	EXPECT_EQ(0, memcmp(got, gl, 11007));
	close(fm);
	close(fl);
}

/* ------------------------------------------------------------------ */
/* 2. splice and sendfile                                               */
/* ------------------------------------------------------------------ */

TEST_F(io, splice)
{
	const size_t len = 20000;
	char *data = malloc(len), *got = malloc(2 * len);
	char *pdata = malloc(len);
	int p[2], fm, fa, la;
	loff_t off;

	ASSERT_TRUE(data && got && pdata);
	fill(data, len, 16);
	ASSERT_EQ(0, write_file(LO("s"), data, len));
	fm = open(MN("s"), O_RDWR);
	ASSERT_LE(0, fm);
	ASSERT_EQ(0, pipe(p));
	fcntl(p[1], F_SETPIPE_SZ, 65536);

	/* File to pipe, at an offset */
	off = 1000;
	ASSERT_EQ(8000, splice(fm, &off, p[1], NULL, 8000, 0));
	EXPECT_EQ(9000, off);
	ASSERT_EQ(8000, read(p[0], got, 8000));
	EXPECT_EQ(0, memcmp(data + 1000, got, 8000));

	/* File to pipe, at the file position */
	ASSERT_EQ(50, lseek(fm, 50, SEEK_SET));
	ASSERT_EQ(100, splice(fm, NULL, p[1], NULL, 100, 0));
	EXPECT_EQ(150, lseek(fm, 0, SEEK_CUR));
	ASSERT_EQ(100, read(p[0], got, 100));
	EXPECT_EQ(0, memcmp(data + 50, got, 100));

	/* At and past the end */
	off = len - 10;
	EXPECT_EQ(10, splice(fm, &off, p[1], NULL, 100, 0));
	ASSERT_EQ(10, read(p[0], got, 100));
	off = len;
	EXPECT_EQ(0, splice(fm, &off, p[1], NULL, 100, 0));

	/* Pipe to file: at an offset, then at the file position */
	fill(pdata, 5000, 17);
	ASSERT_EQ(5000, write(p[1], pdata, 5000));
	off = 3000;
	ASSERT_EQ(5000, splice(p[0], NULL, fm, &off, 5000, 0));
	EXPECT_EQ(8000, off);
	memcpy(data + 3000, pdata, 5000);
	ASSERT_EQ(300, write(p[1], pdata, 300));
	ASSERT_EQ(len - 100, lseek(fm, -100, SEEK_END));
	ASSERT_EQ(300, splice(p[0], NULL, fm, NULL, 300, 0));
	EXPECT_EQ(len + 200, lseek(fm, 0, SEEK_CUR));
	ASSERT_EQ(len + 200, read_path(LO("s"), got, 2 * len));
	EXPECT_EQ(0, memcmp(data, got, len - 100));
	EXPECT_EQ(0, memcmp(pdata, got + len - 100, 300));
	EXPECT_EQ(len + 200, fd_size(fm));

	/* Pipe to an O_APPEND file: as on the lower */
	fa = open(MN("s"), O_WRONLY | O_APPEND);
	la = open(LO("s"), O_WRONLY | O_APPEND);
	ASSERT_LE(0, fa);
	ASSERT_LE(0, la);
	ASSERT_EQ(20, write(p[1], pdata, 20));
	off = 0;
	SAME("splice to O_APPEND at offset",
	     rs(splice(p[0], NULL, fa, &off, 10, 0)),
	     rs(splice(p[0], NULL, la, &off, 10, 0)));
	SAME("splice to O_APPEND", rs(splice(p[0], NULL, fa, NULL, 5, 0)),
	     rs(splice(p[0], NULL, la, NULL, 5, 0)));
	EXPECT_EQ(fd_size(la), fd_size(fa));
	close(fa);
	close(la);
	close(p[0]);
	close(p[1]);
	close(fm);
	free(data);
	free(got);
	free(pdata);
}

TEST_F(io, sendfile)
{
	const size_t len = 30000;
	char *data = malloc(len), *got = malloc(2 * len);
	ssize_t n, done;
	int fs, fd, ld;
	off_t off;

	ASSERT_TRUE(data && got);
	fill(data, len, 18);
	ASSERT_EQ(0, write_file(LO("src"), data, len));
	fs = open(MN("src"), O_RDONLY);
	fd = open(MN("dst"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
	ASSERT_LE(0, fs);
	ASSERT_LE(0, fd);

	/* With an offset: the file position stays */
	off = 100;
	for (done = 0; done < 25000; done += n) {
		n = sendfile(fd, fs, &off, 25000 - done);
		ASSERT_LT(0, n) TH_LOG("sendfile: %s", strerror(errno));
	}
	EXPECT_EQ(25100, off);
	EXPECT_EQ(0, lseek(fs, 0, SEEK_CUR));
	ASSERT_EQ(25000, read_path(LO("dst"), got, 2 * len));
	EXPECT_EQ(0, memcmp(data + 100, got, 25000));

	/* At the file position, to the end of the source */
	ASSERT_EQ(29000, lseek(fs, 29000, SEEK_SET));
	EXPECT_EQ(1000, sendfile(fd, fs, NULL, 5000));
	EXPECT_EQ(len, lseek(fs, 0, SEEK_CUR));
	EXPECT_EQ(0, sendfile(fd, fs, NULL, 5000));
	ASSERT_EQ(26000, read_path(LO("dst"), got, 2 * len));
	EXPECT_EQ(0, memcmp(data + 29000, got + 25000, 1000));

	/* Mount file to a lower file */
	ld = open(LO("dst2"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
	ASSERT_LE(0, ld);
	off = 0;
	for (done = 0; done < (ssize_t)len; done += n) {
		n = sendfile(ld, fs, &off, len - done);
		ASSERT_LT(0, n) TH_LOG("sendfile: %s", strerror(errno));
	}
	ASSERT_EQ(len, read_path(LO("dst2"), got, 2 * len));
	EXPECT_EQ(0, memcmp(data, got, len));
	close(ld);
	close(fd);
	close(fs);
	free(data);
	free(got);
}

/* ------------------------------------------------------------------ */
/* 3. mmap                                                              */
/* ------------------------------------------------------------------ */

TEST_F(io, mmap_shared_write)
{
	const size_t len = 3 * PAGE;
	char data[3 * PAGE], got[3 * PAGE];
	static const char msg[] = "written through a shared mapping";
	int fm, fl;
	char *p;

	fill(data, len, 19);
	ASSERT_EQ(0, write_file(LO("m"), data, len));
	fm = open(MN("m"), O_RDWR);
	fl = open(LO("m"), O_RDONLY);
	ASSERT_LE(0, fm);
	ASSERT_LE(0, fl);
	ASSERT_EQ(len, pread_full(fl, got, len, 0));
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fm, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0, memcmp(p, data, len));

	/* Across a page boundary */
	memcpy(p + PAGE - 10, msg, sizeof(msg));
	memcpy(data + PAGE - 10, msg, sizeof(msg));
	/* One page cache: visible before any msync() */
	ASSERT_EQ(sizeof(msg), pread(fl, got, sizeof(msg), PAGE - 10));
	EXPECT_EQ(0, memcmp(got, msg, sizeof(msg)));
	EXPECT_EQ(0, msync(p, len, MS_SYNC));
	ASSERT_EQ(len, pread_full(fl, got, len, 0));
	EXPECT_EQ(0, memcmp(data, got, len));
	ASSERT_EQ(len, read_path(LO("m"), got, len));
	EXPECT_EQ(0, memcmp(data, got, len));
	ASSERT_EQ(len, pread_full(fm, got, len, 0));
	EXPECT_EQ(0, memcmp(data, got, len));
	EXPECT_EQ(len, fd_size(fl));
	EXPECT_EQ(0, munmap(p, len));
	EXPECT_EQ(0, close(fm));
	ASSERT_EQ(len, read_path(LO("m"), got, len));
	EXPECT_EQ(0, memcmp(data, got, len));
	close(fl);
}

TEST_F(io, mmap_sees_lower_write)
{
	const size_t len = 2 * PAGE;
	char data[2 * PAGE];
	char *p, *q;
	int fm, fl, fw;

	fill(data, len, 20);
	ASSERT_EQ(0, write_file(LO("m"), data, len));
	fm = open(MN("m"), O_RDONLY);
	fl = open(LO("m"), O_RDWR);
	fw = open(MN("m"), O_RDWR);
	ASSERT_LE(0, fm);
	ASSERT_LE(0, fl);
	ASSERT_LE(0, fw);
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fm, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(data[5000], p[5000]);
	ASSERT_EQ(5, pwrite(fl, "LOWER", 5, 5000));
	EXPECT_EQ(0, memcmp(p + 5000, "LOWER", 5));

	/* And a lower mapping sees writes through the mount */
	q = mmap(NULL, len, PROT_READ, MAP_SHARED, fl, 0);
	ASSERT_NE(MAP_FAILED, q);
	EXPECT_EQ(data[10], q[10]);
	ASSERT_EQ(5, pwrite(fw, "UPPER", 5, 10));
	EXPECT_EQ(0, memcmp(q + 10, "UPPER", 5));
	EXPECT_EQ(0, memcmp(p + 10, "UPPER", 5));
	munmap(q, len);
	munmap(p, len);
	close(fw);
	close(fl);
	close(fm);
}

/* Private mappings do not write back; mapping errors as on the lower */
TEST_F(io, mmap_private_and_modes)
{
	const size_t len = 2 * PAGE;
	char data[2 * PAGE], got[2 * PAGE];
	int fm, fl, wm, wl, am, al;
	char *p;

	fill(data, len, 21);
	ASSERT_EQ(0, write_file(LO("m"), data, len));
	fm = open(MN("m"), O_RDONLY);
	fl = open(LO("m"), O_RDONLY);
	ASSERT_LE(0, fm);
	ASSERT_LE(0, fl);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fm, 0);
	ASSERT_NE(MAP_FAILED, p);
	memset(p, 'X', len);
	EXPECT_EQ(0, msync(p, len, MS_SYNC));
	ASSERT_EQ(len, pread_full(fl, got, len, 0));
	EXPECT_EQ(0, memcmp(data, got, len));
	ASSERT_EQ(len, pread_full(fm, got, len, 0));
	EXPECT_EQ(0, memcmp(data, got, len));
	munmap(p, len);
	ASSERT_EQ(len, read_path(LO("m"), got, len));
	EXPECT_EQ(0, memcmp(data, got, len));

	/* Shared writable on O_RDONLY, anything on O_WRONLY, O_APPEND */
	SAME("MAP_SHARED|PROT_WRITE on O_RDONLY",
	     rmap(len, PROT_WRITE, fm, 0), rmap(len, PROT_WRITE, fl, 0));
	wm = open(MN("m"), O_WRONLY);
	wl = open(LO("m"), O_WRONLY);
	ASSERT_LE(0, wm);
	ASSERT_LE(0, wl);
	SAME("mmap O_WRONLY", rmap(len, PROT_READ, wm, 0),
	     rmap(len, PROT_READ, wl, 0));
	am = open(MN("m"), O_RDWR | O_APPEND);
	al = open(LO("m"), O_RDWR | O_APPEND);
	ASSERT_LE(0, am);
	ASSERT_LE(0, al);
	SAME("mmap shared writable O_APPEND",
	     rmap(len, PROT_READ | PROT_WRITE, am, 0),
	     rmap(len, PROT_READ | PROT_WRITE, al, 0));
	SAME("mmap offset 100", rmap(len, PROT_READ, fm, 100),
	     rmap(len, PROT_READ, fl, 100));
	close(am);
	close(al);
	close(wm);
	close(wl);
	close(fm);
	close(fl);
}

/* ------------------------------------------------------------------ */
/* 4. lseek                                                             */
/* ------------------------------------------------------------------ */

TEST_F(io, lseek_whence)
{
	static const struct {
		off_t off;
		int whence;
	} ops[] = {
		{ 0, SEEK_SET }, { 100, SEEK_SET }, { 50, SEEK_CUR },
		{ -10, SEEK_CUR }, { 0, SEEK_END }, { -100, SEEK_END },
		{ 5000, SEEK_END }, { -1, SEEK_SET }, { -20000, SEEK_END },
		{ -20000, SEEK_CUR }, { 0, 5 }, { 7, SEEK_SET },
		{ 0, SEEK_CUR },
	};
	char data[10000];
	int fm, fl, dm, dl;
	unsigned int i;

	fill(data, sizeof(data), 22);
	ASSERT_EQ(0, write_file(LO("l"), data, sizeof(data)));
	fm = open(MN("l"), O_RDONLY);
	fl = open(LO("l"), O_RDONLY);
	ASSERT_LE(0, fm);
	ASSERT_LE(0, fl);
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		char what[32];

		snprintf(what, sizeof(what), "lseek %u", i);
		SAME(what, rs(lseek(fm, ops[i].off, ops[i].whence)),
		     rs(lseek(fl, ops[i].off, ops[i].whence)));
	}
	/* Reads continue from there */
	ASSERT_EQ(10, read(fm, data, 10));
	EXPECT_EQ(17, lseek(fm, 0, SEEK_CUR));

	ASSERT_EQ(0, mkdir(LO("d"), 0755));
	dm = open(MN("d"), O_RDONLY | O_DIRECTORY);
	dl = open(LO("d"), O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, dm);
	ASSERT_LE(0, dl);
	SAME("dir SEEK_SET 0", rs(lseek(dm, 0, SEEK_SET)),
	     rs(lseek(dl, 0, SEEK_SET)));
	SAME("dir SEEK_END", rs(lseek(dm, 0, SEEK_END)),
	     rs(lseek(dl, 0, SEEK_END)));
	SAME("dir SEEK_CUR -1", rs(lseek(dm, -1, SEEK_CUR)),
	     rs(lseek(dl, -1, SEEK_CUR)));
	close(dm);
	close(dl);
	close(fm);
	close(fl);
}

/* A 2 MiB file with data at 0 and 1 MiB: the lower's data and holes */
TEST_F(io, lseek_data_hole)
{
	static const off_t offs[] = {
		0, 1, PAGE - 1, PAGE, 65536, MIB - 1, MIB, MIB + 100,
		MIB + PAGE, 2 * MIB - 1, 2 * MIB, 3 * MIB, -1,
	};
	char page[PAGE];
	unsigned int i;
	int fm, fl;

	fill(page, PAGE, 23);
	fm = open(MN("sparse"), O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, fm);
	ASSERT_EQ(PAGE, pwrite(fm, page, PAGE, 0));
	ASSERT_EQ(PAGE, pwrite(fm, page, PAGE, MIB));
	ASSERT_EQ(0, ftruncate(fm, 2 * MIB));
	fl = open(LO("sparse"), O_RDONLY);
	ASSERT_LE(0, fl);
	for (i = 0; i < ARRAY_SIZE(offs); i++) {
		char what[48];

		snprintf(what, sizeof(what), "SEEK_DATA %ld", (long)offs[i]);
		SAME(what, rs(lseek(fm, offs[i], SEEK_DATA)),
		     rs(lseek(fl, offs[i], SEEK_DATA)));
		snprintf(what, sizeof(what), "SEEK_HOLE %ld", (long)offs[i]);
		SAME(what, rs(lseek(fm, offs[i], SEEK_HOLE)),
		     rs(lseek(fl, offs[i], SEEK_HOLE)));
	}
	/* Not a file that is all data, as a naive llseek would make it */
	EXPECT_EQ(0, lseek(fm, 0, SEEK_DATA));
	EXPECT_GE(MIB, lseek(fm, 0, SEEK_HOLE));
	EXPECT_EQ(MIB, lseek(fm, PAGE, SEEK_DATA));
	EXPECT_EQ(-1, lseek(fm, 2 * MIB, SEEK_HOLE));
	EXPECT_EQ(ENXIO, errno);
	/* Once written back, still the same */
	ASSERT_EQ(0, fsync(fm));
	for (i = 0; i < ARRAY_SIZE(offs); i++) {
		SAME("after fsync SEEK_DATA", rs(lseek(fm, offs[i], SEEK_DATA)),
		     rs(lseek(fl, offs[i], SEEK_DATA)));
		SAME("after fsync SEEK_HOLE", rs(lseek(fm, offs[i], SEEK_HOLE)),
		     rs(lseek(fl, offs[i], SEEK_HOLE)));
	}
	close(fm);
	close(fl);
}

/* ------------------------------------------------------------------ */
/* 5. fallocate, every mode, against a twin on the lower                */
/* ------------------------------------------------------------------ */

#define FA_LEN		(64 * 1024)
#define FA_MAX		(512 * 1024)

struct fa {
	int fm;		/* "fa" through the mount */
	int fl;		/* its twin "fa_twin" on the lower */
	char *bm, *bl;
};

static void fa_open(struct __test_metadata *_metadata, struct fa *f)
{
	char *data = malloc(FA_LEN);
	int fd;

	ASSERT_NE(NULL, data);
	fill(data, FA_LEN, 24);
	ASSERT_EQ(0, write_file(LO("fa"), data, FA_LEN));
	ASSERT_EQ(0, write_file(LO("fa_twin"), data, FA_LEN));
	free(data);
	/* Allocated the same way before the mode under test runs */
	fd = open(LO("fa"), O_RDONLY);
	ASSERT_EQ(0, fsync(fd));
	close(fd);
	fd = open(LO("fa_twin"), O_RDONLY);
	ASSERT_EQ(0, fsync(fd));
	close(fd);
	f->fm = open(MN("fa"), O_RDWR);
	f->fl = open(LO("fa_twin"), O_RDWR);
	ASSERT_LE(0, f->fm);
	ASSERT_LE(0, f->fl);
	f->bm = malloc(FA_MAX);
	f->bl = malloc(FA_MAX);
	ASSERT_TRUE(f->bm && f->bl);
}

static void fa_close(struct fa *f)
{
	close(f->fm);
	close(f->fl);
	free(f->bm);
	free(f->bl);
}

/* Size, blocks and data of the two files must be the same */
static void fa_compare(struct __test_metadata *_metadata, struct fa *f,
		       const char *what)
{
	struct stat sm, sl, sp;
	ssize_t nm, nl;

	ASSERT_EQ(0, fstat(f->fm, &sm));
	ASSERT_EQ(0, fstat(f->fl, &sl));
	ASSERT_EQ(0, stat(LO("fa"), &sp));
	EXPECT_EQ(sl.st_size, sm.st_size) TH_LOG("%s: st_size", what);
	EXPECT_EQ(sl.st_blocks, sm.st_blocks) TH_LOG("%s: st_blocks", what);
	EXPECT_EQ(sp.st_size, sm.st_size) TH_LOG("%s: st_size of lower", what);
	EXPECT_EQ(sp.st_blocks, sm.st_blocks)
		TH_LOG("%s: st_blocks of lower", what);
	memset(f->bm, 0xaa, FA_MAX);
	memset(f->bl, 0x55, FA_MAX);
	nm = pread_full(f->fm, f->bm, FA_MAX, 0);
	nl = pread_full(f->fl, f->bl, FA_MAX, 0);
	EXPECT_EQ(nl, nm) TH_LOG("%s: length read", what);
	if (nm == nl && nm > 0)
		EXPECT_EQ(0, memcmp(f->bm, f->bl, nm)) TH_LOG("%s: data", what);
	nl = read_path(LO("fa"), f->bl, FA_MAX);
	EXPECT_EQ(nl, nm) TH_LOG("%s: length read on lower", what);
	if (nm == nl && nm > 0)
		EXPECT_EQ(0, memcmp(f->bm, f->bl, nm))
			TH_LOG("%s: data on lower", what);
}

static void fa_step(struct __test_metadata *_metadata, struct fa *f,
		    int mode, off_t off, off_t len)
{
	char what[96];
	struct res m, l;

	snprintf(what, sizeof(what), "fallocate(%#x, %ld, %ld)", mode,
		 (long)off, (long)len);
	m = rs(fallocate(f->fm, mode, off, len));
	l = rs(fallocate(f->fl, mode, off, len));
	SAME(what, m, l);
	fa_compare(_metadata, f, what);
}

TEST_F(io, fallocate_default)
{
	struct fa f;

	fa_open(_metadata, &f);
	fa_compare(_metadata, &f, "before");
	fa_step(_metadata, &f, 0, 0, PAGE);
	fa_step(_metadata, &f, 0, 60000, 20000);
	fa_step(_metadata, &f, 0, 200000, PAGE);
	fa_step(_metadata, &f, 0, 100, 0);
	fa_step(_metadata, &f, 0, -1, 10);
	EXPECT_EQ(200000 + PAGE, fd_size(f.fm));
	fa_close(&f);
}

TEST_F(io, fallocate_keep_size)
{
	struct fa f;
	char buf[100];

	fa_open(_metadata, &f);
	fa_step(_metadata, &f, FALLOC_FL_KEEP_SIZE, FA_LEN, FA_LEN);
	EXPECT_EQ(FA_LEN, fd_size(f.fm));
	fa_step(_metadata, &f, FALLOC_FL_KEEP_SIZE, 10000, 100);
	fa_step(_metadata, &f, FALLOC_FL_KEEP_SIZE, 0, 0);
	/* Writing into the preallocated range past the end */
	fill(buf, sizeof(buf), 25);
	ASSERT_EQ(100, pwrite(f.fm, buf, 100, FA_LEN + 5000));
	ASSERT_EQ(100, pwrite(f.fl, buf, 100, FA_LEN + 5000));
	fa_compare(_metadata, &f, "write after KEEP_SIZE");
	fa_close(&f);
}

TEST_F(io, fallocate_punch_hole)
{
	const int punch = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
	struct fa f;

	fa_open(_metadata, &f);
	fa_step(_metadata, &f, punch, 2 * PAGE, 2 * PAGE);
	fa_step(_metadata, &f, punch, 1000, 3000);
	fa_step(_metadata, &f, punch, FA_LEN - 5000, 20000);
	fa_step(_metadata, &f, FALLOC_FL_PUNCH_HOLE, 0, PAGE);
	EXPECT_EQ(FA_LEN, fd_size(f.fm));
	/* The punched range reads as zeroes */
	ASSERT_EQ(2 * PAGE, pread(f.fm, f.bm, 2 * PAGE, 2 * PAGE));
	EXPECT_EQ(0, f.bm[0]);
	EXPECT_EQ(0, f.bm[2 * PAGE - 1]);
	fa_close(&f);
}

TEST_F(io, fallocate_zero_range)
{
	struct fa f;

	fa_open(_metadata, &f);
	fa_step(_metadata, &f, FALLOC_FL_ZERO_RANGE, PAGE, 2 * PAGE);
	fa_step(_metadata, &f, FALLOC_FL_ZERO_RANGE, 100, 50);
	fa_step(_metadata, &f, FALLOC_FL_ZERO_RANGE, 60000, 10000);
	fa_step(_metadata, &f, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
		80000, 10000);
	if (variant->kind == PT_EXT4)
		EXPECT_EQ(70000, fd_size(f.fm));
	fa_close(&f);
}

TEST_F(io, fallocate_collapse_range)
{
	struct fa f;

	fa_open(_metadata, &f);
	fa_step(_metadata, &f, FALLOC_FL_COLLAPSE_RANGE, PAGE, 2 * PAGE);
	fa_step(_metadata, &f, FALLOC_FL_COLLAPSE_RANGE, 100, PAGE);
	fa_step(_metadata, &f, FALLOC_FL_COLLAPSE_RANGE, FA_LEN - 4 * PAGE,
		2 * PAGE);
	fa_step(_metadata, &f, FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_KEEP_SIZE,
		0, PAGE);
	if (variant->kind == PT_EXT4)
		EXPECT_EQ(FA_LEN - 2 * PAGE, fd_size(f.fm));
	fa_close(&f);
}

TEST_F(io, fallocate_insert_range)
{
	struct fa f;

	fa_open(_metadata, &f);
	fa_step(_metadata, &f, FALLOC_FL_INSERT_RANGE, 2 * PAGE, PAGE);
	fa_step(_metadata, &f, FALLOC_FL_INSERT_RANGE, 100, PAGE);
	fa_step(_metadata, &f, FALLOC_FL_INSERT_RANGE, FA_LEN + 10 * PAGE,
		PAGE);
	fa_step(_metadata, &f, FALLOC_FL_INSERT_RANGE, 0, 3 * PAGE);
	if (variant->kind == PT_EXT4)
		EXPECT_EQ(FA_LEN + 4 * PAGE, fd_size(f.fm));
	fa_close(&f);
}

/* FS_IOC_FIEMAP through @fd into @m; -1 and errno on failure */
struct fiemap8 {
	struct fiemap fm;
	struct fiemap_extent fe[8];
};

static int fiemap8(int fd, struct fiemap8 *m)
{
	memset(m, 0, sizeof(*m));
	m->fm.fm_length = FIEMAP_MAX_OFFSET;
	m->fm.fm_flags = FIEMAP_FLAG_SYNC;
	m->fm.fm_extent_count = 8;
	return ioctl(fd, FS_IOC_FIEMAP, &m->fm);
}

/*
 * FS_IOC_FIEMAP on a backed file maps the lower file's extents, as
 * overlayfs does: ext4's, hole included; tmpfs has no ->fiemap(), and the
 * mount says EOPNOTSUPP as the lower does.
 */
TEST_F(io, fiemap_maps_the_lower_file)
{
	struct fiemap8 m, l;
	unsigned int i;
	char buf[PAGE];
	int fm, fl;

	memset(buf, 'f', sizeof(buf));
	fm = open(MN("fiemap"), O_RDWR | O_CREAT, 0644);
	ASSERT_LE(0, fm);
	ASSERT_EQ(PAGE, pwrite(fm, buf, PAGE, 0));
	ASSERT_EQ(PAGE, pwrite(fm, buf, PAGE, 64 * PAGE));
	ASSERT_EQ(0, fsync(fm));
	fl = open(LO("fiemap"), O_RDONLY);
	ASSERT_LE(0, fl);

	if (variant->kind != PT_EXT4) {
		ASSERT_EQ(-1, fiemap8(fl, &l));
		ASSERT_EQ(EOPNOTSUPP, errno);
		EXPECT_EQ(-1, fiemap8(fm, &m));
		EXPECT_EQ(EOPNOTSUPP, errno);
		goto out;
	}
	ASSERT_EQ(0, fiemap8(fl, &l));
	ASSERT_EQ(0, fiemap8(fm, &m)) TH_LOG("FIEMAP: %s", strerror(errno));
	/* Two extents with a hole between them, the lower's blocks */
	ASSERT_EQ(2, l.fm.fm_mapped_extents);
	ASSERT_EQ(l.fm.fm_mapped_extents, m.fm.fm_mapped_extents);
	for (i = 0; i < m.fm.fm_mapped_extents; i++) {
		EXPECT_EQ(l.fe[i].fe_logical, m.fe[i].fe_logical);
		EXPECT_EQ(l.fe[i].fe_physical, m.fe[i].fe_physical);
		EXPECT_EQ(l.fe[i].fe_length, m.fe[i].fe_length);
		EXPECT_EQ(l.fe[i].fe_flags, m.fe[i].fe_flags);
	}
	EXPECT_EQ(64 * PAGE, m.fe[1].fe_logical);
	EXPECT_TRUE(m.fe[1].fe_flags & FIEMAP_EXTENT_LAST);
out:
	close(fl);
	close(fm);
}

/* ------------------------------------------------------------------ */
/* 6. copy_file_range                                                   */
/* ------------------------------------------------------------------ */

/* Copy @len bytes, looping over short copies; total, or -1 */
static ssize_t cfr_all(int in, loff_t *off_in, int out, loff_t *off_out,
		       size_t len)
{
	ssize_t n, done = 0;

	while (done < (ssize_t)len) {
		n = copy_file_range(in, off_in, out, off_out, len - done, 0);
		if (n < 0)
			return done ? done : -1;
		if (!n)
			break;
		done += n;
	}
	return done;
}

TEST_F(io, copy_file_range_in_mount)
{
	const size_t len = 50000;
	char *data = malloc(len), *gm = malloc(2 * len), *gl = malloc(2 * len);
	int sm, dm, sl, dl, am, al;
	loff_t im, om, il, ol;
	struct res m, l;

	ASSERT_TRUE(data && gm && gl);
	fill(data, len, 26);
	ASSERT_EQ(0, write_file(LO("c_src"), data, len));
	sm = open(MN("c_src"), O_RDONLY);
	dm = open(MN("c_dst"), O_CREAT | O_RDWR, 0644);
	sl = open(LO("c_src"), O_RDONLY);
	dl = open(LO("c_twin"), O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, sm);
	ASSERT_LE(0, dm);
	ASSERT_LE(0, sl);
	ASSERT_LE(0, dl);

	im = 1000;
	il = 1000;
	om = 500;
	ol = 500;
	m = rs(cfr_all(sm, &im, dm, &om, 30000));
	l = rs(cfr_all(sl, &il, dl, &ol, 30000));
	SAME("copy with offsets", m, l);
	EXPECT_EQ(30000, m.ret);
	EXPECT_EQ(31000, im);
	EXPECT_EQ(30500, om);
	EXPECT_EQ(0, lseek(sm, 0, SEEK_CUR));

	/* At the file positions, to the end of the source */
	ASSERT_EQ(45000, lseek(sm, 45000, SEEK_SET));
	ASSERT_EQ(45000, lseek(sl, 45000, SEEK_SET));
	ASSERT_EQ(40000, lseek(dm, 40000, SEEK_SET));
	ASSERT_EQ(40000, lseek(dl, 40000, SEEK_SET));
	m = rs(cfr_all(sm, NULL, dm, NULL, 10000));
	l = rs(cfr_all(sl, NULL, dl, NULL, 10000));
	SAME("copy at positions", m, l);
	EXPECT_EQ(5000, m.ret);
	EXPECT_EQ(len, lseek(sm, 0, SEEK_CUR));
	EXPECT_EQ(45000, lseek(dm, 0, SEEK_CUR));
	im = len;
	il = len;
	SAME("copy at end", rs(copy_file_range(sm, &im, dm, NULL, 10, 0)),
	     rs(copy_file_range(sl, &il, dl, NULL, 10, 0)));

	m = rs(read_path(LO("c_dst"), gm, 2 * len));
	l = rs(read_path(LO("c_twin"), gl, 2 * len));
	SAME("contents", m, l);
	EXPECT_EQ(45000, m.ret);
	EXPECT_EQ(0, memcmp(gm, gl, 45000));
	EXPECT_EQ(0, memcmp(gm + 500, data + 1000, 30000));
	EXPECT_EQ(0, memcmp(gm + 40000, data + 45000, 5000));

	/* Errors */
	im = 0;
	il = 0;
	SAME("bad flags", rs(copy_file_range(sm, &im, dm, NULL, 10, 1)),
	     rs(copy_file_range(sl, &il, dl, NULL, 10, 1)));
	im = 0;
	il = 0;
	om = 100;
	ol = 100;
	SAME("overlap in one file", rs(copy_file_range(dm, &im, dm, &om, 1000, 0)),
	     rs(copy_file_range(dl, &il, dl, &ol, 1000, 0)));
	SAME("into O_RDONLY",
	     rs(copy_file_range(dm, NULL, sm, NULL, 10, 0)),
	     rs(copy_file_range(dl, NULL, sl, NULL, 10, 0)));
	am = open(MN("c_dst"), O_WRONLY | O_APPEND);
	al = open(LO("c_twin"), O_WRONLY | O_APPEND);
	ASSERT_LE(0, am);
	ASSERT_LE(0, al);
	im = 0;
	il = 0;
	SAME("into O_APPEND", rs(copy_file_range(sm, &im, am, NULL, 10, 0)),
	     rs(copy_file_range(sl, &il, al, NULL, 10, 0)));
	close(am);
	close(al);
	close(sm);
	close(dm);
	close(sl);
	close(dl);
	free(data);
	free(gm);
	free(gl);
}

/*
 * Between the mount and the lower: two filesystems, so the kernel may
 * refuse with EXDEV (then nothing is written); a copy that is made must
 * be right.
 */
TEST_F(io, copy_file_range_mount_lower)
{
	const size_t len = 40000;
	char *data = malloc(len), *got = malloc(2 * len);
	int sm, dl, sl, dm;
	loff_t in, out;
	ssize_t n;

	ASSERT_TRUE(data && got);
	fill(data, len, 27);
	ASSERT_EQ(0, write_file(LO("x_src"), data, len));
	sm = open(MN("x_src"), O_RDONLY);
	dl = open(LO("x_dst"), O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, sm);
	ASSERT_LE(0, dl);
	in = 100;
	out = 0;
	n = cfr_all(sm, &in, dl, &out, 30000);
	if (n < 0) {
		EXPECT_EQ(EXDEV, errno);
		EXPECT_EQ(0, fd_size(dl));
		TH_LOG("mount to lower: EXDEV");
	} else {
		EXPECT_EQ(30000, n);
		EXPECT_EQ(30100, in);
		ASSERT_EQ(30000, read_path(LO("x_dst"), got, 2 * len));
		EXPECT_EQ(0, memcmp(data + 100, got, 30000));
	}

	sl = open(LO("x_src"), O_RDONLY);
	dm = open(MN("y_dst"), O_CREAT | O_RDWR, 0644);
	ASSERT_LE(0, sl);
	ASSERT_LE(0, dm);
	in = 0;
	out = 10;
	n = cfr_all(sl, &in, dm, &out, len);
	if (n < 0) {
		EXPECT_EQ(EXDEV, errno);
		EXPECT_EQ(0, fd_size(dm));
		TH_LOG("lower to mount: EXDEV");
	} else {
		EXPECT_EQ(len, n);
		ASSERT_EQ(len + 10, read_path(LO("y_dst"), got, 2 * len));
		EXPECT_EQ(0, memcmp(data, got + 10, len));
	}
	close(sm);
	close(dl);
	close(sl);
	close(dm);
	free(data);
	free(got);
}

/* ------------------------------------------------------------------ */
/* 6b. The backing file opens on the first access to data              */
/* ------------------------------------------------------------------ */

/*
 * The IN_OPEN events on @name in the lower directory that the inotify
 * instance @in has queued: one per open of the lower file, the backing
 * file's included (vfs_open() reports it on the lower path).
 */
static int lower_opens(int in, const char *name)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	int opens = 0;
	ssize_t n, i;

	while ((n = read(in, buf, sizeof(buf))) > 0)
		for (i = 0; i < n; i += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)(buf + i);
			if ((ev->mask & IN_OPEN) && ev->len &&
			    !strcmp(ev->name, name))
				opens++;
		}
	return opens;
}

/* One first access to the data of an open file: 0 on success */
struct first_access {
	const char *name;
	int (*fn)(int fd);
};

static int fa_read(int fd)
{
	char c;

	return pread(fd, &c, 1, 0) == 1 ? 0 : -1;
}

static int fa_mmap(int fd)
{
	void *p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? -1 : munmap(p, PAGE);
}

static int fa_splice(int fd)
{
	int p[2], ret = -1;
	loff_t off = 0;

	if (pipe(p))
		return -1;
	if (splice(fd, &off, p[1], NULL, 1, 0) == 1)
		ret = 0;
	close(p[0]);
	close(p[1]);
	return ret;
}

static int fa_fsync(int fd)
{
	return fsync(fd);
}

static int fa_seek_data(int fd)
{
	return lseek(fd, 0, SEEK_DATA) == 0 ? 0 : -1;
}

static int fa_flock(int fd)
{
	return flock(fd, LOCK_SH) ?: flock(fd, LOCK_UN);
}

static int fa_posix_lock(int fd)
{
	struct flock fl = lock_of(F_RDLCK, 0, 1);

	return fcntl(fd, F_SETLK, &fl);
}

static int fa_fadvise(int fd)
{
	return posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED);
}

static int fa_poll(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN) ? 0 : -1;
}

static int fa_copy(int fd)
{
	loff_t off = 0;
	int to = open(MN("fa-copy"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
	int ret = -1;

	if (to < 0)
		return -1;
	if (copy_file_range(fd, &off, to, NULL, 1, 0) == 1)
		ret = 0;
	close(to);
	return ret;
}

static const struct first_access first_accesses[] = {
	{ "read", fa_read }, { "mmap", fa_mmap }, { "splice", fa_splice },
	{ "fsync", fa_fsync }, { "SEEK_DATA", fa_seek_data },
	{ "flock", fa_flock }, { "F_SETLK", fa_posix_lock },
	{ "fadvise", fa_fadvise }, { "copy_file_range", fa_copy },
};

/*
 * An open for reading that only stats, polls or closes costs no backing
 * file: the lower file sees no open.  Each first access to data opens it
 * once, and works on it as on a file opened the usual way.  An open for
 * writing opens the lower file at once (a read-only lower mount refuses
 * it there: pt's erofs_lower), and only once.  A reader not yet opened
 * on the lower counts there all the same: no write lease is granted on
 * the lower file while it is open.
 */
TEST_F(io, backing_opened_on_first_access)
{
	static const int write_opens[] = { O_WRONLY, O_RDWR,
					   O_WRONLY | O_TRUNC };
	struct stat st;
	unsigned int i;
	int in, fd, lfd;

	if (pt_fake_mode())
		SKIP(return, "PT_FAKE: the bind mount opens the lower itself");
	ASSERT_EQ(0, write_file(LO("fa"), "data", 4));
	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	ASSERT_LE(0, in);
	ASSERT_LE(0, inotify_add_watch(in, LOWER, IN_OPEN));
	lower_opens(in, "fa");

	fd = open(MN("fa"), O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fstat(fd, &st));
	EXPECT_EQ(4, st.st_size);
	EXPECT_EQ(0, fa_poll(fd));
	EXPECT_EQ(0, lower_opens(in, "fa"));
	lfd = open(LO("fa"), O_RDONLY);
	ASSERT_LE(0, lfd);
	EXPECT_EQ(-1, fcntl(lfd, F_SETLEASE, F_WRLCK));
	EXPECT_EQ(EAGAIN, errno);
	ASSERT_EQ(0, close(fd));
	/* The reader gone, the lease is granted */
	EXPECT_EQ(0, fcntl(lfd, F_SETLEASE, F_WRLCK));
	EXPECT_EQ(0, fcntl(lfd, F_SETLEASE, F_UNLCK));
	ASSERT_EQ(0, close(lfd));
	lower_opens(in, "fa");

	for (i = 0; i < ARRAY_SIZE(write_opens); i++) {
		fd = open(MN("fa"), write_opens[i]);
		ASSERT_LE(0, fd);
		EXPECT_EQ(1, lower_opens(in, "fa"))
			TH_LOG("flags %#x", write_opens[i]);
		EXPECT_EQ(1, pwrite(fd, "d", 1, 0));
		EXPECT_EQ(0, lower_opens(in, "fa"))
			TH_LOG("flags %#x", write_opens[i]);
		ASSERT_EQ(0, close(fd));
	}

	for (i = 0; i < ARRAY_SIZE(first_accesses); i++) {
		const struct first_access *fa = &first_accesses[i];

		ASSERT_EQ(0, write_file(LO("fa"), "data", 4));
		lower_opens(in, "fa");
		fd = open(MN("fa"), O_RDONLY);
		ASSERT_LE(0, fd);
		EXPECT_EQ(0, lower_opens(in, "fa")) TH_LOG("%s", fa->name);
		EXPECT_EQ(0, fa->fn(fd)) TH_LOG("%s: %s", fa->name,
						strerror(errno));
		EXPECT_EQ(1, lower_opens(in, "fa")) TH_LOG("%s", fa->name);
		/* Once: a second access uses the same backing file */
		EXPECT_EQ(0, fa_read(fd)) TH_LOG("%s", fa->name);
		EXPECT_EQ(0, lower_opens(in, "fa")) TH_LOG("%s", fa->name);
		ASSERT_EQ(0, close(fd));
	}
	close(in);
}

/*
 * With fanotify permission events on the lower filesystem, a read-only
 * open opens the lower file at once: FAN_OPEN_PERM waits for its
 * listener, which must not happen under the mmap lock of a first mmap().
 * The listener sees the open while open() waits for its answer.
 */
TEST_F(io, backing_open_eager_under_fanotify_perm)
{
	struct fanotify_event_metadata ev;
	struct fanotify_response resp;
	struct pollfd p;
	int fan, status = -1;
	pid_t pid;

	if (pt_fake_mode())
		SKIP(return, "PT_FAKE: the bind mount opens the lower itself");
	ASSERT_EQ(0, write_file(LO("fp"), "data", 4));
	fan = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY);
	ASSERT_LE(0, fan) TH_LOG("fanotify_init: %s", strerror(errno));
	ASSERT_EQ(0, fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
				   FAN_OPEN_PERM, AT_FDCWD, LOWER));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd = open(MN("fp"), O_RDONLY);

		_exit(fd < 0 ? 1 : 0);
	}
	p = (struct pollfd){ .fd = fan, .events = POLLIN };
	EXPECT_EQ(1, poll(&p, 1, 5000)) TH_LOG("no FAN_OPEN_PERM at open()");
	if (p.revents & POLLIN) {
		ASSERT_EQ(sizeof(ev), read(fan, &ev, sizeof(ev)));
		EXPECT_EQ(pid, ev.pid);
		resp = (struct fanotify_response){ .fd = ev.fd,
						   .response = FAN_ALLOW };
		EXPECT_EQ(sizeof(resp), write(fan, &resp, sizeof(resp)));
		close(ev.fd);
	}
	/* The listener gone, an open still waiting for it is allowed */
	close(fan);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status);
}

struct first_read {
	pthread_barrier_t *go;
	int fd;
	int err;
};

static void *first_read(void *arg)
{
	struct first_read *r = arg;
	char buf[4];

	pthread_barrier_wait(r->go);
	r->err = pread(r->fd, buf, 4, 0) == 4 && !memcmp(buf, "data", 4) ?
		 0 : errno ?: EIO;
	return NULL;
}

/*
 * Threads sharing an open file race to its first read: each read is
 * served, one backing file stays (the others are put: kmemleak and the
 * log scan see any left over).
 */
TEST_F(io, backing_open_race)
{
	struct first_read r[8];
	pthread_barrier_t go;
	pthread_t t[8];
	unsigned int i, round;

	ASSERT_EQ(0, write_file(LO("race"), "data", 4));
	for (round = 0; round < 50; round++) {
		int fd = open(MN("race"), O_RDONLY);

		ASSERT_LE(0, fd);
		ASSERT_EQ(0, pthread_barrier_init(&go, NULL, ARRAY_SIZE(t)));
		for (i = 0; i < ARRAY_SIZE(t); i++) {
			r[i] = (struct first_read){ .go = &go, .fd = fd };
			ASSERT_EQ(0, pthread_create(&t[i], NULL, first_read,
						    &r[i]));
		}
		for (i = 0; i < ARRAY_SIZE(t); i++) {
			pthread_join(t[i], NULL);
			EXPECT_EQ(0, r[i].err) TH_LOG("round %u thread %u",
						      round, i);
		}
		pthread_barrier_destroy(&go);
		ASSERT_EQ(0, close(fd));
	}
}

/* ------------------------------------------------------------------ */
/* 7. fsync, fdatasync, syncfs, close                                   */
/* ------------------------------------------------------------------ */

TEST_F(io, sync_ops)
{
	static const struct {
		const char *path;
		int flags;
	} opens[] = {
		{ "y", O_RDWR }, { "y", O_RDONLY }, { "y", O_WRONLY },
		{ "yd", O_RDONLY | O_DIRECTORY }, { "", O_RDONLY | O_DIRECTORY },
		{ "y", O_PATH },
	};
	unsigned int i;
	char buf[32];
	int fm, fl;

	ASSERT_EQ(0, write_file(LO("y"), "data", 4));
	ASSERT_EQ(0, mkdir(LO("yd"), 0755));
	for (i = 0; i < ARRAY_SIZE(opens); i++) {
		char what[64];

		fm = open(MN(opens[i].path), opens[i].flags);
		fl = open(LO(opens[i].path), opens[i].flags);
		ASSERT_LE(0, fm) TH_LOG("open %u", i);
		ASSERT_LE(0, fl) TH_LOG("open %u", i);
		if (opens[i].flags & (O_RDWR | O_WRONLY))
			ASSERT_EQ(3, pwrite(fm, "abc", 3, 10));
		snprintf(what, sizeof(what), "fsync %u", i);
		SAME(what, rs(fsync(fm)), rs(fsync(fl)));
		snprintf(what, sizeof(what), "fdatasync %u", i);
		SAME(what, rs(fdatasync(fm)), rs(fdatasync(fl)));
		snprintf(what, sizeof(what), "syncfs %u", i);
		SAME(what, rs(syncfs(fm)), rs(syncfs(fl)));
		snprintf(what, sizeof(what), "sync_file_range %u", i);
		SAME(what, rs(sync_file_range(fm, 0, 0, SYNC_FILE_RANGE_WRITE)),
		     rs(sync_file_range(fl, 0, 0, SYNC_FILE_RANGE_WRITE)));
		snprintf(what, sizeof(what), "close %u", i);
		SAME(what, rs(close(fm)), rs(close(fl)));
	}
	EXPECT_EQ(13, read_path(LO("y"), buf, sizeof(buf)));
}

/* ------------------------------------------------------------------ */
/* 8. Locks: taken on the lower file                                    */
/* ------------------------------------------------------------------ */

TEST_F(io, flock_conflicts)
{
	struct locker lk;
	struct lk_rep r;
	int fm;

	ASSERT_EQ(0, write_file(LO("k"), "x", 1));
	fm = open(MN("k"), O_RDWR);
	ASSERT_LE(0, fm);
	ASSERT_EQ(0, lk_start(&lk, LO("k")));

	/* Held on the lower path by another process */
	r = lk_call(&lk, LK_FLOCK, LOCK_EX | LOCK_NB, 0, 0, 0);
	ASSERT_EQ(0, r.ret);
	EXPECT_EQ(-1, flock(fm, LOCK_EX | LOCK_NB));
	EXPECT_EQ(EWOULDBLOCK, errno);
	EXPECT_EQ(-1, flock(fm, LOCK_SH | LOCK_NB));
	EXPECT_EQ(EWOULDBLOCK, errno);
	r = lk_call(&lk, LK_FLOCK, LOCK_UN, 0, 0, 0);
	ASSERT_EQ(0, r.ret);
	EXPECT_EQ(0, flock(fm, LOCK_EX | LOCK_NB));

	/* Held through the mount */
	r = lk_call(&lk, LK_FLOCK, LOCK_EX | LOCK_NB, 0, 0, 0);
	EXPECT_EQ(-1, r.ret);
	EXPECT_EQ(EWOULDBLOCK, r.err);
	r = lk_call(&lk, LK_FLOCK, LOCK_SH | LOCK_NB, 0, 0, 0);
	EXPECT_EQ(-1, r.ret);
	EXPECT_EQ(EWOULDBLOCK, r.err);

	/* Shared with shared; no upgrade past the other's shared lock */
	EXPECT_EQ(0, flock(fm, LOCK_SH | LOCK_NB));
	r = lk_call(&lk, LK_FLOCK, LOCK_SH | LOCK_NB, 0, 0, 0);
	EXPECT_EQ(0, r.ret);
	EXPECT_EQ(-1, flock(fm, LOCK_EX | LOCK_NB));
	EXPECT_EQ(EWOULDBLOCK, errno);
	r = lk_call(&lk, LK_FLOCK, LOCK_UN, 0, 0, 0);
	EXPECT_EQ(0, r.ret);

	/* close() of the mount fd lets go */
	EXPECT_EQ(0, flock(fm, LOCK_EX | LOCK_NB));
	r = lk_call(&lk, LK_FLOCK, LOCK_EX | LOCK_NB, 0, 0, 0);
	EXPECT_EQ(-1, r.ret);
	EXPECT_EQ(0, close(fm));
	r = lk_call(&lk, LK_FLOCK, LOCK_EX | LOCK_NB, 0, 0, 0);
	EXPECT_EQ(0, r.ret);
	fm = open(MN("k"), O_RDONLY);
	ASSERT_LE(0, fm);
	EXPECT_EQ(-1, flock(fm, LOCK_SH | LOCK_NB));
	EXPECT_EQ(EWOULDBLOCK, errno);
	close(fm);
	EXPECT_EQ(0, lk_stop(&lk));
}

TEST_F(io, posix_lock_conflicts)
{
	struct flock fl, f2;
	struct locker lk;
	struct lk_rep r;
	int fm, pl;
	struct res m, l;

	ASSERT_EQ(0, write_file(LO("p"), "0123456789", 10));
	fm = open(MN("p"), O_RDWR);
	pl = open(LO("p"), O_RDWR);
	ASSERT_LE(0, fm);
	ASSERT_LE(0, pl);
	ASSERT_EQ(0, lk_start(&lk, LO("p")));

	/* The other process holds [100, 200) through the lower */
	r = lk_call(&lk, LK_SETLK, 0, F_WRLCK, 100, 100);
	ASSERT_EQ(0, r.ret);
	fl = lock_of(F_WRLCK, 150, 10);
	f2 = fl;
	m = rs(fcntl(fm, F_SETLK, &fl));
	l = rs(fcntl(pl, F_SETLK, &f2));
	SAME("F_SETLK write over the other's", m, l);
	EXPECT_EQ(-1, m.ret);
	fl = lock_of(F_RDLCK, 199, 1);
	EXPECT_EQ(-1, fcntl(fm, F_SETLK, &fl));
	EXPECT_TRUE(errno == EAGAIN || errno == EACCES);

	fl = lock_of(F_WRLCK, 0, 1000);
	ASSERT_EQ(0, fcntl(fm, F_GETLK, &fl));
	EXPECT_EQ(F_WRLCK, fl.l_type);
	EXPECT_EQ(lk.pid, fl.l_pid);
	EXPECT_EQ(100, fl.l_start);
	EXPECT_EQ(100, fl.l_len);
	EXPECT_EQ(SEEK_SET, fl.l_whence);

	/* Adjacent range through the mount: ours */
	fl = lock_of(F_WRLCK, 200, 100);
	ASSERT_EQ(0, fcntl(fm, F_SETLK, &fl));
	r = lk_call(&lk, LK_SETLK, 0, F_WRLCK, 250, 10);
	EXPECT_EQ(-1, r.ret);
	EXPECT_TRUE(r.err == EAGAIN || r.err == EACCES);
	r = lk_call(&lk, LK_SETLK, 0, F_RDLCK, 299, 1);
	EXPECT_EQ(-1, r.ret);
	r = lk_call(&lk, LK_GETLK, 0, F_WRLCK, 0, 0);
	EXPECT_EQ(0, r.ret);
	EXPECT_EQ(F_WRLCK, r.fl.l_type);
	EXPECT_EQ(getpid(), r.fl.l_pid);
	EXPECT_EQ(200, r.fl.l_start);
	EXPECT_EQ(100, r.fl.l_len);

	/* Unlock through the mount */
	fl = lock_of(F_UNLCK, 200, 100);
	ASSERT_EQ(0, fcntl(fm, F_SETLK, &fl));
	r = lk_call(&lk, LK_SETLK, 0, F_WRLCK, 250, 10);
	EXPECT_EQ(0, r.ret);
	r = lk_call(&lk, LK_SETLK, 0, F_UNLCK, 0, 0);
	EXPECT_EQ(0, r.ret);

	/* Closing the mount fd drops the process's locks */
	fl = lock_of(F_WRLCK, 500, 10);
	ASSERT_EQ(0, fcntl(fm, F_SETLK, &fl));
	r = lk_call(&lk, LK_SETLK, 0, F_WRLCK, 500, 10);
	EXPECT_EQ(-1, r.ret);
	EXPECT_EQ(0, close(fm));
	r = lk_call(&lk, LK_SETLK, 0, F_WRLCK, 500, 10);
	EXPECT_EQ(0, r.ret);
	close(pl);
	EXPECT_EQ(0, lk_stop(&lk));
}

TEST_F(io, posix_setlkw_waits)
{
	struct timespec t0;
	struct locker lk;
	struct lk_rep r;
	struct flock fl;
	long waited;
	int fm, ret;

	ASSERT_EQ(0, write_file(LO("w"), "x", 1));
	fm = open(MN("w"), O_RDWR);
	ASSERT_LE(0, fm);
	ASSERT_EQ(0, lk_start(&lk, LO("w")));
	r = lk_call(&lk, LK_SETLK, 0, F_WRLCK, 0, 100);
	ASSERT_EQ(0, r.ret);
	fl = lock_of(F_WRLCK, 50, 100);
	ASSERT_EQ(-1, fcntl(fm, F_SETLK, &fl));

	/* The holder lets go after 200 ms */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, lk_send(&lk, LK_LATE_UNLOCK, 200, F_UNLCK, 0, 100));
	fl = lock_of(F_WRLCK, 50, 100);
	ret = fcntl(fm, F_SETLKW, &fl);
	waited = ms_since(&t0);
	EXPECT_EQ(0, ret) TH_LOG("F_SETLKW: %s", strerror(errno));
	EXPECT_LE(150, waited);
	r = lk_recv(&lk);
	EXPECT_EQ(0, r.ret);

	/* Acquired: the other process sees it as ours */
	r = lk_call(&lk, LK_GETLK, 0, F_WRLCK, 0, 200);
	EXPECT_EQ(0, r.ret);
	EXPECT_EQ(F_WRLCK, r.fl.l_type);
	EXPECT_EQ(getpid(), r.fl.l_pid);
	EXPECT_EQ(50, r.fl.l_start);
	EXPECT_EQ(100, r.fl.l_len);
	r = lk_call(&lk, LK_SETLK, 0, F_RDLCK, 60, 1);
	EXPECT_EQ(-1, r.ret);
	fl = lock_of(F_UNLCK, 0, 0);
	ASSERT_EQ(0, fcntl(fm, F_SETLK, &fl));
	r = lk_call(&lk, LK_SETLK, 0, F_RDLCK, 60, 1);
	EXPECT_EQ(0, r.ret);
	close(fm);
	EXPECT_EQ(0, lk_stop(&lk));
}

/* OFD locks: an fd on the mount and one on the lower, one process */
TEST_F(io, ofd_locks)
{
	struct flock fl;
	int fm, fm2, fo;

	ASSERT_EQ(0, write_file(LO("o"), "x", 1));
	fm = open(MN("o"), O_RDWR);
	fm2 = open(MN("o"), O_RDWR);
	fo = open(LO("o"), O_RDWR);
	ASSERT_LE(0, fm);
	ASSERT_LE(0, fm2);
	ASSERT_LE(0, fo);

	fl = lock_of(F_WRLCK, 0, 100);
	ASSERT_EQ(0, fcntl(fm, F_OFD_SETLK, &fl));
	fl = lock_of(F_WRLCK, 50, 10);
	EXPECT_EQ(-1, fcntl(fo, F_OFD_SETLK, &fl));
	EXPECT_EQ(EAGAIN, errno);
	fl = lock_of(F_RDLCK, 99, 1);
	EXPECT_EQ(-1, fcntl(fo, F_OFD_SETLK, &fl));
	EXPECT_EQ(EAGAIN, errno);
	fl = lock_of(F_RDLCK, 0, 1);
	EXPECT_EQ(-1, fcntl(fm2, F_OFD_SETLK, &fl));
	EXPECT_EQ(EAGAIN, errno);
	fl = lock_of(F_WRLCK, 0, 0);
	ASSERT_EQ(0, fcntl(fo, F_OFD_GETLK, &fl));
	EXPECT_EQ(F_WRLCK, fl.l_type);
	EXPECT_EQ(-1, fl.l_pid);
	EXPECT_EQ(0, fl.l_start);
	EXPECT_EQ(100, fl.l_len);

	/* The other way round */
	fl = lock_of(F_WRLCK, 100, 50);
	ASSERT_EQ(0, fcntl(fo, F_OFD_SETLK, &fl));
	fl = lock_of(F_WRLCK, 120, 1);
	EXPECT_EQ(-1, fcntl(fm, F_OFD_SETLK, &fl));
	EXPECT_EQ(EAGAIN, errno);
	fl = lock_of(F_RDLCK, 101, 200);
	ASSERT_EQ(0, fcntl(fm, F_OFD_GETLK, &fl));
	EXPECT_EQ(F_WRLCK, fl.l_type);
	EXPECT_EQ(-1, fl.l_pid);
	EXPECT_EQ(100, fl.l_start);
	EXPECT_EQ(50, fl.l_len);
	/* POSIX and OFD locks conflict too */
	fl = lock_of(F_WRLCK, 100, 1);
	EXPECT_EQ(-1, fcntl(fm, F_SETLK, &fl));

	/* Unlock through the mount, close on the lower */
	fl = lock_of(F_UNLCK, 0, 100);
	ASSERT_EQ(0, fcntl(fm, F_OFD_SETLK, &fl));
	fl = lock_of(F_WRLCK, 0, 10);
	EXPECT_EQ(0, fcntl(fo, F_OFD_SETLK, &fl));
	close(fo);
	fl = lock_of(F_WRLCK, 0, 150);
	EXPECT_EQ(0, fcntl(fm, F_OFD_SETLK, &fl));
	fl = lock_of(F_RDLCK, 0, 0);
	ASSERT_EQ(0, fcntl(fm2, F_OFD_GETLK, &fl));
	EXPECT_EQ(F_WRLCK, fl.l_type);
	EXPECT_EQ(150, fl.l_len);
	close(fm2);
	close(fm);
}

/* ------------------------------------------------------------------ */
/* 9. readdir                                                           */
/* ------------------------------------------------------------------ */

/* Entry names of assorted lengths, unique by their number */
static void entry_name(int i, char *name)
{
	int len = snprintf(name, NAME_MAX, "%05d_", i);
	int pad = i % 97 ? (i * 37) % 40 : 200;

	memset(name + len, 'a' + i % 26, pad);
	name[len + pad] = '\0';
}

/*
 * @n entries in the new lower directory @dir: regular files, and of every
 * @every entries one fifo, one symlink and one directory (entries 5, 6
 * and 7): these are slower to make.  With @link_to, the regular files are
 * hard links to it, which is quicker on ext4 than a new inode each.
 */
static int populate(const char *dir, int n, int every, const char *link_to)
{
	char name[NAME_MAX + 1];
	int i, fd, ret = 0;

	if (mkdir(dir, 0755))
		return -1;
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return -1;
	for (i = 0; i < n && !ret; i++) {
		entry_name(i, name);
		switch (i % every) {
		case 5:
			ret = mknodat(fd, name, S_IFIFO | 0644, 0);
			break;
		case 6:
			ret = symlinkat("target", fd, name);
			break;
		case 7:
			ret = mkdirat(fd, name, 0755);
			break;
		default:
			if (link_to)
				ret = linkat(AT_FDCWD, link_to, fd, name, 0);
			else
				ret = mknodat(fd, name, S_IFREG | 0644, 0);
		}
	}
	close(fd);
	return ret;
}

TEST_F_TIMEOUT(io, readdir_large, 360)
{
	struct listing m = { 0 }, l = { 0 };
	const char *link_to = NULL;
	struct timespec t0;
	long tm, tl;

	if (variant->kind == PT_EXT4) {
		link_to = LO("big_file");
		ASSERT_EQ(0, write_file(link_to, "x", 1));
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, populate(LO("big"), BIG_N, 100, link_to));
	TH_LOG("%d entries made in %ld ms", BIG_N, ms_since(&t0));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, list_path(MN("big"), 4096, &m));
	tm = ms_since(&t0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, list_path(LO("big"), 32768, &l));
	tl = ms_since(&t0);
	TH_LOG("listed in %ld ms through the mount, %ld ms on the lower",
	       tm, tl);
	EXPECT_EQ(BIG_N + 2, l.n);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	compare_listings(_metadata, &m, &l);
	TH_LOG("compared in %ld ms", ms_since(&t0));
	listing_free(&m);
	listing_free(&l);
}

/* telldir/seekdir/rewinddir through the mount */
TEST_F(io, readdir_seekdir)
{
	char *first, *names[100];
	struct dirent *de;
	long pos;
	DIR *d;
	int i, n;

	ASSERT_EQ(0, populate(LO("sd"), SEEK_N, 8, NULL));
	d = opendir(MN("sd"));
	ASSERT_NE(NULL, d);
	de = readdir(d);
	ASSERT_NE(NULL, de);
	first = strdup(de->d_name);
	for (i = 1; i < 500; i++)
		ASSERT_NE(NULL, readdir(d));
	pos = telldir(d);
	ASSERT_NE(-1, pos);
	for (i = 0; i < 100; i++) {
		de = readdir(d);
		ASSERT_NE(NULL, de);
		names[i] = strdup(de->d_name);
	}
	seekdir(d, pos);
	EXPECT_EQ(pos, telldir(d));
	for (i = 0; i < 100; i++) {
		de = readdir(d);
		ASSERT_NE(NULL, de);
		EXPECT_STREQ(names[i], de->d_name);
	}
	rewinddir(d);
	errno = 0;
	de = readdir(d);
	ASSERT_NE(NULL, de);
	EXPECT_STREQ(first, de->d_name);
	for (n = 1; readdir(d); n++)
		;
	EXPECT_EQ(0, errno);
	EXPECT_EQ(SEEK_N + 2, n);
	/* Back from the end */
	seekdir(d, pos);
	de = readdir(d);
	ASSERT_NE(NULL, de);
	EXPECT_STREQ(names[0], de->d_name);
	closedir(d);
	for (i = 0; i < 100; i++)
		free(names[i]);
	free(first);
}

/* Entries made and removed on the lower show after rewinddir() */
TEST_F(io, readdir_rewind_sees_lower_changes)
{
	struct listing m = { 0 }, l = { 0 };
	const struct ent *e;
	char name[NAME_MAX + 1];
	struct dirent *de;
	DIR *d;
	int n, fd;

	ASSERT_EQ(0, populate(LO("rw"), 10, 8, NULL));
	d = opendir(MN("rw"));
	ASSERT_NE(NULL, d);
	for (n = 0; readdir(d); n++)
		;
	EXPECT_EQ(12, n);

	fd = open(LO("rw/new_file"), O_CREAT | O_WRONLY, 0644);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, mkdir(LO("rw/new_dir"), 0755));
	entry_name(3, name);
	ASSERT_EQ(0, unlinkat(AT_FDCWD, path_in(LOWER "/rw", name), 0));

	rewinddir(d);
	errno = 0;
	while ((de = readdir(d)))
		ASSERT_EQ(0, listing_add(&m, de->d_name, de->d_type,
					 de->d_ino));
	EXPECT_EQ(0, errno);
	closedir(d);
	EXPECT_EQ(13, m.n);
	e = listing_find(&m, "new_file");
	ASSERT_NE(NULL, e);
	EXPECT_EQ(DT_REG, e->type);
	e = listing_find(&m, "new_dir");
	ASSERT_NE(NULL, e);
	EXPECT_EQ(DT_DIR, e->type);
	EXPECT_EQ(NULL, listing_find(&m, name));
	ASSERT_EQ(0, list_path(LO("rw"), 4096, &l));
	compare_listings(_metadata, &m, &l);
	listing_free(&m);
	listing_free(&l);
}

/* An empty directory has . and ..; the root lists as the lower root */
TEST_F(io, readdir_empty_and_root)
{
	struct listing m = { 0 }, l = { 0 };
	const struct ent *e;
	struct stat st;

	ASSERT_EQ(0, mkdir(LO("e"), 0755));
	ASSERT_EQ(0, stat(LO("e"), &st));
	ASSERT_EQ(0, list_path(MN("e"), 4096, &m));
	EXPECT_EQ(2, m.n);
	e = listing_find(&m, ".");
	ASSERT_NE(NULL, e);
	EXPECT_EQ(DT_DIR, e->type);
	EXPECT_EQ(st.st_ino, e->ino);
	e = listing_find(&m, "..");
	ASSERT_NE(NULL, e);
	EXPECT_EQ(DT_DIR, e->type);
	ASSERT_EQ(0, list_path(LO("e"), 4096, &l));
	compare_listings(_metadata, &m, &l);
	listing_free(&m);
	listing_free(&l);

	ASSERT_EQ(0, write_file(LO("file"), "x", 1));
	ASSERT_EQ(0, symlink("file", LO("link")));
	ASSERT_EQ(0, list_path(MN(""), 4096, &m));
	ASSERT_EQ(0, list_path(LO(""), 4096, &l));
	compare_listings(_metadata, &m, &l);
	listing_free(&m);
	listing_free(&l);
}

/* A directory removed on the lower while open on the mount */
TEST_F(io, readdir_removed_dir)
{
	char bm[512], bl[512], name[NAME_MAX + 1];
	int dm, dl, i;
	struct stat st;
	DIR *d;

	ASSERT_EQ(0, mkdir(LO("gone"), 0755));
	dm = open(MN("gone"), O_RDONLY | O_DIRECTORY);
	dl = open(LO("gone"), O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, dm);
	ASSERT_LE(0, dl);
	d = opendir(MN("gone"));
	ASSERT_NE(NULL, d);
	ASSERT_EQ(0, rmdir(LO("gone")));
	SAME("getdents64", rs(syscall(SYS_getdents64, dm, bm, sizeof(bm))),
	     rs(syscall(SYS_getdents64, dl, bl, sizeof(bl))));
	SAME("getdents64 again", rs(syscall(SYS_getdents64, dm, bm, sizeof(bm))),
	     rs(syscall(SYS_getdents64, dl, bl, sizeof(bl))));
	SAME("lseek 0", rs(lseek(dm, 0, SEEK_SET)), rs(lseek(dl, 0, SEEK_SET)));
	SAME("getdents64 rewound", rs(syscall(SYS_getdents64, dm, bm, sizeof(bm))),
	     rs(syscall(SYS_getdents64, dl, bl, sizeof(bl))));
	errno = 0;
	EXPECT_EQ(NULL, readdir(d));
	closedir(d);
	EXPECT_EQ(-1, stat(MN("gone"), &st));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(NULL, opendir(MN("gone")));
	EXPECT_EQ(ENOENT, errno);
	close(dm);
	close(dl);

	/* Removed half-way through the listing */
	ASSERT_EQ(0, populate(LO("gone2"), 50, 8, NULL));
	dm = open(MN("gone2"), O_RDONLY | O_DIRECTORY);
	dl = open(LO("gone2"), O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, dm);
	ASSERT_LE(0, dl);
	EXPECT_LT(0, syscall(SYS_getdents64, dm, bm, sizeof(bm)));
	EXPECT_LT(0, syscall(SYS_getdents64, dl, bl, sizeof(bl)));
	for (i = 0; i < 50; i++) {
		entry_name(i, name);
		ASSERT_EQ(0, unlinkat(AT_FDCWD, path_in(LOWER "/gone2", name),
				      i % 8 == 7 ? AT_REMOVEDIR : 0));
	}
	ASSERT_EQ(0, rmdir(LO("gone2")));
	SAME("getdents64 after removal",
	     rs(syscall(SYS_getdents64, dm, bm, sizeof(bm))),
	     rs(syscall(SYS_getdents64, dl, bl, sizeof(bl))));
	close(dm);
	close(dl);
}

/* ------------------------------------------------------------------ */
/* 10. Directory fds                                                    */
/* ------------------------------------------------------------------ */

TEST_F(io, dir_fd_ops)
{
	struct stat sm, sl;
	int dm, dl, fm, fl;
	char buf[16];

	ASSERT_EQ(0, mkdir(LO("d"), 0755));
	ASSERT_EQ(0, mkdir(LO("d/sub"), 0755));
	ASSERT_EQ(0, write_file(LO("d/file"), "x", 1));
	dm = open(MN("d"), O_RDONLY | O_DIRECTORY);
	dl = open(LO("d"), O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, dm);
	ASSERT_LE(0, dl);
	SAME("fsync dir", rs(fsync(dm)), rs(fsync(dl)));
	SAME("fdatasync dir", rs(fdatasync(dm)), rs(fdatasync(dl)));
	SAME("read dir", rs(read(dm, buf, sizeof(buf))),
	     rs(read(dl, buf, sizeof(buf))));
	SAME("write dir", rs(write(dm, "x", 1)), rs(write(dl, "x", 1)));
	SAME("open dir O_WRONLY", rfd(fm = open(MN("d"), O_WRONLY)),
	     rfd(fl = open(LO("d"), O_WRONLY)));
	SAME("open file O_DIRECTORY",
	     rfd(fm = open(MN("d/file"), O_RDONLY | O_DIRECTORY)),
	     rfd(fl = open(LO("d/file"), O_RDONLY | O_DIRECTORY)));
	SAME("O_DIRECTORY|O_CREAT",
	     rfd(fm = open(MN("d/nx"), O_RDWR | O_DIRECTORY | O_CREAT, 0644)),
	     rfd(fl = open(LO("d/nx2"), O_RDWR | O_DIRECTORY | O_CREAT, 0644)));

	/* Relative to the mount's directory fd */
	fm = openat(dm, "sub/x", O_CREAT | O_WRONLY, 0600);
	ASSERT_LE(0, fm);
	ASSERT_EQ(2, write(fm, "hi", 2));
	close(fm);
	ASSERT_EQ(0, stat(LO("d/sub/x"), &sl));
	EXPECT_EQ(S_IFREG | 0600, sl.st_mode);
	EXPECT_EQ(2, sl.st_size);
	ASSERT_EQ(0, fstatat(dm, "sub/x", &sm, AT_SYMLINK_NOFOLLOW));
	EXPECT_EQ(sl.st_ino, sm.st_ino);
	ASSERT_EQ(0, mkdirat(dm, "new", 0700));
	ASSERT_EQ(0, stat(LO("d/new"), &sl));
	EXPECT_TRUE(S_ISDIR(sl.st_mode));
	ASSERT_EQ(0, renameat(dm, "sub/x", dm, "y"));
	EXPECT_EQ(0, access(LO("d/y"), F_OK));
	ASSERT_EQ(0, unlinkat(dm, "y", 0));
	EXPECT_EQ(-1, access(LO("d/y"), F_OK));
	ASSERT_EQ(0, unlinkat(dm, "new", AT_REMOVEDIR));
	EXPECT_EQ(-1, access(LO("d/new"), F_OK));
	EXPECT_EQ(0, fsync(dm));
	EXPECT_EQ(0, close(dm));
	close(dl);
}

TEST_F(io, fchdir_relative)
{
	struct stat sm, sl;
	char cwd[PATH_MAX];
	int dm, fd, pm;

	ASSERT_EQ(0, mkdir(LO("c"), 0755));
	ASSERT_EQ(0, mkdir(LO("c/sub"), 0755));
	ASSERT_EQ(0, write_file(LO("c/sub/f"), "lower", 5));
	dm = open(MN("c"), O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, dm);
	ASSERT_EQ(0, fchdir(dm));
	ASSERT_NE(NULL, getcwd(cwd, sizeof(cwd)));
	EXPECT_STREQ(MNT "/c", cwd);
	ASSERT_EQ(0, stat(".", &sm));
	ASSERT_EQ(0, stat(LO("c"), &sl));
	EXPECT_EQ(sl.st_ino, sm.st_ino);
	ASSERT_EQ(0, stat("..", &sm));
	ASSERT_EQ(0, stat(LOWER, &sl));
	EXPECT_EQ(sl.st_ino, sm.st_ino);

	fd = open("rel", O_CREAT | O_WRONLY, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(3, write(fd, "rel", 3));
	close(fd);
	EXPECT_EQ(3, read_path(LO("c/rel"), cwd, sizeof(cwd)));
	EXPECT_EQ(5, read_path("sub/f", cwd, sizeof(cwd)));
	EXPECT_EQ(0, memcmp(cwd, "lower", 5));
	ASSERT_EQ(0, rename("rel", "sub/rel2"));
	EXPECT_EQ(0, access(LO("c/sub/rel2"), F_OK));

	/* Down into sub/ through an O_PATH fd, then up again */
	pm = open("sub", O_PATH | O_DIRECTORY);
	ASSERT_LE(0, pm);
	ASSERT_EQ(0, fchdir(pm));
	EXPECT_EQ(3, read_path("rel2", cwd, sizeof(cwd)));
	ASSERT_EQ(0, chdir(".."));
	EXPECT_EQ(0, access("sub/rel2", F_OK));
	fd = open("sub/f", O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, fchdir(fd));
	EXPECT_EQ(ENOTDIR, errno);
	close(fd);
	ASSERT_EQ(0, chdir("/"));
	close(pm);
	close(dm);
}

/* ------------------------------------------------------------------ */
/* 9. inotify of changes made on the lower filesystem                   */
/* ------------------------------------------------------------------ */

#define IN_CHANGES	(IN_CREATE | IN_DELETE | IN_MODIFY | IN_ATTRIB | \
			 IN_MOVED_FROM | IN_MOVED_TO)
#define MAX_EV		32

struct in_ev {
	int wd;
	__u32 mask;
	__u32 cookie;
	char name[64];
};

/*
 * The events of @fd until none comes for @quiet_ms (at most MAX_EV):
 * nothing waits forever.
 */
static int in_read(int fd, struct in_ev *ev, int quiet_ms)
{
	char buf[4096] __attribute__((aligned(8)));
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = 0;

	while (n < MAX_EV && poll(&p, 1, quiet_ms) == 1) {
		ssize_t len = read(fd, buf, sizeof(buf)), off = 0;

		while (len > 0 && off < len && n < MAX_EV) {
			struct inotify_event *e = (void *)(buf + off);

			ev[n] = (struct in_ev){ e->wd, e->mask, e->cookie, "" };
			if (e->len)
				snprintf(ev[n].name, sizeof(ev[n].name), "%s",
					 e->name);
			n++;
			off += sizeof(*e) + e->len;
		}
	}
	return n;
}

/* How many of @n events are @mask on @wd for @name ("" for none) */
static int in_count(const struct in_ev *ev, int n, int wd, __u32 mask,
		    const char *name)
{
	int i, c = 0;

	for (i = 0; i < n; i++)
		c += ev[i].wd == wd && ev[i].mask == mask &&
		     !strcmp(ev[i].name, name);
	return c;
}

static void in_log(struct __test_metadata *_metadata,
		   const struct in_ev *ev, int n)
{
	int i;

	for (i = 0; i < n; i++)
		TH_LOG("event %d: wd %d mask %#x cookie %u name '%s'", i,
		       ev[i].wd, ev[i].mask, ev[i].cookie, ev[i].name);
}

/*
 * Android's inotify test: a watch on a directory of the mount hears of
 * names created, written, renamed, changed and removed on the lower
 * filesystem directly, with their names, in order (the root too).
 */
TEST_F(io, inotify_lower_changes)
{
	struct in_ev ev[MAX_EV];
	int in, wd, wr, fd, n;

	ASSERT_EQ(0, mkdir(LO("d"), 0755));
	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	ASSERT_LE(0, in);
	wd = inotify_add_watch(in, MN("d"), IN_CHANGES);
	ASSERT_LE(0, wd);
	wr = inotify_add_watch(in, MNT, IN_CHANGES);
	ASSERT_LE(0, wr);

	fd = open(LO("d/a"), O_CREAT | O_WRONLY, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(4, write(fd, "data", 4));
	close(fd);
	ASSERT_EQ(0, rename(LO("d/a"), LO("d/b")));
	ASSERT_EQ(0, chmod(LO("d/b"), 0600));
	ASSERT_EQ(0, unlink(LO("d/b")));
	ASSERT_EQ(0, mkdir(LO("d/sub"), 0755));
	ASSERT_EQ(0, write_file(LO("top"), "x", 1));

	n = in_read(in, ev, 500);
	in_log(_metadata, ev, n);
	ASSERT_EQ(9, n) TH_LOG("lower changes not heard through the mount");
	EXPECT_EQ(1, in_count(ev, 1, wd, IN_CREATE, "a"));
	EXPECT_EQ(1, in_count(ev + 1, 1, wd, IN_MODIFY, "a"));
	EXPECT_EQ(1, in_count(ev + 2, 1, wd, IN_MOVED_FROM, "a"));
	EXPECT_EQ(1, in_count(ev + 3, 1, wd, IN_MOVED_TO, "b"));
	EXPECT_NE(0, ev[2].cookie);
	EXPECT_EQ(ev[2].cookie, ev[3].cookie);
	EXPECT_EQ(1, in_count(ev + 4, 1, wd, IN_ATTRIB, "b"));
	EXPECT_EQ(1, in_count(ev + 5, 1, wd, IN_DELETE, "b"));
	EXPECT_EQ(1, in_count(ev + 6, 1, wd, IN_CREATE | IN_ISDIR, "sub"));
	EXPECT_EQ(1, in_count(ev + 7, 1, wr, IN_CREATE, "top"));
	EXPECT_EQ(1, in_count(ev + 8, 1, wr, IN_MODIFY, "top"));
	close(in);
}

/*
 * A change made through the mount raises its events on the mount as on
 * any filesystem; the lower filesystem's events of the same change are
 * not heard a second time.  Watching the file and its directory in one
 * instance keeps inotify from merging a repeated event with the last one.
 */
TEST_F(io, inotify_mount_change_once)
{
	struct in_ev ev[MAX_EV];
	int in, wd, wf, fd, n;

	ASSERT_EQ(0, mkdir(MN("d"), 0755));
	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	ASSERT_LE(0, in);
	wd = inotify_add_watch(in, MN("d"), IN_CHANGES);
	ASSERT_LE(0, wd);

	fd = open(MN("d/x"), O_CREAT | O_WRONLY, 0644);
	ASSERT_LE(0, fd);
	wf = inotify_add_watch(in, MN("d/x"), IN_CHANGES);
	ASSERT_LE(0, wf);
	ASSERT_EQ(4, write(fd, "data", 4));
	ASSERT_EQ(0, fchmod(fd, 0600));
	close(fd);
	ASSERT_EQ(0, rename(MN("d/x"), MN("d/y")));
	ASSERT_EQ(0, mkdir(MN("d/sub"), 0755));

	n = in_read(in, ev, 500);
	in_log(_metadata, ev, n);
	EXPECT_EQ(1, in_count(ev, n, wd, IN_CREATE, "x"));
	EXPECT_EQ(1, in_count(ev, n, wd, IN_MODIFY, "x"));
	EXPECT_EQ(1, in_count(ev, n, wf, IN_MODIFY, ""));
	EXPECT_EQ(1, in_count(ev, n, wd, IN_ATTRIB, "x"));
	EXPECT_EQ(1, in_count(ev, n, wf, IN_ATTRIB, ""));
	EXPECT_EQ(1, in_count(ev, n, wd, IN_MOVED_FROM, "x"));
	EXPECT_EQ(1, in_count(ev, n, wd, IN_MOVED_TO, "y"));
	EXPECT_EQ(1, in_count(ev, n, wd, IN_CREATE | IN_ISDIR, "sub"));
	EXPECT_EQ(8, n);
	close(in);
}

/* A watch on a file of the mount hears of its lower writes and chmod */
TEST_F(io, inotify_file_lower_write)
{
	struct in_ev ev[MAX_EV];
	int in, wf, fd, n;

	ASSERT_EQ(0, write_file(LO("f"), "data", 4));
	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	ASSERT_LE(0, in);
	wf = inotify_add_watch(in, MN("f"), IN_CHANGES);
	ASSERT_LE(0, wf);
	fd = open(LO("f"), O_WRONLY | O_APPEND);
	ASSERT_LE(0, fd);
	ASSERT_EQ(4, write(fd, "more", 4));
	close(fd);
	ASSERT_EQ(0, chmod(LO("f"), 0600));

	n = in_read(in, ev, 500);
	in_log(_metadata, ev, n);
	ASSERT_EQ(2, n) TH_LOG("lower write not heard on the file");
	EXPECT_EQ(1, in_count(ev, 1, wf, IN_MODIFY, ""));
	EXPECT_EQ(1, in_count(ev + 1, 1, wf, IN_ATTRIB, ""));
	close(in);
}

/*
 * The marks go with the FUSE inodes: evicted directories (drop_caches)
 * and an unmounted mount hear nothing more, and a directory looked up
 * again hears again.  kmemleak and the log scan see marks left over.
 */
TEST_F(io, inotify_evicted_and_unmounted)
{
	struct in_ev ev[MAX_EV];
	int in, wd, i, n;
	char name[32];

	if (pt_fake_mode())
		SKIP(return, "PT_FAKE: a bind mount has no inodes of its own");
	for (i = 0; i < 50; i++) {
		snprintf(name, sizeof(name), "d%d", i);
		ASSERT_EQ(0, mkdir(LO(name), 0755));
		ASSERT_EQ(0, access(MN(name), F_OK));
	}
	ASSERT_EQ(0, pt_write_str("/proc/sys/vm/drop_caches", "2"));
	for (i = 0; i < 50; i++) {
		snprintf(name, sizeof(name), "d%d/f", i);
		ASSERT_EQ(0, write_file(LO(name), "x", 1));
	}

	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	ASSERT_LE(0, in);
	wd = inotify_add_watch(in, MN("d7"), IN_CHANGES);
	ASSERT_LE(0, wd);
	ASSERT_EQ(0, unlink(LO("d7/f")));
	n = in_read(in, ev, 500);
	in_log(_metadata, ev, n);
	EXPECT_EQ(1, n);
	EXPECT_EQ(1, in_count(ev, n, wd, IN_DELETE, "f"));

	/* Unmounted: the watch is dropped, lower changes go nowhere */
	ASSERT_EQ(0, umount2(MNT, 0)) TH_LOG("umount: %s", strerror(errno));
	n = in_read(in, ev, 200);
	in_log(_metadata, ev, n);
	EXPECT_EQ(1, in_count(ev, n, wd, IN_UNMOUNT | IN_ISDIR, ""));
	EXPECT_EQ(1, in_count(ev, n, wd, IN_IGNORED, ""));
	ASSERT_EQ(0, write_file(LO("d7/g"), "x", 1));
	ASSERT_EQ(0, mkdir(LO("d8/sub"), 0755));
	EXPECT_EQ(0, in_read(in, ev, 200));
	close(in);
	pt_env_mount(_metadata);
}

int main(int argc, char **argv)
{
	pt_ext4_template(LOWER_MB);
	return test_harness_run(argc, argv);
}
