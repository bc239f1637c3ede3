// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE-BPF no-daemon passthrough: when the lower filesystem fails, goes
 * away or runs out of room.
 *
 * The backing operations of a FUSE-BPF mount run on the lower filesystem
 * with the credentials of the mounter (root here), after the caller's
 * permission was checked.  These tests look at what the lower filesystem
 * itself enforces or does under the mount:
 *
 * - ext4.erofs_remount_with_open_files: a file open for writing through
 *   the mount keeps the lower from being remounted read-only (EBUSY), as
 *   one open on the lower does.  Once read-only, every write through the
 *   mount fails with EROFS while reads go on; remounted read-write,
 *   writes work again; e2fsck finds the image clean.
 * - pt.lower_lazily_unmounted: the lower is lazily unmounted under a file
 *   open through the mount.  The mount works on (reads, writes, stat,
 *   readdir, create); its superblock goes when the mount does (inotify
 *   sees IN_UNMOUNT), and then, for ext4, nothing holds the loop device
 *   any more and the image holds what was written.
 * - tmpfs_sub.lower_root_removed: the directory the mount has for root is
 *   removed on the lower.  The mount answers as the removed directory
 *   does through an fd (st_nlink 0, ENOENT to create in it, nothing to
 *   list) and unmounts cleanly.
 * - ext4_quota.edquot_lower: uid 65534 writing through the mount is held
 *   to its block quota on the lower (EDQUOT), as it is on the lower: the
 *   backing write must not use the mounter's CAP_SYS_RESOURCE for it.
 * - ext4_reserved.reserved_blocks_lower: uid 65534 writing through the
 *   mount does not get the blocks ext4 reserves for root (ENOSPC where it
 *   gets it on the lower, give or take a write), while root writing
 *   through the mount does.
 *
 * Each test runs in a mount namespace of its own with a tmpfs on /tmp
 * (see passthrough.h); the ext4 lowers are images on it, kept until the
 * end of the test for e2fsck and debugfs (mkfs.ext4, e2fsck and debugfs
 * must be in $PATH).  A kernel warning during a test fails it (taint).
 * The quota test needs CONFIG_QUOTA and CONFIG_QFMT_V2 (ext4's quota
 * feature uses the vfsv1 format).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/quota.h>
#include <sys/xattr.h>

#include "passthrough.h"

#define LOWER_MB	32
#define NOBODY		65534
#define KIB		1024LL
#define MIB		(1024 * KIB)
#define EXT4_OPTS	"user_xattr,acl,noinit_itable"

/* The quota test: a block hard limit of 256 KiB, 64 KiB writes */
#define QUOTA_MKFS	"-O ^has_journal,quota -E quotatype=usrquota"
#define QUOTA_OPTS	"noinit_itable,usrquota"
#define QUOTA_KIB	256
#define QUOTA_CHUNK	(64 * KIB)
#define QUOTA_BOUND	(512 * KIB)	/* EDQUOT must come before */
#define QUOTA_MAX	(2 * MIB)	/* where the writer stops anyway */

/*
 * The reserved blocks test: 20% of the blocks for root, 1 MiB writes; the
 * others find 4 MiB left to them (a preallocated file takes the rest).
 */
#define RESERVE_MKFS	"-O ^has_journal -m 20"
#define RESERVE_OPTS	"noinit_itable"
#define RESERVE_LEFT	(4 * MIB)

/* Helpers */

/* The result of a call returning an fd, which is closed */
static struct res rfd(long fd)
{
	struct res r = { fd < 0 ? -1 : 0, fd < 0 ? errno : 0 };

	if (fd >= 0)
		close(fd);
	return r;
}

/* Show what a command wrote to @fd as harness comments */
static void show_output(int fd)
{
	char buf[4096], *line, *save;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return;
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		fprintf(stderr, "#   %s\n", line);
}

/*
 * Run a shell command; what it writes to its standard output goes to
 * @out (up to @len - 1 bytes, NUL terminated) unless @out is NULL.  When
 * it fails, all it wrote is shown.  Returns its exit status, or -1.
 */
