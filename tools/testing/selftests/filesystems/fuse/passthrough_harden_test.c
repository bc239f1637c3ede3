// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE-BPF no-daemon passthrough: what the mount must refuse.
 *
 * The backing operations of a FUSE-BPF mount run with the credentials of
 * the mounter, after the caller's permission has been checked on the FUSE
 * inode.  These tests look for the ways a caller could get more from the
 * mount than from the lower filesystem itself:
 *
 * - stale_owner_*: uid 65534 opens its own file through the mount, root
 *   then takes the file (chown on the lower); the FUSE inode still says
 *   65534 owns it.  chmod, chown, utimes, xattrs, ACLs, inode flags and
 *   the setuid drop on write through the old fd must give what the same
 *   calls give on an fd of a twin file opened on the lower.  Each call
 *   meets a stale owner: root gives the files back and takes them again
 *   before each one.
 * - poll_regular_file: poll() of a backed file answers as the lower file.
 * - open_checks_lower_with_mounter_creds: a mount made without
 *   CAP_DAC_OVERRIDE does not open what its mounter could not open.
 * - setfl_*: fcntl(F_SETFL) checks the lower inode: it cannot drop
 *   O_APPEND of a file made append-only on the lower, nor give O_NOATIME
 *   to a caller who no longer owns the file.
 * - rename_lower_trap: a rename the mount's view allows that would move
 *   a lower directory into its own descendant fails with EINVAL.
 * - create_lsm_sees_caller: creates ask the LSMs, with the caller's
 *   credentials, how to label the lower node (a BPF LSM program).
 * - setuid_helper_refused, userns_root_dir_with_fd_eperm: who may mount.
 * - rename_stacked_no_lockdep: renames on a mount stacked on a mount do
 *   not make lockdep report (and turn itself off).
 * - race_rename_evict: renames on both sides, lookups through the mount
 *   and inode eviction at once, for a few seconds; the kernel must not
 *   warn (taint, lockdep) and the mount must still agree with the lower.
 *
 * The fixture tests run on a tmpfs and an ext4 lower, each test in a mount
 * namespace of its own with a tmpfs on /tmp (see passthrough.h).
 */
#define _GNU_SOURCE
#include <endian.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/xattr.h>
#include <linux/fs.h>
#include <linux/posix_acl.h>
#include <linux/posix_acl_xattr.h>

#include "passthrough.h"
#include "fuse_lsm_create.skel.h"

/* The harness's TEST() wrapper and take_turns() callbacks ignore some */
#pragma GCC diagnostic ignored "-Wunused-parameter"

#define LOWER_MB	32
#define NOBODY		65534
#define ACL_ACCESS	"system.posix_acl_access"
#define DAY		(24 * 3600)

/* Helpers */

/*
 * The mount must give the same result as the lower, in a child where the
 * harness's EXPECT cannot report: print what differs, return 1 if it does.
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

/* A file with @data, owned by @uid:@uid, of mode @mode exactly */
static int make_file(const char *path, const char *data, mode_t mode,
		     uid_t uid)
{
	if (pt_write_file(path, data, mode) || chown(path, uid, uid))
		return -1;
	return chmod(path, mode);
}

/* 0 if open(@path, @flags) works, else its errno */
static int open_err(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* A step of a child failed: say which, return @code for its status */
static int cfail(int code, const char *what)
{
	fprintf(stderr, "# [uid %d] %s: %s\n", (int)getuid(), what,
		strerror(errno));
	return code;
}

/* The exit status of child @pid, 128 + the signal that killed it */
static int reap(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) :
				   128 + WTERMSIG(status);
}

/* Run @fn(@arg) in a child; returns its exit status */
static int run_child(int (*fn)(const void *), const void *arg)
{
	pid_t pid;

	fflush(stderr);
	pid = fork();
	if (pid == 0)
		_exit(fn(arg));
	return reap(pid);
}

/*
 * Take turns with uid 65534 over two pipes: it opens pub/f through the
 * mount and @twin on the lower with @flags.  Then, @rounds times, root
 * runs @take(round) on the lower and the child @child(both fds, round).
 * Returns the child's exit status: the sum of what @child returned.  A
 * child still waiting when root gives up sees end of file and exits.
 */
static int take_turns(int flags, const char *twin, int rounds,
		      int (*take)(int round),
		      int (*child)(int fm, int fl, int round))
{
	int down[2], up[2], fm, fl, r, ret = 0;
	pid_t pid;
	char c;

	signal(SIGPIPE, SIG_IGN);
	if (pipe2(down, O_CLOEXEC) || pipe2(up, O_CLOEXEC))
		return -1;
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		close(down[1]);
		close(up[0]);
		if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(cfail(100, "setresuid"));
		fm = open(MN("pub/f"), flags | O_CLOEXEC);
		fl = open(LO(twin), flags | O_CLOEXEC);
		if (fm < 0 || fl < 0)
			_exit(cfail(101, "open"));
		for (r = 0; r < rounds; r++) {
			if (write(up[1], "", 1) != 1 ||
			    read(down[0], &c, 1) != 1)
				_exit(102);
			ret += child(fm, fl, r);
		}
		_exit(ret < 99 ? ret : 99);
	}
	close(down[0]);
	close(up[1]);
	for (r = 0; pid > 0 && r < rounds; r++) {
		if (read(up[0], &c, 1) != 1)
			break;
		if (take(r)) {
			cfail(0, "root on the lower");
			break;
		}
		if (write(down[1], "", 1) != 1)
			break;
	}
	close(down[1]);
	close(up[0]);
	return reap(pid);
}

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

/* user::rw- user:65534:rwx group::r-- mask::rwx other::r-- */
static const struct acl_ent acl_grant_nobody[] = {
	{ ACL_USER_OBJ, ACL_READ | ACL_WRITE, ACL_UNDEFINED_ID },
	{ ACL_USER, ACL_READ | ACL_WRITE | ACL_EXECUTE, NOBODY },
	{ ACL_GROUP_OBJ, ACL_READ, ACL_UNDEFINED_ID },
	{ ACL_MASK, ACL_READ | ACL_WRITE | ACL_EXECUTE, ACL_UNDEFINED_ID },
	{ ACL_OTHER, ACL_READ, ACL_UNDEFINED_ID },
};

/* The fixture: a lower of each kind, its passthrough mount */

