// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the selftests' FUSE daemon (fuse_daemon.c) against the kernel:
 * a read-only tree is mounted and looked up, listed, read and unmounted,
 * and the daemon's request counters show what reached it.
 *
 * Every test runs twice: with the page cache, and with FOPEN_DIRECT_IO, so
 * that READ requests carry the offsets and sizes of the read(2) calls.
 * Each mounts in a mount namespace of its own, on a tmpfs over /tmp.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <linux/magic.h>

/*
 * The 6.12 harness does not build cleanly with -Wextra: an unused
 * parameter, and a variable of the TEST_F() wrapper that setjmp() may
 * clobber.  Because of the latter, teardown may not run after a failed
 * ASSERT_*(): see private_tmp().
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "../../kselftest_harness.h"
#pragma GCC diagnostic pop
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wclobbered"
#endif
#include "fuse_daemon.h"

#define HELLO		"Hello, FUSE world!\n"
#define HELLO_UID	1234
#define HELLO_GID	5678
#define HELLO_MTIME_SEC	1234567890
#define HELLO_MTIME_NS	123456789
#define A_DATA		"contents of a\n"
#define B_SIZE		(200 * 1024)	/* more than one READ request */
#define BIG_ENTRIES	300
#define BIG_NAME_LEN	200		/* several READDIR requests */
#define READ_LOG_MAX	512
#define RELEASE_WAIT_MS	2000

/* READ requests as seen by the daemon, shared with the test */
struct read_log {
	unsigned int nr;
	struct {
		__u64 nodeid;
		__u64 offset;
		__u32 size;
	} ent[READ_LOG_MAX];
};

struct dent {
	char name[NAME_MAX + 1];
	unsigned char type;
	ino_t ino;
};

struct linux_dirent64 {
	__u64 d_ino;
	__s64 d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static unsigned char b_byte(size_t i)
{
	/* Differs between pages, to catch reads at a wrong offset */
	return (i * 31 + i / 4093) % 251;
}

static void big_name(int i, char *name)
{
	int len = snprintf(name, BIG_NAME_LEN + 1, "%03d_", i);

	memset(name + len, 'x', BIG_NAME_LEN - len);
	name[BIG_NAME_LEN] = '\0';
}

/* Whether mnt is a mount point, of fstype and from source unless NULL */
static bool mounted_as(const char *mnt, const char *fstype,
		       const char *source)
{
	char line[4096], mp[4096], type[64], src[4096];
	bool found = false;
	char *sep;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		sep = strstr(line, " - ");
		if (!sep ||
		    sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1 ||
		    sscanf(sep, " - %63s %4095s", type, src) != 2)
			continue;
		if (!strcmp(mp, mnt) && (!fstype || !strcmp(type, fstype)) &&
		    (!source || !strcmp(src, source)))
			found = true;
	}
	fclose(f);
	return found;
}

/*
 * A mount namespace of the test's own, with a tmpfs on /tmp: whatever
 * happens, no mount nor mountpoint outlives the test process and its daemon.
 */
static int private_tmp(void)
{
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777"))
		return -errno;
	return 0;
}

static const char *mnt_path(const char *mnt, const char *rel)
{
	static char bufs[4][PATH_MAX];
	static unsigned int next;
	char *buf = bufs[next++ % 4];

	snprintf(buf, PATH_MAX, "%s/%s", mnt, rel);
	return buf;
}

#define MNT(rel) mnt_path(self->mnt, rel)

/* Lists a directory with opendir(3)/readdir(3); returns the count or -1 */
static int read_dir(const char *path, struct dent *ents, int max)
{
	struct dirent *de;
	DIR *dir;
	int n = 0;

	dir = opendir(path);
	if (!dir)
		return -1;
	errno = 0;
	while ((de = readdir(dir))) {
		if (n == max) {
			n = -1;
			break;
		}
		snprintf(ents[n].name, sizeof(ents[n].name), "%s", de->d_name);
		ents[n].type = de->d_type;
		ents[n].ino = de->d_ino;
		n++;
	}
	if (errno)
		n = -1;
	closedir(dir);
	return n;
}

