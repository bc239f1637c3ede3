// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE-BPF no-daemon passthrough: mount options, names, attributes,
 * credentials, xattrs and ACLs, file attributes.
 *
 * The opt_* tests check the root_dir= and no_daemon mount options, with
 * mount(2) and with fsopen()/fsconfig(), and the messages the latter leave
 * in the fs context log.
 *
 * The others mount a passthrough of a scratch lower filesystem (tmpfs or
 * ext4: the fixture variants) and compare the mount with the lower: the
 * attributes of the same inode seen both ways, or the results (return
 * value, errno, resulting tree) of the same operation done through the
 * mount on one directory of the lower and directly on a twin directory.
 * Permission checks are those of the caller (root, or the unprivileged
 * uid 65534) and never the mounter's.
 *
 * Each test runs in a mount namespace of its own with a tmpfs on /tmp, so
 * nothing it mounts outlives it.  PT_FAKE=1 in the environment bind mounts
 * the lower instead of mounting FUSE-BPF: a check of the tests themselves
 * on a kernel without FUSE-BPF, never set in real runs.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/posix_acl.h>
#include <linux/posix_acl_xattr.h>

#include "passthrough.h"

#ifndef __NR_move_mount
#define __NR_move_mount	429
#endif
#ifndef __NR_fsopen
#define __NR_fsopen	430
#endif
#ifndef __NR_fsconfig
#define __NR_fsconfig	431
#endif
#ifndef __NR_fsmount
#define __NR_fsmount	432
#endif
#ifndef AT_HANDLE_FID
#define AT_HANDLE_FID	0x200
#endif

#define SCRATCH		PT_SCRATCH
#define LOWER		PT_LOWER
#define MNT		PT_MNT
#define LOWER_MB	32
#define NOBODY		65534
#define MAXLOG		4096

/* ------------------------------------------------------------------ */
/* Small helpers                                                        */
/* ------------------------------------------------------------------ */

/* Same for calls returning an fd: only success or failure compares */
static struct res rfd(long fd)
{
	struct res r = { fd < 0 ? -1 : 0, fd < 0 ? errno : 0 };

	if (fd >= 0)
		close(fd);
	return r;
}

/*
 * The same, in a child (pt_as_user()) where the harness's EXPECT cannot
 * report: print what differs, return 1 for a mismatch.
 */
static int cdiff(const char *what, struct res m, struct res l)
{
	if (m.ret == l.ret && m.err == l.err)
		return 0;
	fprintf(stderr, "# [uid %d] %s: mount %ld (%s), lower %ld (%s)\n",
		(int)getuid(), what, m.ret, strerror(m.err), l.ret,
		strerror(l.err));
	return 1;
}

/* A condition that must hold, in a child; returns 1 when it does not */
static int ccheck(bool ok, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return 0;
	fprintf(stderr, "# [uid %d] ", (int)getuid());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

/* The same file contents at both paths (both may be missing) */
static bool same_data(const char *a, const char *b)
{
	char da[4096], db[4096];
	ssize_t na = pt_read_file(a, da, sizeof(da));
	ssize_t nb = pt_read_file(b, db, sizeof(db));

	return na == nb && (na < 0 || !memcmp(da, db, na));
}

/*
 * Attribute sets are compared as tables of named values, so that a
 * mismatch says which field differs.
 */
struct field {
	const char *name;
	long long m, l;
};

/* Field @f of the attribute sets "m" (the mount) and "l" (the lower) */
#define FIELD(f) { #f, (long long)m->f, (long long)l->f }

static int fields_diff(const struct field *f, int n, char *why, size_t len)
{
	int i;

	for (i = 0; i < n; i++) {
		if (f[i].m == f[i].l)
			continue;
		snprintf(why, len, "%s: mount %lld (%#llo), lower %lld (%#llo)",
			 f[i].name, f[i].m, f[i].m, f[i].l, f[i].l);
		return 1;
	}
	return 0;
}

/* What an inode seen through the mount must share with the lower one */
static int stat_diff(const struct stat *m, const struct stat *l,
		     char *why, size_t len)
{
	const struct field f[] = {
		FIELD(st_ino), FIELD(st_mode), FIELD(st_nlink),
		FIELD(st_uid), FIELD(st_gid), FIELD(st_rdev),
		FIELD(st_size), FIELD(st_blocks),
		FIELD(st_atim.tv_sec), FIELD(st_atim.tv_nsec),
		FIELD(st_mtim.tv_sec), FIELD(st_mtim.tv_nsec),
		FIELD(st_ctim.tv_sec), FIELD(st_ctim.tv_nsec),
	};

	return fields_diff(f, ARRAY_SIZE(f), why, len);
}

/* lstat() @rel through the mount and on the lower: the same inode */
static int mirror_diff(const char *rel, char *why, size_t len)
{
	struct stat m, l;

	if (lstat(MN(rel), &m)) {
		snprintf(why, len, "lstat mount/%s: %s", rel, strerror(errno));
		return 1;
	}
	if (lstat(LO(rel), &l)) {
		snprintf(why, len, "lstat lower/%s: %s", rel, strerror(errno));
		return 1;
	}
	if (!pt_fake_mode() && m.st_dev == l.st_dev) {
		snprintf(why, len, "%s: st_dev of the lower", rel);
		return 1;
	}
	return stat_diff(&m, &l, why, len);
}

#define EXPECT_MIRROR(rel) do { \
	char __why[256] = ""; \
	EXPECT_EQ(0, mirror_diff(rel, __why, sizeof(__why))) \
		TH_LOG("%s", __why); \
} while (0)

/*
 * Two trees of the lower made by the same operations, one through the
 * mount and one directly: names, types, modes, owners, sizes, link
 * counts, device numbers, symlink targets and file contents agree.
 */
static int tree_diff(const char *a, const char *b, char *why, size_t len)
{
	struct dirent **la = NULL, **lb = NULL;
	int na, nb, i, ret = 0;

	na = scandir(a, &la, NULL, alphasort);
	nb = scandir(b, &lb, NULL, alphasort);
	if (na < 0 || nb < 0) {
		snprintf(why, len, "scandir %s: %d, %s: %d", a, na, b, nb);
		ret = 1;
		goto out;
	}
	if (na != nb) {
		snprintf(why, len, "%s has %d entries, %s %d", a, na, b, nb);
		ret = 1;
		goto out;
	}
	for (i = 0; i < na && !ret; i++) {
		char pa[PATH_MAX], pb[PATH_MAX], ta[256], tb[256];
		struct stat sa, sb;

		if (strcmp(la[i]->d_name, lb[i]->d_name)) {
			snprintf(why, len, "%s/%s vs %s/%s", a, la[i]->d_name,
				 b, lb[i]->d_name);
			ret = 1;
			break;
		}
		if (!strcmp(la[i]->d_name, ".") || !strcmp(la[i]->d_name, ".."))
			continue;
		snprintf(pa, sizeof(pa), "%s/%s", a, la[i]->d_name);
		snprintf(pb, sizeof(pb), "%s/%s", b, lb[i]->d_name);
		if (lstat(pa, &sa) || lstat(pb, &sb)) {
			snprintf(why, len, "lstat %s: %s", pa, strerror(errno));
			ret = 1;
			break;
		}
		{
			const struct field f[] = {
				{ "mode", sa.st_mode, sb.st_mode },
				{ "uid", sa.st_uid, sb.st_uid },
				{ "gid", sa.st_gid, sb.st_gid },
				{ "nlink", sa.st_nlink, sb.st_nlink },
				{ "rdev", sa.st_rdev, sb.st_rdev },
				{ "size", S_ISDIR(sa.st_mode) ? 0 : sa.st_size,
					  S_ISDIR(sb.st_mode) ? 0 : sb.st_size },
			};
			char w[200];

			if (fields_diff(f, ARRAY_SIZE(f), w, sizeof(w))) {
				snprintf(why, len, "%s: %s", pa, w);
				ret = 1;
				break;
			}
		}
		if (S_ISLNK(sa.st_mode)) {
			ssize_t x = readlink(pa, ta, sizeof(ta) - 1);
			ssize_t y = readlink(pb, tb, sizeof(tb) - 1);

			if (x != y || x < 0 || memcmp(ta, tb, x)) {
				snprintf(why, len, "%s: symlink target", pa);
				ret = 1;
			}
		} else if (S_ISREG(sa.st_mode) && !same_data(pa, pb)) {
			snprintf(why, len, "%s: contents", pa);
			ret = 1;
		} else if (S_ISDIR(sa.st_mode)) {
			ret = tree_diff(pa, pb, why, len);
		}
	}
out:
	for (i = 0; i < na; i++)
		free(la[i]);
	for (i = 0; i < nb; i++)
		free(lb[i]);
	free(la);
	free(lb);
	return ret;
}

#define EXPECT_TREES_SAME(a, b) do { \
	char __why[PATH_MAX + 256] = ""; \
	EXPECT_EQ(0, tree_diff(a, b, __why, sizeof(__why))) \
		TH_LOG("%s", __why); \
} while (0)

/* ------------------------------------------------------------------ */
/* The new mount API                                                    */
/* ------------------------------------------------------------------ */

static int sys_fsopen(const char *fs, unsigned int flags)
{
	return syscall(__NR_fsopen, fs, flags);
}

static int sys_fsconfig(int fd, unsigned int cmd, const char *key,
			const void *value, int aux)
{
	return syscall(__NR_fsconfig, fd, cmd, key, value, aux);
}

static int sys_fsmount(int fd, unsigned int flags, unsigned int attr)
{
	return syscall(__NR_fsmount, fd, flags, attr);
}

static int sys_move_mount(int from_dfd, const char *from, int to_dfd,
			  const char *to, unsigned int flags)
{
	return syscall(__NR_move_mount, from_dfd, from, to_dfd, to, flags);
}

/* All the messages left in the log of fs context @fd, one a line */
static void fs_log(int fd, char *buf, size_t len)
{
	size_t used = 0;
	ssize_t n;

	buf[0] = '\0';
	while (used + 1 < len) {
		n = read(fd, buf + used, len - used - 1);
		if (n <= 0)
			break;
		used += n;
		buf[used++] = '\n';
		buf[used] = '\0';
	}
}

/* One fsconfig() call */
struct fsc_step {
	unsigned int cmd;
	const char *key;
	const char *value;
	int aux;
};

/*
 * fsopen("fuse"), then @steps in order until one fails.  Returns the
 * errno of the failing step (0 if none did), its index in *@at, and the
 * context's log in @log.  With @target, a context that was created is
 * also mounted there.
 */
static int fsc_run(const struct fsc_step *steps, int n, int *at,
		   const char *target, char *log, size_t len)
{
	int fd, i, mfd, err = 0;

	*at = -1;
	log[0] = '\0';
	fd = sys_fsopen("fuse", FSOPEN_CLOEXEC);
	if (fd < 0)
		return errno;
	for (i = 0; i < n; i++) {
		if (sys_fsconfig(fd, steps[i].cmd, steps[i].key,
				 steps[i].value, steps[i].aux)) {
			err = errno;
			*at = i;
			break;
		}
	}
	if (!err && target) {
		mfd = sys_fsmount(fd, FSMOUNT_CLOEXEC, 0);
		if (mfd < 0 || sys_move_mount(mfd, "", AT_FDCWD, target,
					      MOVE_MOUNT_F_EMPTY_PATH)) {
			err = errno;
			*at = n;
		}
		if (mfd >= 0)
			close(mfd);
	}
	fs_log(fd, log, len);
	close(fd);
	return err;
}

/* mount(2) of FUSE at MNT with @opts: 0 (and unmounted again) or errno */
static int mount_err(const char *opts)
{
	if (mount("fuse-bpf", MNT, "fuse", 0, opts))
		return errno;
	umount2(MNT, MNT_DETACH);
	return 0;
}

/* ------------------------------------------------------------------ */
/* 1. Mount options                                                     */
/* ------------------------------------------------------------------ */

/* A private tmpfs at /tmp with LOWER (a plain directory on it) and MNT */
static int opt_env(void)
{
	umask(022);
	if (pt_private_mounts() ||
	    mount("tmpfs", SCRATCH, "tmpfs", 0, "mode=1777") ||
	    mkdir(LOWER, 0755) || mkdir(MNT, 0755))
		return -1;
	return pt_write_file(LO("f"), "lower data", 0644);
}

#define OPT_SETUP() do { \
	if (pt_fake_mode()) \
		SKIP(return, "PT_FAKE: mount options need FUSE-BPF"); \
	ASSERT_EQ(0, opt_env()) TH_LOG("setup: %s", strerror(errno)); \
} while (0)

/* An fsconfig() failure: errno @err at step @at, @msg in the log */
static void fsc_fail(struct __test_metadata *_metadata,
		     const struct fsc_step *steps, int n, int err, int at,
		     const char *msg)
{
	char log[MAXLOG];
	int got_at, got;

	got = fsc_run(steps, n, &got_at, NULL, log, sizeof(log));
	EXPECT_EQ(err, got) TH_LOG("errno %s, log: %s", strerror(got), log);
	EXPECT_EQ(at, got_at);
	EXPECT_NE(NULL, strstr(log, msg))
		TH_LOG("log lacks \"%s\": %s", msg, log);
}

#define EXPECT_FSC_FAIL(steps, err, at, msg) \
	fsc_fail(_metadata, steps, ARRAY_SIZE(steps), err, at, msg)

/*
 * Mounting @root (an fd of it) must fail with errno @err both ways:
 * mount(2) with the options @fmt, where %1$d is the fd, and fsconfig()
 * @steps, where an aux of -1 is the fd, at step @at with @msg in the log.
 */
