// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE-BPF mounts with both a daemon (fd=) and root_dir=<fd>: the kernel
 * serves every node from the lower directory, and neither the daemon nor
 * whoever opened /dev/fuse may change what the mount is.
 *
 * - init_stack_depth_chain: the max_stack_depth a daemon answers to
 *   FUSE_INIT with FUSE_PASSTHROUGH does not lower the stacking depth of a
 *   root_dir= mount, so a chain of such mounts over a tmpfs stops at
 *   FILESYSTEM_MAX_STACK_DEPTH with ELOOP instead of growing without bound.
 * - backing_creds_are_mounters: operations on the lower directory run with
 *   the credentials of the mounter, not those of the opener of /dev/fuse.
 * - root_dir_on_mounted_connection: root_dir= on a second mount of a
 *   connection that is already mounted fails with EINVAL, where it would
 *   otherwise be ignored.
 * - noidmap_despite_allow_idmap: a root_dir= mount never becomes
 *   idmappable, even when its daemon accepts FUSE_ALLOW_IDMAP, nor does a
 *   mount whose daemon accepts FUSE_PASSTHROUGH (it may back nodes); and
 *   neither gives file handles.
 *
 * Each test runs as root in a mount namespace of its own, on a tmpfs over
 * /tmp, with the raw /dev/fuse daemons of fuse_daemon.c.  A kernel warning
 * during a test fails it.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/sysmacros.h>
#include <linux/const.h>

#include "passthrough.h"
#include "fuse_daemon.h"

/* Not in the uapi headers of older systems */
#ifndef FUSE_PASSTHROUGH
#define FUSE_PASSTHROUGH	_BITULL(37)
#endif
#ifndef FUSE_NO_EXPORT_SUPPORT
#define FUSE_NO_EXPORT_SUPPORT	_BITULL(38)
#endif
#ifndef FUSE_ALLOW_IDMAP
#define FUSE_ALLOW_IDMAP	_BITULL(40)
#endif
#ifndef __NR_open_tree
#define __NR_open_tree		428
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr	442
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE		1
#endif
#ifndef OPEN_TREE_CLOEXEC
#define OPEN_TREE_CLOEXEC	O_CLOEXEC
#endif
#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH		0x1000
#endif
#ifndef MOUNT_ATTR_IDMAP
#define MOUNT_ATTR_IDMAP	0x00100000
#endif
#ifndef MOUNT_ATTR_SIZE_VER0
struct mount_attr {
	__u64 attr_set;
	__u64 attr_clr;
	__u64 propagation;
	__u64 userns_fd;
};

#define MOUNT_ATTR_SIZE_VER0	32
#endif

#define LOWER		PT_SCRATCH "/lower"
#define MNT1		PT_SCRATCH "/m1"
#define MNT2		PT_SCRATCH "/m2"
#define MNT3		PT_SCRATCH "/m3"
/* A /dev/fuse node of the test's own, on the scratch tmpfs */
#define DEV_FUSE	PT_SCRATCH "/fuse"
#define DEV_FUSE_MAJOR	10
#define DEV_FUSE_MINOR	229
#define NOBODY		65534
#define IDMAP_UID	1000
#define INIT_WAIT_MS	5000
#define LOWER_DATA	"data of the lower file\n"
#define SECRET_DATA	"root-only"

/* What a daemon's FUSE_INIT saw and did, shared with the test */
struct init_log {
	__u64 offered;		/* the kernel's flags, flags2 << 32 */
	unsigned int done;	/* replied to, and the reply taken */
};

static struct init_log *init_log(struct fuse_daemon *d)
{
	return d->priv;
}

static int init_logged(struct fuse_daemon *d,
		       const struct fuse_daemon_req *req)
{
	const struct fuse_init_in *in = req->arg;
	struct init_log *log = d->priv;
	int ret;

	if (req->arglen >= offsetof(struct fuse_init_in, flags2) +
			   sizeof(in->flags2)) {
		log->offered = in->flags;
		if (in->flags & FUSE_INIT_EXT)
			log->offered |= (__u64)in->flags2 << 32;
	}
	ret = fuse_daemon_default_handler(FUSE_INIT)(d, req);
	/*
	 * The kernel processes the reply to FUSE_INIT (a background request
	 * with an end callback) within the write to /dev/fuse: once that
	 * returned, the connection's parameters are set.
	 */
	if (!ret && d->replied)
		__atomic_store_n(&log->done, 1, __ATOMIC_SEQ_CST);
	return ret;
}