/* The entry called name if there is exactly one */
static const struct dent *find_once(const struct dent *ents, int n,
				    const char *name)
{
	const struct dent *found = NULL;
	int i;

	for (i = 0; i < n; i++) {
		if (strcmp(ents[i].name, name))
			continue;
		if (found)
			return NULL;
		found = &ents[i];
	}
	return found;
}

/* Index of a name of the big directory, -1 if it is not one */
static int big_index(const char *name)
{
	char expect[BIG_NAME_LEN + 1];
	int i;

	if (strlen(name) != BIG_NAME_LEN)
		return -1;
	i = atoi(name);
	if (i < 0 || i >= BIG_ENTRIES)
		return -1;
	big_name(i, expect);
	return strcmp(name, expect) ? -1 : i;
}

static int log_read(struct fuse_daemon *d, const struct fuse_daemon_req *req)
{
	const struct fuse_read_in *in = req->arg;
	struct read_log *log = d->priv;
	unsigned int i;

	if (req->arglen >= sizeof(*in)) {
		i = __atomic_fetch_add(&log->nr, 1, __ATOMIC_SEQ_CST);
		if (i < READ_LOG_MAX) {
			log->ent[i].nodeid = req->hdr->nodeid;
			log->ent[i].offset = in->offset;
			log->ent[i].size = in->size;
		}
	}
	return fuse_daemon_default_handler(FUSE_READ)(d, req);
}

/* Whether the daemon got a READ of nodeid covering [off, off + size) */
static bool read_covered(const struct read_log *log, __u64 nodeid, __u64 off,
			 __u32 size)
{
	unsigned int i;

	for (i = 0; i < log->nr && i < READ_LOG_MAX; i++) {
		if (log->ent[i].nodeid == nodeid && log->ent[i].offset <= off &&
		    log->ent[i].offset + log->ent[i].size >= off + size)
			return true;
	}
	return false;
}

/* Whether the daemon got a READ of nodeid of exactly [off, off + size) */
static bool read_exact(const struct read_log *log, __u64 nodeid, __u64 off,
		       __u32 size)
{
	unsigned int i;

	for (i = 0; i < log->nr && i < READ_LOG_MAX; i++) {
		if (log->ent[i].nodeid == nodeid &&
		    log->ent[i].offset == off && log->ent[i].size == size)
			return true;
	}
	return false;
}

FIXTURE(fuse) {
	struct fuse_daemon *d;
	struct read_log *log;
	char mnt[64];
	__u64 hello, dir, a, b, sub, big, link;
};

FIXTURE_VARIANT(fuse) {
	__u32 fopen_flags;
};

FIXTURE_VARIANT_ADD(fuse, cached) {
	.fopen_flags = 0,
};

FIXTURE_VARIANT_ADD(fuse, direct_io) {
	.fopen_flags = FOPEN_DIRECT_IO,
};

/*
 * /hello.txt, /dir/{a,b,sub/}, /big/ with BIG_ENTRIES files and
 * /link -> hello.txt
 */