static void opt_fail(struct __test_metadata *_metadata, const char *root,
		     struct fsc_step *steps, int n, const char *fmt, int err,
		     int at, const char *msg)
{
	char opts[64];
	int fd, i;

	fd = open(root, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", root, strerror(errno));
	for (i = 0; i < n; i++) {
		if (steps[i].aux == -1)
			steps[i].aux = fd;
	}
	snprintf(opts, sizeof(opts), fmt, fd);
	EXPECT_EQ(err, mount_err(opts)) TH_LOG("%s", opts);
	fsc_fail(_metadata, steps, n, err, at, msg);
	close(fd);
}

#define EXPECT_OPT_FAIL(root, steps, fmt, err, at, msg) \
	opt_fail(_metadata, root, steps, ARRAY_SIZE(steps), fmt, err, at, msg)

/* The root_dir fd may be closed (and its number reused) after mounting */
TEST(opt_root_dir_closed_after_mount)
{
	struct stat m, l;
	char opts[64], buf[64];
	int fd, other;

	OPT_SETUP();
	fd = open(LOWER, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	snprintf(opts, sizeof(opts), "root_dir=%d,no_daemon", fd);
	ASSERT_EQ(0, mount("fuse-bpf", MNT, "fuse", 0, opts))
		TH_LOG("mount: %s", strerror(errno));
	ASSERT_EQ(0, close(fd));
	/* The number now names "/": the mount must not look it up again */
	other = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, other);
	ASSERT_EQ(fd, dup2(other, fd));

	ASSERT_EQ(0, stat(MNT, &m));
	ASSERT_EQ(0, stat(LOWER, &l));
	EXPECT_EQ(l.st_ino, m.st_ino);
	EXPECT_EQ(10, pt_read_file(MN("f"), buf, sizeof(buf)));
	EXPECT_STREQ("lower data", buf);
	EXPECT_EQ(0, pt_write_file(MN("new"), "via mount", 0600));
	EXPECT_EQ(9, pt_read_file(LO("new"), buf, sizeof(buf)));
	EXPECT_STREQ("via mount", buf);
	EXPECT_EQ(-1, access(MN("proc"), F_OK));
	close(other);
	close(fd);
	EXPECT_EQ(0, umount2(MNT, 0));
}

/* fsconfig(): root_dir as FSCONFIG_SET_FD and as a string, then fsmount() */
TEST(opt_fsconfig_root_dir)
{
	char log[MAXLOG], num[16], buf[64];
	struct fsc_step by_fd[] = {
		{ FSCONFIG_SET_FD, "root_dir", NULL, -1 },
		{ FSCONFIG_SET_FLAG, "no_daemon", NULL, 0 },
		{ FSCONFIG_CMD_CREATE, NULL, NULL, 0 },
	};
	const struct fsc_step by_str[] = {
		{ FSCONFIG_SET_STRING, "root_dir", num, 0 },
		{ FSCONFIG_SET_FLAG, "no_daemon", NULL, 0 },
		{ FSCONFIG_CMD_CREATE, NULL, NULL, 0 },
	};
	struct stat m, l;
	int fd, at, err;

	OPT_SETUP();
	fd = open(LOWER, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	by_fd[0].aux = fd;
	snprintf(num, sizeof(num), "%d", fd);
	err = fsc_run(by_fd, ARRAY_SIZE(by_fd), &at, MNT, log, sizeof(log));
	ASSERT_EQ(0, err)
		TH_LOG("step %d: %s; log: %s", at, strerror(err), log);
	ASSERT_EQ(0, mkdir(SCRATCH "/mnt2", 0755));
	err = fsc_run(by_str, ARRAY_SIZE(by_str), &at, SCRATCH "/mnt2", log,
		      sizeof(log));
	ASSERT_EQ(0, err)
		TH_LOG("step %d: %s; log: %s", at, strerror(err), log);
	close(fd);
	ASSERT_EQ(0, stat(MN("f"), &m));
	ASSERT_EQ(0, stat(LO("f"), &l));
	EXPECT_EQ(l.st_ino, m.st_ino);
	EXPECT_EQ(0, stat(SCRATCH "/mnt2/f", &m));
	EXPECT_EQ(l.st_ino, m.st_ino);
	EXPECT_EQ(0, pt_write_file(SCRATCH "/mnt2/g", "two", 0644));
	EXPECT_EQ(3, pt_read_file(MN("g"), buf, sizeof(buf)));
	EXPECT_EQ(3, pt_read_file(LO("g"), buf, sizeof(buf)));
}

/* An fd that is not open: EBADF */
TEST(opt_bad_fd)
{
	const struct fsc_step steps[] = {
		{ FSCONFIG_SET_STRING, "root_dir", "999", 0 },
	};

	OPT_SETUP();
	ASSERT_EQ(-1, fcntl(999, F_GETFD));
	EXPECT_EQ(EBADF, mount_err("root_dir=999,no_daemon"));
	EXPECT_FSC_FAIL(steps, EBADF, 0, "root_dir: invalid file descriptor");
}

/* A file that is not a directory: ENOTDIR */
TEST(opt_not_directory)
{
	struct fsc_step steps[] = {
		{ FSCONFIG_SET_FD, "root_dir", NULL, -1 },
	};

	OPT_SETUP();
	EXPECT_OPT_FAIL(LO("f"), steps, "root_dir=%1$d,no_daemon", ENOTDIR, 0,
			"root_dir: not a directory");
}

/* no_daemon alone: EINVAL when the context is created */
TEST(opt_no_daemon_needs_root_dir)
{
	const struct fsc_step steps[] = {
		{ FSCONFIG_SET_FLAG, "no_daemon", NULL, 0 },
		{ FSCONFIG_CMD_CREATE, NULL, NULL, 0 },
	};

	OPT_SETUP();
	EXPECT_EQ(EINVAL, mount_err("no_daemon"));
	EXPECT_FSC_FAIL(steps, EINVAL, 1, "no_daemon requires root_dir");
}

/* no_daemon with the fd= of a daemon: EINVAL */
TEST(opt_no_daemon_excludes_fd)
{
	char opts[64], num[16], dfd[16];
	const struct fsc_step steps[] = {
		{ FSCONFIG_SET_STRING, "fd", dfd, 0 },
		{ FSCONFIG_SET_STRING, "root_dir", num, 0 },
		{ FSCONFIG_SET_FLAG, "no_daemon", NULL, 0 },
		{ FSCONFIG_CMD_CREATE, NULL, NULL, 0 },
	};
	int fd, dev;

	OPT_SETUP();
	fd = open(LOWER, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	dev = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		dev = open("/dev/null", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	snprintf(num, sizeof(num), "%d", fd);
	snprintf(dfd, sizeof(dfd), "%d", dev);
	snprintf(opts, sizeof(opts), "fd=%d,root_dir=%d,no_daemon", dev, fd);
	EXPECT_EQ(EINVAL, mount_err(opts));
	EXPECT_FSC_FAIL(steps, EINVAL, 3, "no_daemon excludes fd");
	close(dev);
	close(fd);
}

/* root_dir given twice: EINVAL at the second */
TEST(opt_root_dir_twice)
{
	struct fsc_step steps[] = {
		{ FSCONFIG_SET_FD, "root_dir", NULL, -1 },
		{ FSCONFIG_SET_FD, "root_dir", NULL, -1 },
	};

	OPT_SETUP();
	EXPECT_OPT_FAIL(LOWER, steps, "root_dir=%1$d,root_dir=%1$d,no_daemon",
			EINVAL, 1, "root_dir specified twice");
}

/* no_daemon given twice: EINVAL at the second */
TEST(opt_no_daemon_twice)
{
	struct fsc_step steps[] = {
		{ FSCONFIG_SET_FD, "root_dir", NULL, -1 },
		{ FSCONFIG_SET_FLAG, "no_daemon", NULL, 0 },
		{ FSCONFIG_SET_FLAG, "no_daemon", NULL, 0 },
	};

	OPT_SETUP();
	EXPECT_OPT_FAIL(LOWER, steps, "root_dir=%1$d,no_daemon,no_daemon",
			EINVAL, 2, "no_daemon specified twice");
}

/* An option FUSE does not know: EINVAL from the VFS */
TEST(opt_unknown_option)
{
	struct fsc_step steps[] = {
		{ FSCONFIG_SET_FD, "root_dir", NULL, -1 },
		{ FSCONFIG_SET_FLAG, "no_daemon", NULL, 0 },
		{ FSCONFIG_SET_FLAG, "no_such_option", NULL, 0 },
	};

	OPT_SETUP();
	EXPECT_OPT_FAIL(LOWER, steps, "root_dir=%1$d,no_daemon,bogus=1",
			EINVAL, 2, "Unknown parameter");
}

/*
 * A FUSE-BPF mount is one level above its lower: tmpfs (0) -> m1 (1) ->
 * m2 (2) work, a mount over m2 would pass FILESYSTEM_MAX_STACK_DEPTH.
 */
TEST(opt_stack_depth)
{
	struct fsc_step steps[] = {
		{ FSCONFIG_SET_FD, "root_dir", NULL, -1 },
	};
	char buf[64];

	OPT_SETUP();
	ASSERT_EQ(0, pt_mount(LOWER, SCRATCH "/m1", NULL))
		TH_LOG("m1: %s", strerror(errno));
	ASSERT_EQ(0, pt_mount(SCRATCH "/m1", SCRATCH "/m2", NULL))
		TH_LOG("m2 over m1: %s", strerror(errno));
	EXPECT_EQ(10, pt_read_file(SCRATCH "/m2/f", buf, sizeof(buf)));
	EXPECT_EQ(0, pt_write_file(SCRATCH "/m2/g", "m2", 0644));
	EXPECT_EQ(2, pt_read_file(LO("g"), buf, sizeof(buf)));
	EXPECT_EQ(2, pt_read_file(SCRATCH "/m1/g", buf, sizeof(buf)));

	EXPECT_EQ(-1, pt_mount(SCRATCH "/m2", SCRATCH "/m3", NULL));
	EXPECT_EQ(ELOOP, errno);
	EXPECT_OPT_FAIL(SCRATCH "/m2", steps, "root_dir=%1$d,no_daemon", ELOOP,
			0, "root_dir: maximum fs stacking depth exceeded");
}

/*
 * In a user namespace of its own, root may mount FUSE with a daemon but
 * not no_daemon: that needs CAP_SYS_ADMIN in the initial namespace.
 * Exit status: 0 EPERM both ways, 1-3 a step failed otherwise.
 */
static int userns_child(int fd)
{
	char opts[64], log[MAXLOG];
	int at, err;
	const struct fsc_step steps[] = {
		{ FSCONFIG_SET_FD, "root_dir", NULL, fd },
		{ FSCONFIG_SET_FLAG, "no_daemon", NULL, 0 },
	};

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) ||
	    pt_write_str("/proc/self/setgroups", "deny") ||
	    pt_write_str("/proc/self/uid_map", "0 0 1") ||
	    pt_write_str("/proc/self/gid_map", "0 0 1")) {
		fprintf(stderr, "# userns setup: %s\n", strerror(errno));
		return 3;
	}
	snprintf(opts, sizeof(opts), "root_dir=%d,no_daemon,allow_other", fd);
	if (mount("fuse-bpf", MNT, "fuse", 0, opts) == 0 || errno != EPERM) {
		fprintf(stderr, "# mount(2) in a userns: %s\n",
			strerror(errno));
		return 1;
	}
	err = fsc_run(steps, ARRAY_SIZE(steps), &at, NULL, log, sizeof(log));
	if (err != EPERM || at != 1) {
		fprintf(stderr, "# fsconfig in a userns: step %d: %s; log: %s\n",
			at, strerror(err), log);
		return 2;
	}
	return 0;
}

TEST(opt_userns_eperm)
{
	int fd, status;
	pid_t pid;

	OPT_SETUP();
	fd = open(LOWER, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(userns_child(fd));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("status %#x", status);
	close(fd);
}

/* ------------------------------------------------------------------ */
/* The fixture: a lower of each kind, its passthrough mount             */
/* ------------------------------------------------------------------ */

/* "pub": where the unprivileged user may create things */
PT_FIXTURE(pt, pt_env_lower_pub, LOWER_MB)

/* Run @fn(@arg) as uid/gid 65534; its exit status counts the failures */
#define EXPECT_AS_NOBODY(fn, arg) do { \
	int __status = pt_as_user(NOBODY, fn, arg); \
	EXPECT_EQ(0, __status) \
		TH_LOG("%s as uid %d: see the lines above", #fn, NOBODY); \
} while (0)

/* ------------------------------------------------------------------ */
/* 2. lookup, getattr, statx                                            */
/* ------------------------------------------------------------------ */

static const struct timespec times_a[2] = {
	{ 1000000000, 123456789 },	/* atime */
	{ 1200000000, 987654321 },	/* mtime */
};

/*
 * On the lower: one node of each type, with owners, modes, sizes and
 * times that the mount cannot have made up.
 */
static int make_nodes(void)
{
	char big[5000];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	if (pt_write_file(LO("f"), big, 0640) || chown(LO("f"), 1234, 5678) ||
	    mkdir(LO("d"), 0705) || mkdir(LO("d/s"), 0755) ||
	    pt_write_file(LO("d/x"), "x", 0644) || chown(LO("d"), 2000, 2001) ||
	    symlink("f", LO("l")) || lchown(LO("l"), 3000, 3001) ||
	    mkfifo(LO("p"), 0620) || chown(LO("p"), 4000, 4001) ||
	    mknod(LO("c"), S_IFCHR | 0604, makedev(1, 3)))
		return -1;
	if (utimensat(AT_FDCWD, LO("f"), times_a, 0) ||
	    utimensat(AT_FDCWD, LO("d"), times_a, 0) ||
	    utimensat(AT_FDCWD, LO("l"), times_a, AT_SYMLINK_NOFOLLOW) ||
	    utimensat(AT_FDCWD, LO("p"), times_a, 0) ||
	    utimensat(AT_FDCWD, LO("c"), times_a, 0))
		return -1;
	return 0;
}

static const char * const nodes[] = { "", "f", "d", "d/s", "d/x", "l", "p",
				      "c" };

/* stat() and lstat() through the mount show the lower inode */
TEST_F(pt, attr_mirror)
{
	struct stat m, l;
	unsigned int i;

	ASSERT_EQ(0, make_nodes()) TH_LOG("%s", strerror(errno));
	for (i = 0; i < ARRAY_SIZE(nodes); i++)
		EXPECT_MIRROR(nodes[i]);

	/* Following the symlink through the mount gets the lower target */
	ASSERT_EQ(0, stat(MN("l"), &m));
	ASSERT_EQ(0, stat(LO("f"), &l));
	EXPECT_EQ(l.st_ino, m.st_ino);
	EXPECT_EQ(5000 - 1, m.st_size);
	EXPECT_EQ(S_IFLNK | 0777, (lstat(MN("l"), &m), m.st_mode));
	EXPECT_EQ(makedev(1, 3), (lstat(MN("c"), &m), m.st_rdev));
	/* The exact times set on the lower */
	EXPECT_EQ(times_a[1].tv_sec, (lstat(MN("d"), &m), m.st_mtim.tv_sec));
	EXPECT_EQ(times_a[1].tv_nsec, m.st_mtim.tv_nsec);
	EXPECT_EQ(times_a[0].tv_nsec, m.st_atim.tv_nsec);
	EXPECT_EQ(3, m.st_nlink);
	EXPECT_EQ(2000, m.st_uid);
	EXPECT_EQ(2001, m.st_gid);
	EXPECT_EQ(-1, lstat(MN("d/none"), &m));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, lstat(MN("f/none"), &m));
	EXPECT_EQ(ENOTDIR, errno);
}

static int statx_diff(const struct statx *m, const struct statx *l,
		      char *why, size_t len)
{
	const struct field f[] = {
		{ "basic mask", m->stx_mask & STATX_BASIC_STATS,
				l->stx_mask & STATX_BASIC_STATS },
		FIELD(stx_ino), FIELD(stx_mode), FIELD(stx_nlink),
		FIELD(stx_uid), FIELD(stx_gid), FIELD(stx_size),
		FIELD(stx_blocks),
		FIELD(stx_rdev_major), FIELD(stx_rdev_minor),
		FIELD(stx_atime.tv_sec), FIELD(stx_atime.tv_nsec),
		FIELD(stx_mtime.tv_sec), FIELD(stx_mtime.tv_nsec),
		FIELD(stx_ctime.tv_sec), FIELD(stx_ctime.tv_nsec),
	};
	const struct field b[] = {
		FIELD(stx_btime.tv_sec), FIELD(stx_btime.tv_nsec),
	};

	if (fields_diff(f, ARRAY_SIZE(f), why, len))
		return 1;
	/* A birth time is optional, but must be the lower's if given */
	if (m->stx_mask & l->stx_mask & STATX_BTIME)
		return fields_diff(b, ARRAY_SIZE(b), why, len);
	return 0;
}

/* statx(), with each sync flag, shows the lower inode too */
TEST_F(pt, statx_mirror)
{
	const int flags[] = { AT_STATX_SYNC_AS_STAT, AT_STATX_FORCE_SYNC,
			      AT_STATX_DONT_SYNC };
	struct statx m, l;
	unsigned int i, j;
	char why[256];

	ASSERT_EQ(0, make_nodes()) TH_LOG("%s", strerror(errno));
	for (i = 0; i < ARRAY_SIZE(nodes); i++) {
		for (j = 0; j < ARRAY_SIZE(flags); j++) {
			int fl = flags[j] | AT_SYMLINK_NOFOLLOW;
			unsigned int mask = STATX_BASIC_STATS | STATX_BTIME;

			ASSERT_EQ(0, statx(AT_FDCWD, MN(nodes[i]), fl, mask,
					   &m));
			ASSERT_EQ(0, statx(AT_FDCWD, LO(nodes[i]), fl, mask,
					   &l));
			EXPECT_EQ(0, statx_diff(&m, &l, why, sizeof(why)))
				TH_LOG("/%s, flags %#x: %s", nodes[i], fl, why);
			EXPECT_EQ(STATX_BASIC_STATS,
				  m.stx_mask & STATX_BASIC_STATS);
		}
	}
	/* Through an fd opened on the mount */
	i = open(MN("f"), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, (int)i);
	ASSERT_EQ(0, statx(i, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &m));
	ASSERT_EQ(0, statx(AT_FDCWD, LO("f"), 0, STATX_BASIC_STATS, &l));
	close(i);
	EXPECT_EQ(0, statx_diff(&m, &l, why, sizeof(why))) TH_LOG("%s", why);
}

/* ------------------------------------------------------------------ */
/* 3. Changes made on the lower directly                                */
/* ------------------------------------------------------------------ */

/* A name looked up in vain through the mount, then created on the lower */
TEST_F(pt, lower_create_after_negative)
{
	char buf[64];
	struct stat st;

	EXPECT_EQ(-1, stat(MN("x"), &st));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, open(MN("y"), O_RDONLY));
	EXPECT_EQ(-1, stat(MN("dd/z"), &st));
	EXPECT_EQ(-1, stat(MN("dd"), &st));

	ASSERT_EQ(0, pt_write_file(LO("x"), "fresh", 0644));
	ASSERT_EQ(0, pt_write_file(LO("y"), "why", 0600));
	ASSERT_EQ(0, mkdir(LO("dd"), 0755));
	ASSERT_EQ(0, pt_write_file(LO("dd/z"), "zed", 0644));

	EXPECT_MIRROR("x");
	EXPECT_EQ(5, pt_read_file(MN("x"), buf, sizeof(buf)));
	EXPECT_STREQ("fresh", buf);
	/* Not a stale negative entry: O_EXCL sees the new file */
	EXPECT_EQ(-1, open(MN("y"), O_CREAT | O_EXCL | O_WRONLY, 0644));
	EXPECT_EQ(EEXIST, errno);
	EXPECT_EQ(3, pt_read_file(MN("y"), buf, sizeof(buf)));
	EXPECT_MIRROR("dd");
	EXPECT_MIRROR("dd/z");
	EXPECT_EQ(3, pt_read_file(MN("dd/z"), buf, sizeof(buf)));
	EXPECT_STREQ("zed", buf);
}

/* Names known to the mount, then unlinked or renamed on the lower */
TEST_F(pt, lower_unlink_rename)
{
	struct stat sa, sb, st;
	char buf[64];
	int fd;

	ASSERT_EQ(0, pt_write_file(LO("a"), "aaa", 0644));
	ASSERT_EQ(0, pt_write_file(LO("b"), "bbbb", 0644));
	ASSERT_EQ(0, pt_write_file(LO("c"), "c", 0644));
	ASSERT_EQ(0, mkdir(LO("d1"), 0755));
	ASSERT_EQ(0, pt_write_file(LO("d1/f"), "in d1", 0644));
	ASSERT_EQ(0, stat(MN("a"), &sa));
	ASSERT_EQ(0, stat(MN("b"), &sb));
	ASSERT_EQ(0, stat(MN("c"), &st));
	ASSERT_EQ(0, stat(MN("d1/f"), &st));
	fd = open(MN("a"), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);

	/* unlink */
	ASSERT_EQ(0, unlink(LO("a")));
	EXPECT_EQ(-1, stat(MN("a"), &st));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, open(MN("a"), O_RDONLY));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(3, pread(fd, buf, sizeof(buf), 0));
	EXPECT_EQ(0, fstat(fd, &st));
	EXPECT_EQ(0, st.st_nlink);
	EXPECT_EQ(sa.st_ino, st.st_ino);
	close(fd);

	/* rename to a new name, then over an existing one */
	ASSERT_EQ(0, rename(LO("b"), LO("b2")));
	EXPECT_EQ(-1, stat(MN("b"), &st));
	EXPECT_EQ(0, stat(MN("b2"), &st));
	EXPECT_EQ(sb.st_ino, st.st_ino);
	ASSERT_EQ(0, rename(LO("b2"), LO("c")));
	EXPECT_EQ(0, stat(MN("c"), &st));
	EXPECT_EQ(sb.st_ino, st.st_ino);
	EXPECT_EQ(4, pt_read_file(MN("c"), buf, sizeof(buf)));
	EXPECT_STREQ("bbbb", buf);
	EXPECT_MIRROR("c");

	/* a directory renamed, and one replaced */
	ASSERT_EQ(0, rename(LO("d1"), LO("d2")));
	EXPECT_EQ(-1, stat(MN("d1/f"), &st));
	EXPECT_EQ(5, pt_read_file(MN("d2/f"), buf, sizeof(buf)));
	ASSERT_EQ(0, mkdir(LO("d1"), 0700));
	EXPECT_MIRROR("d1");
	EXPECT_EQ(-1, stat(MN("d1/f"), &st));

	/* a file replaced by a directory of the same name */
	ASSERT_EQ(0, unlink(LO("c")));
	ASSERT_EQ(0, mkdir(LO("c"), 0711));
	EXPECT_MIRROR("c");
	EXPECT_EQ(0, stat(MN("c"), &st));
	EXPECT_TRUE(S_ISDIR(st.st_mode));
}