/* "pub": where the unprivileged user has its files */
PT_FIXTURE(pt, pt_env_lower_pub, LOWER_MB)

/* 1. A file taken from its owner while open through the mount */

enum stale_op {
	ST_CHMOD, ST_CHOWN, ST_UTIMES, ST_TOUCH, ST_TRUNCATE, ST_XATTR,
	ST_ACL, ST_FLAGS, NR_STALE_OPS
};

static const char * const stale_what[NR_STALE_OPS] = {
	"fchmod 04755", "fchown 65534", "futimens 1000 2000", "futimens now",
	"ftruncate 2", "fsetxattr user.x", "fsetxattr ACL",
	"FS_IOC_SETFLAGS noatime",
};

/* Call @op on @fd; @flags: what FS_IOC_GETFLAGS said of it */
static struct res stale_op(int op, int fd, int flags)
{
	const struct timespec times[2] = { { 1000, 0 }, { 2000, 0 } };
	char blob[128];
	size_t len;

	switch (op) {
	case ST_CHMOD:
		return rs(fchmod(fd, 04755));
	case ST_CHOWN:
		return rs(fchown(fd, NOBODY, NOBODY));
	case ST_UTIMES:
		return rs(futimens(fd, times));
	case ST_TOUCH:
		return rs(futimens(fd, NULL));
	case ST_TRUNCATE:
		return rs(ftruncate(fd, 2));
	case ST_XATTR:
		return rs(fsetxattr(fd, "user.x", "v", 1, 0));
	case ST_ACL:
		len = acl_blob(blob, acl_grant_nobody,
			       ARRAY_SIZE(acl_grant_nobody));
		return rs(fsetxattr(fd, ACL_ACCESS, blob, len, 0));
	}
	flags |= FS_NOATIME_FL;
	return rs(ioctl(fd, FS_IOC_SETFLAGS, &flags));
}

/*
 * As 65534, with pub/f open through the mount and its twin pub/t open on
 * the lower.  Round 2i: the files are 65534's again; the FUSE inode
 * learns it (fstat).  Round 2i + 1: root took them, the FUSE inode still
 * says 65534 owns pub/f; what the lower refuses, the mount refuses.
 */
static int stale_round(int fm, int fl, int round)
{
	static int vm, vl;
	int op = round / 2, bad;
	struct stat st;

	if (round % 2 == 0) {
		if (fstat(fm, &st) || ioctl(fm, FS_IOC_GETFLAGS, &vm) ||
		    ioctl(fl, FS_IOC_GETFLAGS, &vl))
			return cfail(1, "fstat, FS_IOC_GETFLAGS");
		return ccheck(st.st_uid == NOBODY, "fstat: owner %d",
			      (int)st.st_uid);
	}
	bad = cdiff(stale_what[op], stale_op(op, fm, vm),
		    stale_op(op, fl, vl));
	if (op == ST_CHMOD && !stat(LO("pub/f"), &st))
		bad += ccheck(!(st.st_mode & S_ISUID) || st.st_uid,
			      "fchmod made a setuid-root file: mode %o",
			      st.st_mode);
	return bad;
}

/* What root took from 65534: nothing of 65534's may have reached it */
static void expect_roots(struct __test_metadata *_metadata, const char *rel)
{
	const char *path = LO(rel);
	int flags = 0, fd, err;
	struct stat st;
	char v[256];
	ssize_t n;

	ASSERT_EQ(0, stat(path, &st));
	EXPECT_EQ(0644, (int)(st.st_mode & 07777))
		TH_LOG("%s: mode %o", rel, st.st_mode);
	EXPECT_EQ(0, (int)st.st_uid) TH_LOG("%s: owner", rel);
	EXPECT_EQ(0, (int)st.st_gid) TH_LOG("%s: group", rel);
	EXPECT_NE(1000, st.st_atim.tv_sec) TH_LOG("%s: atime", rel);
	EXPECT_NE(2000, st.st_mtim.tv_sec) TH_LOG("%s: mtime", rel);
	n = getxattr(path, ACL_ACCESS, v, sizeof(v));
	err = errno;
	EXPECT_EQ(-1, n) TH_LOG("%s: an access ACL", rel);
	EXPECT_EQ(ENODATA, err);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, ioctl(fd, FS_IOC_GETFLAGS, &flags));
	EXPECT_EQ(0, flags & FS_NOATIME_FL) TH_LOG("%s: FS_NOATIME_FL", rel);
	close(fd);
}

/* Root takes pub/f and pub/t (odd rounds), or gives them back */
static int take_twins(int round)
{
	uid_t id = round % 2 ? 0 : NOBODY;

	return chown(LO("pub/f"), id, id) || chown(LO("pub/t"), id, id);
}

TEST_F(pt, stale_owner_fd_ops)
{
	ASSERT_EQ(0, make_file(LO("pub/f"), "data", 0644, NOBODY));
	ASSERT_EQ(0, make_file(LO("pub/t"), "data", 0644, NOBODY));
	EXPECT_EQ(0, take_turns(O_RDWR, "pub/t", 2 * NR_STALE_OPS,
				take_twins, stale_round))
		TH_LOG("as uid %d: see the lines above", NOBODY);
	expect_roots(_metadata, "pub/f");
	expect_roots(_metadata, "pub/t");
}

static int suid_write(int fm, int fl, int round)
{
	return cdiff("pwrite", rs(pwrite(fm, "X", 1, 0)),
		     rs(pwrite(fl, "X", 1, 0)));
}

/* Root makes pub/f and pub/t setuid and setgid root */
static int take_suid(int round)
{
	return take_twins(1) || chmod(LO("pub/f"), 06755) ||
	       chmod(LO("pub/t"), 06755);
}

/*
 * 65534's files become setuid and setgid root while it has them open for
 * writing: its writes drop both bits, through the mount as on the lower.
 */
TEST_F(pt, stale_owner_suid_cleared_on_write)
{
	struct stat sm, sl;

	ASSERT_EQ(0, make_file(LO("pub/f"), "data", 0755, NOBODY));
	ASSERT_EQ(0, make_file(LO("pub/t"), "data", 0755, NOBODY));
	EXPECT_EQ(0, take_turns(O_RDWR, "pub/t", 1, take_suid, suid_write))
		TH_LOG("as uid %d: see the lines above", NOBODY);
	ASSERT_EQ(0, stat(LO("pub/f"), &sm));
	ASSERT_EQ(0, stat(LO("pub/t"), &sl));
	EXPECT_EQ(sl.st_mode, sm.st_mode)
		TH_LOG("mode %o written through the mount, %o on the lower",
		       sm.st_mode, sl.st_mode);
	EXPECT_EQ(S_IFREG | 0755, (int)sl.st_mode);
}