FIXTURE_SETUP(fuse)
{
	struct fuse_daemon_node *node;
	char name[BIG_NAME_LEN + 1];
	struct fuse_daemon *d;
	unsigned char *data;
	int i, ret;

	self->log = mmap(NULL, sizeof(*self->log), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->log);
	d = fuse_daemon_new();
	ASSERT_NE(NULL, d);
	self->d = d;
	d->fopen_flags = variant->fopen_flags;
	d->priv = self->log;
	fuse_daemon_set_handler(d, FUSE_READ, log_read);

	self->hello = fuse_daemon_add_file(d, FUSE_ROOT_ID, "hello.txt", 0644,
					   HELLO, strlen(HELLO));
	ASSERT_NE(0ULL, self->hello);
	node = fuse_daemon_node(d, self->hello);
	ASSERT_NE(NULL, node);
	node->uid = HELLO_UID;
	node->gid = HELLO_GID;
	node->mtime.tv_sec = HELLO_MTIME_SEC;
	node->mtime.tv_nsec = HELLO_MTIME_NS;

	self->dir = fuse_daemon_add_dir(d, FUSE_ROOT_ID, "dir", 0755);
	ASSERT_NE(0ULL, self->dir);
	self->a = fuse_daemon_add_file(d, self->dir, "a", 0644, A_DATA,
				       strlen(A_DATA));
	ASSERT_NE(0ULL, self->a);
	data = malloc(B_SIZE);
	ASSERT_NE(NULL, data);
	for (i = 0; i < B_SIZE; i++)
		data[i] = b_byte(i);
	self->b = fuse_daemon_add_file(d, self->dir, "b", 0600, data, B_SIZE);
	free(data);
	ASSERT_NE(0ULL, self->b);
	self->sub = fuse_daemon_add_dir(d, self->dir, "sub", 0750);
	ASSERT_NE(0ULL, self->sub);

	self->big = fuse_daemon_add_dir(d, FUSE_ROOT_ID, "big", 0755);
	ASSERT_NE(0ULL, self->big);
	for (i = 0; i < BIG_ENTRIES; i++) {
		big_name(i, name);
		ASSERT_NE(0ULL, fuse_daemon_add_file(d, self->big, name, 0644,
						     name, 4));
	}
	self->link = fuse_daemon_add_symlink(d, FUSE_ROOT_ID, "link",
					     "hello.txt");
	ASSERT_NE(0ULL, self->link);

	/* Names must be unique per directory */
	EXPECT_EQ(0ULL, fuse_daemon_add_dir(d, self->dir, "a", 0755));
	EXPECT_EQ(EEXIST, errno);

	ret = private_tmp();
	ASSERT_EQ(0, ret) {
		TH_LOG("private /tmp: %s", strerror(-ret));
	}
	snprintf(self->mnt, sizeof(self->mnt), "/tmp/fuse_daemon_test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->mnt));
	ret = fuse_daemon_mount(d, self->mnt, NULL);
	ASSERT_EQ(0, ret) {
		TH_LOG("mounting on %s: %s", self->mnt, strerror(-ret));
	}
}

FIXTURE_TEARDOWN(fuse)
{
	EXPECT_EQ(0, fuse_daemon_umount(self->d));
	EXPECT_FALSE(mounted_as(self->mnt, NULL, NULL));
	EXPECT_EQ(0UL, self->d->shared->errors);
	EXPECT_EQ(0, rmdir(self->mnt));
	fuse_daemon_free(self->d);
	munmap(self->log, sizeof(*self->log));
}

TEST_F(fuse, mount_root)
{
	struct fuse_daemon_shared *shared = self->d->shared;
	struct statfs sfs;
	struct stat st;
	__u32 minor;

	ASSERT_EQ(0, statfs(self->mnt, &sfs));
	EXPECT_EQ(FUSE_SUPER_MAGIC, sfs.f_type);
	ASSERT_EQ(0, stat(self->mnt, &st));
	EXPECT_TRUE(S_ISDIR(st.st_mode));
	EXPECT_EQ((ino_t)FUSE_ROOT_ID, st.st_ino);
	/* ., .., dir/.. and big/.. */
	EXPECT_EQ(4UL, st.st_nlink);
	EXPECT_TRUE(mounted_as(self->mnt, "fuse", "fuse_test"));

	EXPECT_EQ(1UL, fuse_daemon_count(self->d, FUSE_INIT));
	EXPECT_EQ((__u32)FUSE_KERNEL_VERSION, shared->kernel_major);
	/* The older of the kernel's and of the headers' protocols */
	minor = shared->kernel_minor;
	if (minor > FUSE_KERNEL_MINOR_VERSION)
		minor = FUSE_KERNEL_MINOR_VERSION;
	EXPECT_LT(0U, minor);
	EXPECT_EQ(minor, shared->proto_minor);
}

TEST_F(fuse, statfs)
{
	unsigned long before = fuse_daemon_count(self->d, FUSE_STATFS);
	struct statfs sfs;

	ASSERT_EQ(0, statfs(MNT("dir"), &sfs));
	EXPECT_EQ(FUSE_SUPER_MAGIC, sfs.f_type);
	EXPECT_EQ(4096, sfs.f_bsize);
	EXPECT_EQ(NAME_MAX, sfs.f_namelen);
	EXPECT_EQ(self->d->nr_nodes, sfs.f_files);
	EXPECT_LT(before, fuse_daemon_count(self->d, FUSE_STATFS));
}

TEST_F(fuse, lookup)
{
	unsigned long before = fuse_daemon_count(self->d, FUSE_LOOKUP);
	struct stat st;

	ASSERT_EQ(0, stat(MNT("hello.txt"), &st));
	EXPECT_TRUE(S_ISREG(st.st_mode));
	ASSERT_EQ(0, stat(MNT("dir/sub"), &st));
	EXPECT_TRUE(S_ISDIR(st.st_mode));
	ASSERT_EQ(0, lstat(MNT("link"), &st));
	EXPECT_TRUE(S_ISLNK(st.st_mode));
	/* hello.txt, dir, sub, link */
	EXPECT_LE(before + 4, fuse_daemon_count(self->d, FUSE_LOOKUP));

	EXPECT_EQ(-1, stat(MNT("missing"), &st));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, stat(MNT("dir/missing"), &st));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, stat(MNT("missing/a"), &st));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, stat(MNT("hello.txt/a"), &st));
	EXPECT_EQ(ENOTDIR, errno);

	/* Nothing is cached (timeouts 0): a lookup each time */
	before = fuse_daemon_count(self->d, FUSE_LOOKUP);
	EXPECT_EQ(-1, stat(MNT("missing"), &st));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(before + 1, fuse_daemon_count(self->d, FUSE_LOOKUP));
	ASSERT_EQ(0, stat(MNT("hello.txt"), &st));
	EXPECT_EQ(before + 2, fuse_daemon_count(self->d, FUSE_LOOKUP));
}