/*
 * A name the mount knows, renamed on the lower to one that differs only
 * at its end: the last byte changed, one byte fewer, one more.  Names
 * short and long, around the word size and the dcache's inline limit
 * (a cached FUSE dentry is checked against its lower dentry's name).  A
 * name of one byte has no shorter one: it gets one more byte twice; one
 * of NAME_MAX bytes has no longer one: its first byte changes instead.
 */
TEST_F(pt, lower_rename_name_end)
{
	static const int lens[] = { 1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 38,
				    39, 40, 41, 64, 255 };
	char old[NAME_MAX + 2], new[NAME_MAX + 2];
	struct stat sl, st;
	unsigned int i, k;

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		for (k = 0; k < 3; k++) {
			int len = lens[i];

			memset(old, 'a' + i, len);
			old[len] = 0;
			memcpy(new, old, len + 1);
			if (k == 0)
				new[len - 1] = 'Z';
			else if (k == 1 && len > 1)
				new[len - 1] = 0;
			else if (len < NAME_MAX)
				strcat(new, "Z");
			else
				new[0] = 'Z';
			ASSERT_EQ(0, pt_write_file(LO(old), "x", 0644));
			ASSERT_EQ(0, stat(LO(old), &sl));
			/* Twice: the second stat is served from the dcache */
			ASSERT_EQ(0, stat(MN(old), &st));
			ASSERT_EQ(0, stat(MN(old), &st)) TH_LOG("len %d", len);
			ASSERT_EQ(0, rename(LO(old), LO(new)));
			EXPECT_EQ(-1, stat(MN(old), &st))
				TH_LOG("len %d case %u: old name still there",
				       len, k);
			EXPECT_EQ(ENOENT, errno);
			ASSERT_EQ(0, stat(MN(new), &st))
				TH_LOG("len %d case %u", len, k);
			EXPECT_EQ(sl.st_ino, st.st_ino);
			/* And back: the new name's dentry goes stale too */
			ASSERT_EQ(0, rename(LO(new), LO(old)));
			EXPECT_EQ(-1, stat(MN(new), &st))
				TH_LOG("len %d case %u: new name still there",
				       len, k);
			EXPECT_EQ(ENOENT, errno);
			EXPECT_EQ(0, stat(MN(old), &st));
			ASSERT_EQ(0, unlink(LO(old)));
		}
	}
}

/* Attributes changed on the lower are seen at once (no stale cache) */
TEST_F(pt, lower_setattr_seen)
{
	const struct timespec ts[2] = { { 12345, 6 }, { 23456, 7 } };
	struct stat st;
	int fd;

	ASSERT_EQ(0, pt_write_file(LO("f"), "0123456789", 0644));
	ASSERT_EQ(0, mkdir(LO("d"), 0755));
	fd = open(MN("f"), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_MIRROR("f");
	EXPECT_MIRROR("d");

	ASSERT_EQ(0, chmod(LO("f"), 0604));
	EXPECT_MIRROR("f");
	ASSERT_EQ(0, chown(LO("f"), 77, 88));
	EXPECT_MIRROR("f");
	ASSERT_EQ(0, truncate(LO("f"), 100000));
	EXPECT_MIRROR("f");
	EXPECT_EQ(0, fstat(fd, &st));
	EXPECT_EQ(100000, st.st_size);
	ASSERT_EQ(0, utimensat(AT_FDCWD, LO("f"), ts, 0));
	EXPECT_MIRROR("f");
	EXPECT_EQ(0, fstat(fd, &st));
	EXPECT_EQ(23456, st.st_mtim.tv_sec);
	EXPECT_EQ(7, st.st_mtim.tv_nsec);
	ASSERT_EQ(0, link(LO("f"), LO("f2")));
	EXPECT_MIRROR("f");
	EXPECT_MIRROR("f2");
	ASSERT_EQ(0, mkdir(LO("d/s"), 0755));
	EXPECT_MIRROR("d");
	ASSERT_EQ(0, chmod(LO("d"), 0700));
	EXPECT_MIRROR("d");
	close(fd);
}

/* ------------------------------------------------------------------ */
/* 4. setattr                                                           */
/* ------------------------------------------------------------------ */

/* Twin directories on the lower: "t" used through the mount, "u" not */
static int make_twins(void)
{
	return mkdir(LO("t"), 0755) || mkdir(LO("u"), 0755) ? -1 : 0;
}

#define T(rel) MN("t/" rel)
#define U(rel) LO("u/" rel)

/* What uid 65534 may not do to files it does not own, or give away */
static int setattr_nobody(void *arg)
{
	int bad = 0;

	/* "own": 65534's own file; "root": root's, mode 0666 */
	bad += cdiff("chown own file to root",
		     rs(chown(MN("pub/own"), 0, -1)),
		     rs(chown(LO("pub/own"), 0, -1)));
	bad += cdiff("chgrp own file to group 0",
		     rs(chown(MN("pub/own"), -1, 0)),
		     rs(chown(LO("pub/own"), -1, 0)));
	bad += cdiff("chown root's file",
		     rs(chown(MN("pub/root"), NOBODY, NOBODY)),
		     rs(chown(LO("pub/root"), NOBODY, NOBODY)));
	bad += cdiff("chmod root's file",
		     rs(chmod(MN("pub/root"), 0777)),
		     rs(chmod(LO("pub/root"), 0777)));
	bad += ccheck(chown(MN("pub/own"), 0, -1) == -1 && errno == EPERM,
		      "chown own file to root: %s", strerror(errno));
	bad += ccheck(chmod(MN("pub/root"), 0600) == -1 && errno == EPERM,
		      "chmod root's file: %s", strerror(errno));
	/* Allowed: to one's own ids, and chmod of one's own file */
	bad += cdiff("chown own file to self",
		     rs(chown(MN("pub/own"), NOBODY, NOBODY)),
		     rs(chown(LO("pub/own"), NOBODY, NOBODY)));
	bad += cdiff("chmod own file", rs(chmod(MN("pub/own"), 0640)),
		     rs(chmod(LO("pub/own"), 0640)));
	/* Not a member of group 0: S_ISGID is dropped by chmod */
	bad += cdiff("chmod own file g+s",
		     rs(chmod(MN("pub/own0"), 02770)),
		     rs(chmod(LO("pub/own0"), 02770)));
	return bad;
}

/*
 * chmod and chown: root and the owner may, others get EPERM; chown drops
 * the set-id bits the same way.
 */
TEST_F(pt, setattr_mode_owner)
{
	struct stat st;

	ASSERT_EQ(0, make_twins());
	ASSERT_EQ(0, pt_write_file(T("f"), "f", 0644));
	ASSERT_EQ(0, pt_write_file(U("f"), "f", 0644));
	ASSERT_EQ(0, mkdir(T("d"), 0755));
	ASSERT_EQ(0, mkdir(U("d"), 0755));

	SAME("chmod 0600", rs(chmod(T("f"), 0600)), rs(chmod(U("f"), 0600)));
	EXPECT_EQ(0, stat(LO("t/f"), &st));
	EXPECT_EQ(S_IFREG | 0600, st.st_mode);
	SAME("chmod 06755", rs(chmod(T("f"), 06755)),
	     rs(chmod(U("f"), 06755)));
	/* chown of a regular file drops S_ISUID, and S_ISGID with g+x */
	SAME("chown", rs(chown(T("f"), 1234, 5678)),
	     rs(chown(U("f"), 1234, 5678)));
	SAME("chmod dir 03775", rs(chmod(T("d"), 03775)),
	     rs(chmod(U("d"), 03775)));
	SAME("chown dir", rs(chown(T("d"), 99, 98)),
	     rs(chown(U("d"), 99, 98)));
	SAME("chown -1 gid", rs(chown(T("d"), -1, 97)),
	     rs(chown(U("d"), -1, 97)));
	SAME("chmod of a missing file", rs(chmod(T("none"), 0644)),
	     rs(chmod(U("none"), 0644)));
	EXPECT_TREES_SAME(LO("t"), LO("u"));
	EXPECT_EQ(0, stat(LO("t/f"), &st));
	EXPECT_EQ(1234, st.st_uid);
	EXPECT_EQ(5678, st.st_gid);
	EXPECT_EQ(0, st.st_mode & S_ISUID);
	EXPECT_EQ(0, stat(LO("t/d"), &st));
	EXPECT_EQ(99, st.st_uid);
	EXPECT_EQ(97, st.st_gid);
	EXPECT_MIRROR("t/f");
	EXPECT_MIRROR("t/d");

	/* As uid 65534 */
	ASSERT_EQ(0, pt_write_file(LO("pub/own"), "", 0600));
	ASSERT_EQ(0, chown(LO("pub/own"), NOBODY, NOBODY));
	ASSERT_EQ(0, pt_write_file(LO("pub/own0"), "", 0600));
	ASSERT_EQ(0, chown(LO("pub/own0"), NOBODY, 0));
	ASSERT_EQ(0, pt_write_file(LO("pub/root"), "", 0666));
	ASSERT_EQ(0, chmod(LO("pub/root"), 0666));
	EXPECT_AS_NOBODY(setattr_nobody, NULL);
	EXPECT_EQ(0, stat(LO("pub/own"), &st));
	EXPECT_EQ(NOBODY, st.st_uid);
	EXPECT_EQ(S_IFREG | 0640, st.st_mode);
	EXPECT_EQ(0, stat(LO("pub/own0"), &st));
	EXPECT_EQ(S_IFREG | 0770, st.st_mode);
	EXPECT_EQ(0, stat(LO("pub/root"), &st));
	EXPECT_EQ(0, st.st_uid);
	EXPECT_EQ(S_IFREG | 0666, st.st_mode);
}

/* truncate() and ftruncate(), growing and shrinking */
TEST_F(pt, setattr_size)
{
	char m[8192], l[8192];
	struct stat sm, sl;
	int fm, fl;

	ASSERT_EQ(0, make_twins());
	ASSERT_EQ(0, pt_write_file(T("f"), "0123456789", 0644));
	ASSERT_EQ(0, pt_write_file(U("f"), "0123456789", 0644));
	ASSERT_EQ(0, mkdir(T("d"), 0755));
	ASSERT_EQ(0, mkdir(U("d"), 0755));

	SAME("grow", rs(truncate(T("f"), 6000)), rs(truncate(U("f"), 6000)));
	EXPECT_EQ(0, stat(LO("t/f"), &sm));
	EXPECT_EQ(6000, sm.st_size);
	SAME("shrink", rs(truncate(T("f"), 4)), rs(truncate(U("f"), 4)));
	SAME("grow again", rs(truncate(T("f"), 5000)),
	     rs(truncate(U("f"), 5000)));
	SAME("negative", rs(truncate(T("f"), -1)), rs(truncate(U("f"), -1)));
	SAME("directory", rs(truncate(T("d"), 0)), rs(truncate(U("d"), 0)));
	SAME("missing", rs(truncate(T("none"), 0)),
	     rs(truncate(U("none"), 0)));

	fm = open(T("f"), O_RDWR | O_CLOEXEC);
	fl = open(U("f"), O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fm);
	ASSERT_LE(0, fl);
	SAME("ftruncate", rs(ftruncate(fm, 4097)), rs(ftruncate(fl, 4097)));
	EXPECT_EQ(0, fstat(fm, &sm));
	EXPECT_EQ(0, fstat(fl, &sl));
	EXPECT_EQ(4097, sm.st_size);
	EXPECT_EQ(sl.st_blocks, sm.st_blocks);
	memset(m, 1, sizeof(m));
	memset(l, 2, sizeof(l));
	SAME("read", rs(pread(fm, m, sizeof(m), 0)),
	     rs(pread(fl, l, sizeof(l), 0)));
	EXPECT_EQ(0, memcmp(m, l, 4097));
	EXPECT_EQ(0, memcmp(m, "0123\0\0", 6));
	close(fm);
	close(fl);
	fm = open(T("f"), O_RDONLY | O_CLOEXEC);
	fl = open(U("f"), O_RDONLY | O_CLOEXEC);
	SAME("ftruncate read-only fd", rs(ftruncate(fm, 1)),
	     rs(ftruncate(fl, 1)));
	close(fm);
	close(fl);
	SAME("O_TRUNC", rfd(open(T("f"), O_WRONLY | O_TRUNC)),
	     rfd(open(U("f"), O_WRONLY | O_TRUNC)));
	EXPECT_TREES_SAME(LO("t"), LO("u"));
	EXPECT_MIRROR("t/f");
}

/* utimensat() as uid 65534 on root's files: 0666 (may touch), 0644 */
static int times_nobody(void *arg)
{
	int bad = 0;

	bad += cdiff("touch a 0666 file",
		     rs(utimensat(AT_FDCWD, MN("w"), NULL, 0)),
		     rs(utimensat(AT_FDCWD, LO("w"), NULL, 0)));
	bad += cdiff("touch a 0644 file",
		     rs(utimensat(AT_FDCWD, MN("r"), NULL, 0)),
		     rs(utimensat(AT_FDCWD, LO("r"), NULL, 0)));
	bad += cdiff("set times of a 0666 file",
		     rs(utimensat(AT_FDCWD, MN("w"), times_a, 0)),
		     rs(utimensat(AT_FDCWD, LO("w"), times_a, 0)));
	bad += ccheck(utimensat(AT_FDCWD, MN("r"), NULL, 0) == -1 &&
		      errno == EACCES, "touch 0644: %s", strerror(errno));
	bad += ccheck(utimensat(AT_FDCWD, MN("w"), times_a, 0) == -1 &&
		      errno == EPERM, "set times 0666: %s", strerror(errno));
	return bad;
}

/* utimensat(): exact times, UTIME_NOW, UTIME_OMIT; as uid 65534 too */
TEST_F(pt, setattr_times)
{
	const struct timespec now[2] = { { 0, UTIME_NOW }, { 0, UTIME_NOW } };
	const struct timespec omit_a[2] = { { 0, UTIME_OMIT },
					    { 1500000000, 5 } };
	struct timespec before, after;
	struct stat m, l;

	ASSERT_EQ(0, pt_write_file(LO("f"), "f", 0644));
	ASSERT_EQ(0, symlink("f", LO("l")));

	ASSERT_EQ(0, utimensat(AT_FDCWD, MN("f"), times_a, 0));
	ASSERT_EQ(0, stat(LO("f"), &l));
	EXPECT_EQ(times_a[0].tv_sec, l.st_atim.tv_sec);
	EXPECT_EQ(times_a[0].tv_nsec, l.st_atim.tv_nsec);
	EXPECT_EQ(times_a[1].tv_sec, l.st_mtim.tv_sec);
	EXPECT_EQ(times_a[1].tv_nsec, l.st_mtim.tv_nsec);
	EXPECT_MIRROR("f");

	ASSERT_EQ(0, utimensat(AT_FDCWD, MN("f"), omit_a, 0));
	ASSERT_EQ(0, stat(LO("f"), &l));
	EXPECT_EQ(times_a[0].tv_sec, l.st_atim.tv_sec);
	EXPECT_EQ(1500000000, l.st_mtim.tv_sec);
	EXPECT_EQ(5, l.st_mtim.tv_nsec);

	clock_gettime(CLOCK_REALTIME_COARSE, &before);
	ASSERT_EQ(0, utimensat(AT_FDCWD, MN("f"), now, 0));
	clock_gettime(CLOCK_REALTIME, &after);
	ASSERT_EQ(0, stat(LO("f"), &l));
	EXPECT_LE(before.tv_sec, l.st_mtim.tv_sec);
	EXPECT_GE(after.tv_sec, l.st_mtim.tv_sec);
	EXPECT_LE(before.tv_sec, l.st_atim.tv_sec);
	EXPECT_MIRROR("f");
	ASSERT_EQ(0, utimensat(AT_FDCWD, MN("f"), NULL, 0));
	EXPECT_MIRROR("f");

	/* A symlink itself */
	ASSERT_EQ(0, utimensat(AT_FDCWD, MN("l"), times_a,
			       AT_SYMLINK_NOFOLLOW));
	ASSERT_EQ(0, lstat(LO("l"), &l));
	EXPECT_EQ(times_a[1].tv_sec, l.st_mtim.tv_sec);
	EXPECT_EQ(times_a[1].tv_nsec, l.st_mtim.tv_nsec);
	EXPECT_MIRROR("l");
	ASSERT_EQ(0, stat(LO("f"), &m));
	EXPECT_NE(times_a[1].tv_sec, m.st_mtim.tv_sec);

	/* As uid 65534, on root's files */
	ASSERT_EQ(0, pt_write_file(LO("w"), "w", 0666));
	ASSERT_EQ(0, chmod(LO("w"), 0666));
	ASSERT_EQ(0, pt_write_file(LO("r"), "r", 0644));
	ASSERT_EQ(0, utimensat(AT_FDCWD, LO("r"), times_a, 0));
	EXPECT_AS_NOBODY(times_nobody, NULL);
	ASSERT_EQ(0, stat(LO("r"), &l));
	EXPECT_EQ(times_a[1].tv_sec, l.st_mtim.tv_sec);
}

/* Paths of the write_kills_suid() children */
struct kill_paths {
	const char *m, *l;
	bool trunc;
};

/* Write one byte at the end, or truncate, as the caller */
static int write_one(const char *path, bool trunc)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -1;
	ret = trunc ? ftruncate(fd, 1) : (write(fd, "!", 1) == 1 ? 0 : -1);
	close(fd);
	return ret;
}