/* A daemon with an empty tree, accepting @init_flags more in FUSE_INIT */
static struct fuse_daemon *daemon_new(__u64 init_flags)
{
	struct fuse_daemon *d = fuse_daemon_new();
	void *log;

	if (!d)
		return NULL;
	log = mmap(NULL, sizeof(struct init_log), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (log == MAP_FAILED) {
		fuse_daemon_free(d);
		return NULL;
	}
	d->priv = log;
	d->init_flags |= init_flags;
	fuse_daemon_set_handler(d, FUSE_INIT, init_logged);
	return d;
}

/* Unmounts and frees @d; returns what fuse_daemon_umount() did */
static int daemon_put(struct fuse_daemon *d)
{
	int ret;

	if (!d)
		return 0;
	ret = fuse_daemon_umount(d);
	munmap(d->priv, sizeof(struct init_log));
	fuse_daemon_free(d);
	return ret;
}

/*
 * Mounts @d at @mnt (made if need be), on the /dev/fuse fd @devfd (the
 * daemon's from then on) or, if it is -1, a fresh one; with root_dir= of
 * @lower unless NULL and the options @extra unless NULL.  Returns 0 or a
 * negative errno.
 */
static int daemon_mount(struct fuse_daemon *d, int devfd, const char *mnt,
			const char *lower, const char *extra)
{
	int dirfd = -1, ret;
	char opts[128];

	if (mkdir(mnt, 0755) && errno != EEXIST)
		goto err;
	if (lower) {
		dirfd = open(lower, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dirfd < 0)
			goto err;
		snprintf(opts, sizeof(opts), "%s%sroot_dir=%d",
			 extra ? extra : "", extra ? "," : "", dirfd);
	} else {
		snprintf(opts, sizeof(opts), "%s", extra ? extra : "");
	}
	if (devfd >= 0)
		ret = fuse_daemon_mount_fd(d, devfd, mnt, opts);
	else
		ret = fuse_daemon_mount(d, mnt, opts);
	if (dirfd >= 0)
		close(dirfd);
	return ret;
err:
	ret = -errno;
	if (devfd >= 0)
		close(devfd);
	return ret;
}

/* Waits, a bounded time, until the kernel took @d's FUSE_INIT reply */
static bool daemon_wait_init(struct fuse_daemon *d)
{
	struct timespec ts = { 0, 1000000 };
	unsigned int waited = 0;

	while (!__atomic_load_n(&init_log(d)->done, __ATOMIC_SEQ_CST)) {
		if (waited++ >= INIT_WAIT_MS)
			return false;
		nanosleep(&ts, NULL);
	}
	return true;
}

/*
 * A mount namespace of the test's own with a tmpfs on /tmp (device nodes
 * allowed), and an empty lower directory, mode 0755, root's, in it.
 */
static int scratch(void)
{
	umask(022);
	if (pt_private_mounts() ||
	    mount("tmpfs", PT_SCRATCH, "tmpfs", 0, "mode=1777") ||
	    mkdir(LOWER, 0755))
		return -1;
	return 0;
}

static int put_file(const char *path, const char *data, mode_t mode)
{
	ssize_t len = strlen(data);
	int fd, ret = 0;

	fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, mode);
	if (fd < 0)
		return -1;
	if (write(fd, data, len) != len)
		ret = -1;
	if (close(fd))
		ret = -1;
	return ret;
}

/*
 * Each test: a mount namespace of its own, a tmpfs on /tmp and LOWER.  A
 * kernel warning fails the test that caused it, as far as the taint flags
 * tell.  The test's daemons are held in self->d, unmounted and freed by
 * harden_put(), at the latest in the teardown (also after a failed
 * ASSERT); its other mounts go with its namespace.
 */
#define HARDEN_DAEMONS	3

FIXTURE(harden) {
	unsigned long taint;
	struct fuse_daemon *d[HARDEN_DAEMONS];
};

/* The fixture's data, for the helpers below */
#define harden_data FIXTURE_DATA(harden)

/* A new daemon (daemon_new()), held by the fixture */
static struct fuse_daemon *harden_daemon(struct __test_metadata *_metadata,
					 harden_data *self,
					 __u64 init_flags)
{
	int i;

	for (i = 0; i < HARDEN_DAEMONS && self->d[i]; i++)
		;
	ASSERT_GT(HARDEN_DAEMONS, i);
	self->d[i] = daemon_new(init_flags);
	ASSERT_NE(NULL, self->d[i]);
	return self->d[i];
}