TEST_F(fuse, getattr)
{
	unsigned long before;
	struct stat st;
	int fd;

	ASSERT_EQ(0, stat(MNT("hello.txt"), &st));
	EXPECT_EQ(self->hello, st.st_ino);
	EXPECT_EQ((mode_t)(S_IFREG | 0644), st.st_mode);
	EXPECT_EQ((off_t)strlen(HELLO), st.st_size);
	EXPECT_EQ(1UL, st.st_nlink);
	EXPECT_EQ((uid_t)HELLO_UID, st.st_uid);
	EXPECT_EQ((gid_t)HELLO_GID, st.st_gid);
	EXPECT_EQ(1, st.st_blocks);
	EXPECT_EQ(4096, st.st_blksize);
	EXPECT_EQ(HELLO_MTIME_SEC, st.st_mtim.tv_sec);
	EXPECT_EQ(HELLO_MTIME_NS, st.st_mtim.tv_nsec);

	ASSERT_EQ(0, stat(MNT("dir"), &st));
	EXPECT_EQ(self->dir, st.st_ino);
	EXPECT_EQ((mode_t)(S_IFDIR | 0755), st.st_mode);
	/* ., .. and sub/.. */
	EXPECT_EQ(3UL, st.st_nlink);
	EXPECT_EQ(getuid(), st.st_uid);

	ASSERT_EQ(0, stat(MNT("dir/sub"), &st));
	EXPECT_EQ((mode_t)(S_IFDIR | 0750), st.st_mode);
	EXPECT_EQ(2UL, st.st_nlink);

	ASSERT_EQ(0, stat(MNT("dir/b"), &st));
	EXPECT_EQ(self->b, st.st_ino);
	EXPECT_EQ((mode_t)(S_IFREG | 0600), st.st_mode);
	EXPECT_EQ(B_SIZE, st.st_size);
	EXPECT_EQ(B_SIZE / 512, st.st_blocks);

	/* fstat() asks the daemon: attributes are not cached */
	fd = open(MNT("dir/a"), O_RDONLY);
	ASSERT_LE(0, fd);
	before = fuse_daemon_count(self->d, FUSE_GETATTR);
	EXPECT_EQ(0, fstat(fd, &st));
	EXPECT_EQ((off_t)strlen(A_DATA), st.st_size);
	EXPECT_EQ(0, fstat(fd, &st));
	EXPECT_EQ(before + 2, fuse_daemon_count(self->d, FUSE_GETATTR));
	EXPECT_EQ(0, close(fd));
}