static int write_kills_suid(void *arg)
{
	const struct kill_paths *p = arg;

	return cdiff(p->trunc ? "truncate" : "write",
		     rs(write_one(p->m, p->trunc)),
		     rs(write_one(p->l, p->trunc)));
}

/*
 * Writing to (or truncating) a set-id file without CAP_FSETID drops
 * S_ISUID, and S_ISGID when group-executable, although the write itself
 * runs on the lower with the mounter's credentials.  Root keeps them.
 */
TEST_F(pt, setattr_suid_dropped_on_write)
{
	static const struct {
		const char *name;
		mode_t mode;
		uid_t owner;
		bool trunc;
	} c[] = {
		{ "u_suid", 06775, NOBODY, false },
		{ "u_sgid_nox", 02764, NOBODY, false },
		{ "u_trunc", 06775, NOBODY, true },
		{ "u_other", 06777, 0, false },
		{ "r_suid", 06775, 0, false },
		{ "r_trunc", 06777, 0, true },
	};
	char m[64], l[64];
	struct stat sm, sl;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		struct kill_paths p = { m, l, c[i].trunc };

		snprintf(m, sizeof(m), "pub/%s_m", c[i].name);
		snprintf(l, sizeof(l), "pub/%s_l", c[i].name);
		ASSERT_EQ(0, pt_write_file(LO(m), "data", 0600));
		ASSERT_EQ(0, pt_write_file(LO(l), "data", 0600));
		ASSERT_EQ(0, chown(LO(m), c[i].owner, c[i].owner));
		ASSERT_EQ(0, chown(LO(l), c[i].owner, c[i].owner));
		ASSERT_EQ(0, chmod(LO(m), c[i].mode));
		ASSERT_EQ(0, chmod(LO(l), c[i].mode));
		p.m = strdup(MN(m));
		p.l = strdup(LO(l));
		if (c[i].name[0] == 'u')
			EXPECT_AS_NOBODY(write_kills_suid, &p);
		else
			EXPECT_EQ(0, write_kills_suid(&p));
		free((void *)p.m);
		free((void *)p.l);
		ASSERT_EQ(0, stat(LO(m), &sm));
		ASSERT_EQ(0, stat(LO(l), &sl));
		EXPECT_EQ(sl.st_mode, sm.st_mode)
			TH_LOG("%s: mode %o through the mount, %o on the lower",
			       c[i].name, sm.st_mode, sl.st_mode);
		EXPECT_EQ(sl.st_size, sm.st_size);
		EXPECT_MIRROR(m);
	}
	/* What the lower does, for the record */
	EXPECT_EQ(0, stat(LO("pub/u_suid_l"), &sl));
	EXPECT_EQ(S_IFREG | 0775, sl.st_mode);
	EXPECT_EQ(0, stat(LO("pub/r_suid_l"), &sl));
	EXPECT_EQ(S_IFREG | 06775, sl.st_mode);
}

/* ------------------------------------------------------------------ */
/* 5. Permission checks: the caller's, never the mounter's              */
/* ------------------------------------------------------------------ */

/* On the lower: files and dirs of many modes and owners */
static int make_perm_nodes(void)
{
	static const struct {
		const char *name;
		mode_t mode;
		uid_t uid;
		gid_t gid;
	} n[] = {
		{ "r644", S_IFREG | 0644, 0, 0 },
		{ "r600", S_IFREG | 0600, 0, 0 },
		{ "r755", S_IFREG | 0755, 0, 0 },
		{ "r000", S_IFREG | 0000, 0, 0 },
		{ "r001", S_IFREG | 0001, 0, 0 },
		{ "g640", S_IFREG | 0640, 0, NOBODY },
		{ "o600", S_IFREG | 0600, NOBODY, NOBODY },
		{ "o060", S_IFREG | 0060, NOBODY, NOBODY },
		{ "d700", S_IFDIR | 0700, 0, 0 },
		{ "d711", S_IFDIR | 0711, 0, 0 },
		{ "d755", S_IFDIR | 0755, 0, 0 },
		{ "d1777", S_IFDIR | 01777, 0, 0 },
		{ "d700/f", S_IFREG | 0644, 0, 0 },
		{ "d711/f", S_IFREG | 0644, 0, 0 },
		{ "d755/f", S_IFREG | 0600, 0, 0 },
		{ "d1777/f", S_IFREG | 0666, 0, 0 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(n); i++) {
		const char *p = LO(n[i].name);

		if (S_ISDIR(n[i].mode) ? mkdir(p, 0) : pt_write_file(p, "sec", 0))
			return -1;
		if (chown(p, n[i].uid, n[i].gid) ||
		    chmod(p, n[i].mode & 07777))
			return -1;
	}
	return 0;
}

static const char * const perm_nodes[] = {
	"r644", "r600", "r755", "r000", "r001", "g640", "o600", "o060",
	"d700", "d711", "d755", "d1777", "d700/f", "d711/f", "d755/f",
	"d1777/f", "none", "d700/none",
};

/* access(), faccessat(AT_EACCESS), open() and stat() by the caller */
static int access_all(void *arg)
{
	const int modes[] = { F_OK, R_OK, W_OK, X_OK, R_OK | W_OK,
			      R_OK | X_OK };
	const int oflags[] = { O_RDONLY, O_WRONLY, O_RDWR,
			       O_RDONLY | O_DIRECTORY };
	unsigned int i, j;
	char what[128];
	struct stat st;
	int bad = 0;

	for (i = 0; i < ARRAY_SIZE(perm_nodes); i++) {
		const char *n = perm_nodes[i];

		for (j = 0; j < ARRAY_SIZE(modes); j++) {
			snprintf(what, sizeof(what), "access %s %d", n,
				 modes[j]);
			bad += cdiff(what, rs(access(MN(n), modes[j])),
				     rs(access(LO(n), modes[j])));
			bad += cdiff(what,
				     rs(faccessat(AT_FDCWD, MN(n), modes[j],
						  AT_EACCESS)),
				     rs(faccessat(AT_FDCWD, LO(n), modes[j],
						  AT_EACCESS)));
		}
		for (j = 0; j < ARRAY_SIZE(oflags); j++) {
			snprintf(what, sizeof(what), "open %s %#x", n,
				 oflags[j]);
			bad += cdiff(what, rfd(open(MN(n), oflags[j])),
				     rfd(open(LO(n), oflags[j])));
		}
		snprintf(what, sizeof(what), "stat %s", n);
		bad += cdiff(what, rs(stat(MN(n), &st)),
			     rs(stat(LO(n), &st)));
	}
	return bad;
}

TEST_F(pt, access_modes)
{
	ASSERT_EQ(0, make_perm_nodes()) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, access_all(NULL));
	EXPECT_AS_NOBODY(access_all, NULL);
}

/* Whatever uid 65534 tries to do to root's files fails as on the lower */
static int no_leak(void *arg)
{
	char buf[16];
	int bad = 0;

#define BOTH_FAIL(what, call) do { \
	struct res __m, __l; \
	const char *R = MNT; \
	__m = call; \
	R = LOWER; \
	__l = call; \
	(void)R; \
	bad += cdiff(what, __m, __l); \
	bad += ccheck(__m.ret < 0, "%s succeeded through the mount", what); \
} while (0)
#define P(rel) path_in(R, rel)

	BOTH_FAIL("read r600", rs(pt_read_file(P("r600"), buf, sizeof(buf))));
	BOTH_FAIL("read d700/f", rs(pt_read_file(P("d700/f"), buf, sizeof(buf))));
	BOTH_FAIL("read d755/f", rs(pt_read_file(P("d755/f"), buf, sizeof(buf))));
	BOTH_FAIL("write r644", rfd(open(P("r644"), O_WRONLY)));
	BOTH_FAIL("O_TRUNC r644", rfd(open(P("r644"), O_RDONLY | O_TRUNC)));
	BOTH_FAIL("truncate r644", rs(truncate(P("r644"), 0)));
	BOTH_FAIL("create in /", rfd(open(P("new"), O_CREAT | O_WRONLY, 0666)));
	BOTH_FAIL("create in d755", rfd(open(P("d755/new"), O_CREAT, 0666)));
	BOTH_FAIL("create in d700", rfd(open(P("d700/new"), O_CREAT, 0666)));
	BOTH_FAIL("mkdir in /", rs(mkdir(P("newd"), 0777)));
	BOTH_FAIL("mkfifo in /", rs(mkfifo(P("fifo"), 0666)));
	BOTH_FAIL("symlink in /", rs(symlink("x", P("sym"))));
	BOTH_FAIL("link into /", rs(link(P("pub"), P("lnk"))));
	BOTH_FAIL("unlink r644", rs(unlink(P("r644"))));
	BOTH_FAIL("rmdir d755", rs(rmdir(P("d755"))));
	BOTH_FAIL("rename r644", rs(rename(P("r644"), P("pub/r644"))));
	BOTH_FAIL("rename into /", rs(rename(P("pub"), P("pub2"))));
	BOTH_FAIL("opendir d700", rfd(open(P("d700"), O_RDONLY | O_DIRECTORY)));
	BOTH_FAIL("chmod r644", rs(chmod(P("r644"), 0666)));
	BOTH_FAIL("setxattr r644",
		  rs(setxattr(P("r644"), "user.x", "1", 1, 0)));
	BOTH_FAIL("unlink in sticky dir", rs(unlink(P("d1777/f"))));
	BOTH_FAIL("rename in sticky dir",
		  rs(rename(P("d1777/f"), P("d1777/g"))));
	BOTH_FAIL("exec r644", rs(access(P("r644"), X_OK)));
#undef BOTH_FAIL
#undef P
	return bad;
}