/* 2. poll */

/* revents of @fd, or -1 if poll() failed */
static int poll_now(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT | POLLPRI };

	return poll(&p, 1, 0) < 0 ? -1 : p.revents;
}

TEST_F(pt, poll_regular_file)
{
	const int modes[] = { O_RDWR, O_RDONLY };
	unsigned int i;
	int fm, fl, rm, rl;

	ASSERT_EQ(0, pt_write_file(LO("f"), "data", 0644));
	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		fm = open(MN("f"), modes[i] | O_CLOEXEC);
		fl = open(LO("f"), modes[i] | O_CLOEXEC);
		ASSERT_LE(0, fm);
		ASSERT_LE(0, fl);
		rm = poll_now(fm);
		rl = poll_now(fl);
		EXPECT_EQ(POLLIN | POLLOUT, rl);
		EXPECT_EQ(rl, rm)
			TH_LOG("flags %#x: revents %#x on the mount, %#x lower",
			       modes[i], rm, rl);
		close(fm);
		close(fl);
	}
}

/* 3. open with the backing credentials */

#define M_DAC		PT_SCRATCH "/m_dac"
#define M_FULL		PT_SCRATCH "/m_full"
#define DAC_CAPS	(CAP_TO_MASK(CAP_DAC_OVERRIDE) | \
			 CAP_TO_MASK(CAP_DAC_READ_SEARCH))

/* Root without DAC override mounts at @target: its credentials back it */
static int mount_without_dac(const void *target)
{
	if (cap_effective(DAC_CAPS))
		return cfail(1, "capset");
	if (ccheck(open_err(LO("secret"), O_RDONLY) == EACCES,
		   "the lower lets root without DAC override read secret"))
		return 2;
	if (pt_mount(PT_LOWER, target, NULL))
		return cfail(3, "mount");
	if (cap_effective(0))
		return cfail(4, "capset");
	return 0;
}

/*
 * A mount must not open what its lower refuses the backing credentials,
 * even for a caller that may open anything: the backing open is made by
 * the mounter, not by the caller.
 */
TEST_F(pt, open_checks_lower_with_mounter_creds)
{
	char buf[16];

	ASSERT_EQ(0, make_file(LO("secret"), "s3cret", 0600, 1000));
	ASSERT_EQ(0, mkdir(LO("d700"), 0700));
	ASSERT_EQ(0, make_file(LO("d700/x"), "x", 0644, 1000));
	ASSERT_EQ(0, chown(LO("d700"), 1000, 1000));
	ASSERT_EQ(0, chmod(LO("d700"), 0700));
	ASSERT_EQ(0, mkdir(M_DAC, 0755));
	ASSERT_EQ(0, run_child(mount_without_dac, M_DAC));

	EXPECT_EQ(EACCES, open_err(M_DAC "/secret", O_RDONLY))
		TH_LOG("0600 file of uid 1000 opened without DAC override");
	EXPECT_EQ(EACCES, open_err(M_DAC "/d700", O_RDONLY | O_DIRECTORY))
		TH_LOG("0700 dir of uid 1000 opened without DAC override");
	EXPECT_EQ(EACCES, open_err(M_DAC "/d700/x", O_RDONLY));
	EXPECT_EQ(0, umount2(M_DAC, 0));

	/* The control: a mount by root with every capability */
	ASSERT_EQ(0, pt_mount(PT_LOWER, M_FULL, NULL))
		TH_LOG("mount: %s", strerror(errno));
	EXPECT_EQ(6, pt_read_file(M_FULL "/secret", buf, sizeof(buf)));
	EXPECT_STREQ("s3cret", buf);
	EXPECT_EQ(0, open_err(M_FULL "/d700", O_RDONLY | O_DIRECTORY));
	EXPECT_EQ(1, pt_read_file(M_FULL "/d700/x", buf, sizeof(buf)));
	EXPECT_EQ(0, umount2(M_FULL, 0));
}

/* 4. fcntl(F_SETFL) against the lower inode */

/*
 * The lower file becomes append-only while it is open with O_APPEND
 * through the mount: clearing O_APPEND and writing at offset 0 must not
 * overwrite it (the fcntl or the write fails, or the write appends).
 */
TEST_F(pt, setfl_append_only_lower)
{
	int fd, lfd, flags = 0, cleared;
	struct res set, wr;
	char buf[16] = "";
	ssize_t n;

	ASSERT_EQ(0, pt_write_file(LO("f"), "0123456789", 0644));
	fd = open(MN("f"), O_WRONLY | O_APPEND | O_CLOEXEC);
	ASSERT_LE(0, fd);
	lfd = open(LO("f"), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, lfd);
	ASSERT_EQ(0, ioctl(lfd, FS_IOC_GETFLAGS, &flags));
	flags |= FS_APPEND_FL;
	ASSERT_EQ(0, ioctl(lfd, FS_IOC_SETFLAGS, &flags));

	/* No ASSERT from here until the flag is off again */
	set = rs(fcntl(fd, F_SETFL, 0));
	wr = rs(pwrite(fd, "X", 1, 0));
	n = pread(lfd, buf, 10, 0);
	flags &= ~FS_APPEND_FL;
	cleared = ioctl(lfd, FS_IOC_SETFLAGS, &flags);
	close(lfd);
	close(fd);

	EXPECT_EQ(0, cleared) TH_LOG("FS_APPEND_FL left on the lower file");
	EXPECT_EQ(10, n);
	EXPECT_EQ(0, memcmp(buf, "0123456789", 10))
		TH_LOG("lower \"%.10s\": F_SETFL %ld (%s), pwrite %ld (%s)",
		       buf, set.ret, strerror(set.err), wr.ret,
		       strerror(wr.err));
}

/*
 * As 65534: F_SETFL O_NOATIME on pub/f, which root took; 0 if it worked,
 * 1 if it failed with EPERM, 2 for another error, 100+ setup failures.
 */
