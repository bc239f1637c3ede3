// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the selftests' FUSE daemon (fuse_daemon.c) against the kernel:
 * a read-only tree is mounted and looked up, listed, read and unmounted,
 * and the daemon's request counters show what reached it.
 *
 * Every test of the fuse fixture runs twice: with the page cache, and with
 * FOPEN_DIRECT_IO, so that READ requests carry the offsets and sizes of the
 * read(2) calls.  The fuse_bpf fixture tests FUSE-BPF with a daemon: node
 * ids it may not hand out, and a root_dir= mount it never hears of.
 * Each test mounts in a mount namespace of its own, on a tmpfs over /tmp.
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
#include <sys/ioctl.h>
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

/*
 * FUSE-BPF.  Node ids with bit 63 set are for the nodes the kernel makes for
 * backing inodes: a daemon's reply handing one out is refused.  A mount
 * with root_dir= is served from the lower directory even with a daemon,
 * which then sees no request but FUSE_INIT.
 */
#define RESERVED_NODEID		((1ULL << 63) | 5)
#define HIGH_NODEID_BIT		0x4000000000000000ULL	/* bit 62: not reserved */
#define LONG_TIMEOUT_MS		60000
#define FORGET_WAIT_MS		2000
#define NO_FORGET_WAIT_MS	500
#define FORGET_LOG_MAX		256
#define LOWER_DATA		"data of the lower file\n"

/* Not in linux/fs.h of old libcs, and no fileattr ioctl: reaches ->ioctl */
#ifndef FS_IOC_GETVERSION
#define FS_IOC_GETVERSION	_IOR('v', 1, long)
#endif

/* FORGET and BATCH_FORGET requests as seen by the daemon */
struct forget_log {
	unsigned int nr;
	struct {
		__u64 nodeid;
		__u64 nlookup;
	} ent[FORGET_LOG_MAX];
};

static void log_forget(struct forget_log *log, __u64 nodeid, __u64 nlookup)
{
	unsigned int i = __atomic_load_n(&log->nr, __ATOMIC_SEQ_CST);

	if (i >= FORGET_LOG_MAX)
		return;
	log->ent[i].nodeid = nodeid;
	log->ent[i].nlookup = nlookup;
	/* Only the daemon writes: publish the entry, then the count */
	__atomic_store_n(&log->nr, i + 1, __ATOMIC_SEQ_CST);
}

/* Forgets are logged only: they may name ids the tree does not know */
static int forget_logged(struct fuse_daemon *d,
			 const struct fuse_daemon_req *req)
{
	const struct fuse_forget_in *in = req->arg;

	if (req->arglen >= sizeof(*in))
		log_forget(d->priv, req->hdr->nodeid, in->nlookup);
	return 0;
}

static int batch_forget_logged(struct fuse_daemon *d,
			       const struct fuse_daemon_req *req)
{
	const struct fuse_batch_forget_in *in = req->arg;
	const struct fuse_forget_one *one = (const void *)(in + 1);
	__u32 i;

	if (req->arglen < sizeof(*in))
		return 0;
	for (i = 0; i < in->count &&
	     sizeof(*in) + (i + 1) * sizeof(*one) <= req->arglen; i++)
		log_forget(d->priv, one[i].nodeid, one[i].nlookup);
	return 0;
}

/* The nlookup forgotten of nodeid so far */
static __u64 forgotten(const struct forget_log *log, __u64 nodeid)
{
	unsigned int i, nr = __atomic_load_n(&log->nr, __ATOMIC_SEQ_CST);
	__u64 sum = 0;

	for (i = 0; i < nr; i++) {
		if (log->ent[i].nodeid == nodeid)
			sum += log->ent[i].nlookup;
	}
	return sum;
}

static unsigned int reserved_forgets(const struct forget_log *log)
{
	unsigned int i, n = 0, nr = __atomic_load_n(&log->nr, __ATOMIC_SEQ_CST);

	for (i = 0; i < nr; i++) {
		if (log->ent[i].nodeid & (1ULL << 63))
			n++;
	}
	return n;
}