/* Names, types, modes, owners and sizes of a tree, one a line */
static void snapshot(const char *dir, char *buf, size_t len)
{
	struct dirent **ents;
	int n, i;

	n = scandir(dir, &ents, NULL, alphasort);
	for (i = 0; i < n; i++) {
		char path[PATH_MAX];
		size_t used = strlen(buf);
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		if (strcmp(ents[i]->d_name, ".") && strcmp(ents[i]->d_name, "..") &&
		    !lstat(path, &st)) {
			snprintf(buf + used, len - used, "%s %o %d %lld %d\n",
				 path, st.st_mode, st.st_uid,
				 (long long)st.st_size, (int)st.st_nlink);
			if (S_ISDIR(st.st_mode))
				snapshot(path, buf, len);
		}
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
}

TEST_F(pt, access_no_leak)
{
	static char before[16384], after[16384];
	char buf[16];

	ASSERT_EQ(0, make_perm_nodes()) TH_LOG("%s", strerror(errno));
	snapshot(LOWER, before, sizeof(before));
	EXPECT_AS_NOBODY(no_leak, NULL);
	snapshot(LOWER, after, sizeof(after));
	EXPECT_STREQ(before, after);
	EXPECT_EQ(3, pt_read_file(LO("d1777/f"), buf, sizeof(buf)));
	EXPECT_EQ(3, pt_read_file(LO("r644"), buf, sizeof(buf)));
}

/* ------------------------------------------------------------------ */
/* 6. Creating, removing and renaming names                             */
/* ------------------------------------------------------------------ */

#define RACERS		8
#define RACE_ROUNDS	4

/*
 * RACERS processes open(O_CREAT | O_EXCL) one name at once, all through
 * the mount or (last round) half of them on the lower: one wins, the
 * others get EEXIST.
 */
TEST_F(pt, create_excl_race)
{
	int round, won, lost;
	char name[32];
	struct stat st;

	for (round = 0; round < RACE_ROUNDS; round++) {
		bool mixed = round == RACE_ROUNDS - 1;

		snprintf(name, sizeof(name), "race%d", round);
		ASSERT_EQ(0, pt_excl_race(MN(name), mixed ? LO(name) : MN(name),
					  RACERS, &won, &lost));
		EXPECT_EQ(1, won) TH_LOG("round %d", round);
		EXPECT_EQ(RACERS - 1, lost) TH_LOG("round %d", round);
		EXPECT_EQ(0, stat(LO(name), &st));
		EXPECT_MIRROR(name);
	}
}

/* What uid 65534 makes: through the mount in pub/t, directly in pub/u */
static int create_nobody(void *arg)
{
	const char *roots[2] = { MNT "/pub/t", LOWER "/pub/u" };
	struct res r[2][14];
	int i, j, n = 0, bad = 0;

	for (i = 0; i < 2; i++) {
		const char *R = roots[i];

#define P(rel) path_in(R, rel)
		umask(022);
		j = 0;
		r[i][j++] = rfd(open(P("f"), O_CREAT | O_EXCL | O_WRONLY, 0666));
		r[i][j++] = rs(mkdir(P("d"), 0777));
		r[i][j++] = rs(symlink("f", P("s")));
		r[i][j++] = rs(mkfifo(P("p"), 0666));
		r[i][j++] = rs(link(P("f"), P("h")));
		r[i][j++] = rs(mknod(P("n"), S_IFREG | 0666, 0));
		umask(027);
		r[i][j++] = rfd(open(P("f027"), O_CREAT | O_WRONLY, 0777));
		r[i][j++] = rs(mkdir(P("d027"), 0777));
		r[i][j++] = rs(mkfifo(P("p027"), 0777));
		umask(0);
		r[i][j++] = rfd(open(P("f000"), O_CREAT | O_WRONLY, 0777));
		/* In a set-group-ID directory of another group */
		umask(022);
		r[i][j++] = rfd(open(P("sg/f"), O_CREAT | O_WRONLY, 02775));
		r[i][j++] = rs(mkdir(P("sg/d"), 0775));
		r[i][j++] = rs(mkfifo(P("sg/p"), 0666));
		r[i][j++] = rs(mknod(P("sg/c"), S_IFCHR | 0666, makedev(1, 3)));
#undef P
		n = j;
	}
	for (j = 0; j < n; j++) {
		char what[32];

		snprintf(what, sizeof(what), "creation #%d", j);
		bad += cdiff(what, r[0][j], r[1][j]);
	}
	return bad;
}

/* New nodes belong to the caller, get its umask and the setgid group */
TEST_F(pt, create_owner_umask)
{
	static const char * const mine[] = { "f", "d", "s", "p", "h", "n",
		"f027", "d027", "p027", "f000", "sg/f", "sg/d", "sg/p" };
	struct stat st;
	unsigned int i;

	ASSERT_EQ(0, mkdir(LO("pub/t"), 0777));
	ASSERT_EQ(0, mkdir(LO("pub/u"), 0777));
	ASSERT_EQ(0, chmod(LO("pub/t"), 0777));
	ASSERT_EQ(0, chmod(LO("pub/u"), 0777));
	ASSERT_EQ(0, mkdir(LO("pub/t/sg"), 0777));
	ASSERT_EQ(0, mkdir(LO("pub/u/sg"), 0777));
	ASSERT_EQ(0, chown(LO("pub/t/sg"), 0, 1234));
	ASSERT_EQ(0, chown(LO("pub/u/sg"), 0, 1234));
	ASSERT_EQ(0, chmod(LO("pub/t/sg"), 02777));
	ASSERT_EQ(0, chmod(LO("pub/u/sg"), 02777));

	EXPECT_AS_NOBODY(create_nobody, NULL);
	EXPECT_TREES_SAME(LO("pub/t"), LO("pub/u"));
	for (i = 0; i < ARRAY_SIZE(mine); i++) {
		char rel[32];

		snprintf(rel, sizeof(rel), "pub/t/%s", mine[i]);
		ASSERT_EQ(0, lstat(LO(rel), &st)) TH_LOG("%s", rel);
		EXPECT_EQ(NOBODY, st.st_uid) TH_LOG("%s", rel);
		EXPECT_EQ(strncmp(mine[i], "sg/", 3) ? NOBODY : 1234, st.st_gid)
			TH_LOG("%s", rel);
		EXPECT_MIRROR(rel);
	}
	EXPECT_EQ(0, stat(LO("pub/t/f"), &st));
	EXPECT_EQ(S_IFREG | 0644, st.st_mode);
	EXPECT_EQ(2, st.st_nlink);
	EXPECT_EQ(0, stat(LO("pub/t/d027"), &st));
	EXPECT_EQ(S_IFDIR | 0750, st.st_mode);
	EXPECT_EQ(0, stat(LO("pub/t/f000"), &st));
	EXPECT_EQ(S_IFREG | 0777, st.st_mode);
	/* S_ISGID of a file is dropped for a non-member, dirs inherit it */
	EXPECT_EQ(0, stat(LO("pub/t/sg/f"), &st));
	EXPECT_EQ(S_IFREG | 0755, st.st_mode);
	EXPECT_EQ(0, stat(LO("pub/t/sg/d"), &st));
	EXPECT_EQ(S_IFDIR | 02755, st.st_mode);
	EXPECT_EQ(-1, lstat(LO("pub/t/sg/c"), &st));
}

/* mknod() of each type as root; as uid 65534 devices are refused */
static int mknod_nobody(void *arg)
{
	int bad = 0;

	bad += cdiff("mknod chr", rs(mknod(MN("pub/t/c"), S_IFCHR | 0666,
					   makedev(1, 3))),
		     rs(mknod(LO("pub/u/c"), S_IFCHR | 0666, makedev(1, 3))));
	bad += cdiff("mknod blk", rs(mknod(MN("pub/t/b"), S_IFBLK | 0666,
					   makedev(7, 0))),
		     rs(mknod(LO("pub/u/b"), S_IFBLK | 0666, makedev(7, 0))));
	bad += cdiff("mknod fifo", rs(mknod(MN("pub/t/p"), S_IFIFO | 0640, 0)),
		     rs(mknod(LO("pub/u/p"), S_IFIFO | 0640, 0)));
	bad += cdiff("mknod sock", rs(mknod(MN("pub/t/s"), S_IFSOCK | 0640, 0)),
		     rs(mknod(LO("pub/u/s"), S_IFSOCK | 0640, 0)));
	bad += ccheck(mknod(MN("pub/t/c2"), S_IFCHR | 0666,
			    makedev(1, 3)) == -1 && errno == EPERM,
		      "mknod chr through the mount: %s", strerror(errno));
	return bad;
}

TEST_F(pt, mknod_types)
{
	static const struct {
		const char *name;
		mode_t mode;
		dev_t dev;
	} n[] = {
		{ "fifo", S_IFIFO | 0640, 0 },
		{ "sock", S_IFSOCK | 0600, 0 },
		{ "chr", S_IFCHR | 0666, 0 },		/* rdev set below */
		{ "blk", S_IFBLK | 0600, 0 },
		{ "reg", S_IFREG | 0644, 0 },
		{ "zero", 0644, 0 },			/* no type: a file */
	};
	struct stat st;
	unsigned int i;
	int fd;

	ASSERT_EQ(0, make_twins());
	for (i = 0; i < ARRAY_SIZE(n); i++) {
		char m[32], l[32], what[64];
		dev_t dev = n[i].dev;

		if (S_ISCHR(n[i].mode))
			dev = makedev(1, 3);
		if (S_ISBLK(n[i].mode))
			dev = makedev(7, 200);
		snprintf(m, sizeof(m), "t/%s", n[i].name);
		snprintf(l, sizeof(l), "u/%s", n[i].name);
		snprintf(what, sizeof(what), "mknod %s", n[i].name);
		SAME(what, rs(mknod(MN(m), n[i].mode, dev)),
		     rs(mknod(LO(l), n[i].mode, dev)));
		SAME(what, rs(mknod(MN(m), n[i].mode, dev)),
		     rs(mknod(LO(l), n[i].mode, dev)));
		EXPECT_MIRROR(m);
	}
	EXPECT_TREES_SAME(LO("t"), LO("u"));
	ASSERT_EQ(0, lstat(LO("t/chr"), &st));
	EXPECT_EQ(makedev(1, 3), st.st_rdev);
	EXPECT_TRUE(S_ISSOCK((lstat(LO("t/sock"), &st), st.st_mode)));
	EXPECT_TRUE(S_ISREG((lstat(LO("t/zero"), &st), st.st_mode)));

	/* The device node made through the mount opens the device */
	fd = open(MN("t/chr"), O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(3, write(fd, "abc", 3));
	EXPECT_EQ(0, read(fd, &st, 1));
	close(fd);

	ASSERT_EQ(0, mkdir(LO("pub/t"), 0777));
	ASSERT_EQ(0, mkdir(LO("pub/u"), 0777));
	ASSERT_EQ(0, chmod(LO("pub/t"), 0777));
	ASSERT_EQ(0, chmod(LO("pub/u"), 0777));
	EXPECT_AS_NOBODY(mknod_nobody, NULL);
	EXPECT_TREES_SAME(LO("pub/t"), LO("pub/u"));
	EXPECT_EQ(NOBODY, (lstat(LO("pub/t/s"), &st), st.st_uid));
}

/* One operation on t through the mount and on u directly */
#define TWIN(what, call) do { \
	const char *R = MNT "/t"; \
	struct res __tm = call; \
	R = LOWER "/u"; \
	SAME(what, __tm, call); \
} while (0)
#define P(rel) path_in(R, rel)

/* mkdir, rmdir, unlink and their errors */
TEST_F(pt, mkdir_rmdir_unlink)
{
	struct stat st;

	ASSERT_EQ(0, make_twins());
	ASSERT_EQ(0, pt_write_file(T("f"), "f", 0644));
	ASSERT_EQ(0, pt_write_file(U("f"), "f", 0644));

	TWIN("mkdir", rs(mkdir(P("d"), 0750)));
	TWIN("mkdir EEXIST", rs(mkdir(P("d"), 0750)));
	TWIN("mkdir over a file", rs(mkdir(P("f"), 0750)));
	TWIN("mkdir ENOENT", rs(mkdir(P("none/x"), 0750)));
	TWIN("mkdir ENOTDIR", rs(mkdir(P("f/x"), 0750)));
	TWIN("mkdir nested", rs(mkdir(P("d/e"), 0700)));
	TWIN("create in d", rfd(open(P("d/x"), O_CREAT | O_WRONLY, 0600)));
	EXPECT_MIRROR("t/d");
	EXPECT_EQ(3, (stat(MN("t/d"), &st), st.st_nlink));

	TWIN("rmdir ENOTEMPTY", rs(rmdir(P("d"))));
	TWIN("rmdir ENOENT", rs(rmdir(P("none"))));
	TWIN("rmdir ENOTDIR", rs(rmdir(P("f"))));
	TWIN("rmdir .", rs(rmdir(P("d/."))));
	TWIN("rmdir ..", rs(rmdir(P("d/e/.."))));
	TWIN("unlink ENOENT", rs(unlink(P("none"))));
	TWIN("unlink EISDIR", rs(unlink(P("d"))));
	TWIN("unlink ENOTDIR", rs(unlink(P("f/x"))));
	TWIN("rmdir nested", rs(rmdir(P("d/e"))));
	EXPECT_EQ(2, (stat(MN("t/d"), &st), st.st_nlink));
	EXPECT_MIRROR("t/d");
	EXPECT_TREES_SAME(LO("t"), LO("u"));

	TWIN("unlink", rs(unlink(P("d/x"))));
	TWIN("rmdir", rs(rmdir(P("d"))));
	TWIN("unlink f", rs(unlink(P("f"))));
	EXPECT_EQ(-1, lstat(LO("t/d"), &st));
	EXPECT_EQ(-1, lstat(LO("t/f"), &st));
	EXPECT_EQ(-1, lstat(MN("t/d"), &st));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_TREES_SAME(LO("t"), LO("u"));
	EXPECT_MIRROR("t");
}

/* Twin trees for the rename tests */
static int make_rename_trees(void)
{
	const char *roots[2] = { LOWER "/t", LOWER "/u" };
	int i;

	for (i = 0; i < 2; i++) {
		const char *R = roots[i];

		if (mkdir(R, 0755) || pt_write_file(P("f1"), "one", 0644) ||
		    pt_write_file(P("f2"), "two", 0644) ||
		    mkdir(P("d1"), 0755) || pt_write_file(P("d1/a"), "a", 0644) ||
		    mkdir(P("d2"), 0755) || mkdir(P("d3"), 0755) ||
		    pt_write_file(P("d3/b"), "b", 0644) ||
		    link(P("f2"), P("h2")))
			return -1;
	}
	return 0;
}

/* rename() over files and directories, and its errors */
TEST_F(pt, rename_overwrite)
{
	struct stat before, st;
	char buf[16];

	ASSERT_EQ(0, make_rename_trees());
	ASSERT_EQ(0, stat(LO("t/f1"), &before));

	TWIN("file over file", rs(rename(P("f1"), P("f2"))));
	EXPECT_EQ(3, pt_read_file(LO("t/f2"), buf, sizeof(buf)));
	EXPECT_STREQ("one", buf);
	EXPECT_EQ(0, stat(MN("t/f2"), &st));
	EXPECT_EQ(before.st_ino, st.st_ino);
	EXPECT_EQ(-1, stat(MN("t/f1"), &st));
	EXPECT_EQ(1, (stat(LO("t/h2"), &st), st.st_nlink));
	EXPECT_MIRROR("t/h2");

	TWIN("dir over empty dir", rs(rename(P("d1"), P("d2"))));
	EXPECT_EQ(1, pt_read_file(MN("t/d2/a"), buf, sizeof(buf)));
	TWIN("dir over non-empty dir", rs(rename(P("d2"), P("d3"))));
	TWIN("file over dir", rs(rename(P("f2"), P("d3"))));
	TWIN("dir over file", rs(rename(P("d3"), P("f2"))));
	TWIN("dir into itself", rs(rename(P("d3"), P("d3/sub"))));
	TWIN("missing source", rs(rename(P("none"), P("x"))));
	TWIN("missing target dir", rs(rename(P("f2"), P("none/x"))));
	TWIN("onto itself", rs(rename(P("f2"), P("f2"))));
	TWIN("onto a hard link of itself", rs(rename(P("h2"), P("h2"))));
	TWIN("file into a dir", rs(rename(P("f2"), P("d3/f"))));
	TWIN("dir into a dir", rs(rename(P("d2"), P("d3/d"))));
	TWIN("back to the top", rs(rename(P("d3/d/a"), P("a"))));
	EXPECT_TREES_SAME(LO("t"), LO("u"));
	EXPECT_MIRROR("t/d3/f");
	EXPECT_MIRROR("t/d3/d");
	EXPECT_MIRROR("t/d3");
	EXPECT_MIRROR("t/a");
	EXPECT_EQ(-1, stat(MN("t/d2"), &st));
}

/* renameat2(): RENAME_NOREPLACE, RENAME_EXCHANGE, RENAME_WHITEOUT */
TEST_F(pt, rename_noreplace_exchange)
{
	char buf[16];
	struct stat st;

	ASSERT_EQ(0, make_rename_trees());

#define RN2(a, b, f) rs(renameat2(AT_FDCWD, P(a), AT_FDCWD, P(b), f))
	TWIN("NOREPLACE onto a file", RN2("f1", "f2", RENAME_NOREPLACE));
	TWIN("NOREPLACE onto a dir", RN2("d1", "d2", RENAME_NOREPLACE));
	TWIN("NOREPLACE", RN2("f1", "new", RENAME_NOREPLACE));
	EXPECT_EQ(-1, stat(MN("t/f1"), &st));
	EXPECT_EQ(3, pt_read_file(MN("t/new"), buf, sizeof(buf)));

	TWIN("EXCHANGE files", RN2("new", "f2", RENAME_EXCHANGE));
	EXPECT_EQ(3, pt_read_file(LO("t/new"), buf, sizeof(buf)));
	EXPECT_STREQ("two", buf);
	EXPECT_EQ(3, pt_read_file(LO("t/f2"), buf, sizeof(buf)));
	EXPECT_STREQ("one", buf);
	EXPECT_EQ(3, pt_read_file(MN("t/f2"), buf, sizeof(buf)));
	EXPECT_STREQ("one", buf);
	EXPECT_MIRROR("t/f2");
	EXPECT_MIRROR("t/new");

	TWIN("EXCHANGE file and dir", RN2("f2", "d1", RENAME_EXCHANGE));
	EXPECT_TRUE(S_ISDIR((stat(MN("t/f2"), &st), st.st_mode)));
	EXPECT_EQ(1, pt_read_file(MN("t/f2/a"), buf, sizeof(buf)));
	EXPECT_EQ(3, pt_read_file(MN("t/d1"), buf, sizeof(buf)));
	TWIN("EXCHANGE dirs", RN2("d2", "d3", RENAME_EXCHANGE));
	EXPECT_EQ(1, pt_read_file(MN("t/d2/b"), buf, sizeof(buf)));
	TWIN("EXCHANGE with a missing name", RN2("new", "none",
						 RENAME_EXCHANGE));
	TWIN("EXCHANGE | NOREPLACE", RN2("new", "h2",
					 RENAME_EXCHANGE | RENAME_NOREPLACE));
	TWIN("bad flag", RN2("new", "h2", 0x80));
	TWIN("WHITEOUT", RN2("new", "wo", RENAME_WHITEOUT));
	TWIN("WHITEOUT over a file", RN2("wo", "h2", RENAME_WHITEOUT));
#undef RN2
	EXPECT_TREES_SAME(LO("t"), LO("u"));
	EXPECT_MIRROR("t/h2");
	EXPECT_MIRROR("t/d2");
}

#define MNT2	SCRATCH "/mnt2"

/* Renames and links between two mounts, or a mount and its lower: EXDEV */
TEST_F(pt, rename_exdev)
{
	char buf[16];
	struct stat st;

	ASSERT_EQ(0, pt_write_file(LO("f"), "f", 0644));
	ASSERT_EQ(0, mkdir(LO("d"), 0755));
	ASSERT_EQ(0, pt_mount_or_bind(LOWER, MNT2)) TH_LOG("%s", strerror(errno));

	EXPECT_EQ(-1, rename(MN("f"), MNT2 "/g"));
	EXPECT_EQ(EXDEV, errno);
	EXPECT_EQ(-1, rename(MN("d"), MNT2 "/e"));
	EXPECT_EQ(EXDEV, errno);
	EXPECT_EQ(-1, renameat2(AT_FDCWD, MN("f"), AT_FDCWD, MNT2 "/d",
				RENAME_EXCHANGE));
	EXPECT_EQ(EXDEV, errno);
	EXPECT_EQ(-1, link(MN("f"), MNT2 "/g"));
	EXPECT_EQ(EXDEV, errno);
	EXPECT_EQ(-1, rename(MN("f"), LO("g")));
	EXPECT_EQ(EXDEV, errno);
	EXPECT_EQ(-1, rename(LO("f"), MN("g")));
	EXPECT_EQ(EXDEV, errno);
	EXPECT_EQ(-1, link(LO("f"), MN("g")));
	EXPECT_EQ(EXDEV, errno);
	EXPECT_EQ(-1, lstat(LO("g"), &st));
	EXPECT_EQ(0, lstat(LO("f"), &st));

	/* Within the second mount it works, and the first one sees it */
	EXPECT_EQ(0, rename(MNT2 "/f", MNT2 "/d/g"));
	EXPECT_EQ(-1, stat(MN("f"), &st));
	EXPECT_EQ(1, pt_read_file(MN("d/g"), buf, sizeof(buf)));
	EXPECT_MIRROR("d/g");
}

/* link(), symlink(), readlink() */
TEST_F(pt, link_symlink)
{
	char long_target[3000], m[4096], l[4096];
	struct stat sm, sl;

	memset(long_target, 'a', sizeof(long_target) - 1);
	long_target[sizeof(long_target) - 1] = '\0';
	ASSERT_EQ(0, make_twins());
	ASSERT_EQ(0, pt_write_file(T("f"), "data", 0644));
	ASSERT_EQ(0, pt_write_file(U("f"), "data", 0644));
	ASSERT_EQ(0, mkdir(T("d"), 0755));
	ASSERT_EQ(0, mkdir(U("d"), 0755));

	TWIN("link", rs(link(P("f"), P("h"))));
	ASSERT_EQ(0, stat(MN("t/f"), &sm));
	EXPECT_EQ(2, sm.st_nlink);
	ASSERT_EQ(0, stat(MN("t/h"), &sm));
	EXPECT_EQ(2, sm.st_nlink);
	ASSERT_EQ(0, stat(LO("t/f"), &sl));
	EXPECT_EQ(2, sl.st_nlink);
	EXPECT_EQ(sl.st_ino, sm.st_ino);
	EXPECT_MIRROR("t/f");
	EXPECT_MIRROR("t/h");
	TWIN("link EEXIST", rs(link(P("f"), P("h"))));
	TWIN("link a dir", rs(link(P("d"), P("d2"))));
	TWIN("link ENOENT", rs(link(P("none"), P("x"))));
	TWIN("link into a missing dir", rs(link(P("f"), P("none/x"))));
	TWIN("link into a dir", rs(link(P("h"), P("d/h"))));
	EXPECT_EQ(3, (stat(LO("t/f"), &sl), sl.st_nlink));
	EXPECT_MIRROR("t/d/h");
	TWIN("unlink one link", rs(unlink(P("h"))));
	EXPECT_MIRROR("t/f");

	TWIN("symlink", rs(symlink("x/../f", P("s"))));
	TWIN("long symlink", rs(symlink(long_target, P("ls"))));
	TWIN("dangling symlink", rs(symlink("none", P("dl"))));
	TWIN("symlink loop", rs(symlink("loop", P("loop"))));
	TWIN("symlink EEXIST", rs(symlink("f", P("f"))));
	TWIN("symlink to f", rs(symlink("f", P("s2"))));
	TWIN("readlink", rs(readlink(P("s"), m, sizeof(m))));
	TWIN("readlink long", rs(readlink(P("ls"), m, sizeof(m))));
	TWIN("readlink short buffer", rs(readlink(P("ls"), m, 10)));
	TWIN("readlink a file", rs(readlink(P("f"), m, sizeof(m))));
	TWIN("follow a loop", rfd(open(P("loop"), O_RDONLY)));
	TWIN("follow a dangling link", rfd(open(P("dl"), O_RDONLY)));
	TWIN("O_NOFOLLOW", rfd(open(P("s2"), O_RDONLY | O_NOFOLLOW)));
	TWIN("create through a dangling link",
	     rfd(open(P("dl"), O_CREAT | O_WRONLY, 0600)));

	memset(m, 0, sizeof(m));
	memset(l, 0, sizeof(l));
	EXPECT_EQ(6, readlink(MN("t/s"), m, sizeof(m)));
	EXPECT_EQ(6, readlink(LO("t/s"), l, sizeof(l)));
	EXPECT_STREQ(l, m);
	EXPECT_EQ(2999, readlink(MN("t/ls"), m, sizeof(m)));
	EXPECT_STREQ(long_target, m);
	EXPECT_EQ(4, pt_read_file(MN("t/s2"), m, sizeof(m)));
	EXPECT_STREQ("data", m);
	EXPECT_MIRROR("t/s");
	EXPECT_MIRROR("t/ls");
	EXPECT_TREES_SAME(LO("t"), LO("u"));
}

/* O_TMPFILE, then linked in through /proc/self/fd or AT_EMPTY_PATH */
TEST_F(pt, tmpfile_linkat)
{
	char path[64], path2[64], buf[16];
	struct stat sm, sl;
	int fm, fl;

	ASSERT_EQ(0, make_twins());
	fm = open(MN("t"), O_TMPFILE | O_RDWR | O_CLOEXEC, 0640);
	fl = open(LO("u"), O_TMPFILE | O_RDWR | O_CLOEXEC, 0640);
	ASSERT_LE(0, fl) TH_LOG("the lower: %s", strerror(errno));
	ASSERT_LE(0, fm) TH_LOG("the mount: %s", strerror(errno));
	EXPECT_EQ(5, write(fm, "tmp 1", 5));
	EXPECT_EQ(5, write(fl, "tmp 1", 5));
	ASSERT_EQ(0, fstat(fm, &sm));
	ASSERT_EQ(0, fstat(fl, &sl));
	EXPECT_EQ(0, sm.st_nlink);
	EXPECT_EQ(sl.st_mode, sm.st_mode);
	EXPECT_EQ(S_IFREG | 0640, sm.st_mode);
	EXPECT_EQ(5, sm.st_size);

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fm);
	EXPECT_EQ(0, linkat(AT_FDCWD, path, AT_FDCWD, MN("t/a"),
			    AT_SYMLINK_FOLLOW)) TH_LOG("%s", strerror(errno));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fl);
	EXPECT_EQ(0, linkat(AT_FDCWD, path, AT_FDCWD, LO("u/a"),
			    AT_SYMLINK_FOLLOW));
	EXPECT_EQ(0, fstat(fm, &sm));
	EXPECT_EQ(1, sm.st_nlink);
	EXPECT_EQ(5, pt_read_file(LO("t/a"), buf, sizeof(buf)));
	EXPECT_STREQ("tmp 1", buf);
	ASSERT_EQ(0, stat(LO("t/a"), &sl));
	EXPECT_EQ(sl.st_ino, sm.st_ino);
	EXPECT_MIRROR("t/a");
	/* A second name, with AT_EMPTY_PATH */
	SAME("AT_EMPTY_PATH", rs(linkat(fm, "", AT_FDCWD, MN("t/b"),
					AT_EMPTY_PATH)),
	     rs(linkat(fl, "", AT_FDCWD, LO("u/b"), AT_EMPTY_PATH)));
	close(fm);
	close(fl);

	/* O_EXCL: may never be linked */
	fm = open(MN("t"), O_TMPFILE | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
	fl = open(LO("u"), O_TMPFILE | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
	ASSERT_LE(0, fm);
	ASSERT_LE(0, fl);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fm);
	snprintf(path2, sizeof(path2), "/proc/self/fd/%d", fl);
	SAME("link an O_EXCL tmpfile",
	     rs(linkat(AT_FDCWD, path, AT_FDCWD, MN("t/c"), AT_SYMLINK_FOLLOW)),
	     rs(linkat(AT_FDCWD, path2, AT_FDCWD, LO("u/c"),
		       AT_SYMLINK_FOLLOW)));
	close(fm);
	close(fl);
	SAME("O_TMPFILE on a file", rfd(open(MN("t/a"), O_TMPFILE | O_RDWR,
					     0600)),
	     rfd(open(LO("u/a"), O_TMPFILE | O_RDWR, 0600)));
	EXPECT_TREES_SAME(LO("t"), LO("u"));
}