static int run_cmd(char *out, size_t len, const char *fmt, ...)
{
	char cmd[2 * PATH_MAX];
	int fd[2], i, status = -1;
	va_list ap;
	ssize_t n;
	pid_t pid;

	if (out)
		out[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	for (i = 0; i < 2; i++)
		fd[i] = open(PT_SCRATCH, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd[0] < 0 || fd[1] < 0)
		goto out;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		if (dup2(fd[0], STDOUT_FILENO) < 0 ||
		    dup2(fd[1], STDERR_FILENO) < 0)
			_exit(126);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		status = -1;
	else if (WIFEXITED(status))
		status = WEXITSTATUS(status);
	else
		status = 128 + WTERMSIG(status);
	if (status) {
		fprintf(stderr, "# %s: exit status %d\n", cmd, status);
		show_output(fd[0]);
		show_output(fd[1]);
	}
	if (out) {
		n = pread(fd[0], out, len - 1, 0);
		out[n < 0 ? 0 : n] = '\0';
	}
out:
	for (i = 0; i < 2; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	return status;
}

/*
 * An ext4 lower of @size_mb MiB at @dir, made by mkfs.ext4 @mkfs_opts
 * (NULL: as pt_lower_make() makes it), mounted with @mnt_opts.  Unlike
 * pt_lower_make(), the image stays at l->img for e2fsck and debugfs.
 * The loop device still goes on its last close (autoclear), so a failed
 * test leaves none behind.
 */
static int ext4_lower_make(struct pt_lower *l, const char *dir, int size_mb,
			   const char *mkfs_opts, const char *mnt_opts)
{
	struct loop_info64 info;
	int ret;

	memset(l, 0, sizeof(*l));
	l->kind = PT_EXT4;
	l->loopfd = -1;
	snprintf(l->dir, sizeof(l->dir), "%s", dir);
	snprintf(l->img, sizeof(l->img), "%s.img", dir);
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -1;
	if (!mkfs_opts && pt_template_fd >= 0 && pt_template_mb == size_mb)
		ret = pt_copy_sparse(pt_template_fd, l->img);
	else
		ret = pt_mkfs_ext4(l->img, size_mb, mkfs_opts);
	if (ret)
		return -1;
	l->loopfd = pt_loop_attach(l->img, l->dev, sizeof(l->dev));
	if (l->loopfd < 0)
		return -1;
	if (ioctl(l->loopfd, LOOP_GET_STATUS64, &info))
		return -1;
	info.lo_flags |= LO_FLAGS_AUTOCLEAR;
	if (ioctl(l->loopfd, LOOP_SET_STATUS64, &info))
		return -1;
	return mount(l->dev, dir, "ext4", 0, mnt_opts);
}

/*
 * The first half of the setup: a private /tmp and a lower of @kind and
 * @size_mb MiB at PT_LOWER; ext4 made with @mkfs_opts and mounted with
 * @mnt_opts, see ext4_lower_make().
 */
static void fault_lower(struct __test_metadata *_metadata,
			struct pt_env *e, enum pt_lower_kind kind, int size_mb,
			const char *mkfs_opts, const char *mnt_opts)
{
	struct statfs sfs;

	if (kind == PT_TMPFS) {
		pt_env_lower(_metadata, e, PT_TMPFS, size_mb);
		return;
	}
	memset(e, 0, sizeof(*e));
	umask(022);
	e->lower.loopfd = -1;
	e->taint = pt_taint();
	ASSERT_EQ(0, pt_private_mounts());
	ASSERT_EQ(0, mount("tmpfs", PT_SCRATCH, "tmpfs", 0, "mode=1777"));
	ASSERT_EQ(0, ext4_lower_make(&e->lower, PT_LOWER, size_mb,
				     mkfs_opts, mnt_opts))
		TH_LOG("ext4 lower (%s; %s): %s, see dmesg",
		       mkfs_opts ? mkfs_opts : "plain", mnt_opts,
		       strerror(errno));
	ASSERT_EQ(0, statfs(PT_LOWER, &sfs));
	ASSERT_EQ(EXT4_SUPER_MAGIC, sfs.f_type);
}

/* The lower of the fixture pt: ext4 mounted with EXT4_OPTS, or tmpfs */
static void pt_fault_lower(struct __test_metadata *_metadata,
			   struct pt_env *e, enum pt_lower_kind kind,
			   int size_mb)
{
	fault_lower(_metadata, e, kind, size_mb, NULL, EXT4_OPTS);
}

/*
 * Writes until an error: @chunk bytes at a time, each write followed by
 * fsync(), to @path (created), until a write or fsync fails or @max
 * bytes are written.  In shared memory: the writer may be a child.
 */
struct fill {
	char path[PATH_MAX];
	size_t chunk;
	long long max;
	long long bytes;	/* written */
	int err;		/* errno of the failed call, or 0 */
	const char *op;		/* the failed call */
};

static struct fill *fill_new(const char *path, size_t chunk, long long max)
{
	struct fill *f = mmap(NULL, sizeof(*f), PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (f == MAP_FAILED)
		return NULL;
	snprintf(f->path, sizeof(f->path), "%s", path);
	f->chunk = chunk;
	f->max = max;
	f->op = "nothing";
	return f;
}

static void fill_free(struct fill *f)
{
	if (f)
		munmap(f, sizeof(*f));
}

/* Run the writes of @arg, a struct fill; always returns 0 */
static int fill_file(void *arg)
{
	static char buf[MIB];
	struct fill *f = arg;
	ssize_t n;
	int fd;

	memset(buf, 'x', sizeof(buf));
	f->bytes = 0;
	f->err = 0;
	f->op = "open";
	fd = open(f->path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0) {
		f->err = errno;
		return 0;
	}
	while (f->bytes < f->max && f->chunk <= sizeof(buf)) {
		n = write(fd, buf, f->chunk);
		if (n <= 0) {
			f->op = "write";
			f->err = n ? errno : EIO;
			break;
		}
		f->bytes += n;
		if (fsync(fd)) {
			f->op = "fsync";
			f->err = errno;
			break;
		}
	}
	if (!f->err)
		f->op = "nothing";
	close(fd);
	return 0;
}

/* Run the writes of @f as uid 65534; 0 if the child ran them */
static int fill_as_nobody(struct fill *f)
{
	return pt_as_user(NOBODY, fill_file, f);
}

/* What the writes of @f came to, for the log */
static const char *fill_str(const struct fill *f)
{
	static char buf[PATH_MAX + 128];

	snprintf(buf, sizeof(buf), "%s: %lld KiB written, then %s failed: %s",
		 f->path, f->bytes / KIB, f->op, strerror(f->err));
	return buf;
}

/* Whether the inotify instance @in got IN_UNMOUNT: its filesystem went */
static bool got_unmount(int in)
{
	long long buf[512];	/* aligned for the events */
	const struct inotify_event *ev;
	bool seen = false;
	ssize_t n, off;

	while ((n = read(in, buf, sizeof(buf))) > 0) {
		for (off = 0; off < n; off += sizeof(*ev) + ev->len) {
			ev = (const void *)((char *)buf + off);
			if (ev->mask & IN_UNMOUNT)
				seen = true;
		}
	}
	return seen;
}

/* errno of LOOP_GET_STATUS64 on @dev: ENXIO once nothing is attached */
static int loop_status_err(const char *dev)
{
	int fd = open(dev, O_RDONLY | O_CLOEXEC), err = 0;
	struct loop_info64 info;

	if (fd < 0)
		return errno;
	if (ioctl(fd, LOOP_GET_STATUS64, &info))
		err = errno;
	close(fd);
	return err;
}

/* 1. Remounting the lower read-only */

FIXTURE(ext4) {
	struct pt_env env;
};

FIXTURE_SETUP(ext4)
{
	fault_lower(_metadata, &self->env, PT_EXT4, LOWER_MB, NULL, EXT4_OPTS);
	pt_env_mount(_metadata);
}

FIXTURE_TEARDOWN(ext4)
{
	pt_env_teardown(_metadata, &self->env);
}

/* Remount the lower read-only or read-write: 0 or the errno */
static int remount_lower(bool ro)
{
	unsigned long flags = MS_REMOUNT | (ro ? MS_RDONLY : 0);

	return mount(NULL, PT_LOWER, NULL, flags, NULL) ? errno : 0;
}

/* Remount the lower read-only with @fd open: EBUSY, nothing done */
static void expect_busy(struct __test_metadata *_metadata, int fd,
			const char *where)
{
	int err;

	ASSERT_LE(0, fd) TH_LOG("open O_RDWR %s: %s", where, strerror(errno));
	err = remount_lower(true);
	EXPECT_EQ(EBUSY, err)
		TH_LOG("remount ro, a file open O_RDWR %s: %s", where,
		       err ? strerror(err) : "remounted");
	if (!err)
		EXPECT_EQ(0, remount_lower(false));
	close(fd);
}

enum ro_op {
	RO_OPEN, RO_CREAT, RO_MKDIR, RO_UNLINK, RO_CHMOD, RO_SETXATTR,
	NR_RO_OPS
};

static const char * const ro_what[NR_RO_OPS] = {
	"open O_WRONLY", "creat", "mkdir", "unlink", "chmod",
	"setxattr user.x",
};

/* Write operation @op under @root */
static struct res ro_op(int op, const char *root)
{
	switch (op) {
	case RO_OPEN:
		return rfd(open(path_in(root, "f"), O_WRONLY | O_CLOEXEC));
	case RO_CREAT:
		return rfd(creat(path_in(root, "new"), 0644));
	case RO_MKDIR:
		return rs(mkdir(path_in(root, "d"), 0755));
	case RO_UNLINK:
		return rs(unlink(path_in(root, "f")));
	case RO_CHMOD:
		return rs(chmod(path_in(root, "f"), 0600));
	}
	return rs(setxattr(path_in(root, "f"), "user.x", "1", 1, 0));
}

TEST_F(ext4, erofs_remount_with_open_files)
{
	struct res m, l;
	char buf[16];
	int op, kept;

	ASSERT_EQ(0, pt_write_file(LO("f"), "data", 0644));

	/* A writer keeps the lower read-write: on the lower, then the mount */
	expect_busy(_metadata, open(LO("f"), O_RDWR | O_CLOEXEC),
		    "on the lower");
	expect_busy(_metadata, open(MN("f"), O_RDWR | O_CLOEXEC),
		    "through the mount");

	/* Read-only: writes fail through the mount as on the lower */
	kept = open(MN("f"), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, kept);
	ASSERT_EQ(0, remount_lower(true))
		TH_LOG("remount ro, the writers closed: %s", strerror(errno));
	for (op = 0; op < NR_RO_OPS; op++) {
		l = ro_op(op, PT_LOWER);
		m = ro_op(op, PT_MNT);
		EXPECT_TRUE(l.ret == -1 && l.err == EROFS)
			TH_LOG("%s on the lower: %ld (%s)", ro_what[op],
			       l.ret, strerror(l.err));
		EXPECT_TRUE(m.ret == -1 && m.err == EROFS)
			TH_LOG("%s through the mount: %ld (%s)", ro_what[op],
			       m.ret, strerror(m.err));
	}
	EXPECT_EQ(4, pt_read_file(MN("f"), buf, sizeof(buf)));
	EXPECT_STREQ("data", buf);
	memset(buf, 0, sizeof(buf));
	EXPECT_EQ(4, pread(kept, buf, sizeof(buf) - 1, 0))
		TH_LOG("read of a file opened before: %s", strerror(errno));
	EXPECT_STREQ("data", buf);
	close(kept);

	/* Read-write again */
	ASSERT_EQ(0, remount_lower(false)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, pt_write_file(MN("f"), "again", 0644));
	EXPECT_EQ(0, pt_write_file(MN("g"), "new", 0644));
	EXPECT_EQ(0, mkdir(MN("d"), 0755));
	EXPECT_EQ(5, pt_read_file(LO("f"), buf, sizeof(buf)));
	EXPECT_STREQ("again", buf);
	EXPECT_EQ(3, pt_read_file(LO("g"), buf, sizeof(buf)));
	EXPECT_STREQ("new", buf);

	/* Nothing of the mount is left on the lower, which is clean */
	ASSERT_EQ(0, umount2(PT_MNT, 0)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, umount2(PT_LOWER, 0)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, run_cmd(NULL, 0, "e2fsck -fn %s",
			     self->env.lower.img));
}

/* 2. The lower lazily unmounted under the mount */

PT_FIXTURE(pt, pt_fault_lower, LOWER_MB)

/*
 * Once the mount is gone and the ext4 lower with it: nothing claims the
 * loop device, which detaches at once; the image is clean and has what
 * was written through the mount after the lower was detached.
 */
static void expect_image(struct __test_metadata *_metadata,
			 struct pt_env *e)
{
	struct pt_lower *l = &e->lower;
	char out[64];
	int fd;

	fd = open(l->dev, O_RDONLY | O_EXCL | O_CLOEXEC);
	EXPECT_LE(0, fd)
		TH_LOG("%s still claimed (mounted?): %s", l->dev,
		       strerror(errno));
	if (fd >= 0)
		close(fd);
	EXPECT_EQ(0, ioctl(l->loopfd, LOOP_CLR_FD)) TH_LOG("LOOP_CLR_FD");
	close(l->loopfd);
	l->loopfd = -1;
	EXPECT_EQ(ENXIO, loop_status_err(l->dev))
		TH_LOG("%s still attached after its last close", l->dev);

	EXPECT_EQ(0, run_cmd(NULL, 0, "e2fsck -fn %s", l->img));
	EXPECT_EQ(0, run_cmd(out, sizeof(out), "debugfs -R 'cat /new' %s",
			     l->img));
	EXPECT_STREQ("created", out);
	EXPECT_EQ(0, run_cmd(out, sizeof(out), "debugfs -R 'cat /f' %s",
			     l->img));
	EXPECT_STREQ("DATA", out);
}

TEST_F(pt, lower_lazily_unmounted)
{
	char before[256], names[256], buf[16];
	struct stat st;
	int fd, in, n;

	ASSERT_EQ(0, pt_write_file(LO("f"), "data", 0644));
	n = pt_dir_names(LO(""), before, sizeof(before));
	ASSERT_LE(1, n);
	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	ASSERT_LE(0, in);
	/* Any mask: IN_UNMOUNT comes all the same */
	ASSERT_LE(0, inotify_add_watch(in, PT_LOWER, IN_DELETE_SELF));
	fd = open(MN("f"), O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);

	ASSERT_EQ(0, umount2(PT_LOWER, MNT_DETACH)) TH_LOG("%s",
							   strerror(errno));
	EXPECT_EQ(-1, access(LO("f"), F_OK)) TH_LOG("the lower is still there");
	EXPECT_FALSE(got_unmount(in))
		TH_LOG("the lower went with the mount still on it");

	/* The open file, stat and readdir of the root, a new file */
	memset(buf, 0, sizeof(buf));
	EXPECT_EQ(4, pread(fd, buf, 4, 0)) TH_LOG("%s", strerror(errno));
	EXPECT_STREQ("data", buf);
	EXPECT_EQ(4, pwrite(fd, "DATA", 4, 0)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, fsync(fd)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, stat(PT_MNT, &st)) TH_LOG("%s", strerror(errno));
	EXPECT_TRUE(S_ISDIR(st.st_mode));
	EXPECT_EQ(n, pt_dir_names(PT_MNT, names, sizeof(names)));
	EXPECT_STREQ(before, names);
	EXPECT_EQ(0, pt_write_file(MN("new"), "created", 0644))
		TH_LOG("%s", strerror(errno));
	EXPECT_EQ(7, pt_read_file(MN("new"), buf, sizeof(buf)));
	EXPECT_STREQ("created", buf);
	EXPECT_EQ(n + 1, pt_dir_names(PT_MNT, names, sizeof(names)))
		TH_LOG("after creating \"new\": %s", names);
	EXPECT_EQ(4, pt_read_file(MN("f"), buf, sizeof(buf)));
	EXPECT_STREQ("DATA", buf);
	EXPECT_EQ(0, close(fd));
	EXPECT_FALSE(got_unmount(in))
		TH_LOG("the lower went with the mount still on it");

	/* The lower's superblock goes with the mount */
	ASSERT_EQ(0, umount2(PT_MNT, 0)) TH_LOG("%s", strerror(errno));
	EXPECT_TRUE(got_unmount(in))
		TH_LOG("no IN_UNMOUNT: the lower outlives the mount");
	close(in);
	if (variant->kind == PT_EXT4)
		expect_image(_metadata, &self->env);
}

/* 3. The root of the mount removed on the lower */

FIXTURE(tmpfs_sub) {
	struct pt_env env;
};

FIXTURE_SETUP(tmpfs_sub)
{
	struct statfs sfs;

	fault_lower(_metadata, &self->env, PT_TMPFS, LOWER_MB, NULL, NULL);
	ASSERT_EQ(0, mkdir(LO("sub"), 0755));
	ASSERT_EQ(0, pt_mount_or_bind(LO("sub"), PT_MNT))
		TH_LOG("mount of sub: %s", strerror(errno));
	ASSERT_EQ(0, statfs(PT_MNT, &sfs));
	if (!pt_fake_mode())
		ASSERT_EQ(FUSE_SUPER_MAGIC, sfs.f_type);
}

FIXTURE_TEARDOWN(tmpfs_sub)
{
	pt_env_teardown(_metadata, &self->env);
}

/* One getdents64() of @fd: the names but "." and ".." in @names */
static struct res list_dir(int fd, char *names, size_t len)
{
	long long buf[512];	/* aligned for the entries */
	const struct dirent64 *d;
	size_t used = 0;
	struct res r;
	long off;

	names[0] = '\0';
	r = rs(syscall(SYS_getdents64, fd, buf, sizeof(buf)));
	for (off = 0; off < r.ret; off += d->d_reclen) {
		d = (const void *)((char *)buf + off);
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (used < len)
			used += snprintf(names + used, len - used, "%s ",
					 d->d_name);
	}
	if (r.ret > 0)
		r.ret = 0;
	return r;
}

TEST_F(tmpfs_sub, lower_root_removed)
{
	char mnames[256], lnames[256];
	int opath, ldir, mdir;
	struct stat sm, sl;

	opath = open(LO("sub"), O_PATH | O_CLOEXEC);
	ASSERT_LE(0, opath);
	ldir = open(LO("sub"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, ldir);
	ASSERT_EQ(0, rmdir(LO("sub")))
		TH_LOG("rmdir of the mount's root: %s", strerror(errno));

	/* As the removed directory through an fd of it */
	ASSERT_EQ(0, stat(PT_MNT, &sm)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, fstat(opath, &sl));
	EXPECT_EQ(0, (long)sl.st_nlink);
	EXPECT_EQ(0, (long)sm.st_nlink);
	EXPECT_EQ(sl.st_ino, sm.st_ino);
	EXPECT_EQ(sl.st_mode, sm.st_mode);
	SAME("stat of a name", rs(stat(MN("x"), &sm)),
	     rs(fstatat(opath, "x", &sl, 0)));
	SAME("create", rfd(open(MN("f"), O_CREAT | O_WRONLY | O_CLOEXEC,
				0644)),
	     rfd(openat(opath, "f", O_CREAT | O_WRONLY | O_CLOEXEC, 0644)));
	EXPECT_EQ(-1, access(MN("f"), F_OK));
	SAME("mkdir", rs(mkdir(MN("d"), 0755)), rs(mkdirat(opath, "d", 0755)));
	EXPECT_EQ(-1, access(MN("d"), F_OK));

	mdir = open(PT_MNT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, mdir) TH_LOG("open of the root: %s", strerror(errno));
	SAME("getdents64", list_dir(mdir, mnames, sizeof(mnames)),
	     list_dir(ldir, lnames, sizeof(lnames)));
	EXPECT_STREQ("", mnames);
	EXPECT_STREQ(lnames, mnames);
	close(mdir);
	close(ldir);
	close(opath);

	/* The taint flags are checked by the teardown */
	EXPECT_EQ(0, umount2(PT_MNT, 0)) TH_LOG("%s", strerror(errno));
}

/* 4. A block quota on the lower */

FIXTURE(ext4_quota) {
	struct pt_env env;
};

FIXTURE_SETUP(ext4_quota)
{
	fault_lower(_metadata, &self->env, PT_EXT4, LOWER_MB, QUOTA_MKFS,
		    QUOTA_OPTS);
	pt_make_pub(_metadata);
	pt_env_mount(_metadata);
}

FIXTURE_TEARDOWN(ext4_quota)
{
	pt_env_teardown(_metadata, &self->env);
}

TEST_F(ext4_quota, edquot_lower)
{
	struct if_dqblk dq = {
		.dqb_bhardlimit = QUOTA_KIB,
		.dqb_bsoftlimit = QUOTA_KIB,
		.dqb_valid = QIF_BLIMITS,
	};
	const char *dev = self->env.lower.dev;
	struct fill *f;
	struct stat st;

	ASSERT_EQ(0, quotactl(QCMD(Q_SETQUOTA, USRQUOTA), dev, NOBODY,
			      (caddr_t)&dq))
		TH_LOG("Q_SETQUOTA on %s: %s", dev, strerror(errno));

	/* The control: on the lower */
	f = fill_new(LO("pub/direct"), QUOTA_CHUNK, QUOTA_MAX);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, fill_as_nobody(f));
	ASSERT_EQ(EDQUOT, f->err) TH_LOG("%s", fill_str(f));
	ASSERT_GT(QUOTA_BOUND, f->bytes) TH_LOG("%s", fill_str(f));
	ASSERT_EQ(0, unlink(LO("pub/direct")));

	/* Through the mount */
	snprintf(f->path, sizeof(f->path), "%s", MN("pub/via_mount"));
	ASSERT_EQ(0, fill_as_nobody(f));
	EXPECT_EQ(EDQUOT, f->err) TH_LOG("%s", fill_str(f));
	EXPECT_GT(QUOTA_BOUND, f->bytes) TH_LOG("%s", fill_str(f));
	ASSERT_EQ(0, stat(LO("pub/via_mount"), &st));
	EXPECT_EQ(NOBODY, (int)st.st_uid);

	/* What uid 65534 holds on the lower, charged to it */
	ASSERT_EQ(0, quotactl(QCMD(Q_GETQUOTA, USRQUOTA), dev, NOBODY,
			      (caddr_t)&dq))
		TH_LOG("Q_GETQUOTA on %s: %s", dev, strerror(errno));
	EXPECT_GE(QUOTA_KIB * KIB, (long long)dq.dqb_curspace)
		TH_LOG("uid %d uses %lld KiB, over its limit of %d KiB",
		       NOBODY, (long long)dq.dqb_curspace / KIB, QUOTA_KIB);
	fill_free(f);
}

/* 5. The blocks ext4 reserves for root */

FIXTURE(ext4_reserved) {
	struct pt_env env;
};

FIXTURE_SETUP(ext4_reserved)
{
	fault_lower(_metadata, &self->env, PT_EXT4, LOWER_MB, RESERVE_MKFS,
		    RESERVE_OPTS);
	pt_make_pub(_metadata);
	pt_env_mount(_metadata);
}

FIXTURE_TEARDOWN(ext4_reserved)
{
	pt_env_teardown(_metadata, &self->env);
}

/* Root writes 1 MiB more to @path: 0 if it could */
static int root_writes_more(struct __test_metadata *_metadata,
			    const char *path)
{
	struct fill *f = fill_new(path, MIB, MIB);
	int ret;

	if (!f)
		return -1;
	fill_file(f);
	ret = f->err || f->bytes != MIB;
	if (ret)
		TH_LOG("as root, %s", fill_str(f));
	fill_free(f);
	return ret;
}

/*
 * Root preallocates @path to leave @left bytes to the others, so the
 * writers below have less to write under TCG.
 */
static int leave_only(const char *path, long long left)
{
	struct statfs sfs;
	long long size;
	int fd, ret;

	if (statfs(PT_LOWER, &sfs))
		return -1;
	size = (long long)sfs.f_bavail * sfs.f_bsize - left;
	if (size <= 0)
		return 0;
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	ret = fallocate(fd, 0, 0, size);
	if (!ret)
		ret = fsync(fd);
	close(fd);
	return ret;
}

TEST_F(ext4_reserved, reserved_blocks_lower)
{
	long long direct;
	struct fill *f;
	int lfd;

	ASSERT_EQ(0, leave_only(LO("ballast"), RESERVE_LEFT))
		TH_LOG("fallocate: %s", strerror(errno));

	/* The control: on the lower, uid 65534 stops short of the reserve */
	f = fill_new(LO("pub/direct"), MIB, LOWER_MB * MIB);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, fill_as_nobody(f));
	ASSERT_EQ(ENOSPC, f->err) TH_LOG("%s", fill_str(f));
	direct = f->bytes;
	ASSERT_LE(MIB, direct) TH_LOG("%s", fill_str(f));
	ASSERT_EQ(0, root_writes_more(_metadata, LO("root_direct")));
	ASSERT_EQ(0, unlink(LO("root_direct")));
	ASSERT_EQ(0, unlink(LO("pub/direct")));
	lfd = open(LO(""), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, lfd);
	EXPECT_EQ(0, syncfs(lfd));
	close(lfd);

	/* Through the mount: the same, and root still has the reserve */
	snprintf(f->path, sizeof(f->path), "%s", MN("pub/via_mount"));
	ASSERT_EQ(0, fill_as_nobody(f));
	EXPECT_EQ(ENOSPC, f->err) TH_LOG("%s", fill_str(f));
	EXPECT_GE(direct + MIB, f->bytes)
		TH_LOG("%lld KiB through the mount, %lld on the lower",
		       f->bytes / KIB, direct / KIB);
	EXPECT_EQ(0, root_writes_more(_metadata, MN("root_more")))
		TH_LOG("root found no reserve left through the mount");
	fill_free(f);
}

int main(int argc, char **argv)
{
	pt_ext4_template(LOWER_MB);
	return test_harness_run(argc, argv);
}