TEST_F(fuse, readdir_root)
{
	static const char * const names[] = { "hello.txt", "dir", "big",
					      "link" };
	static const unsigned char types[] = { DT_REG, DT_DIR, DT_DIR,
					       DT_LNK };
	struct dent ents[16];
	const struct dent *e;
	unsigned int i;
	int n;

	n = read_dir(self->mnt, ents, 16);
	ASSERT_EQ(6, n);
	e = find_once(ents, n, ".");
	ASSERT_NE(NULL, e);
	EXPECT_EQ((ino_t)FUSE_ROOT_ID, e->ino);
	EXPECT_EQ(DT_DIR, e->type);
	e = find_once(ents, n, "..");
	ASSERT_NE(NULL, e);
	EXPECT_EQ(DT_DIR, e->type);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		e = find_once(ents, n, names[i]);
		ASSERT_NE(NULL, e) {
			TH_LOG("%s not listed once", names[i]);
		}
		EXPECT_EQ(types[i], e->type);
		EXPECT_EQ(fuse_daemon_lookup_path(self->d, names[i]), e->ino);
	}
}

TEST_F(fuse, readdir_dir)
{
	static const char * const names[] = { ".", "..", "a", "b", "sub" };
	static const unsigned char types[] = { DT_DIR, DT_DIR, DT_REG,
					       DT_REG, DT_DIR };
	const __u64 inos[] = { self->dir, FUSE_ROOT_ID, self->a, self->b,
			       self->sub };
	unsigned long before = fuse_daemon_count(self->d, FUSE_RELEASEDIR);
	struct dent ents[16];
	const struct dent *e;
	unsigned int i;
	int n;

	n = read_dir(MNT("dir"), ents, 16);
	ASSERT_EQ(5, n);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		e = find_once(ents, n, names[i]);
		ASSERT_NE(NULL, e) {
			TH_LOG("%s not listed once", names[i]);
		}
		EXPECT_EQ(types[i], e->type);
		EXPECT_EQ(inos[i], e->ino);
	}

	EXPECT_EQ(0, read_dir(MNT("dir/sub"), ents, 16) - 2);
	EXPECT_TRUE(fuse_daemon_wait_count(self->d, FUSE_RELEASEDIR,
					   before + 2, RELEASE_WAIT_MS));
}

TEST_F(fuse, readdir_large)
{
	unsigned long before = fuse_daemon_count(self->d, FUSE_READDIR);
	int seen[BIG_ENTRIES] = { 0 };
	struct dent *ents;
	int i, n, idx;

	ents = calloc(BIG_ENTRIES + 8, sizeof(*ents));
	ASSERT_NE(NULL, ents);
	n = read_dir(MNT("big"), ents, BIG_ENTRIES + 8);
	EXPECT_EQ(BIG_ENTRIES + 2, n);
	for (i = 0; i < n; i++) {
		if (!strcmp(ents[i].name, ".") || !strcmp(ents[i].name, ".."))
			continue;
		idx = big_index(ents[i].name);
		if (idx < 0) {
			TH_LOG("unexpected name %s", ents[i].name);
			EXPECT_LE(0, idx);
			continue;
		}
		seen[idx]++;
		EXPECT_EQ(DT_REG, ents[i].type);
	}
	free(ents);
	for (i = 0; i < BIG_ENTRIES; i++) {
		EXPECT_EQ(1, seen[i]) {
			TH_LOG("entry %d seen %d times", i, seen[i]);
		}
	}
	/* The entries do not fit in one READDIR reply */
	EXPECT_LE(before + 3, fuse_daemon_count(self->d, FUSE_READDIR));
}