/* ------------------------------------------------------------------ */
/* 7. Errors of the lower: EROFS, ENOSPC                                */
/* ------------------------------------------------------------------ */

#define ROB	SCRATCH "/ro"		/* a read-only bind mount of LOWER */
#define ROM	SCRATCH "/romnt"	/* the passthrough of ROB */

/* The lower is reached through a read-only mount: writes fail EROFS */
TEST_F(pt, erofs_lower)
{
	const char *roots[2] = { ROM, ROB };
	struct res r[2][20];
	char buf[16];
	int i, j, n = 0;

	ASSERT_EQ(0, pt_write_file(LO("f"), "data", 0644));
	ASSERT_EQ(0, mkdir(LO("d"), 0755));
	ASSERT_EQ(0, mkdir(ROB, 0755));
	ASSERT_EQ(0, mount(LOWER, ROB, NULL, MS_BIND, NULL));
	ASSERT_EQ(0, mount(NULL, ROB, NULL, MS_REMOUNT | MS_RDONLY | MS_BIND,
			   NULL));
	ASSERT_EQ(0, pt_mount_or_bind(ROB, ROM)) TH_LOG("%s", strerror(errno));

	for (i = 0; i < 2; i++) {
		const char *R = roots[i];

		j = 0;
		r[i][j++] = rfd(open(P("new"), O_CREAT | O_WRONLY, 0644));
		r[i][j++] = rfd(open(P("f"), O_WRONLY));
		r[i][j++] = rfd(open(P("f"), O_RDWR));
		r[i][j++] = rfd(open(P("f"), O_RDONLY | O_TRUNC));
		r[i][j++] = rfd(open(P("."), O_TMPFILE | O_RDWR, 0600));
		r[i][j++] = rs(truncate(P("f"), 0));
		r[i][j++] = rs(chmod(P("f"), 0600));
		r[i][j++] = rs(chown(P("f"), 1, 1));
		r[i][j++] = rs(utimensat(AT_FDCWD, P("f"), NULL, 0));
		r[i][j++] = rs(mkdir(P("d2"), 0755));
		r[i][j++] = rs(rmdir(P("d")));
		r[i][j++] = rs(unlink(P("f")));
		r[i][j++] = rs(rename(P("f"), P("g")));
		r[i][j++] = rs(link(P("f"), P("h")));
		r[i][j++] = rs(symlink("f", P("s")));
		r[i][j++] = rs(mkfifo(P("p"), 0644));
		r[i][j++] = rs(setxattr(P("f"), "user.x", "1", 1, 0));
		r[i][j++] = rs(removexattr(P("f"), "user.x"));
		n = j;
	}
	for (j = 0; j < n; j++) {
		EXPECT_TRUE(r[0][j].ret == -1 && r[0][j].err == EROFS)
			TH_LOG("op #%d: %ld (%s)", j, r[0][j].ret,
			       strerror(r[0][j].err));
		EXPECT_EQ(r[1][j].err, r[0][j].err) TH_LOG("op #%d", j);
	}
	EXPECT_EQ(4, pt_read_file(ROM "/f", buf, sizeof(buf)));
	EXPECT_STREQ("data", buf);
	EXPECT_EQ(-1, access(LO("new"), F_OK));
	/* The lower itself stays writable through the other mount */
	EXPECT_EQ(0, pt_write_file(MN("g"), "rw", 0644));
	EXPECT_EQ(2, pt_read_file(ROM "/g", buf, sizeof(buf)));
}

/* Write 64 KiB chunks until an error; returns its errno */
static int fill_up(const char *path)
{
	static char chunk[65536];
	int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	int err = 0, i;

	if (fd < 0)
		return errno;
	for (i = 0; i < 100000 && !err; i++) {
		if (write(fd, chunk, sizeof(chunk)) < 0)
			err = errno;
	}
	if (!err && fsync(fd))
		err = errno;
	close(fd);
	return err;
}

#define SMALL	SCRATCH "/small"
#define SMNT	SCRATCH "/smnt"

/* A full lower: ENOSPC through the mount as on the lower */
TEST_F(pt, enospc_lower)
{
	struct statfs fm, fl;
	struct pt_lower small;
	char page[4096];

	memset(page, 'x', sizeof(page));
	ASSERT_EQ(0, pt_lower_make(&small, variant->kind, SMALL,
				   variant->kind == PT_TMPFS ? 1 : 2))
		TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, pt_mount_or_bind(SMALL, SMNT)) TH_LOG("%s", strerror(errno));

	EXPECT_EQ(ENOSPC, fill_up(SMNT "/fill"));
	ASSERT_EQ(0, statfs(SMNT, &fm));
	ASSERT_EQ(0, statfs(SMALL, &fl));
	EXPECT_EQ(fl.f_bfree, fm.f_bfree);
	EXPECT_EQ(fl.f_bavail, fm.f_bavail);
	EXPECT_GE(1, fm.f_bavail);
	SAME("write a page", rs(pt_write_file(SMNT "/m", page, 0644)),
	     rs(pt_write_file(SMALL "/l", page, 0644)));
	EXPECT_EQ(ENOSPC, fill_up(SMNT "/m"));
	EXPECT_EQ(ENOSPC, fill_up(SMALL "/l"));

	/* Freed through the mount, the space can be used again */
	EXPECT_EQ(0, unlink(SMNT "/fill"));
	EXPECT_EQ(-1, access(SMALL "/fill", F_OK));
	EXPECT_EQ(0, pt_write_file(SMNT "/again", page, 0644));
	EXPECT_EQ(0, statfs(SMNT, &fm));
	EXPECT_EQ(0, statfs(SMALL, &fl));
	EXPECT_EQ(fl.f_bfree, fm.f_bfree);
	umount2(SMNT, MNT_DETACH);
	pt_lower_destroy(&small);
}

/* ------------------------------------------------------------------ */
/* 8. statfs, 9. file handles                                          */
/* ------------------------------------------------------------------ */

static int statfs_diff(const struct statfs *m, const struct statfs *l,
		       char *why, size_t len)
{
	const struct field f[] = {
		FIELD(f_bsize), FIELD(f_frsize), FIELD(f_blocks),
		FIELD(f_bfree), FIELD(f_bavail), FIELD(f_files),
		FIELD(f_ffree), FIELD(f_namelen),
	};

	return fields_diff(f, ARRAY_SIZE(f), why, len);
}