/* Unmounts and frees the fixture's daemons, the last made first */
static void harden_put(struct __test_metadata *_metadata,
		       harden_data *self)
{
	int i;

	for (i = HARDEN_DAEMONS - 1; i >= 0; i--) {
		if (self->d[i])
			EXPECT_EQ(0, daemon_put(self->d[i]));
		self->d[i] = NULL;
	}
}

FIXTURE_SETUP(harden)
{
	self->taint = pt_taint();
	ASSERT_EQ(0, scratch()) {
		TH_LOG("scratch: %s", strerror(errno));
	}
}

FIXTURE_TEARDOWN(harden)
{
	harden_put(_metadata, self);
	EXPECT_EQ(self->taint, pt_taint()) {
		TH_LOG("the kernel warned during this test: see dmesg");
	}
}

/*
 * A chain of root_dir= mounts, each over the previous one's mountpoint,
 * the first over the tmpfs of LOWER; each daemon accepts FUSE_PASSTHROUGH
 * and answers max_stack_depth @depth.  The tmpfs is at depth 0, the first
 * mount at 1, the second at 2 (FILESYSTEM_MAX_STACK_DEPTH): a third must
 * fail with ELOOP.  Today the daemon's answer becomes the depth of each
 * mount, and with 1 the chain grows without bound.
 *
 * With 2, the first mount may take depth 2 (the most of its own depth and
 * the daemon's; then the second fails with ELOOP) or keep its own (then
 * the third fails): either way the chain stops at two mounts.
 */
static void stack_chain(struct __test_metadata *_metadata,
			harden_data *self, __u32 depth)
{
	static const char * const mnts[] = { MNT1, MNT2, MNT3 };
	struct fuse_daemon **d = self->d;
	char path[PATH_MAX], buf[64];
	int n, ret = 0;
	ssize_t len;

	for (n = 0; n < 3; n++) {
		harden_daemon(_metadata, self, FUSE_PASSTHROUGH);
		d[n]->max_stack_depth = depth;
		ret = daemon_mount(d[n], -1, mnts[n], n ? mnts[n - 1] : LOWER,
				   NULL);
		if (ret)
			break;
		ASSERT_TRUE(daemon_wait_init(d[n])) {
			TH_LOG("depth %u: no FUSE_INIT for %s", depth,
			       mnts[n]);
		}
		ASSERT_TRUE(!!(init_log(d[n])->offered & FUSE_PASSTHROUGH)) {
			TH_LOG("FUSE_PASSTHROUGH not offered in FUSE_INIT");
		}
		if (n == 2)
			continue;
		/* Served from the tmpfs, through every mount of the chain */
		snprintf(path, sizeof(path), "%s/file", mnts[n]);
		len = pt_read_file(path, buf, sizeof(buf));
		EXPECT_EQ((ssize_t)strlen(LOWER_DATA), len) {
			TH_LOG("depth %u: reading %s: %s", depth, path,
			       len < 0 ? strerror(-len) : "short");
		}
		EXPECT_STREQ(LOWER_DATA, buf);
	}

	/* n mounts made, and the next one failed with ret */
	EXPECT_EQ(-ELOOP, ret) {
		TH_LOG("depth %u: %d mounts made, then %s", depth, n,
		       ret ? strerror(-ret) : "none refused");
	}
	EXPECT_TRUE(n == 2 || (depth == 2 && n == 1)) {
		TH_LOG("depth %u: %d mounts in the chain", depth, n);
	}
	if (n == 1)
		TH_LOG("depth %u: the first mount took the daemon's depth",
		       depth);

	harden_put(_metadata, self);
}

TEST_F(harden, init_stack_depth_chain)
{
	ASSERT_EQ(0, put_file(LOWER "/file", LOWER_DATA, 0644));
	stack_chain(_metadata, self, 1);
	stack_chain(_metadata, self, 2);
}