static bool wait_forgotten(const struct forget_log *log, __u64 nodeid,
			   unsigned int timeout_ms)
{
	struct timespec ts = { 0, 1000000 };
	unsigned int waited = 0;

	while (!forgotten(log, nodeid)) {
		if (waited++ >= timeout_ms)
			return false;
		nanosleep(&ts, NULL);
	}
	return true;
}

/* Evicts unused dentries and inodes: FUSE inodes are then forgotten */
static int evict_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, "2\n", 2);
	close(fd);
	return n == 2 ? 0 : -EIO;
}

static int reply_entry(struct fuse_daemon *d, const struct fuse_daemon_req *req,
		       const struct fuse_daemon_node *node, __u64 nodeid)
{
	struct fuse_entry_out out;

	fuse_daemon_fill_entry(d, node, &out);
	out.nodeid = nodeid;
	return fuse_daemon_reply(d, req, &out, sizeof(out));
}

/* "evil" is given a reserved node id, "high" one with bit 62 set */
static int lookup_reserved(struct fuse_daemon *d,
			   const struct fuse_daemon_req *req)
{
	const char *name = req->arg;
	struct fuse_daemon_node *node;

	if (!req->arglen || !memchr(name, '\0', req->arglen))
		return -EINVAL;
	node = fuse_daemon_find_child(d, req->hdr->nodeid, name);
	if (node && !strcmp(name, "evil"))
		return reply_entry(d, req, node, RESERVED_NODEID);
	if (node && !strcmp(name, "high"))
		return reply_entry(d, req, node, HIGH_NODEID_BIT | node->nodeid);
	return fuse_daemon_default_handler(FUSE_LOOKUP)(d, req);
}

/* Requests for the "high" node name it with bit 62 set */
static int getattr_high(struct fuse_daemon *d,
			const struct fuse_daemon_req *req)
{
	((struct fuse_in_header *)req->hdr)->nodeid &= ~HIGH_NODEID_BIT;
	return fuse_daemon_default_handler(FUSE_GETATTR)(d, req);
}

/* The name in a MKDIR, MKNOD, SYMLINK, LINK or CREATE request */
static const char *new_entry_name(const struct fuse_daemon_req *req)
{
	const char *name;
	size_t off;

	switch (req->hdr->opcode) {
	case FUSE_MKDIR:
		off = sizeof(struct fuse_mkdir_in);
		break;
	case FUSE_MKNOD:
		off = sizeof(struct fuse_mknod_in);
		break;
	case FUSE_LINK:
		off = sizeof(struct fuse_link_in);
		break;
	case FUSE_CREATE:
		off = sizeof(struct fuse_create_in);
		break;
	default:
		/* FUSE_SYMLINK: the name, then the target */
		off = 0;
	}
	name = (const char *)req->arg + off;
	if (req->arglen <= off || !memchr(name, '\0', req->arglen - off))
		return NULL;
	return name;
}

/*
 * A new entry is the node of /.spare of the same name, moved into place,
 * and a link is of its target node.  If the name starts with "evil", the
 * reply carries a reserved node id instead (and nothing moves): all else,
 * the attributes too, is as for a good one.
 */
static int new_entry(struct fuse_daemon *d, const struct fuse_daemon_req *req)
{
	const char *name = new_entry_name(req);
	struct fuse_open_out open_out = { 0 };
	const struct fuse_link_in *link;
	struct fuse_daemon_node *node;
	struct fuse_entry_out entry;
	struct iovec iov[2];
	bool evil;

	if (!name)
		return -EINVAL;
	if (req->hdr->opcode == FUSE_LINK) {
		link = req->arg;
		node = fuse_daemon_node(d, link->oldnodeid);
	} else {
		node = fuse_daemon_find_child(d,
					      fuse_daemon_lookup_path(d, ".spare"),
					      name);
	}
	if (!node)
		return -ENOSPC;
	evil = !strncmp(name, "evil", 4);
	if (!evil && req->hdr->opcode != FUSE_LINK)
		node->parent = req->hdr->nodeid;
	fuse_daemon_fill_entry(d, node, &entry);
	if (evil)
		entry.nodeid = RESERVED_NODEID;
	if (req->hdr->opcode != FUSE_CREATE)
		return fuse_daemon_reply(d, req, &entry, sizeof(entry));
	open_out.fh = node->nodeid;
	iov[0].iov_base = &entry;
	iov[0].iov_len = sizeof(entry);
	iov[1].iov_base = &open_out;
	iov[1].iov_len = sizeof(open_out);
	return fuse_daemon_reply_iov(d, req, iov, 2);
}