/* The counts are the lower's, the type is FUSE's */
TEST_F(pt, statfs_mirror)
{
	static const char * const at[] = { "", "d", "d/f", "f" };
	struct statfs m, l;
	unsigned int i;
	char why[256];
	int fd;

	ASSERT_EQ(0, mkdir(LO("d"), 0755));
	ASSERT_EQ(0, pt_write_file(LO("d/f"), "f", 0644));
	ASSERT_EQ(0, pt_write_file(LO("f"), "f", 0644));
	for (i = 0; i < ARRAY_SIZE(at); i++) {
		ASSERT_EQ(0, statfs(MN(at[i]), &m));
		ASSERT_EQ(0, statfs(LO(at[i]), &l));
		EXPECT_EQ(0, statfs_diff(&m, &l, why, sizeof(why)))
			TH_LOG("/%s: %s", at[i], why);
		if (!pt_fake_mode())
			EXPECT_EQ(FUSE_SUPER_MAGIC, m.f_type);
		EXPECT_EQ(variant->kind == PT_TMPFS ? TMPFS_MAGIC :
			  EXT4_SUPER_MAGIC, l.f_type);
	}
	/* After using space and inodes through the mount */
	for (i = 0; i < 10; i++) {
		char name[16];

		snprintf(name, sizeof(name), "n%u", i);
		ASSERT_EQ(0, mkdir(MN(name), 0755));
	}
	fd = open(MN("big"), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, 1 << 20));
	ASSERT_EQ(0, fallocate(fd, 0, 0, 1 << 20));
	ASSERT_EQ(0, fsync(fd));
	ASSERT_EQ(0, fstatfs(fd, &m));
	ASSERT_EQ(0, statfs(LOWER, &l));
	close(fd);
	EXPECT_EQ(0, statfs_diff(&m, &l, why, sizeof(why))) TH_LOG("%s", why);
}

/* name_to_handle_at() is refused: the mount cannot be exported */
TEST_F(pt, name_to_handle_eopnotsupp)
{
	struct file_handle *h = malloc(sizeof(*h) + MAX_HANDLE_SZ);
	static const char * const at[] = { "", "f", "d" };
	unsigned int i;
	int mnt_id, fd, ret;

	ASSERT_NE(NULL, h);
	ASSERT_EQ(0, pt_write_file(LO("f"), "f", 0644));
	ASSERT_EQ(0, mkdir(LO("d"), 0755));
	for (i = 0; i < ARRAY_SIZE(at); i++) {
		h->handle_bytes = MAX_HANDLE_SZ;
		EXPECT_EQ(0, name_to_handle_at(AT_FDCWD, LO(at[i]), h,
					       &mnt_id, 0))
			TH_LOG("the lower /%s: %s", at[i], strerror(errno));
		h->handle_bytes = MAX_HANDLE_SZ;
		EXPECT_EQ(-1, name_to_handle_at(AT_FDCWD, MN(at[i]), h,
						&mnt_id, 0));
		EXPECT_EQ(EOPNOTSUPP, errno) TH_LOG("/%s", at[i]);
	}
	fd = open(MN("f"), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	h->handle_bytes = MAX_HANDLE_SZ;
	EXPECT_EQ(-1, name_to_handle_at(fd, "", h, &mnt_id, AT_EMPTY_PATH));
	EXPECT_EQ(EOPNOTSUPP, errno);
	/* A FID for fanotify may be given or not: it must not crash */
	h->handle_bytes = MAX_HANDLE_SZ;
	ret = name_to_handle_at(fd, "", h, &mnt_id,
				AT_EMPTY_PATH | AT_HANDLE_FID);
	TH_LOG("AT_HANDLE_FID: %d (%s)", ret, ret ? strerror(errno) : "ok");
	close(fd);

	/* A handle of the lower does not open anything through the mount */
	h->handle_bytes = MAX_HANDLE_SZ;
	ASSERT_EQ(0, name_to_handle_at(AT_FDCWD, LO("f"), h, &mnt_id, 0));
	fd = open(MNT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ret = open_by_handle_at(fd, h, O_RDONLY);
	EXPECT_EQ(-1, ret);
	EXPECT_TRUE(errno == ESTALE || errno == EOPNOTSUPP || errno == EINVAL)
		TH_LOG("open_by_handle_at: %s", strerror(errno));
	if (ret >= 0)
		close(ret);
	close(fd);
	free(h);
}

/* ------------------------------------------------------------------ */
/* 10. Extended attributes and POSIX ACLs                               */
/* ------------------------------------------------------------------ */

/* getxattr() of both paths: the same result and the same value */
static int xattr_diff(const char *m, const char *l, const char *name,
		      size_t size, char *why, size_t len)
{
	char vm[4096], vl[4096];
	ssize_t rm, rl;
	int em, el;

	rm = getxattr(m, name, size ? vm : NULL, size);
	em = errno;
	rl = getxattr(l, name, size ? vl : NULL, size);
	el = errno;
	if (rm != rl || (rm < 0 && em != el) ||
	    (rm > 0 && size && memcmp(vm, vl, rm))) {
		snprintf(why, len, "getxattr %s (%zu): mount %zd (%s), lower %zd (%s)",
			 name, size, rm, rm < 0 ? strerror(em) : "",
			 rl, rl < 0 ? strerror(el) : "");
		return 1;
	}
	return 0;
}

#define EXPECT_XATTR_SAME(m, l, name, size) do { \
	char __why[256] = ""; \
	EXPECT_EQ(0, xattr_diff(m, l, name, size, __why, sizeof(__why))) \
		TH_LOG("%s", __why); \
} while (0)

/* listxattr() of both paths: the same result and names */
static int list_diff(const char *m, const char *l, size_t size)
{
	char lm[4096], ll[4096];
	ssize_t rm = listxattr(m, size ? lm : NULL, size);
	int em = errno;
	ssize_t rl = listxattr(l, size ? ll : NULL, size);
	int el = errno;

	return rm != rl || (rm < 0 && em != el) ||
	       (rm > 0 && size && memcmp(lm, ll, rm));
}

/* user.* and trusted.*, set on either side */
TEST_F(pt, xattr_user_trusted)
{
	char big[2000], v[4096];

	memset(big, 0, sizeof(big));
	memset(big + 100, 'b', 1000);
	ASSERT_EQ(0, pt_write_file(LO("f"), "f", 0644));
	ASSERT_EQ(0, mkdir(LO("d"), 0755));
	ASSERT_EQ(0, symlink("f", LO("s")));

	EXPECT_EQ(0, setxattr(MN("f"), "user.a", "alpha", 5, 0));
	EXPECT_EQ(5, getxattr(LO("f"), "user.a", v, sizeof(v)));
	EXPECT_EQ(0, memcmp(v, "alpha", 5));
	EXPECT_EQ(0, setxattr(LO("f"), "user.b", "beta", 4, 0));
	EXPECT_EQ(4, getxattr(MN("f"), "user.b", v, sizeof(v)));
	EXPECT_EQ(0, memcmp(v, "beta", 4));
	EXPECT_EQ(0, setxattr(MN("f"), "user.big", big, sizeof(big), 0));
	EXPECT_EQ(0, setxattr(MN("d"), "user.dir", "", 0, 0));
	EXPECT_EQ(0, setxattr(MN("f"), "trusted.t", "tee", 3, 0));
	EXPECT_EQ(3, getxattr(LO("f"), "trusted.t", v, sizeof(v)));
	EXPECT_XATTR_SAME(MN("f"), LO("f"), "user.big", sizeof(v));
	EXPECT_XATTR_SAME(MN("d"), LO("d"), "user.dir", sizeof(v));
	EXPECT_XATTR_SAME(MN("f"), LO("f"), "trusted.t", sizeof(v));
	EXPECT_EQ(0, list_diff(MN("f"), LO("f"), 4096));
	EXPECT_EQ(0, list_diff(MN("f"), LO("f"), 0));
	EXPECT_EQ(0, list_diff(MN("d"), LO("d"), 4096));

	/* Errors */
	EXPECT_XATTR_SAME(MN("f"), LO("f"), "user.none", sizeof(v));
	EXPECT_EQ(-1, getxattr(MN("f"), "user.none", v, sizeof(v)));
	EXPECT_EQ(ENODATA, errno);
	EXPECT_XATTR_SAME(MN("f"), LO("f"), "user.a", 0);
	EXPECT_XATTR_SAME(MN("f"), LO("f"), "user.a", 2);
	EXPECT_EQ(-1, getxattr(MN("f"), "user.a", v, 2));
	EXPECT_EQ(ERANGE, errno);
	EXPECT_EQ(0, list_diff(MN("f"), LO("f"), 3));
	EXPECT_EQ(-1, listxattr(MN("f"), v, 3));
	EXPECT_EQ(ERANGE, errno);
	SAME("XATTR_CREATE on an existing one",
	     rs(setxattr(MN("f"), "user.a", "x", 1, XATTR_CREATE)),
	     rs(setxattr(LO("f"), "user.a", "x", 1, XATTR_CREATE)));
	SAME("XATTR_REPLACE of a missing one",
	     rs(setxattr(MN("f"), "user.n", "x", 1, XATTR_REPLACE)),
	     rs(setxattr(LO("f"), "user.n", "x", 1, XATTR_REPLACE)));
	SAME("user.* on a symlink",
	     rs(lsetxattr(MN("s"), "user.x", "x", 1, 0)),
	     rs(lsetxattr(LO("s"), "user.x", "x", 1, 0)));
	SAME("an unknown namespace",
	     rs(setxattr(MN("f"), "bogus.x", "x", 1, 0)),
	     rs(setxattr(LO("f"), "bogus.x", "x", 1, 0)));
	SAME("removexattr of a missing one",
	     rs(removexattr(MN("f"), "user.none")),
	     rs(removexattr(LO("f"), "user.none")));

	/* Removal, both ways */
	EXPECT_EQ(0, removexattr(MN("f"), "user.b"));
	EXPECT_EQ(-1, getxattr(LO("f"), "user.b", v, sizeof(v)));
	EXPECT_EQ(ENODATA, errno);
	EXPECT_EQ(0, removexattr(LO("f"), "user.a"));
	EXPECT_EQ(-1, getxattr(MN("f"), "user.a", v, sizeof(v)));
	EXPECT_EQ(ENODATA, errno);
	EXPECT_EQ(0, list_diff(MN("f"), LO("f"), 4096));
}

/*
 * uid 65534: trusted.* is invisible, user.* needs read or write
 * permission on the file, and the mounter's privileges do not help.
 */
static int xattr_nobody(void *arg)
{
	char v[256], lm[4096], ll[4096];
	ssize_t nm, nl;
	int bad = 0;

	bad += cdiff("get trusted.t",
		     rs(getxattr(MN("f"), "trusted.t", v, sizeof(v))),
		     rs(getxattr(LO("f"), "trusted.t", v, sizeof(v))));
	bad += ccheck(getxattr(MN("f"), "trusted.t", v, sizeof(v)) < 0,
		      "trusted.t readable through the mount");
	bad += cdiff("set trusted.u",
		     rs(setxattr(MN("f"), "trusted.u", "u", 1, 0)),
		     rs(setxattr(LO("f"), "trusted.u", "u", 1, 0)));
	bad += cdiff("get user.a of 0644",
		     rs(getxattr(MN("f"), "user.a", v, sizeof(v))),
		     rs(getxattr(LO("f"), "user.a", v, sizeof(v))));
	bad += cdiff("set user.x on 0644",
		     rs(setxattr(MN("f"), "user.x", "x", 1, 0)),
		     rs(setxattr(LO("f"), "user.x", "x", 1, 0)));
	bad += cdiff("remove user.a of 0644",
		     rs(removexattr(MN("f"), "user.a")),
		     rs(removexattr(LO("f"), "user.a")));
	bad += cdiff("get user.a of 0600",
		     rs(getxattr(MN("p"), "user.a", v, sizeof(v))),
		     rs(getxattr(LO("p"), "user.a", v, sizeof(v))));
	bad += cdiff("set user.x on own file",
		     rs(setxattr(MN("pub/o"), "user.x", "x", 1, 0)),
		     rs(setxattr(LO("pub/o"), "user.y", "y", 1, 0)));
	nm = listxattr(MN("f"), lm, sizeof(lm));
	nl = listxattr(LO("f"), ll, sizeof(ll));
	bad += ccheck(nm == nl && nm >= 0 && !memcmp(lm, ll, nm),
		      "listxattr: mount %zd, lower %zd", nm, nl);
	return bad;
}

TEST_F(pt, xattr_permissions)
{
	char v[16];

	ASSERT_EQ(0, pt_write_file(LO("f"), "f", 0644));
	ASSERT_EQ(0, pt_write_file(LO("p"), "p", 0600));
	ASSERT_EQ(0, pt_write_file(LO("pub/o"), "o", 0600));
	ASSERT_EQ(0, chown(LO("pub/o"), NOBODY, NOBODY));
	ASSERT_EQ(0, setxattr(LO("f"), "trusted.t", "tee", 3, 0));
	ASSERT_EQ(0, setxattr(LO("f"), "user.a", "alpha", 5, 0));
	ASSERT_EQ(0, setxattr(LO("p"), "user.a", "alpha", 5, 0));
	EXPECT_AS_NOBODY(xattr_nobody, NULL);
	EXPECT_EQ(1, getxattr(LO("pub/o"), "user.x", v, sizeof(v)));
	EXPECT_EQ(-1, getxattr(LO("f"), "trusted.u", v, sizeof(v)));
	EXPECT_EQ(5, getxattr(LO("f"), "user.a", v, sizeof(v)));
}

#define ACL_ACCESS	"system.posix_acl_access"
#define ACL_DEFAULT	"system.posix_acl_default"

struct acl_ent {
	unsigned short tag, perm;
	unsigned int id;
};

/* The xattr form of a POSIX ACL (<linux/posix_acl_xattr.h>) */
static size_t acl_blob(void *buf, const struct acl_ent *e, int n)
{
	struct posix_acl_xattr_header *h = buf;
	struct posix_acl_xattr_entry *x = (void *)(h + 1);
	int i;

	h->a_version = htole32(POSIX_ACL_XATTR_VERSION);
	for (i = 0; i < n; i++) {
		x[i].e_tag = htole16(e[i].tag);
		x[i].e_perm = htole16(e[i].perm);
		x[i].e_id = htole32(e[i].id);
	}
	return sizeof(*h) + n * sizeof(*x);
}

/* user::rw- user:65534:r-- group::--- mask::r-- other::--- */
static const struct acl_ent acl_nobody_r[] = {
	{ ACL_USER_OBJ, ACL_READ | ACL_WRITE, ACL_UNDEFINED_ID },
	{ ACL_USER, ACL_READ, NOBODY },
	{ ACL_GROUP_OBJ, 0, ACL_UNDEFINED_ID },
	{ ACL_MASK, ACL_READ, ACL_UNDEFINED_ID },
	{ ACL_OTHER, 0, ACL_UNDEFINED_ID },
};

/* user::rwx user:65534:rwx group::r-x mask::rwx other::--- */
static const struct acl_ent acl_nobody_rwx[] = {
	{ ACL_USER_OBJ, ACL_READ | ACL_WRITE | ACL_EXECUTE, ACL_UNDEFINED_ID },
	{ ACL_USER, ACL_READ | ACL_WRITE | ACL_EXECUTE, NOBODY },
	{ ACL_GROUP_OBJ, ACL_READ | ACL_EXECUTE, ACL_UNDEFINED_ID },
	{ ACL_MASK, ACL_READ | ACL_WRITE | ACL_EXECUTE, ACL_UNDEFINED_ID },
	{ ACL_OTHER, 0, ACL_UNDEFINED_ID },
};

/* What uid 65534 may do with "sec": exit status bit 0 read, 1 write */
static int acl_try(void *arg)
{
	char buf[16];
	int bad = 0;

	bad += cdiff("read", rs(pt_read_file(MN("sec"), buf, sizeof(buf))),
		     rs(pt_read_file(LO("sec"), buf, sizeof(buf))));
	bad += cdiff("write", rfd(open(MN("sec"), O_WRONLY)),
		     rfd(open(LO("sec"), O_WRONLY)));
	bad += cdiff("access R_OK", rs(access(MN("sec"), R_OK)),
		     rs(access(LO("sec"), R_OK)));
	if (bad)
		return 100 + bad;
	return (pt_read_file(MN("sec"), buf, sizeof(buf)) == 6 ? 1 : 0) |
	       (access(MN("sec"), W_OK) == 0 ? 2 : 0);
}

/* An access ACL set through the mount grants 65534 what it says */
TEST_F(pt, acl_access)
{
	char blob[256], m[256], l[256];
	size_t len = acl_blob(blob, acl_nobody_r, ARRAY_SIZE(acl_nobody_r));
	struct stat st;
	ssize_t n;

	ASSERT_EQ(0, pt_write_file(LO("sec"), "secret", 0600));
	EXPECT_EQ(0, pt_as_user(NOBODY, acl_try, NULL));

	ASSERT_EQ(0, setxattr(MN("sec"), ACL_ACCESS, blob, len, 0))
		TH_LOG("%s", strerror(errno));
	n = getxattr(LO("sec"), ACL_ACCESS, l, sizeof(l));
	EXPECT_EQ((ssize_t)len, n);
	EXPECT_EQ(n, getxattr(MN("sec"), ACL_ACCESS, m, sizeof(m)));
	EXPECT_EQ(0, memcmp(m, l, len));
	/* The group class bits are the mask's */
	EXPECT_EQ(0, stat(LO("sec"), &st));
	EXPECT_EQ(S_IFREG | 0640, st.st_mode);
	EXPECT_MIRROR("sec");
	EXPECT_EQ(1, pt_as_user(NOBODY, acl_try, NULL));

	/* chmod through the mount changes the mask */
	ASSERT_EQ(0, chmod(MN("sec"), 0600));
	EXPECT_EQ(0, pt_as_user(NOBODY, acl_try, NULL));
	EXPECT_XATTR_SAME(MN("sec"), LO("sec"), ACL_ACCESS, sizeof(m));
	ASSERT_EQ(0, chmod(LO("sec"), 0660));
	EXPECT_EQ(1, pt_as_user(NOBODY, acl_try, NULL));

	/* Removed through the mount: back to the mode bits */
	EXPECT_EQ(0, removexattr(MN("sec"), ACL_ACCESS));
	EXPECT_EQ(-1, getxattr(LO("sec"), ACL_ACCESS, l, sizeof(l)));
	EXPECT_EQ(ENODATA, errno);
	EXPECT_EQ(0, pt_as_user(NOBODY, acl_try, NULL));

	/* Set on the lower, seen and enforced through the mount */
	ASSERT_EQ(0, setxattr(LO("sec"), ACL_ACCESS, blob, len, 0));
	EXPECT_XATTR_SAME(MN("sec"), LO("sec"), ACL_ACCESS, sizeof(m));
	EXPECT_MIRROR("sec");
	EXPECT_EQ(1, pt_as_user(NOBODY, acl_try, NULL));
	/* A malformed ACL */
	blob[0] = 9;
	SAME("bad version", rs(setxattr(MN("sec"), ACL_ACCESS, blob, len, 0)),
	     rs(setxattr(LO("sec"), ACL_ACCESS, blob, len, 0)));
}

static int acl_default_nobody(void *arg)
{
	return cdiff("write t/f", rfd(open(T("f"), O_WRONLY)),
		     rfd(open(U("f"), O_WRONLY))) +
	       ccheck(pt_write_file(T("f"), "w", 0) == 0, "write t/f: %s",
		      strerror(errno)) +
	       cdiff("create in t/sub",
		     rfd(open(T("sub/n"), O_CREAT | O_WRONLY, 0666)),
		     rfd(open(U("sub/n"), O_CREAT | O_WRONLY, 0666)));
}

/* A default ACL on a directory applies to what is created through it */
TEST_F(pt, acl_default)
{
	static const char * const made[] = { "f", "sub", "p", "sub/g" };
	char blob[256], m[256], l[256];
	size_t len = acl_blob(blob, acl_nobody_rwx,
			      ARRAY_SIZE(acl_nobody_rwx));
	struct stat st;
	unsigned int i;

	ASSERT_EQ(0, make_twins());
	ASSERT_EQ(0, setxattr(MN("t"), ACL_DEFAULT, blob, len, 0))
		TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, setxattr(LO("u"), ACL_DEFAULT, blob, len, 0));
	EXPECT_XATTR_SAME(LO("t"), LO("u"), ACL_DEFAULT, sizeof(m));
	EXPECT_XATTR_SAME(MN("t"), LO("t"), ACL_DEFAULT, sizeof(m));

	/* The umask does not apply when there is a default ACL */
	umask(077);
	TWIN("create", rfd(open(P("f"), O_CREAT | O_WRONLY, 0666)));
	TWIN("mkdir", rs(mkdir(P("sub"), 0777)));
	TWIN("mkfifo", rs(mkfifo(P("p"), 0644)));
	TWIN("create in sub", rfd(open(P("sub/g"), O_CREAT | O_WRONLY, 0640)));
	umask(022);
	EXPECT_TREES_SAME(LO("t"), LO("u"));
	EXPECT_EQ(0, stat(LO("t/f"), &st));
	EXPECT_EQ(S_IFREG | 0660, st.st_mode);
	for (i = 0; i < ARRAY_SIZE(made); i++) {
		char a[64], b[64];

		snprintf(a, sizeof(a), "t/%s", made[i]);
		snprintf(b, sizeof(b), "u/%s", made[i]);
		EXPECT_XATTR_SAME(LO(a), LO(b), ACL_ACCESS, sizeof(m));
		EXPECT_XATTR_SAME(LO(a), LO(b), ACL_DEFAULT, sizeof(m));
		EXPECT_XATTR_SAME(MN(a), LO(a), ACL_ACCESS, sizeof(m));
		EXPECT_MIRROR(a);
	}
	EXPECT_LT(0, getxattr(LO("t/f"), ACL_ACCESS, l, sizeof(l)));
	EXPECT_LT(0, getxattr(LO("t/sub"), ACL_DEFAULT, l, sizeof(l)));
	EXPECT_AS_NOBODY(acl_default_nobody, NULL);
	EXPECT_EQ(NOBODY, (stat(LO("t/sub/n"), &st), st.st_uid));
}