TEST_F(harden, backing_creds_are_mounters)
{
	struct fuse_daemon *d;
	char buf[64];
	struct stat st;
	int devfd, fd, ret;
	ssize_t len;

	ASSERT_EQ(0, put_file(LOWER "/secret", SECRET_DATA, 0600));
	ASSERT_EQ(0, stat(LOWER "/secret", &st));
	ASSERT_EQ(0U, st.st_uid);
	ASSERT_EQ(0, mkdir(LOWER "/private", 0700));
	ASSERT_EQ(0, put_file(LOWER "/private/f", SECRET_DATA, 0644));
	ASSERT_EQ(0, stat(LOWER, &st));
	ASSERT_EQ((mode_t)(S_IFDIR | 0755), st.st_mode);

	/* /dev/fuse may be root's only: nobody opens a node of our own */
	ASSERT_EQ(0, mknod(DEV_FUSE, S_IFCHR | 0666,
			   makedev(DEV_FUSE_MAJOR, DEV_FUSE_MINOR)));
	ASSERT_EQ(0, chmod(DEV_FUSE, 0666));
	/* The file's credentials are nobody's, the saved uid stays 0 */
	ASSERT_EQ(0, seteuid(NOBODY));
	devfd = open(DEV_FUSE, O_RDWR | O_CLOEXEC);
	ret = errno;
	ASSERT_EQ(0, seteuid(0));
	ASSERT_LE(0, devfd) {
		TH_LOG("opening /dev/fuse as nobody: %s", strerror(ret));
	}

	/* Mounted by root, allow_other: fd=, rootmode, user_id=0, group_id=0 */
	d = harden_daemon(_metadata, self, 0);
	ret = daemon_mount(d, devfd, MNT1, LOWER, "allow_other");
	ASSERT_EQ(0, ret) {
		TH_LOG("mounting: %s", strerror(-ret));
	}
	ASSERT_TRUE(daemon_wait_init(d));

	/* The mounter may read what only root may */
	len = pt_read_file(MNT1 "/secret", buf, sizeof(buf));
	EXPECT_EQ((ssize_t)strlen(SECRET_DATA), len) {
		TH_LOG("reading secret: %s",
		       len < 0 ? strerror(-len) : "short");
	}
	EXPECT_STREQ(SECRET_DATA, buf);

	/* Lookups in the lower run as the mounter: root passes a 0700 dir */
	EXPECT_EQ(0, stat(MNT1 "/private/f", &st)) {
		TH_LOG("looking up in a 0700 directory: %s", strerror(errno));
	}

	/* And create where only root may: the new lower file is root's */
	fd = open(MNT1 "/new", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
	EXPECT_LE(0, fd) {
		TH_LOG("creating: %s", strerror(errno));
	}
	if (fd >= 0) {
		EXPECT_EQ(0, close(fd));
		ASSERT_EQ(0, stat(LOWER "/new", &st));
		EXPECT_EQ(0U, st.st_uid);
		EXPECT_EQ(0U, st.st_gid);
	}
}

/* Options of a mount of the connection @devfd, with root_dir=@dirfd if >= 0 */
static void conn_opts(char *opts, size_t size, int devfd, int dirfd)
{
	int len;

	len = snprintf(opts, size,
		       "fd=%d,rootmode=40000,user_id=%u,group_id=%u",
		       devfd, getuid(), getgid());
	if (dirfd >= 0 && len >= 0 && (size_t)len < size)
		snprintf(opts + len, size - len, ",root_dir=%d", dirfd);
}

/*
 * mount(2) with an fd of /dev/fuse returns before FUSE_INIT is answered,
 * so no daemon is needed; nothing may look into the mounts, though.  A
 * second mount of the same fd shares the first one's superblock, made
 * without root_dir=: there root_dir= cannot take effect.
 */
TEST_F(harden, root_dir_on_mounted_connection)
{
	int devfd, dirfd, ret, err;
	char opts[128];

	ASSERT_EQ(0, mkdir(MNT1, 0755));
	ASSERT_EQ(0, mkdir(MNT2, 0755));
	ASSERT_EQ(0, mkdir(MNT3, 0755));
	devfd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, devfd);
	dirfd = open(LOWER, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, dirfd);

	conn_opts(opts, sizeof(opts), devfd, -1);
	ASSERT_EQ(0, mount("fuse_test", MNT1, "fuse", MS_NOSUID | MS_NODEV,
			   opts)) {
		TH_LOG("first mount: %s", strerror(errno));
	}

	conn_opts(opts, sizeof(opts), devfd, dirfd);
	ret = mount("fuse_test", MNT2, "fuse", MS_NOSUID | MS_NODEV, opts);
	err = errno;
	EXPECT_TRUE(ret == -1 && err == EINVAL) {
		TH_LOG("root_dir= on a mounted connection: %s",
		       ret ? strerror(err) : "mounted, root_dir= ignored");
	}

	/* Upstream behaviour: without root_dir=, it may be mounted again */
	conn_opts(opts, sizeof(opts), devfd, -1);
	EXPECT_EQ(0, mount("fuse_test", MNT3, "fuse", MS_NOSUID | MS_NODEV,
			   opts)) {
		TH_LOG("second mount without root_dir=: %s", strerror(errno));
	}

	umount2(MNT3, MNT_DETACH);
	umount2(MNT2, MNT_DETACH);
	EXPECT_EQ(0, umount2(MNT1, MNT_DETACH));
	EXPECT_EQ(0, close(dirfd));
	EXPECT_EQ(0, close(devfd));
}