/* The children of a directory, "evil" with a reserved node id */
static int readdirplus_reserved(struct fuse_daemon *d,
				const struct fuse_daemon_req *req)
{
	struct fuse_daemon_node *dir = fuse_daemon_node(d, req->hdr->nodeid);
	const struct fuse_read_in *in;
	struct fuse_direntplus *dp;
	struct fuse_daemon_node *node;
	size_t size, used = 0, namelen, reclen, i;
	__u64 buf[512], idx = 0;

	in = fuse_daemon_req_arg(d, req, sizeof(*in));
	if (!in)
		return -EINVAL;
	if (!dir || !S_ISDIR(dir->mode))
		return -ENOTDIR;
	memset(buf, 0, sizeof(buf));
	size = in->size < sizeof(buf) ? in->size : sizeof(buf);
	for (i = 1; i < d->nr_nodes; i++) {
		node = d->nodes[i];
		if (node->parent != dir->nodeid)
			continue;
		if (idx++ < in->offset)
			continue;
		namelen = strlen(node->name);
		reclen = FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET_DIRENTPLUS +
					   namelen);
		if (reclen > size - used)
			break;
		dp = (struct fuse_direntplus *)((char *)buf + used);
		fuse_daemon_fill_entry(d, node, &dp->entry_out);
		if (!strcmp(node->name, "evil"))
			dp->entry_out.nodeid = RESERVED_NODEID;
		dp->dirent.ino = node->nodeid;
		dp->dirent.off = idx;
		dp->dirent.namelen = namelen;
		dp->dirent.type = (node->mode & S_IFMT) >> 12;
		memcpy(dp->dirent.name, node->name, namelen);
		used += reclen;
	}
	return fuse_daemon_reply(d, req, buf, used);
}

static int put_file(const char *path, const char *data)
{
	ssize_t len = strlen(data);
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, data, len) != len)
		ret = -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