/* ------------------------------------------------------------------ */
/* 11. File attributes: FS_IOC_[GS]ETFLAGS, FS_IOC_FS[GS]ETXATTR        */
/* ------------------------------------------------------------------ */

/* ioctl() on both fds; same result, and same value if it succeeded */
#define SAME_IOCTL(what, fm, fl, req, vm, vl) do { \
	SAME(what, rs(ioctl(fm, req, vm)), rs(ioctl(fl, req, vl))); \
	EXPECT_EQ(0, memcmp(vm, vl, sizeof(*(vm)))) TH_LOG("%s", what); \
} while (0)

static int open2(const char *m, const char *l, int flags, int *fm, int *fl)
{
	*fm = open(m, flags | O_CLOEXEC);
	*fl = open(l, flags | O_CLOEXEC);
	return *fm < 0 || *fl < 0 ? -1 : 0;
}

/* Open @path with @flags and write one byte */
static int write_at(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, "X", 1);
	close(fd);
	return n == 1 ? 0 : -1;
}

static int setflags_nobody(void *arg)
{
	int fm, fl, flags = 0, bad;

	if (open2(MN("t/f"), LO("u/f"), O_RDONLY, &fm, &fl))
		return 100;
	bad = cdiff("SETFLAGS as non-owner",
		    rs(ioctl(fm, FS_IOC_SETFLAGS, &flags)),
		    rs(ioctl(fl, FS_IOC_SETFLAGS, &flags)));
	close(fm);
	close(fl);
	return bad;
}

/* FS_NOATIME_FL, FS_APPEND_FL, FS_IMMUTABLE_FL set through the mount */
TEST_F(pt, fileattr_flags)
{
	int fm, fl, vm = 0, vl = 0, wm;

	ASSERT_EQ(0, make_twins());
	ASSERT_EQ(0, pt_write_file(T("f"), "f", 0644));
	ASSERT_EQ(0, pt_write_file(U("f"), "f", 0644));
	ASSERT_EQ(0, open2(MN("t/f"), LO("u/f"), O_RDONLY, &fm, &fl));

	SAME_IOCTL("GETFLAGS", fm, fl, FS_IOC_GETFLAGS, &vm, &vl);
	vm |= FS_NOATIME_FL;
	vl |= FS_NOATIME_FL;
	SAME_IOCTL("SETFLAGS noatime", fm, fl, FS_IOC_SETFLAGS, &vm, &vl);
	/* Read back on the lower, of the file set through the mount */
	wm = open(LO("t/f"), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, wm);
	SAME_IOCTL("GETFLAGS on the lower", wm, fl, FS_IOC_GETFLAGS, &vm,
		   &vl);
	EXPECT_EQ(FS_NOATIME_FL, vm & FS_NOATIME_FL);
	SAME_IOCTL("GETFLAGS", fm, wm, FS_IOC_GETFLAGS, &vm, &vl);

	vm |= FS_APPEND_FL;
	vl |= FS_APPEND_FL;
	SAME_IOCTL("SETFLAGS append", fm, fl, FS_IOC_SETFLAGS, &vm, &vl);
	SAME("write without O_APPEND", rs(write_at(T("f"), O_WRONLY)),
	     rs(write_at(U("f"), O_WRONLY)));
	SAME("O_APPEND", rs(write_at(T("f"), O_WRONLY | O_APPEND)),
	     rs(write_at(U("f"), O_WRONLY | O_APPEND)));
	SAME("O_TRUNC", rs(write_at(T("f"), O_WRONLY | O_APPEND | O_TRUNC)),
	     rs(write_at(U("f"), O_WRONLY | O_APPEND | O_TRUNC)));
	EXPECT_TRUE(same_data(LO("t/f"), LO("u/f")));
	vm = (vm & ~FS_APPEND_FL) | FS_IMMUTABLE_FL;
	vl = (vl & ~FS_APPEND_FL) | FS_IMMUTABLE_FL;
	SAME_IOCTL("SETFLAGS immutable", fm, fl, FS_IOC_SETFLAGS, &vm, &vl);
	SAME("unlink immutable", rs(unlink(T("f"))), rs(unlink(U("f"))));
	SAME("chmod immutable", rs(chmod(T("f"), 0600)),
	     rs(chmod(U("f"), 0600)));
	SAME("write immutable", rs(write_at(T("f"), O_WRONLY | O_APPEND)),
	     rs(write_at(U("f"), O_WRONLY | O_APPEND)));
	SAME("link immutable", rs(link(T("f"), T("h"))),
	     rs(link(U("f"), U("h"))));
	EXPECT_TRUE(same_data(LO("t/f"), LO("u/f")));
	EXPECT_EQ(-1, unlink(T("f")));
	EXPECT_EQ(EPERM, errno);
	SAME_IOCTL("GETFLAGS on the lower", wm, fl, FS_IOC_GETFLAGS, &vm,
		   &vl);
	EXPECT_AS_NOBODY(setflags_nobody, NULL);
	vm &= ~FS_IMMUTABLE_FL;
	vl &= ~FS_IMMUTABLE_FL;
	SAME_IOCTL("SETFLAGS clear", fm, fl, FS_IOC_SETFLAGS, &vm, &vl);
	/* Append-only set on the lower: enforced through the mount */
	vm |= FS_APPEND_FL;
	vl |= FS_APPEND_FL;
	SAME_IOCTL("SETFLAGS append on the lower", wm, fl, FS_IOC_SETFLAGS,
		   &vm, &vl);
	SAME("write after lower SETFLAGS", rs(write_at(T("f"), O_WRONLY)),
	     rs(write_at(U("f"), O_WRONLY)));
	EXPECT_TRUE(same_data(LO("t/f"), LO("u/f")));
	vm &= ~FS_APPEND_FL;
	vl &= ~FS_APPEND_FL;
	SAME_IOCTL("SETFLAGS clear", wm, fl, FS_IOC_SETFLAGS, &vm, &vl);
	SAME("unlink", rs(unlink(T("f"))), rs(unlink(U("f"))));
	close(wm);
	close(fm);
	close(fl);

	/* A directory */
	ASSERT_EQ(0, open2(MN("t"), LO("u"), O_RDONLY | O_DIRECTORY, &fm,
			   &fl));
	SAME_IOCTL("GETFLAGS dir", fm, fl, FS_IOC_GETFLAGS, &vm, &vl);
	vm |= FS_NOATIME_FL;
	vl |= FS_NOATIME_FL;
	SAME_IOCTL("SETFLAGS dir", fm, fl, FS_IOC_SETFLAGS, &vm, &vl);
	SAME_IOCTL("GETFLAGS dir", fm, fl, FS_IOC_GETFLAGS, &vm, &vl);
	close(fm);
	close(fl);
}

static int fsxattr_diff(const struct fsxattr *m, const struct fsxattr *l,
			char *why, size_t len)
{
	const struct field f[] = {
		FIELD(fsx_xflags), FIELD(fsx_extsize),
		FIELD(fsx_nextents), FIELD(fsx_projid),
		FIELD(fsx_cowextsize),
	};

	return fields_diff(f, ARRAY_SIZE(f), why, len);
}

#define SAME_FSX(what, fm, fl, req, xm, xl) do { \
	char __why[256] = ""; \
	SAME(what, rs(ioctl(fm, req, xm)), rs(ioctl(fl, req, xl))); \
	EXPECT_EQ(0, fsxattr_diff(xm, xl, __why, sizeof(__why))) \
		TH_LOG("%s: %s", what, __why); \
} while (0)

/* FS_IOC_FSGETXATTR / FS_IOC_FSSETXATTR through the mount */
TEST_F(pt, fileattr_fsxattr)
{
	struct fsxattr xm, xl;
	int fm, fl, wm, vm = 0, vl = 0;

	ASSERT_EQ(0, make_twins());
	ASSERT_EQ(0, pt_write_file(T("f"), "f", 0644));
	ASSERT_EQ(0, pt_write_file(U("f"), "f", 0644));
	ASSERT_EQ(0, open2(MN("t/f"), LO("u/f"), O_RDONLY, &fm, &fl));
	wm = open(LO("t/f"), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, wm);
	memset(&xm, 0, sizeof(xm));
	memset(&xl, 0, sizeof(xl));

	SAME_FSX("FSGETXATTR", fm, fl, FS_IOC_FSGETXATTR, &xm, &xl);
	SAME_FSX("FSGETXATTR of the same file", fm, wm, FS_IOC_FSGETXATTR,
		 &xm, &xl);
	xm.fsx_xflags |= FS_XFLAG_NOATIME;
	xl.fsx_xflags |= FS_XFLAG_NOATIME;
	SAME_FSX("FSSETXATTR noatime", fm, fl, FS_IOC_FSSETXATTR, &xm, &xl);
	SAME_FSX("FSGETXATTR on the lower", wm, fl, FS_IOC_FSGETXATTR, &xm,
		 &xl);
	SAME_IOCTL("GETFLAGS", wm, fl, FS_IOC_GETFLAGS, &vm, &vl);
	SAME_FSX("FSGETXATTR", fm, wm, FS_IOC_FSGETXATTR, &xm, &xl);

	xm.fsx_xflags |= FS_XFLAG_IMMUTABLE;
	xl.fsx_xflags |= FS_XFLAG_IMMUTABLE;
	SAME_FSX("FSSETXATTR immutable", fm, fl, FS_IOC_FSSETXATTR, &xm,
		 &xl);
	SAME("unlink", rs(unlink(T("f"))), rs(unlink(U("f"))));
	xm.fsx_xflags |= FS_XFLAG_REALTIME;
	xl.fsx_xflags |= FS_XFLAG_REALTIME;
	SAME("FSSETXATTR realtime", rs(ioctl(fm, FS_IOC_FSSETXATTR, &xm)),
	     rs(ioctl(fl, FS_IOC_FSSETXATTR, &xl)));
	xm.fsx_xflags &= ~(FS_XFLAG_IMMUTABLE | FS_XFLAG_REALTIME);
	xl.fsx_xflags &= ~(FS_XFLAG_IMMUTABLE | FS_XFLAG_REALTIME);
	SAME_FSX("FSSETXATTR clear", fm, fl, FS_IOC_FSSETXATTR, &xm, &xl);
	SAME_FSX("FSGETXATTR on the lower", wm, fl, FS_IOC_FSGETXATTR, &xm,
		 &xl);
	close(wm);
	close(fm);
	close(fl);
	SAME("unlink", rs(unlink(T("f"))), rs(unlink(U("f"))));
}

int main(int argc, char **argv)
{
	pt_ext4_template(LOWER_MB);
	return test_harness_run(argc, argv);
}