static int noatime_child(int fm, int fl, int round)
{
	int ret, err;
	char c;

	/* What the lower says, without reading from it */
	if (ccheck(fcntl(fl, F_SETFL, O_NOATIME) == -1 && errno == EPERM,
		   "lower: F_SETFL O_NOATIME by a non-owner not refused"))
		return 103;
	ret = fcntl(fm, F_SETFL, O_NOATIME);
	err = errno;
	if (pread(fm, &c, 1, 0) != 1)
		return cfail(104, "pread");
	if (ret && err != EPERM)
		ccheck(false, "F_SETFL O_NOATIME: %s", strerror(err));
	return ret == 0 ? 0 : err == EPERM ? 1 : 2;
}

static time_t noatime_now;

/* Root takes pub/f, its atime 3 days old, mtime 4 */
static int take_noatime(int round)
{
	struct timespec times[2] = { { 0 } };

	noatime_now = time(NULL);
	times[0].tv_sec = noatime_now - 3 * DAY;
	times[1].tv_sec = noatime_now - 4 * DAY;
	return chown(LO("pub/f"), 0, 0) ||
	       utimensat(AT_FDCWD, LO("pub/f"), times, 0);
}

/*
 * A caller that no longer owns the file does not get O_NOATIME on the
 * backing file: either fcntl() says EPERM, or reading updates atime
 * (relatime does, the atime being more than a day old).
 */
TEST_F(pt, setfl_noatime_non_owner)
{
	struct stat st;
	int status;

	ASSERT_EQ(0, make_file(LO("pub/f"), "data", 0644, NOBODY));
	status = take_turns(O_RDONLY, "pub/f", 1, take_noatime,
			    noatime_child);
	ASSERT_TRUE(status == 0 || status == 1)
		TH_LOG("child status %d: see the lines above", status);
	ASSERT_EQ(0, stat(LO("pub/f"), &st));
	EXPECT_TRUE(status == 1 || st.st_atim.tv_sec > noatime_now - DAY)
		TH_LOG("O_NOATIME worked, the read left atime %ld s old",
		       (long)(noatime_now - st.st_atim.tv_sec));
}

/* 5. Who may mount */

/* A private tmpfs at /tmp with PT_LOWER (a directory on it) and PT_MNT */
static void hd_setup(struct __test_metadata *_metadata)
{
	umask(022);
	ASSERT_EQ(0, pt_private_mounts());
	ASSERT_EQ(0, mount("tmpfs", PT_SCRATCH, "tmpfs", 0, "mode=1777"));
	ASSERT_EQ(0, mkdir(PT_LOWER, 0755));
	ASSERT_EQ(0, mkdir(PT_MNT, 0755));
	ASSERT_EQ(0, pt_write_file(LO("f"), "lower data", 0644));
}

/*
 * fallocate() and copy_file_range() into a set-id file drop the bits as a
 * write does, for a caller without CAP_FSETID, as on the lower (the lower
 * operation itself runs with the mounter's credentials, which keep them).
 */
static int modify_both(void *arg)
{
	const char *const *names = arg;
	int ret = 0, i;

	for (i = 0; i < 2; i++) {
		int fd = open(i ? LO(names[1]) : MN(names[0]),
			      O_RDWR | O_CLOEXEC);
		int src = open(i ? LO("src") : MN("src"), O_RDONLY | O_CLOEXEC);
		loff_t off = 0;

		if (fd < 0 || src < 0)
			return 10;
		if (!strcmp(names[2], "fallocate"))
			ret |= fallocate(fd, 0, 0, 8192) ? 1 << i : 0;
		else
			ret |= copy_file_range(src, &off, fd, NULL, 4, 0) != 4 ?
			       4 << i : 0;
		close(src);
		close(fd);
	}
	return ret;
}

TEST_F(pt, suid_dropped_on_fallocate_copy)
{
	static const char *const ops[] = { "fallocate", "copy" };
	struct stat sm, sl;
	unsigned int i;

	ASSERT_EQ(0, pt_write_file(LO("src"), "data", 0644));
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		const char *names[3] = { "pub/m", "pub/l", ops[i] };

		ASSERT_EQ(0, pt_write_file(LO("pub/m"), "x", 0666));
		ASSERT_EQ(0, pt_write_file(LO("pub/l"), "x", 0666));
		ASSERT_EQ(0, chmod(LO("pub/m"), 06777));
		ASSERT_EQ(0, chmod(LO("pub/l"), 06777));
		EXPECT_EQ(0, pt_as_user(NOBODY, modify_both, (void *)names))
			TH_LOG("%s as uid %d failed", ops[i], NOBODY);
		ASSERT_EQ(0, stat(LO("pub/m"), &sm));
		ASSERT_EQ(0, stat(LO("pub/l"), &sl));
		EXPECT_EQ(sl.st_mode, sm.st_mode)
			TH_LOG("%s: mode %o through the mount, %o on the lower",
			       ops[i], sm.st_mode, sl.st_mode);
		EXPECT_EQ(0U, sl.st_mode & (S_ISUID | S_ISGID));
		unlink(LO("pub/m"));
		unlink(LO("pub/l"));
	}
}

/*
 * In a sticky directory uid 65534 may remove its own file, never root's.
 * Root keeps putting, on the lower, a file of 65534's and then one of its
 * own under the same name, while 65534 keeps removing that name through
 * the mount: root's file must never be the one removed.  The window is
 * between the VFS's checks on the FUSE dentry and the lower directory's
 * lock, where the unlink backing step must find the inode it was checked
 * on (or fail with ESTALE, which makes the VFS walk and check again).
 */
#define SWAP_SECS	3

static int swap_make(const char *tmp, const char *name, uid_t owner)
{
	int fd = open(tmp, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);

	if (fd < 0)
		return -1;
	if (fchown(fd, owner, owner)) {
		close(fd);
		return -1;
	}
	close(fd);
	return rename(tmp, name);
}