/* getdents64() taking a few entries a call: the daemon honours offsets */
TEST_F(fuse, readdir_small_buffer)
{
	unsigned long before = fuse_daemon_count(self->d, FUSE_READDIR);
	int seen[BIG_ENTRIES] = { 0 };
	struct linux_dirent64 *de;
	char buf[1024];
	int fd, i, idx, calls = 0, others = 0;
	long n, pos;

	fd = open(MNT("big"), O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, fd);
	for (;;) {
		n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
		ASSERT_LE(0, n);
		if (!n)
			break;
		calls++;
		for (pos = 0; pos < n; pos += de->d_reclen) {
			de = (struct linux_dirent64 *)(buf + pos);
			idx = big_index(de->d_name);
			if (idx < 0) {
				others++;
				continue;
			}
			seen[idx]++;
		}
	}
	EXPECT_EQ(0, close(fd));
	EXPECT_EQ(2, others);
	for (i = 0; i < BIG_ENTRIES; i++) {
		EXPECT_EQ(1, seen[i]) {
			TH_LOG("entry %d seen %d times", i, seen[i]);
		}
	}
	/* 1024 bytes hold 4 entries of this size */
	EXPECT_LE(BIG_ENTRIES / 4, calls);
	EXPECT_LE(before + calls, fuse_daemon_count(self->d, FUSE_READDIR));
}

TEST_F(fuse, read)
{
	unsigned long open_before = fuse_daemon_count(self->d, FUSE_OPEN);
	unsigned long read_before = fuse_daemon_count(self->d, FUSE_READ);
	char buf[256];
	int fd;

	fd = open(MNT("hello.txt"), O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(open_before + 1, fuse_daemon_count(self->d, FUSE_OPEN));
	ASSERT_EQ((ssize_t)strlen(HELLO), read(fd, buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, HELLO, strlen(HELLO)));
	EXPECT_EQ(0, read(fd, buf, sizeof(buf)));
	EXPECT_EQ(0, close(fd));
	EXPECT_LT(read_before, fuse_daemon_count(self->d, FUSE_READ));
	EXPECT_TRUE(read_covered(self->log, self->hello, 0, strlen(HELLO)));

	fd = open(MNT("dir/a"), O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)strlen(A_DATA), read(fd, buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, A_DATA, strlen(A_DATA)));
	EXPECT_EQ(0, close(fd));
}