/* Reads up to size - 1 bytes of a file, NUL-terminated; -1 on error */
static ssize_t get_file(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/* A tmpfs at lower with file, dir/inner, sym -> file, victim and old */
static int make_lower(const char *lower)
{
	char path[PATH_MAX];

	if (mount("tmpfs", lower, "tmpfs", 0, "size=16m,mode=0755"))
		return -errno;
	snprintf(path, sizeof(path), "%s/dir", lower);
	if (mkdir(path, 0755))
		return -errno;
	snprintf(path, sizeof(path), "%s/sym", lower);
	if (symlink("file", path))
		return -errno;
	snprintf(path, sizeof(path), "%s/file", lower);
	if (put_file(path, LOWER_DATA))
		return -EIO;
	snprintf(path, sizeof(path), "%s/dir/inner", lower);
	if (put_file(path, "inner\n"))
		return -EIO;
	snprintf(path, sizeof(path), "%s/victim", lower);
	if (put_file(path, "victim\n"))
		return -EIO;
	snprintf(path, sizeof(path), "%s/old", lower);
	return put_file(path, "old\n") ? -EIO : 0;
}

FIXTURE(fuse_bpf) {
	struct fuse_daemon *d;
	struct forget_log *log;
	char mnt[64];
	char lower[64];
};

FIXTURE_SETUP(fuse_bpf)
{
	int ret;

	self->log = mmap(NULL, sizeof(*self->log), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->log);
	self->d = fuse_daemon_new();
	ASSERT_NE(NULL, self->d);
	self->d->priv = self->log;
	fuse_daemon_set_handler(self->d, FUSE_FORGET, forget_logged);
	fuse_daemon_set_handler(self->d, FUSE_BATCH_FORGET,
				batch_forget_logged);

	ret = private_tmp();
	ASSERT_EQ(0, ret) {
		TH_LOG("private /tmp: %s", strerror(-ret));
	}
	snprintf(self->mnt, sizeof(self->mnt), "/tmp/fuse_bpf_mnt.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->mnt));
	snprintf(self->lower, sizeof(self->lower),
		 "/tmp/fuse_bpf_lower.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->lower));
}

FIXTURE_TEARDOWN(fuse_bpf)
{
	EXPECT_EQ(0, fuse_daemon_umount(self->d));
	EXPECT_FALSE(mounted_as(self->mnt, NULL, NULL));
	EXPECT_EQ(0UL, self->d->shared->errors);
	umount2(self->lower, MNT_DETACH);
	EXPECT_EQ(0, rmdir(self->mnt));
	EXPECT_EQ(0, rmdir(self->lower));
	fuse_daemon_free(self->d);
	munmap(self->log, sizeof(*self->log));
}

#define LOWER(rel) mnt_path(self->lower, rel)

static int daemon_mount(struct fuse_daemon *d, const char *mnt)
{
	int ret = fuse_daemon_mount(d, mnt, NULL);

	return ret ? ret : (fuse_daemon_wait_count(d, FUSE_INIT, 1, 2000) ?
			    0 : -ETIMEDOUT);
}

TEST_F(fuse_bpf, reserved_nodeid_lookup_refused)
{
	struct fuse_daemon *d = self->d;
	__u64 good, high;
	unsigned long lookups;
	struct stat st;
	int ret;

	good = fuse_daemon_add_file(d, FUSE_ROOT_ID, "good", 0644, "g", 1);
	ASSERT_NE(0ULL, good);
	ASSERT_NE(0ULL, fuse_daemon_add_file(d, FUSE_ROOT_ID, "evil", 0644,
					     "e", 1));
	high = fuse_daemon_add_file(d, FUSE_ROOT_ID, "high", 0644, "h", 1);
	ASSERT_NE(0ULL, high);
	/* "high" is then never asked for again, whatever its id */
	d->entry_timeout_ms = LONG_TIMEOUT_MS;
	d->attr_timeout_ms = LONG_TIMEOUT_MS;
	fuse_daemon_set_handler(d, FUSE_LOOKUP, lookup_reserved);
	fuse_daemon_set_handler(d, FUSE_GETATTR, getattr_high);
	ret = daemon_mount(d, self->mnt);
	ASSERT_EQ(0, ret) {
		TH_LOG("mounting on %s: %s", self->mnt, strerror(-ret));
	}

	ASSERT_EQ(0, stat(MNT("good"), &st));
	EXPECT_EQ(good, st.st_ino);
	EXPECT_TRUE(S_ISREG(st.st_mode));

	lookups = fuse_daemon_count(d, FUSE_LOOKUP);
	EXPECT_EQ(-1, stat(MNT("evil"), &st));
	EXPECT_EQ(EIO, errno);
	EXPECT_EQ(lookups + 1, fuse_daemon_count(d, FUSE_LOOKUP));
	/* Nothing was kept of it: the daemon is asked again */
	EXPECT_EQ(-1, open(MNT("evil"), O_RDONLY));
	EXPECT_EQ(EIO, errno);
	EXPECT_EQ(lookups + 2, fuse_daemon_count(d, FUSE_LOOKUP));

	/* Only bit 63 is reserved */
	ASSERT_EQ(0, stat(MNT("high"), &st));
	EXPECT_EQ(high, st.st_ino);
	EXPECT_EQ(1, st.st_size);

	/*
	 * Once the good nodes are forgotten, any FORGET sent before reached
	 * the daemon: none may name the reserved id.
	 */
	ASSERT_EQ(0, evict_caches());
	EXPECT_TRUE(wait_forgotten(self->log, good, FORGET_WAIT_MS));
	EXPECT_TRUE(wait_forgotten(self->log, HIGH_NODEID_BIT | high,
				   FORGET_WAIT_MS));
	EXPECT_EQ(0U, reserved_forgets(self->log));
	EXPECT_EQ(0ULL, forgotten(self->log, RESERVED_NODEID));
}

TEST_F(fuse_bpf, reserved_nodeid_mkdir_refused)
{
	struct fuse_daemon *d = self->d;
	__u64 spare, good;
	struct stat st;
	int ret;

	spare = fuse_daemon_add_dir(d, FUSE_ROOT_ID, ".spare", 0700);
	ASSERT_NE(0ULL, spare);
	good = fuse_daemon_add_dir(d, spare, "good_dir", 0755);
	ASSERT_NE(0ULL, good);
	ASSERT_NE(0ULL, fuse_daemon_add_dir(d, spare, "evil_dir", 0755));
	fuse_daemon_set_handler(d, FUSE_MKDIR, new_entry);
	ret = daemon_mount(d, self->mnt);
	ASSERT_EQ(0, ret) {
		TH_LOG("mounting on %s: %s", self->mnt, strerror(-ret));
	}

	ASSERT_EQ(0, mkdir(MNT("good_dir"), 0755));
	ASSERT_EQ(0, stat(MNT("good_dir"), &st));
	EXPECT_TRUE(S_ISDIR(st.st_mode));
	EXPECT_EQ(good, st.st_ino);

	EXPECT_EQ(-1, mkdir(MNT("evil_dir"), 0755));
	EXPECT_EQ(EIO, errno);
	EXPECT_EQ(2UL, fuse_daemon_count(d, FUSE_MKDIR));
	EXPECT_EQ(-1, stat(MNT("evil_dir"), &st));
	EXPECT_EQ(ENOENT, errno);

	ASSERT_EQ(0, evict_caches());
	EXPECT_TRUE(wait_forgotten(self->log, good, FORGET_WAIT_MS));
	EXPECT_EQ(0U, reserved_forgets(self->log));
}

/* The other replies that hand out a node id: CREATE, MKNOD, SYMLINK, LINK */
TEST_F(fuse_bpf, reserved_nodeid_new_entry_refused)
{
	static const char * const spares[] = {
		"good_file", "evil_file", "good_node", "evil_node",
	};
	struct fuse_daemon *d = self->d;
	__u64 spare, target, good_sym;
	char buf[16];
	struct stat st;
	unsigned int i;
	int fd, ret;

	target = fuse_daemon_add_file(d, FUSE_ROOT_ID, "target", 0644, "t", 1);
	ASSERT_NE(0ULL, target);
	spare = fuse_daemon_add_dir(d, FUSE_ROOT_ID, ".spare", 0700);
	ASSERT_NE(0ULL, spare);
	for (i = 0; i < ARRAY_SIZE(spares); i++)
		ASSERT_NE(0ULL, fuse_daemon_add_file(d, spare, spares[i], 0644,
						     NULL, 0));
	good_sym = fuse_daemon_add_symlink(d, spare, "good_sym", "target");
	ASSERT_NE(0ULL, good_sym);
	ASSERT_NE(0ULL, fuse_daemon_add_symlink(d, spare, "evil_sym",
						"target"));
	fuse_daemon_set_handler(d, FUSE_CREATE, new_entry);
	fuse_daemon_set_handler(d, FUSE_MKNOD, new_entry);
	fuse_daemon_set_handler(d, FUSE_SYMLINK, new_entry);
	fuse_daemon_set_handler(d, FUSE_LINK, new_entry);
	ret = daemon_mount(d, self->mnt);
	ASSERT_EQ(0, ret) {
		TH_LOG("mounting on %s: %s", self->mnt, strerror(-ret));
	}

	fd = open(MNT("good_file"), O_CREAT | O_EXCL | O_RDONLY, 0644);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, close(fd));
	fd = open(MNT("evil_file"), O_CREAT | O_EXCL | O_RDONLY, 0644);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EIO, errno);
	if (fd >= 0)
		close(fd);
	EXPECT_EQ(2UL, fuse_daemon_count(d, FUSE_CREATE));

	EXPECT_EQ(0, mknod(MNT("good_node"), S_IFREG | 0644, 0));
	EXPECT_EQ(-1, mknod(MNT("evil_node"), S_IFREG | 0644, 0));
	EXPECT_EQ(EIO, errno);
	EXPECT_EQ(2UL, fuse_daemon_count(d, FUSE_MKNOD));

	EXPECT_EQ(0, symlink("target", MNT("good_sym")));
	EXPECT_EQ(-1, symlink("target", MNT("evil_sym")));
	EXPECT_EQ(EIO, errno);
	EXPECT_EQ(2UL, fuse_daemon_count(d, FUSE_SYMLINK));
	ASSERT_EQ(0, lstat(MNT("good_sym"), &st));
	EXPECT_EQ(good_sym, st.st_ino);
	EXPECT_EQ(6, readlink(MNT("good_sym"), buf, sizeof(buf)));

	EXPECT_EQ(0, link(MNT("target"), MNT("good_link")));
	EXPECT_EQ(-1, link(MNT("target"), MNT("evil_link")));
	EXPECT_EQ(EIO, errno);
	EXPECT_EQ(2UL, fuse_daemon_count(d, FUSE_LINK));

	/* None of the refused ids was forgotten */
	ASSERT_EQ(0, evict_caches());
	EXPECT_TRUE(wait_forgotten(self->log, good_sym, FORGET_WAIT_MS));
	EXPECT_EQ(0U, reserved_forgets(self->log));
}

/*
 * READDIRPLUS: the entry with a reserved id is listed, but not linked;
 * the kernel sends the daemon a FORGET of the lookup it refused.
 */
TEST_F(fuse_bpf, reserved_nodeid_readdirplus_not_linked)
{
	struct fuse_daemon *d = self->d;
	unsigned long lookups;
	struct dent ents[16];
	struct stat st;
	__u64 a, evil;
	int n, ret;

	a = fuse_daemon_add_file(d, FUSE_ROOT_ID, "a", 0644, "a", 1);
	ASSERT_NE(0ULL, a);
	evil = fuse_daemon_add_file(d, FUSE_ROOT_ID, "evil", 0644, "e", 1);
	ASSERT_NE(0ULL, evil);
	d->init_flags |= FUSE_DO_READDIRPLUS;
	d->entry_timeout_ms = LONG_TIMEOUT_MS;
	d->attr_timeout_ms = LONG_TIMEOUT_MS;
	fuse_daemon_set_handler(d, FUSE_READDIRPLUS, readdirplus_reserved);
	ret = daemon_mount(d, self->mnt);
	ASSERT_EQ(0, ret) {
		TH_LOG("mounting on %s: %s", self->mnt, strerror(-ret));
	}

	n = read_dir(self->mnt, ents, 16);
	ASSERT_EQ(2, n);
	EXPECT_NE(NULL, find_once(ents, n, "a"));
	EXPECT_NE(NULL, find_once(ents, n, "evil"));
	EXPECT_LE(1UL, fuse_daemon_count(d, FUSE_READDIRPLUS));
	EXPECT_EQ(0UL, fuse_daemon_count(d, FUSE_READDIR));

	/* "a" was linked by READDIRPLUS, "evil" has to be looked up */
	lookups = fuse_daemon_count(d, FUSE_LOOKUP);
	ASSERT_EQ(0, stat(MNT("a"), &st));
	EXPECT_EQ(a, st.st_ino);
	EXPECT_EQ(lookups, fuse_daemon_count(d, FUSE_LOOKUP));
	ASSERT_EQ(0, stat(MNT("evil"), &st));
	EXPECT_EQ(evil, st.st_ino);
	EXPECT_EQ(lookups + 1, fuse_daemon_count(d, FUSE_LOOKUP));

	/* Sent before the LOOKUP of "evil", which the daemon answered */
	EXPECT_EQ(1ULL, forgotten(self->log, RESERVED_NODEID));
	EXPECT_EQ(1U, reserved_forgets(self->log));
}

TEST_F(fuse_bpf, root_dir_with_daemon_serves_from_lower)
{
	static const char * const names[] = {
		".", "..", "file", "dir", "sym", "victim", "old",
	};
	struct fuse_daemon *d = self->d;
	struct statfs sfs, lsfs;
	struct stat st, lst;
	struct dent ents[16];
	char opts[32], buf[64];
	unsigned int i;
	long version;
	int fd, dirfd, ret;

	umask(022);
	ret = make_lower(self->lower);
	ASSERT_EQ(0, ret) {
		TH_LOG("lower: %s", strerror(-ret));
	}
	dirfd = open(self->lower, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, dirfd);
	snprintf(opts, sizeof(opts), "root_dir=%d", dirfd);
	ret = fuse_daemon_mount(d, self->mnt, opts);
	ASSERT_EQ(0, ret) {
		TH_LOG("mounting on %s: %s", self->mnt, strerror(-ret));
	}
	EXPECT_EQ(0, close(dirfd));
	EXPECT_TRUE(fuse_daemon_wait_count(d, FUSE_INIT, 1, 2000));
	EXPECT_TRUE(mounted_as(self->mnt, "fuse", "fuse_test"));

	/* The attributes are the lower inodes' */
	ASSERT_EQ(0, stat(self->mnt, &st));
	ASSERT_EQ(0, stat(self->lower, &lst));
	EXPECT_EQ(lst.st_mode, st.st_mode);
	EXPECT_EQ(lst.st_ino, st.st_ino);
	EXPECT_EQ(lst.st_nlink, st.st_nlink);
	ASSERT_EQ(0, stat(MNT("file"), &st));
	ASSERT_EQ(0, stat(LOWER("file"), &lst));
	EXPECT_EQ(lst.st_ino, st.st_ino);
	EXPECT_EQ(lst.st_mode, st.st_mode);
	EXPECT_EQ((off_t)strlen(LOWER_DATA), st.st_size);
	ASSERT_EQ(0, lstat(MNT("sym"), &st));
	EXPECT_TRUE(S_ISLNK(st.st_mode));
	EXPECT_EQ(4, readlink(MNT("sym"), buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "file", 4));
	EXPECT_EQ(0, access(MNT("file"), R_OK | W_OK));

	/* Data: read from and written to the lower file */
	fd = open(MNT("file"), O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)strlen(LOWER_DATA), read(fd, buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, LOWER_DATA, strlen(LOWER_DATA)));
	ASSERT_EQ(4, pwrite(fd, "DATA", 4, 0));
	/* Not a fileattr ioctl: refused, not sent to the daemon */
	EXPECT_EQ(-1, ioctl(fd, FS_IOC_GETVERSION, &version));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(0, close(fd));
	ASSERT_EQ((ssize_t)strlen(LOWER_DATA),
		  get_file(LOWER("file"), buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "DATA of the lower file\n", 23));

	/* The lower directory's entries */
	ASSERT_EQ((int)ARRAY_SIZE(names), read_dir(self->mnt, ents, 16));
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		EXPECT_NE(NULL, find_once(ents, ARRAY_SIZE(names), names[i])) {
			TH_LOG("%s not listed once", names[i]);
		}
	}
	fd = open(MNT("dir"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, ioctl(fd, FS_IOC_GETVERSION, &version));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(0, close(fd));

	/* Changes land on the lower directory */
	fd = open(MNT("new"), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0640);
	ASSERT_LE(0, fd);
	EXPECT_EQ(4, write(fd, "new\n", 4));
	EXPECT_EQ(0, close(fd));
	ASSERT_EQ(4, get_file(LOWER("new"), buf, sizeof(buf)));
	EXPECT_STREQ("new\n", buf);
	ASSERT_EQ(0, stat(LOWER("new"), &lst));
	EXPECT_EQ((mode_t)(S_IFREG | 0640), lst.st_mode);
	ASSERT_EQ(0, mkdir(MNT("newdir"), 0750));
	ASSERT_EQ(0, stat(LOWER("newdir"), &lst));
	EXPECT_EQ((mode_t)(S_IFDIR | 0750), lst.st_mode);
	ASSERT_EQ(0, unlink(MNT("victim")));
	EXPECT_EQ(-1, stat(LOWER("victim"), &lst));
	EXPECT_EQ(ENOENT, errno);
	ASSERT_EQ(0, rename(MNT("old"), MNT("dir/renamed")));
	EXPECT_EQ(-1, stat(LOWER("old"), &lst));
	EXPECT_EQ(ENOENT, errno);
	ASSERT_EQ(4, get_file(LOWER("dir/renamed"), buf, sizeof(buf)));
	EXPECT_STREQ("old\n", buf);
	/* And the other way round */
	ASSERT_EQ(0, put_file(LOWER("direct"), "direct\n"));
	ASSERT_EQ(7, get_file(MNT("direct"), buf, sizeof(buf)));
	EXPECT_STREQ("direct\n", buf);

	ASSERT_EQ(0, statfs(MNT("dir"), &sfs));
	ASSERT_EQ(0, statfs(self->lower, &lsfs));
	EXPECT_EQ(FUSE_SUPER_MAGIC, sfs.f_type);
	EXPECT_EQ(lsfs.f_bsize, sfs.f_bsize);
	EXPECT_EQ(lsfs.f_blocks, sfs.f_blocks);
	EXPECT_EQ(lsfs.f_files, sfs.f_files);

	/* Evicted nodes are made anew by the kernel, and never forgotten */
	ASSERT_EQ(0, evict_caches());
	ASSERT_EQ(0, stat(MNT("dir/renamed"), &st));
	ASSERT_EQ(0, stat(LOWER("dir/renamed"), &lst));
	EXPECT_EQ(lst.st_ino, st.st_ino);
	EXPECT_FALSE(fuse_daemon_wait_count(d, FUSE_FORGET, 1,
					    NO_FORGET_WAIT_MS));

	/* The daemon saw FUSE_INIT and nothing else */
	EXPECT_EQ(1UL, fuse_daemon_count(d, FUSE_INIT));
	for (i = 0; i < FUSE_DAEMON_NR_OPCODES; i++) {
		if (i == FUSE_INIT)
			continue;
		EXPECT_EQ(0UL, fuse_daemon_count(d, i)) {
			TH_LOG("opcode %u reached the daemon", i);
		}
	}
	EXPECT_EQ(0UL, d->shared->count_other);

	EXPECT_EQ(0, fuse_daemon_umount(d));
	EXPECT_EQ(0UL, fuse_daemon_count(d, FUSE_FORGET));
	EXPECT_EQ(0UL, fuse_daemon_count(d, FUSE_BATCH_FORGET));
	EXPECT_EQ(0U, self->log->nr);
	EXPECT_EQ(0, stat(LOWER("new"), &lst));
}