TEST_F(pt, sticky_swap_race)
{
	unsigned long *removed, rounds = 0, lost = 0;
	double end;
	pid_t pid;
	int status;

	removed = mmap(NULL, sizeof(*removed), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, removed);
	ASSERT_EQ(0, mkdir(LO("st"), 0777));
	ASSERT_EQ(0, chmod(LO("st"), 01777));
	end = pt_now() + SWAP_SECS;
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(125);
		while (pt_now() < end)
			if (!unlink(MN("st/v")))
				__atomic_fetch_add(removed, 1,
						   __ATOMIC_RELAXED);
		_exit(0);
	}
	while (pt_now() < end) {
		struct stat st;
		ino_t ino;

		if (swap_make(LO("st/n.tmp"), LO("st/v"), NOBODY))
			break;
		sched_yield();
		if (swap_make(LO("st/r.tmp"), LO("st/v"), 0) ||
		    stat(LO("st/v"), &st))
			break;
		ino = st.st_ino;
		sched_yield();
		sched_yield();
		if (stat(LO("st/v"), &st) || st.st_ino != ino || st.st_uid)
			lost++;
		unlink(LO("st/v"));
		rounds++;
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	EXPECT_LT(end, pt_now() + 0.5) TH_LOG("the lower side stopped early");
	EXPECT_EQ(0UL, lost)
		TH_LOG("uid %d removed root's file %lu times in %lu rounds",
		       NOBODY, lost, rounds);
	/* The race ran: 65534 removed its own files through the mount */
	EXPECT_LT(0UL, *removed);
	printf("# %lu rounds, %lu of 65534's files removed through the mount\n",
	       rounds, *removed);
	munmap(removed, sizeof(*removed));
}

/*
 * A lower directory moved underneath into its sibling: the mount still
 * sees two siblings a and b (a is held open), the lower has b/a2.  A
 * rename that the VFS judged on the mount's view would, on the lower,
 * move b into its own descendant, or exchange b with a file below it.
 * do_renameat2() refuses both on the lower (lock_rename()'s trap);
 * through the mount they must fail the same way, EINVAL, and move
 * nothing: the lower would otherwise hold a directory loop cut off from
 * its root.
 */
TEST_F(pt, rename_lower_trap)
{
	struct stat st;
	int root, a;

	ASSERT_EQ(0, mkdir(MN("a"), 0755));
	ASSERT_EQ(0, mkdir(MN("b"), 0755));
	ASSERT_EQ(0, pt_write_file(MN("a/f"), "f", 0644));
	root = open(PT_MNT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, root);
	a = open(MN("a"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, a);
	ASSERT_EQ(0, fstatat(a, "f", &st, 0));
	ASSERT_EQ(0, stat(MN("b"), &st));
	ASSERT_EQ(0, rename(LO("a"), LO("b/a2")));

	/* b into a: on the lower, b into b/a2 (the source is the trap) */
	errno = 0;
	EXPECT_EQ(-1, renameat(root, "b", a, "b"));
	EXPECT_EQ(EINVAL, errno);
	/* a/f and b exchanged: on the lower, b/a2/f and b (the target is) */
	errno = 0;
	EXPECT_EQ(-1, renameat2(a, "f", root, "b", RENAME_EXCHANGE));
	EXPECT_EQ(EINVAL, errno);
	/* The same renames on the lower alone */
	errno = 0;
	EXPECT_EQ(-1, rename(LO("b"), LO("b/a2/b")));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, renameat2(AT_FDCWD, LO("b/a2/f"), AT_FDCWD, LO("b"),
				RENAME_EXCHANGE));
	EXPECT_EQ(EINVAL, errno);

	/* Nothing moved */
	EXPECT_EQ(0, stat(LO("b/a2/f"), &st));
	EXPECT_TRUE(S_ISREG(st.st_mode));
	EXPECT_EQ(-1, stat(LO("b/a2/b"), &st));
	EXPECT_EQ(0, stat(LO("b"), &st));
	EXPECT_TRUE(S_ISDIR(st.st_mode));
	close(a);
	close(root);
}

/*
 * syncfs() on the mount writes the lower filesystem's dirty data: the
 * ext4 lower's loop device sees the writes (dirty data is otherwise left
 * for the flusher, 30 s later).
 */
static long long loop_sectors_written(int loopfd)
{
	char link[64], dev[PATH_MAX], stat[PATH_MAX], buf[256];
	unsigned long long f[7];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", loopfd);
	n = readlink(link, dev, sizeof(dev) - 1);
	if (n < 0)
		return -1;
	dev[n] = '\0';
	snprintf(stat, sizeof(stat), "/sys/block/%s/stat",
		 strrchr(dev, '/') + 1);
	if (pt_read_file(stat, buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1],
		   &f[2], &f[3], &f[4], &f[5], &f[6]) != 7)
		return -1;
	return f[6];
}

TEST(syncfs_syncs_lower)
{
	static char buf[1 << 20];
	struct pt_env env;
	long long before, after;
	int fd;

	pt_env_lower(_metadata, &env, PT_EXT4, LOWER_MB);
	pt_env_mount(_metadata);
	memset(buf, 's', sizeof(buf));
	fd = open(MN("dirty"), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)sizeof(buf), write(fd, buf, sizeof(buf)));
	before = loop_sectors_written(env.lower.loopfd);
	ASSERT_LE(0, before);
	EXPECT_EQ(0, syncfs(fd));
	after = loop_sectors_written(env.lower.loopfd);
	EXPECT_LE(before + (long long)sizeof(buf) / 512, after)
		TH_LOG("%lld sectors written to the lower by syncfs",
		       after - before);
	close(fd);
	pt_env_teardown(_metadata, &env);
}

/*
 * A file unlinked on the lower filesystem while open through the mount:
 * once closed, nothing of the mount may pin the lower inode, so its space
 * comes back at once (syncfs() on the lower lets ext4 commit the free).
 */