/* Makes an idmapped clone of the mount at @mnt: 0 or -errno */
static int idmap_clone(const char *mnt, int userns)
{
	struct mount_attr attr = {
		.attr_set = MOUNT_ATTR_IDMAP,
		.userns_fd = userns,
	};
	int tree, ret = 0;

	tree = syscall(__NR_open_tree, AT_FDCWD, mnt,
		       OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (tree < 0)
		return -errno;
	if (syscall(__NR_mount_setattr, tree, "", AT_EMPTY_PATH, &attr,
		    sizeof(attr)))
		ret = -errno;
	/* The clone was never attached: it goes with its fd */
	close(tree);
	return ret;
}

/* name_to_handle_at() of @path: 0 or the errno */
static int handle_of(const char *path)
{
	struct {
		struct file_handle fh;
		unsigned char bytes[MAX_HANDLE_SZ];
	} h = { .fh.handle_bytes = MAX_HANDLE_SZ };
	int mount_id;

	return name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0) ?
	       errno : 0;
}

/*
 * Neither a root_dir= mount nor one whose daemon accepts FUSE_PASSTHROUGH
 * (its LOOKUP replies may back nodes) is idmapped or gives file handles
 * (those of nodes the kernel made would carry node ids of the kernel's),
 * whatever the daemon answers to FUSE_INIT.  The control, a plain daemon,
 * keeps both.
 */
TEST_F(harden, noidmap_despite_allow_idmap)
{
	struct fuse_daemon *plain, *backed, *backing;
	int userns, ret;

	userns = pt_userns_fd(IDMAP_UID);
	ASSERT_LE(0, userns) {
		TH_LOG("user namespace: %s", strerror(errno));
	}

	/* Control: without root_dir=, the daemon may allow idmapped mounts */
	plain = harden_daemon(_metadata, self, FUSE_ALLOW_IDMAP);
	ret = daemon_mount(plain, -1, MNT1, NULL, "default_permissions");
	ASSERT_EQ(0, ret) {
		TH_LOG("mounting without root_dir=: %s", strerror(-ret));
	}
	ASSERT_TRUE(daemon_wait_init(plain));
	ASSERT_TRUE(!!(init_log(plain)->offered & FUSE_ALLOW_IDMAP)) {
		TH_LOG("FUSE_ALLOW_IDMAP not offered in FUSE_INIT");
	}
	ret = idmap_clone(MNT1, userns);
	EXPECT_EQ(0, ret) {
		TH_LOG("idmapping the mount without root_dir=: %s",
		       strerror(-ret));
	}
	EXPECT_EQ(0, handle_of(MNT1));

	/* With root_dir=, the same answer to FUSE_INIT must not */
	backed = harden_daemon(_metadata, self, FUSE_ALLOW_IDMAP);
	ret = daemon_mount(backed, -1, MNT2, LOWER, "default_permissions");
	ASSERT_EQ(0, ret) {
		TH_LOG("mounting with root_dir=: %s", strerror(-ret));
	}
	ASSERT_TRUE(daemon_wait_init(backed));
	ret = idmap_clone(MNT2, userns);
	EXPECT_EQ(-EINVAL, ret) {
		TH_LOG("idmapping the root_dir= mount: %s",
		       ret ? strerror(-ret) : "done");
	}
	EXPECT_EQ(EOPNOTSUPP, handle_of(MNT2));

	/* Without root_dir=, a daemon accepting FUSE_PASSTHROUGH neither */
	backing = harden_daemon(_metadata, self, FUSE_ALLOW_IDMAP |
			       FUSE_NO_EXPORT_SUPPORT | FUSE_PASSTHROUGH);
	backing->max_stack_depth = 1;
	ret = daemon_mount(backing, -1, MNT3, NULL, "default_permissions");
	ASSERT_EQ(0, ret);
	ASSERT_TRUE(daemon_wait_init(backing));
	ret = idmap_clone(MNT3, userns);
	EXPECT_EQ(-EINVAL, ret) {
		TH_LOG("idmapping a backing daemon's mount: %s",
		       ret ? strerror(-ret) : "done");
	}
	ret = handle_of(MNT3);
	EXPECT_EQ(EOPNOTSUPP, ret) {
		TH_LOG("a handle of a backing daemon's mount: %s",
		       ret ? strerror(ret) : "given");
	}

	EXPECT_EQ(0, close(userns));
}

TEST_HARNESS_MAIN