TEST_F(fuse, read_offset)
{
	char buf[1000], expect[1000];
	int fd, i;

	fd = open(MNT("hello.txt"), O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(5, pread(fd, buf, 5, 7));
	EXPECT_EQ(0, memcmp(buf, &HELLO[7], 5));
	EXPECT_TRUE(read_covered(self->log, self->hello, 7, 5));
	if (variant->fopen_flags & FOPEN_DIRECT_IO)
		EXPECT_TRUE(read_exact(self->log, self->hello, 7, 5));
	EXPECT_EQ(0, close(fd));

	fd = open(MNT("dir/b"), O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1000, pread(fd, buf, 1000, 100000));
	for (i = 0; i < 1000; i++)
		expect[i] = b_byte(100000 + i);
	EXPECT_EQ(0, memcmp(buf, expect, 1000));
	EXPECT_TRUE(read_covered(self->log, self->b, 100000, 1000));
	if (variant->fopen_flags & FOPEN_DIRECT_IO)
		EXPECT_TRUE(read_exact(self->log, self->b, 100000, 1000));
	EXPECT_EQ(0, close(fd));
}

TEST_F(fuse, read_past_eof)
{
	size_t len = strlen(HELLO);
	char buf[100];
	int fd;

	fd = open(MNT("hello.txt"), O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(3, pread(fd, buf, sizeof(buf), len - 3));
	EXPECT_EQ(0, memcmp(buf, &HELLO[len - 3], 3));
	EXPECT_EQ(0, pread(fd, buf, sizeof(buf), len));
	EXPECT_EQ(0, pread(fd, buf, sizeof(buf), len + 100));
	EXPECT_EQ(0, pread(fd, buf, sizeof(buf), 1 << 20));
	EXPECT_EQ(0, close(fd));
}

/* A file larger than one READ request, read in pieces */
TEST_F(fuse, read_large)
{
	unsigned char *buf, *covered;
	unsigned int i, reads = 0;
	size_t total = 0, j;
	ssize_t n;
	int fd;

	buf = malloc(B_SIZE + 1);
	covered = calloc(1, B_SIZE);
	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, covered);
	fd = open(MNT("dir/b"), O_RDONLY);
	ASSERT_LE(0, fd);
	do {
		j = B_SIZE + 1 - total;
		n = read(fd, buf + total, j < 8192 ? j : 8192);
		ASSERT_LE(0, n);
		total += n;
	} while (n > 0 && total <= B_SIZE);
	EXPECT_EQ(0, close(fd));
	ASSERT_EQ((size_t)B_SIZE, total);
	for (j = 0; j < total; j++) {
		ASSERT_EQ(b_byte(j), buf[j]) {
			TH_LOG("byte %zu differs", j);
		}
	}

	/* The READs together covered the file */
	for (i = 0; i < self->log->nr && i < READ_LOG_MAX; i++) {
		if (self->log->ent[i].nodeid != self->b)
			continue;
		reads++;
		for (j = self->log->ent[i].offset;
		     j < self->log->ent[i].offset + self->log->ent[i].size &&
		     j < B_SIZE; j++)
			covered[j] = 1;
	}
	EXPECT_LT(1U, reads);
	EXPECT_EQ(NULL, memchr(covered, 0, B_SIZE));
	free(covered);
	free(buf);
}

TEST_F(fuse, readlink)
{
	unsigned long before = fuse_daemon_count(self->d, FUSE_READLINK);
	char buf[64];
	struct stat st;

	ASSERT_EQ(9, readlink(MNT("link"), buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "hello.txt", 9));
	EXPECT_LT(before, fuse_daemon_count(self->d, FUSE_READLINK));
	ASSERT_EQ(0, stat(MNT("link"), &st));
	EXPECT_EQ(self->hello, st.st_ino);
	ASSERT_EQ(0, lstat(MNT("link"), &st));
	EXPECT_EQ(9, st.st_size);
}

TEST_F(fuse, release)
{
	unsigned long release = fuse_daemon_count(self->d, FUSE_RELEASE);
	unsigned long flush = fuse_daemon_count(self->d, FUSE_FLUSH);
	char buf[64];
	int fd;

	fd = open(MNT("hello.txt"), O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_LT(0, read(fd, buf, sizeof(buf)));
	usleep(10000);
	EXPECT_EQ(release, fuse_daemon_count(self->d, FUSE_RELEASE));
	EXPECT_EQ(0, close(fd));
	/* FLUSH is synchronous, RELEASE is not */
	EXPECT_EQ(flush + 1, fuse_daemon_count(self->d, FUSE_FLUSH));
	EXPECT_TRUE(fuse_daemon_wait_count(self->d, FUSE_RELEASE, release + 1,
					   RELEASE_WAIT_MS));
}

TEST_F(fuse, write_fails)
{
	unsigned long open_before = fuse_daemon_count(self->d, FUSE_OPEN);
	unsigned long access_before = fuse_daemon_count(self->d, FUSE_ACCESS);

	EXPECT_EQ(-1, open(MNT("hello.txt"), O_WRONLY));
	EXPECT_EQ(EROFS, errno);
	EXPECT_EQ(-1, open(MNT("dir/a"), O_RDWR));
	EXPECT_EQ(EROFS, errno);
	/* The daemon refused them */
	EXPECT_EQ(open_before + 2, fuse_daemon_count(self->d, FUSE_OPEN));

	EXPECT_EQ(0, access(MNT("hello.txt"), R_OK));
	EXPECT_EQ(-1, access(MNT("hello.txt"), W_OK));
	EXPECT_EQ(EROFS, errno);
	EXPECT_EQ(access_before + 2, fuse_daemon_count(self->d, FUSE_ACCESS));

	/* No handler: -ENOSYS from the daemon */
	EXPECT_EQ(-1, mkdir(MNT("newdir"), 0755));
	EXPECT_EQ(ENOSYS, errno);
	EXPECT_EQ(1UL, fuse_daemon_count(self->d, FUSE_MKDIR));
	EXPECT_EQ(-1, access(MNT("newdir"), F_OK));
	EXPECT_EQ(ENOENT, errno);
}

TEST_F(fuse, xattr)
{
	char buf[256];

	EXPECT_EQ(-1, getxattr(MNT("hello.txt"), "user.test", buf,
			       sizeof(buf)));
	EXPECT_EQ(ENODATA, errno);
	EXPECT_LE(1UL, fuse_daemon_count(self->d, FUSE_GETXATTR));
	EXPECT_EQ(0, listxattr(MNT("hello.txt"), NULL, 0));
	EXPECT_EQ(0, listxattr(MNT("hello.txt"), buf, sizeof(buf)));
	EXPECT_LE(2UL, fuse_daemon_count(self->d, FUSE_LISTXATTR));
}

/* The requests behind stat, readdir and read reach the daemon */
TEST_F(fuse, counters)
{
	static const __u32 ops[] = {
		FUSE_LOOKUP, FUSE_GETATTR, FUSE_OPENDIR, FUSE_READDIR,
		FUSE_OPEN, FUSE_READ, FUSE_FLUSH,
	};
	unsigned long before[FUSE_DAEMON_NR_OPCODES];
	struct dent ents[16];
	struct stat st;
	unsigned int i;
	char buf[64];
	int fd;

	for (i = 0; i < FUSE_DAEMON_NR_OPCODES; i++)
		before[i] = fuse_daemon_count(self->d, i);

	ASSERT_EQ(0, stat(MNT("hello.txt"), &st));
	ASSERT_EQ(6, read_dir(self->mnt, ents, 16));
	fd = open(MNT("hello.txt"), O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)strlen(HELLO), read(fd, buf, sizeof(buf)));
	EXPECT_EQ(0, close(fd));

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		EXPECT_LT(before[ops[i]], fuse_daemon_count(self->d, ops[i])) {
			TH_LOG("no request of opcode %u", ops[i]);
		}
	}
	EXPECT_TRUE(fuse_daemon_wait_count(self->d, FUSE_RELEASE,
					   before[FUSE_RELEASE] + 1,
					   RELEASE_WAIT_MS));
	EXPECT_TRUE(fuse_daemon_wait_count(self->d, FUSE_RELEASEDIR,
					   before[FUSE_RELEASEDIR] + 1,
					   RELEASE_WAIT_MS));
	EXPECT_EQ(1UL, fuse_daemon_count(self->d, FUSE_INIT));
	EXPECT_EQ(0UL, self->d->shared->count_other);
	EXPECT_EQ(0UL, self->d->shared->errors);
}

TEST_F(fuse, umount)
{
	pid_t pid = self->d->pid;
	struct statfs sfs;
	struct stat st;

	ASSERT_LT(0, pid);
	ASSERT_EQ(0, stat(MNT("dir/a"), &st));
	EXPECT_EQ(0, fuse_daemon_umount(self->d));
	EXPECT_FALSE(self->d->mounted);
	EXPECT_FALSE(mounted_as(self->mnt, NULL, NULL));
	/* The daemon has exited and was reaped */
	EXPECT_EQ(-1, waitpid(pid, NULL, WNOHANG));
	EXPECT_EQ(ECHILD, errno);
	EXPECT_EQ(-1, kill(pid, 0));
	ASSERT_EQ(0, statfs(self->mnt, &sfs));
	EXPECT_NE(FUSE_SUPER_MAGIC, sfs.f_type);
	EXPECT_EQ(-1, stat(MNT("dir/a"), &st));
	EXPECT_EQ(ENOENT, errno);
}

TEST_HARNESS_MAIN