TEST_F(pt, unlinked_lower_space_freed)
{
	static char buf[1 << 20];
	struct statfs before, full, after;
	unsigned long long mib;
	int fd, lfd, i;

	memset(buf, 'x', sizeof(buf));
	lfd = open(LO(""), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, lfd);
	ASSERT_EQ(0, fstatfs(lfd, &before));
	mib = (1 << 20) / before.f_bsize;
	fd = open(MN("big"), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	for (i = 0; i < 8; i++)
		ASSERT_EQ((ssize_t)sizeof(buf), write(fd, buf, sizeof(buf)));
	ASSERT_EQ(0, fsync(fd));
	ASSERT_EQ(0, fstatfs(lfd, &full));
	/* The 8 MiB written are taken on the lower */
	ASSERT_LE(full.f_bfree + 7 * mib, before.f_bfree);
	ASSERT_EQ(0, unlink(LO("big")));
	EXPECT_EQ(0, close(fd));
	EXPECT_EQ(0, syncfs(lfd));
	EXPECT_EQ(0, fstatfs(lfd, &after));
	EXPECT_LE(before.f_bfree, after.f_bfree + mib / 4)
		TH_LOG("free blocks: %llu before, %llu written, %llu closed",
		       (unsigned long long)before.f_bfree,
		       (unsigned long long)full.f_bfree,
		       (unsigned long long)after.f_bfree);
	close(lfd);
}

/*
 * As 65534 in pub/: a file, a directory, a FIFO, a symlink, an O_TMPFILE
 * file and a hard link, then a file whose name the LSM refuses.  Returns
 * the number of steps that did not go as they must.
 */
static int make_each_kind(void *arg)
{
	int fd, bad = 0;

	fd = open(MN("pub/c"), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
	bad += ccheck(fd >= 0, "creat pub/c: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	bad += ccheck(!mkdir(MN("pub/d"), 0755), "mkdir: %s", strerror(errno));
	bad += ccheck(!mknod(MN("pub/p"), S_IFIFO | 0644, 0), "mknod: %s",
		      strerror(errno));
	bad += ccheck(!symlink("c", MN("pub/s")), "symlink: %s",
		      strerror(errno));
	fd = open(MN("pub"), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	bad += ccheck(fd >= 0, "O_TMPFILE: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	bad += ccheck(!link(MN("pub/c"), MN("pub/h")), "link: %s",
		      strerror(errno));
	fd = open(MN("pub/lsm-refused"), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	bad += ccheck(fd < 0 && errno == EKEYREJECTED,
		      "creat pub/lsm-refused: %s",
		      fd < 0 ? strerror(errno) : "made");
	return bad;
}

/* The release of the fixture's env: the BPF LSM program detached */
static void lsm_create_destroy(void *skel)
{
	fuse_lsm_create__destroy(skel);
}

/*
 * What a create makes on the lower is labelled as the caller's, as in
 * overlayfs: each create calls security_dentry_create_files_as() with the
 * FUSE dentry, the caller's credentials and a copy of the mounter's with
 * the caller's fsuid, in which the lower create then runs (inode_create
 * sees them), and an LSM refusal fails the create before the lower is
 * touched.  A hard link makes no new inode: no call.
 */
TEST_F(pt, create_lsm_sees_caller)
{
	static const struct { int type; const char *name; __u32 n; } kinds[] = {
		{ S_IFREG, "regular (creat, O_TMPFILE, refused)", 3 },
		{ S_IFDIR, "directory", 1 },
		{ S_IFIFO, "FIFO", 1 },
		{ S_IFLNK, "symlink", 1 },
	};
	struct fuse_lsm_create *skel;
	struct stat st;
	unsigned int i, t;

	skel = fuse_lsm_create__open_and_load();
	ASSERT_NE(NULL, skel);
	self->env.release = lsm_create_destroy;
	self->env.release_arg = skel;
	ASSERT_EQ(0, fuse_lsm_create__attach(skel))
		TH_LOG("BPF LSM attach: %s (is bpf in lsm=?)", strerror(errno));
	EXPECT_EQ(0, pt_as_user(NOBODY, make_each_kind, NULL))
		TH_LOG("as uid %d: see the lines above", NOBODY);
	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		t = kinds[i].type >> 12;
		EXPECT_EQ(kinds[i].n, skel->bss->calls[t])
			TH_LOG("%s: calls", kinds[i].name);
		EXPECT_EQ(NOBODY, skel->bss->old_fsuid[t])
			TH_LOG("%s: the caller's fsuid", kinds[i].name);
		EXPECT_EQ(NOBODY, skel->bss->old_euid[t])
			TH_LOG("%s: the caller's euid", kinds[i].name);
		EXPECT_EQ(NOBODY, skel->bss->new_fsuid[t])
			TH_LOG("%s: the fsuid it is made with", kinds[i].name);
		EXPECT_EQ(0, skel->bss->new_euid[t])
			TH_LOG("%s: the mounter's euid", kinds[i].name);
	}
	/* No call without a file type (a link makes no inode) */
	EXPECT_EQ(0, skel->bss->calls[0]);
	/* The lower create of pub/c ran with the credentials given */
	EXPECT_EQ(1, skel->bss->creates_with_new);
	EXPECT_EQ(1, skel->bss->refused);
	EXPECT_EQ(-1, lstat(LO("pub/lsm-refused"), &st));
	EXPECT_EQ(ENOENT, errno);
	ASSERT_EQ(0, lstat(LO("pub/c"), &st));
	EXPECT_EQ(NOBODY, st.st_uid);
	EXPECT_EQ(2, (int)st.st_nlink);
}

/*
 * Mount with real uid @ruid and effective uid 0, as a setuid-root helper
 * run by @ruid does; the capabilities stay.  0 or the errno of mount.
 */
static int mount_with_ruid(const void *arg)
{
	uid_t ruid = *(const uid_t *)arg;

	if (setresuid(ruid, 0, 0))
		return cfail(200, "setresuid");
	if (pt_mount(PT_LOWER, PT_MNT, NULL))
		return errno;
	return 0;
}

TEST(setuid_helper_refused)
{
	const uid_t nobody = NOBODY, root = 0;
	struct statfs sfs;
	int status;

	hd_setup(_metadata);
	status = run_child(mount_with_ruid, &nobody);
	EXPECT_EQ(EPERM, status)
		TH_LOG("mount with real uid %d, effective uid 0: %s", NOBODY,
		       status ? strerror(status) : "mounted");
	if (!status)
		umount2(PT_MNT, MNT_DETACH);

	/* The control: all three uids 0 */
	status = run_child(mount_with_ruid, &root);
	ASSERT_EQ(0, status) TH_LOG("mount as root: %s", strerror(status));
	ASSERT_EQ(0, statfs(PT_MNT, &sfs));
	EXPECT_EQ(FUSE_SUPER_MAGIC, sfs.f_type);
	EXPECT_EQ(0, umount2(PT_MNT, 0));
}

/*
 * In a user namespace of its own, root mounts FUSE with a daemon's fd but
 * no root_dir= (the control), then with root_dir= (refused: the backing
 * credentials would be the namespace's root's, not trusted with the
 * lower).  No daemon answers: mount(2) does not wait for FUSE_INIT, and
 * nothing touches the mount point.  0 if both went as they must.
 */
#define DAEMON_OPTS	"fd=%d,rootmode=40000,user_id=0,group_id=0%s"

static int userns_fd_mount(const void *rootfd)
{
	char opts[128], root[32];
	int dev[2], i, err, bad = 0;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) ||
	    pt_write_str("/proc/self/setgroups", "deny") ||
	    pt_write_str("/proc/self/uid_map", "0 0 1") ||
	    pt_write_str("/proc/self/gid_map", "0 0 1"))
		return cfail(100, "user namespace");
	dev[0] = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	dev[1] = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (dev[0] < 0 || dev[1] < 0)
		return cfail(101, "/dev/fuse");

	snprintf(root, sizeof(root), ",root_dir=%d", *(const int *)rootfd);
	for (i = 0; i < 2; i++) {
		snprintf(opts, sizeof(opts), DAEMON_OPTS, dev[i],
			 i ? root : "");
		err = mount("fuse-bpf", PT_MNT, "fuse", 0, opts) ? errno : 0;
		if (!err)
			umount2(PT_MNT, MNT_DETACH);
		if (err == (i ? EPERM : 0))
			continue;
		bad |= 1 << i;
		fprintf(stderr, "# in a user namespace: %s: %s\n", opts,
			err ? strerror(err) : "mounted");
	}
	close(dev[0]);
	close(dev[1]);
	return bad;
}

TEST(userns_root_dir_with_fd_eperm)
{
	int fd, status;

	hd_setup(_metadata);
	fd = open(PT_LOWER, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	status = run_child(userns_fd_mount, &fd);
	EXPECT_EQ(0, status) TH_LOG("see the lines above");
	close(fd);
}

/* 6. Stacked renames and lockdep */

#define M1	PT_SCRATCH "/m1"
#define M2	PT_SCRATCH "/m2"
#define IN_M2(rel)	path_in(M2, rel)

/* debug_locks from /proc/lockdep_stats: 1 or 0, -1 without lockdep */
static int lockdep_on(void)
{
	const char *key = "debug_locks:";
	FILE *f = fopen("/proc/lockdep_stats", "re");
	char line[256], *p;
	int v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, key);
		if (p) {
			v = atoi(p + strlen(key));
			break;
		}
	}
	fclose(f);
	return v;
}

/*
 * A rename across directories of a mount stacked on a mount of the same
 * type takes s_vfs_rename_mutex of each: a lockdep class per level.
 */
TEST(rename_stacked_no_lockdep)
{
	char buf[16];
	int before;

	hd_setup(_metadata);
	ASSERT_EQ(0, pt_mount(PT_LOWER, M1, NULL))
		TH_LOG("m1: %s", strerror(errno));
	ASSERT_EQ(0, pt_mount(M1, M2, NULL)) TH_LOG("m2: %s", strerror(errno));
	before = lockdep_on();
	EXPECT_NE(0, before)
		TH_LOG("debug_locks 0: an earlier lockdep report (see dmesg)");

	ASSERT_EQ(0, mkdir(IN_M2("a"), 0755));
	ASSERT_EQ(0, mkdir(IN_M2("b"), 0755));
	ASSERT_EQ(0, pt_write_file(IN_M2("a/f"), "f", 0644));
	EXPECT_EQ(0, rename(IN_M2("a/f"), IN_M2("b/f")));
	EXPECT_EQ(0, renameat2(AT_FDCWD, IN_M2("b/f"), AT_FDCWD,
			       IN_M2("a/g"), RENAME_NOREPLACE));
	ASSERT_EQ(0, pt_write_file(IN_M2("b/h"), "h", 0644));
	EXPECT_EQ(0, renameat2(AT_FDCWD, IN_M2("a/g"), AT_FDCWD,
			       IN_M2("b/h"), RENAME_EXCHANGE));

	EXPECT_TRUE(before != 1 || lockdep_on() == 1)
		TH_LOG("lockdep turned itself off in the renames: dmesg");
	/* The lower: a/g has h's data, b/h has f's, nothing else is left */
	EXPECT_EQ(1, pt_read_file(LO("a/g"), buf, sizeof(buf)));
	EXPECT_STREQ("h", buf);
	EXPECT_EQ(1, pt_read_file(LO("b/h"), buf, sizeof(buf)));
	EXPECT_STREQ("f", buf);
	EXPECT_EQ(ENOENT, open_err(LO("a/f"), O_RDONLY));
	EXPECT_EQ(ENOENT, open_err(LO("b/f"), O_RDONLY));
	EXPECT_EQ(0, umount2(M2, 0));
	EXPECT_EQ(0, umount2(M1, 0));
}

/*
 * FUSE-BPF over FUSE-BPF: a name renamed on the bottom filesystem while
 * both mounts have it cached.  m1's dentry is still hashed under the old
 * name; m2 must ask m1's d_revalidate, not only look at m1's dcache.
 */
TEST(stacked_sees_lower_rename)
{
	struct stat st, lst;

	hd_setup(_metadata);
	ASSERT_EQ(0, pt_mount(PT_LOWER, M1, NULL))
		TH_LOG("m1: %s", strerror(errno));
	ASSERT_EQ(0, pt_mount(M1, M2, NULL)) TH_LOG("m2: %s", strerror(errno));
	ASSERT_EQ(0, stat(IN_M2("f"), &st));
	ASSERT_EQ(0, rename(LO("f"), LO("g")));
	EXPECT_EQ(-1, stat(IN_M2("f"), &st));
	EXPECT_EQ(ENOENT, errno);
	ASSERT_EQ(0, stat(LO("g"), &lst));
	EXPECT_EQ(0, stat(IN_M2("g"), &st));
	EXPECT_EQ(lst.st_ino, st.st_ino);
	/* And back, replacing: the name now holds the other inode */
	ASSERT_EQ(0, pt_write_file(LO("f"), "new", 0644));
	ASSERT_EQ(0, stat(IN_M2("f"), &st));
	ASSERT_EQ(0, rename(LO("g"), LO("f")));
	EXPECT_EQ(0, stat(IN_M2("f"), &st));
	EXPECT_EQ(lst.st_ino, st.st_ino);
	EXPECT_EQ(0, umount2(M2, 0));
	EXPECT_EQ(0, umount2(M1, 0));
}

/* 7. Renames, lookups and eviction at once */

#define RACE_SECS	3
#define RACE_MAX_SECS	10
#define RACE_NAMES	8
#define LONG_NAME	100	/* not inline in the dentry */

/*
 * In "dir": names 0-3 ("a", "b" and two long ones) are renamed on the
 * lower, 4-7 ("c", "d" and two more long ones) through the mount.  Files
 * are at 0, 2, 4 and 6 when no rename is under way.
 */
static struct race {
	char name[RACE_NAMES][LONG_NAME + 1];
	char lo[RACE_NAMES][PATH_MAX];
	char mn[RACE_NAMES][PATH_MAX];
	double end;
	int stop;
	int bad_err;		/* the first failure other than ENOENT */
	const char *bad_op;
	int bad_name;
} race;

/* Note a failure of @op on name @i other than ENOENT */
static void race_note(long ret, const char *op, int i)
{
	int err = errno;

	if (ret < 0 && err != ENOENT &&
	    __sync_bool_compare_and_swap(&race.bad_err, 0, err)) {
		race.bad_op = op;
		race.bad_name = i;
	}
}

/*
 * Threads 0-3 rename: on the lower (0, 1) or through the mount (2, 3),
 * name x to x + 1 and back, where x is the first short (0, 2) or long
 * (1, 3) name; with the long names, they also exchange x and the first
 * short name.  Threads 4 and 5 stat and open every name through the
 * mount, thread 6 evicts unused dentries and inodes every 50 ms.
 */
static void *race_thread(void *arg)
{
	const struct timespec pause = { 0, 50 * 1000 * 1000 };
	long role = (long)arg;
	char (*p)[PATH_MAX] = role >= 2 ? race.mn : race.lo;
	int first = role >= 2 ? 4 : 0, x = first + (role & 1) * 2, i, fd;
	struct stat st;

	while (!__atomic_load_n(&race.stop, __ATOMIC_RELAXED) &&
	       pt_now() < race.end) {
		if (role < 4) {
			race_note(rename(p[x], p[x + 1]), "rename", x);
			race_note(rename(p[x + 1], p[x]), "rename back", x + 1);
			if (role & 1)
				race_note(renameat2(AT_FDCWD, p[first],
						    AT_FDCWD, p[x],
						    RENAME_EXCHANGE),
					  "exchange", first);
		} else if (role < 6) {
			for (i = 0; i < RACE_NAMES; i++) {
				race_note(stat(race.mn[i], &st), "stat", i);
				fd = open(race.mn[i], O_RDONLY | O_CLOEXEC);
				race_note(fd, "open", i);
				if (fd >= 0)
					close(fd);
			}
		} else {
			race_note(pt_write_str("/proc/sys/vm/drop_caches", "2"),
				  "drop_caches", -1);
			nanosleep(&pause, NULL);
		}
	}
	return NULL;
}

TEST(race_rename_evict)
{
	const struct timespec tick = { 0, 100 * 1000 * 1000 };
	char lnames[1024], mnames[1024];
	struct timespec limit;
	struct stat sm, sl;
	unsigned long taint;
	int i, lockdep, stuck = 0, files = 0;
	pthread_t tid[7];

	hd_setup(_metadata);
	taint = pt_taint();
	lockdep = lockdep_on();
	ASSERT_EQ(0, mkdir(LO("dir"), 0755));
	for (i = 0; i < RACE_NAMES; i++) {
		if (i % 4 < 2) {
			race.name[i][0] = "abcd"[i / 4 * 2 + i % 4];
		} else {
			memset(race.name[i], "lm"[i / 4], LONG_NAME - 1);
			race.name[i][LONG_NAME - 1] = '0' + i % 4;
		}
		snprintf(race.lo[i], PATH_MAX, PT_LOWER "/dir/%s",
			 race.name[i]);
		snprintf(race.mn[i], PATH_MAX, PT_MNT "/dir/%s", race.name[i]);
		if (i % 2 == 0)
			ASSERT_EQ(0, pt_write_file(race.lo[i], "x", 0644));
	}
	ASSERT_EQ(0, pt_mount(PT_LOWER, PT_MNT, NULL))
		TH_LOG("mount: %s", strerror(errno));

	race.end = pt_now() + RACE_SECS;
	for (i = 0; i < (int)ARRAY_SIZE(tid); i++)
		ASSERT_EQ(0, pthread_create(&tid[i], NULL, race_thread,
					    (void *)(long)i));
	while (pt_now() < race.end)
		nanosleep(&tick, NULL);
	__atomic_store_n(&race.stop, 1, __ATOMIC_RELAXED);
	clock_gettime(CLOCK_REALTIME, &limit);
	limit.tv_sec += RACE_MAX_SECS - RACE_SECS;
	for (i = 0; i < (int)ARRAY_SIZE(tid); i++)
		stuck += !!pthread_timedjoin_np(tid[i], NULL, &limit);
	ASSERT_EQ(0, stuck) TH_LOG("threads stuck (in the kernel?)");

	EXPECT_EQ(0, race.bad_err)
		TH_LOG("%s %.20s: %s", race.bad_op,
		       race.bad_name < 0 ? "" : race.name[race.bad_name],
		       strerror(race.bad_err));
	EXPECT_EQ(taint, pt_taint())
		TH_LOG("the kernel warned during the race: see dmesg");
	EXPECT_TRUE(lockdep != 1 || lockdep_on() == 1)
		TH_LOG("lockdep turned itself off in the race: dmesg");

	/* The mount still works and shows what the lower has */
	EXPECT_EQ(0, stat(PT_MNT, &sm));
	EXPECT_EQ(4, pt_dir_names(LO("dir"), lnames, sizeof(lnames)));
	EXPECT_EQ(4, pt_dir_names(MN("dir"), mnames, sizeof(mnames)));
	EXPECT_STREQ(lnames, mnames);
	for (i = 0; i < RACE_NAMES; i++) {
		int l = lstat(race.lo[i], &sl), m = lstat(race.mn[i], &sm);

		EXPECT_EQ(l, m) TH_LOG("%.20s: lower %d, mount %d",
				       race.name[i], l, m);
		EXPECT_TRUE(l || m || sl.st_ino == sm.st_ino)
			TH_LOG("%.20s: another inode", race.name[i]);
		files += !l;
	}
	EXPECT_EQ(4, files);
	EXPECT_EQ(0, umount2(PT_MNT, 0)) TH_LOG("%s", strerror(errno));
}

int main(int argc, char **argv)
{
	pt_ext4_template(LOWER_MB);
	return test_harness_run(argc, argv);
}