TEST_F(fuse_bpf, no_daemon_mount_needs_no_device)
{
	struct statfs sfs, lsfs;
	struct stat st, lst;
	char opts[48], buf[64];
	long version;
	int fd, dirfd, ret;

	ret = make_lower(self->lower);
	ASSERT_EQ(0, ret) {
		TH_LOG("lower: %s", strerror(-ret));
	}
	/* No /dev/fuse to be had in this mount namespace */
	ASSERT_EQ(0, mount("tmpfs", "/dev", "tmpfs", MS_NOSUID, "mode=0755"));
	EXPECT_EQ(-1, access("/dev/fuse", F_OK));
	EXPECT_EQ(ENOENT, errno);

	dirfd = open(self->lower, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, dirfd);
	snprintf(opts, sizeof(opts), "root_dir=%d,no_daemon", dirfd);
	ASSERT_EQ(0, mount("fuse-bpf", self->mnt, "fuse", 0, opts));
	EXPECT_EQ(0, close(dirfd));
	EXPECT_TRUE(mounted_as(self->mnt, "fuse", "fuse-bpf"));

	ASSERT_EQ(0, stat(MNT("file"), &st));
	ASSERT_EQ(0, stat(LOWER("file"), &lst));
	EXPECT_EQ(lst.st_ino, st.st_ino);
	EXPECT_EQ(lst.st_size, st.st_size);
	ASSERT_EQ((ssize_t)strlen(LOWER_DATA),
		  get_file(MNT("file"), buf, sizeof(buf)));
	EXPECT_STREQ(LOWER_DATA, buf);

	ASSERT_EQ(0, statfs(self->mnt, &sfs));
	ASSERT_EQ(0, statfs(self->lower, &lsfs));
	EXPECT_EQ(FUSE_SUPER_MAGIC, sfs.f_type);
	EXPECT_EQ(lsfs.f_bsize, sfs.f_bsize);
	EXPECT_EQ(lsfs.f_blocks, sfs.f_blocks);
	EXPECT_EQ(lsfs.f_files, sfs.f_files);
	EXPECT_EQ(lsfs.f_namelen, sfs.f_namelen);

	/* ioctls for a daemon: ENOTTY, not ENOTCONN */
	fd = open(MNT("file"), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, ioctl(fd, FS_IOC_GETVERSION, &version));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(0, close(fd));
	fd = open(self->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, ioctl(fd, FS_IOC_GETVERSION, &version));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(0, close(fd));

	EXPECT_EQ(0, umount(self->mnt));
}

TEST_HARNESS_MAIN
