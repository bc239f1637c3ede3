/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the FUSE-BPF pure passthrough selftests: the harness,
 * scratch lower filesystems (tmpfs, ext4 on a loop device), no-daemon
 * mounts, the usual fixture and the comparison of results.
 */
#ifndef FUSE_SELFTEST_PASSTHROUGH_H
#define FUSE_SELFTEST_PASSTHROUGH_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/loop.h>
#include <linux/magic.h>
#include <linux/types.h>

/* See fuse_daemon_test.c: the 6.12 harness and -Wextra */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "../../kselftest_harness.h"
#pragma GCC diagnostic pop
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wclobbered"
#endif

/* Where the fixture of pt_env_lower() puts the lower and the mount */
#define PT_SCRATCH	"/tmp"
#define PT_LOWER	PT_SCRATCH "/lower"
#define PT_MNT		PT_SCRATCH "/mnt"

enum pt_lower_kind { PT_TMPFS, PT_EXT4 };

struct pt_lower {
	enum pt_lower_kind kind;
	char dir[PATH_MAX];	/* the lower filesystem's mount point */
	char img[PATH_MAX];	/* ext4 image file */
	char dev[64];		/* ext4: its loop device */
	int loopfd;
};

/*
 * Give the test its own mount namespace, so every mount it makes goes
 * away with it even when it fails half-way.
 */
static inline int pt_private_mounts(void)
{
	if (unshare(CLONE_NEWNS))
		return -1;
	return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
}

/* Set the effective capabilities to the permitted ones but @drop */
static inline int cap_effective(__u32 drop)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	int i;

	if (syscall(SYS_capget, &h, d))
		return -1;
	for (i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		d[i].effective = d[i].permitted;
	d[0].effective &= ~drop;
	return syscall(SYS_capset, &h, d);
}

static inline int pt_run(const char *cmd)
{
	int status = system(cmd);

	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Attach @img to a free loop device; returns an fd for the device. */
static inline int pt_loop_attach(const char *img, char *dev, size_t devlen)
{
	struct loop_config cfg = { 0 };
	int ctl, nr, fd, imgfd;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return -1;
	nr = ioctl(ctl, LOOP_CTL_GET_FREE);
	close(ctl);
	if (nr < 0)
		return -1;
	snprintf(dev, devlen, "/dev/loop%d", nr);
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	imgfd = open(img, O_RDWR | O_CLOEXEC);
	if (imgfd < 0) {
		close(fd);
		return -1;
	}
	cfg.fd = imgfd;
	if (ioctl(fd, LOOP_CONFIGURE, &cfg)) {
		close(imgfd);
		close(fd);
		return -1;
	}
	close(imgfd);
	return fd;
}

/*
 * Make an empty ext4 image of @size_mb MiB at @img with mkfs.ext4 @opts
 * (NULL: no journal, the usual lower)
 */
static inline int pt_mkfs_ext4(const char *img, int size_mb, const char *opts)
{
	char cmd[PATH_MAX + 128];
	int fd;

	fd = open(img, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)size_mb << 20)) {
		close(fd);
		return -1;
	}
	close(fd);
	snprintf(cmd, sizeof(cmd), "mkfs.ext4 -q -F -b 4096 -I 256 %s %s",
		 opts ? opts : "-O ^has_journal", img);
	return pt_run(cmd) ? -1 : 0;
}

/* Copy the data of the sparse file @in to the new file @path */
static inline int pt_copy_sparse(int in, const char *path)
{
	off_t size = lseek(in, 0, SEEK_END), data, hole;
	static char buf[65536];
	int out, ret = -1;
	ssize_t n;

	out = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (out < 0)
		return -1;
	if (size < 0 || ftruncate(out, size))
		goto out;
	for (data = 0; data < size; data = hole) {
		data = lseek(in, data, SEEK_DATA);
		if (data < 0)
			break;
		hole = lseek(in, data, SEEK_HOLE);
		if (hole < 0)
			goto out;
		while (data < hole) {
			n = pread(in, buf, sizeof(buf) < (size_t)(hole - data) ?
				  sizeof(buf) : (size_t)(hole - data), data);
			if (n <= 0 || pwrite(out, buf, n, data) != n)
				goto out;
			data += n;
		}
	}
	ret = 0;
out:
	close(out);
	return ret;
}

/*
 * mkfs.ext4 runs once, from main(), into a template image that
 * pt_lower_make() copies for each ext4 lower of the same size: a fork
 * and two execs per test are slow under TCG.  The image is unlinked at
 * once, the fd keeps it.  Without it (not root, no mkfs) pt_lower_make()
 * runs mkfs.ext4 itself.
 */
static int pt_template_fd = -1;
static int pt_template_mb;

static inline void pt_ext4_template(int size_mb)
{
	char img[64];

	if (geteuid())
		return;
	snprintf(img, sizeof(img), PT_SCRATCH "/pt_ext4.%d.img",
		 getpid());
	if (!pt_mkfs_ext4(img, size_mb, NULL)) {
		pt_template_fd = open(img, O_RDONLY | O_CLOEXEC);
		pt_template_mb = size_mb;
	}
	unlink(img);
}

/*
 * The lower must not outlive the test even when teardown does not run
 * (a failed ASSERT): the loop device goes on its last close, and the
 * image is unlinked at once, the loop device holds it.
 */
static inline void pt_lower_autoclear(struct pt_lower *l)
{
	struct loop_info64 info;

	if (l->loopfd < 0)
		return;
	if (!ioctl(l->loopfd, LOOP_GET_STATUS64, &info)) {
		info.lo_flags |= LO_FLAGS_AUTOCLEAR;
		ioctl(l->loopfd, LOOP_SET_STATUS64, &info);
	}
	if (l->img[0] && !unlink(l->img))
		l->img[0] = '\0';
}

/*
 * Mount a fresh lower filesystem of @size_mb MiB at @dir (created).
 * ext4 is a copy of the template of pt_ext4_template() when it has that
 * size, else made with mkfs.ext4, on a sparse image next to @dir.
 * noinit_itable: no background zeroing of inode tables to slow the test
 * down.
 */
static inline int pt_lower_make(struct pt_lower *l, enum pt_lower_kind kind,
				const char *dir, int size_mb)
{
	char opts[64];
	int ret;

	memset(l, 0, sizeof(*l));
	l->kind = kind;
	l->loopfd = -1;
	snprintf(l->dir, sizeof(l->dir), "%s", dir);
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -1;
	if (kind == PT_TMPFS) {
		snprintf(opts, sizeof(opts), "size=%dm,mode=0755", size_mb);
		return mount("tmpfs", dir, "tmpfs", 0, opts);
	}
	snprintf(l->img, sizeof(l->img), "%s.img", dir);
	if (pt_template_fd >= 0 && pt_template_mb == size_mb)
		ret = pt_copy_sparse(pt_template_fd, l->img);
	else
		ret = pt_mkfs_ext4(l->img, size_mb, NULL);
	if (ret)
		return -1;
	l->loopfd = pt_loop_attach(l->img, l->dev, sizeof(l->dev));
	if (l->loopfd < 0)
		return -1;
	if (mount(l->dev, dir, "ext4", 0, "user_xattr,acl,noinit_itable"))
		return -1;
	pt_lower_autoclear(l);
	return 0;
}

static inline void pt_lower_destroy(struct pt_lower *l)
{
	umount2(l->dir, MNT_DETACH);
	if (l->loopfd >= 0) {
		ioctl(l->loopfd, LOOP_CLR_FD);
		close(l->loopfd);
		l->loopfd = -1;
	}
	if (l->img[0])
		unlink(l->img);
}

/* Write @data to @path, created with @mode if need be, truncated */
static inline int pt_write_file(const char *path, const char *data,
				mode_t mode)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, mode);
	size_t len = strlen(data);
	ssize_t n = 0;

	if (fd < 0)
		return -1;
	if (len)
		n = write(fd, data, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

/* Write @s to the existing file @path (a /proc or /sys knob) */
static inline int pt_write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/*
 * Up to @len - 1 bytes of a file, NUL terminated: the length, or -errno
 * (errno stays set)
 */
static inline ssize_t pt_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	buf[0] = '\0';
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	else
		buf[n] = '\0';
	close(fd);
	if (n < 0)
		errno = -n;
	return n;
}

/* The names in @dir but "." and "..", sorted, in @buf; how many */
static inline int pt_dir_names(const char *dir, char *buf, size_t len)
{
	struct dirent **ents;
	size_t used = 0;
	int n, i, count = 0;

	buf[0] = '\0';
	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++) {
		const char *d = ents[i]->d_name;

		if (strcmp(d, ".") && strcmp(d, "..")) {
			if (used < len)
				used += snprintf(buf + used, len - used, "%s ",
						 d);
			count++;
		}
		free(ents[i]);
	}
	free(ents);
	return count;
}

/*
 * Mount a no-daemon FUSE-BPF passthrough of @lower at @target.  The
 * root_dir fd is closed once the mount exists.  @extra: more options, or
 * NULL.  allow_other lets the unprivileged-caller tests in.
 */
static inline int pt_mount(const char *lower, const char *target,
			   const char *extra)
{
	char opts[256];
	int fd, ret, saved;

	if (mkdir(target, 0755) && errno != EEXIST)
		return -1;
	fd = open(lower, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	snprintf(opts, sizeof(opts), "root_dir=%d,no_daemon,allow_other%s%s",
		 fd, extra ? "," : "", extra ? extra : "");
	ret = mount("fuse-bpf", target, "fuse", 0, opts);
	saved = errno;
	close(fd);
	errno = saved;
	return ret;
}

/* Run @fn(@arg) in a child with uid/gid @id; returns its exit status. */
static inline int pt_as_user(uid_t id, int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (setgroups(0, NULL) || setresgid(id, id, id) ||
		    setresuid(id, id, id))
			_exit(125);
		_exit(fn(arg));
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 126;
}

/* Write the map "0 @outside 1" of the user namespace of @pid */
static inline int pt_write_map(pid_t pid, const char *map, uid_t outside)
{
	char path[64], line[32];
	int fd, len, ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, map);
	len = snprintf(line, sizeof(line), "0 %d 1\n", outside);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write(fd, line, len) != len)
		ret = -1;
	close(fd);
	return ret;
}

/* An fd of a user namespace mapping its ids 0 to @outside, or -1 */
static inline int pt_userns_fd(uid_t outside)
{
	int ready[2], hold[2], fd = -1;
	char path[64], c;
	pid_t pid;

	if (pipe2(ready, O_CLOEXEC))
		return -1;
	if (pipe2(hold, O_CLOEXEC)) {
		close(ready[0]);
		close(ready[1]);
		return -1;
	}
	pid = fork();
	if (!pid) {
		/* Holds the namespace until the parent has an fd of it */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(ready[0]);
		close(hold[1]);
		if (unshare(CLONE_NEWUSER) || write(ready[1], "1", 1) != 1)
			_exit(1);
		_exit(read(hold[0], &c, 1) < 0);
	}
	close(ready[1]);
	close(hold[0]);
	if (pid > 0 && read(ready[0], &c, 1) == 1 &&
	    !pt_write_map(pid, "uid_map", outside) &&
	    !pt_write_map(pid, "gid_map", outside)) {
		snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	close(ready[0]);
	close(hold[1]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return fd;
}

/* Aborts the FUSE connection of the mount at @mnt through fusectl */
static inline int pt_abort_conn(const char *mnt)
{
	char path[PATH_MAX];
	struct stat st;
	int fd, ret;

	if (stat(mnt, &st))
		return -errno;
	if (mount("fusectl", "/sys/fs/fuse/connections", "fusectl", 0, NULL) &&
	    errno != EBUSY)
		return -errno;
	snprintf(path, sizeof(path), "/sys/fs/fuse/connections/%u/abort",
		 minor(st.st_dev));
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = write(fd, "1", 1) == 1 ? 0 : -errno;
	close(fd);
	return ret;
}

/*
 * PT_FAKE=1 in the environment bind mounts the lower instead of mounting
 * FUSE-BPF: a check of the tests themselves on a kernel without FUSE-BPF,
 * never set in real runs.
 */
static inline bool pt_fake_mode(void)
{
	const char *fake = getenv("PT_FAKE");

	return fake && !strcmp(fake, "1");
}

/* pt_mount(), or a bind mount with PT_FAKE=1 */
static inline int pt_mount_or_bind(const char *lower, const char *target)
{
	if (!pt_fake_mode())
		return pt_mount(lower, target, NULL);
	if (mkdir(target, 0755) && errno != EEXIST)
		return -1;
	return mount(lower, target, NULL, MS_BIND, NULL);
}

/* Taint flags of kernel warnings: B (bad page, KASAN), D (oops), W */
#define PT_TAINT_SPLAT	((1UL << 5) | (1UL << 7) | (1UL << 9))

static inline unsigned long pt_taint(void)
{
	char buf[32] = "";
	int fd = open("/proc/sys/kernel/tainted", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf) - 1) < 0)
			buf[0] = '\0';
		close(fd);
	}
	return strtoul(buf, NULL, 10) & PT_TAINT_SPLAT;
}

/*
 * The usual fixture: a mount namespace of its own with a fresh tmpfs on
 * /tmp, so nothing the test mounts outlives it; a lower of one kind at
 * PT_LOWER and its passthrough at PT_MNT.
 */
struct pt_env {
	struct pt_lower lower;
	unsigned long taint;
	/* What a test holds, released first by pt_env_teardown(), or NULL */
	void (*release)(void *arg);
	void *release_arg;
};

/* First half of the setup: the lower, of @kind and @size_mb MiB */
static inline void pt_env_lower(struct __test_metadata *_metadata,
				struct pt_env *e, enum pt_lower_kind kind,
				int size_mb)
{
	struct statfs sfs;

	memset(e, 0, sizeof(*e));
	umask(022);
	e->lower.loopfd = -1;
	e->taint = pt_taint();
	ASSERT_EQ(0, pt_private_mounts());
	ASSERT_EQ(0, mount("tmpfs", PT_SCRATCH, "tmpfs", 0, "mode=1777"));
	ASSERT_EQ(0, pt_lower_make(&e->lower, kind, PT_LOWER, size_mb))
		TH_LOG("lower: %s", strerror(errno));
	ASSERT_EQ(0, statfs(PT_LOWER, &sfs));
	ASSERT_EQ(kind == PT_EXT4 ? EXT4_SUPER_MAGIC : TMPFS_MAGIC,
		  sfs.f_type);
}

/* A 0777 directory "pub" on the lower, where uid 65534 may create things */
static inline void pt_make_pub(struct __test_metadata *_metadata)
{
	ASSERT_EQ(0, mkdir(PT_LOWER "/pub", 0777));
	ASSERT_EQ(0, chmod(PT_LOWER "/pub", 0777));
}

/* pt_env_lower(), then "pub" on the lower */
static inline void pt_env_lower_pub(struct __test_metadata *_metadata,
				    struct pt_env *e, enum pt_lower_kind kind,
				    int size_mb)
{
	pt_env_lower(_metadata, e, kind, size_mb);
	pt_make_pub(_metadata);
}

/* Second half: the passthrough (a bind mount with PT_FAKE=1) */
static inline void pt_env_mount(struct __test_metadata *_metadata)
{
	struct statfs sfs;

	ASSERT_EQ(0, pt_mount_or_bind(PT_LOWER, PT_MNT))
		TH_LOG("fuse-bpf mount: %s", strerror(errno));
	if (pt_fake_mode())
		return;
	ASSERT_EQ(0, statfs(PT_MNT, &sfs));
	ASSERT_EQ(FUSE_SUPER_MAGIC, sfs.f_type);
}

/*
 * A kernel warning (or KASAN report) fails the test that caused it, as
 * far as the taint flags tell: only the first warning of a boot is seen.
 */
static inline void pt_env_teardown(struct __test_metadata *_metadata,
				   struct pt_env *e)
{
	if (e->release)
		e->release(e->release_arg);
	umount2(PT_MNT, MNT_DETACH);
	pt_lower_destroy(&e->lower);
	EXPECT_EQ(e->taint, pt_taint())
		TH_LOG("the kernel warned during this test: see dmesg");
}

/*
 * The fixture of the passthrough tests, @name, with a variant of each
 * lower kind (tmpfs, ext4): self->env is a pt_env whose lower
 * @lower(_metadata, &self->env, kind, @size_mb) makes (pt_env_lower(),
 * or a function of the same type that calls it or does as it does), and
 * its passthrough at PT_MNT; pt_env_teardown() undoes both.
 */
#define PT_FIXTURE(name, lower, size_mb)				\
	FIXTURE(name) {							\
		struct pt_env env;					\
	};								\
	FIXTURE_VARIANT(name) {						\
		enum pt_lower_kind kind;				\
	};								\
	FIXTURE_VARIANT_ADD(name, tmpfs) {				\
		.kind = PT_TMPFS,					\
	};								\
	FIXTURE_VARIANT_ADD(name, ext4) {				\
		.kind = PT_EXT4,					\
	};								\
	FIXTURE_SETUP(name)						\
	{								\
		lower(_metadata, &self->env, variant->kind, size_mb);	\
		pt_env_mount(_metadata);				\
	}								\
	FIXTURE_TEARDOWN(name)						\
	{								\
		pt_env_teardown(_metadata, &self->env);			\
	}

#ifdef __LIBBPF_LIBBPF_H
/*
 * BPF skeletons and struct_ops links a test loads and registers, held by
 * its fixture (struct pt_bpf bpf) so that FIXTURE_TEARDOWN releases them
 * with pt_bpf_release(), also after a failed ASSERT.  For a program that
 * includes <bpf/libbpf.h> first.
 */
#define PT_BPF_MAX	4

struct pt_bpf {
	void *skel[PT_BPF_MAX];		/* bpftool's struct of each */
	struct bpf_object_skeleton *desc[PT_BPF_MAX];
	struct bpf_link *link[PT_BPF_MAX];
	int nr_skel, nr_link;
};

/* Holds the skeleton @skel (NULL: its open or load failed) */
static inline void *pt_bpf_hold(struct __test_metadata *_metadata,
				struct pt_bpf *b, void *skel,
				struct bpf_object_skeleton *desc,
				const char *name)
{
	ASSERT_NE(NULL, skel)
		TH_LOG("loading %s: %s", name, strerror(errno));
	ASSERT_GT(PT_BPF_MAX, b->nr_skel);
	b->desc[b->nr_skel] = desc;
	b->skel[b->nr_skel++] = skel;
	return skel;
}

/*
 * The skeleton @name opened and loaded (bpftool's name__open_and_load()),
 * or opened only (name__open()), held by @b
 */
#define PT_BPF_LOAD(b, name) ({						\
	struct name *__s = name##__open_and_load();			\
	(struct name *)pt_bpf_hold(_metadata, b, __s,			\
				   __s ? __s->skeleton : NULL, #name);	\
})
#define PT_BPF_OPEN(b, name) ({						\
	struct name *__s = name##__open();				\
	(struct name *)pt_bpf_hold(_metadata, b, __s,			\
				   __s ? __s->skeleton : NULL, #name);	\
})

/* Holds @link, if not NULL (and aborts if @b is full) */
static inline struct bpf_link *pt_bpf_hold_link(struct pt_bpf *b,
						struct bpf_link *link)
{
	if (link) {
		if (b->nr_link >= PT_BPF_MAX)
			abort();
		b->link[b->nr_link++] = link;
	}
	return link;
}

/* Registers the struct_ops map @map: its link, held by @b */
static inline struct bpf_link *pt_bpf_register(struct __test_metadata *_metadata,
					       struct pt_bpf *b,
					       struct bpf_map *map)
{
	struct bpf_link *link = bpf_map__attach_struct_ops(map);

	ASSERT_NE(NULL, link)
		TH_LOG("registering %s: %s", bpf_map__name(map),
		       strerror(errno));
	return pt_bpf_hold_link(b, link);
}

/* Unregisters the held @link now */
static inline void pt_bpf_unregister(struct pt_bpf *b, struct bpf_link *link)
{
	int i;

	for (i = 0; i < b->nr_link; i++) {
		if (b->link[i] == link) {
			b->nr_link--;
			memmove(&b->link[i], &b->link[i + 1],
				(b->nr_link - i) * sizeof(b->link[0]));
			break;
		}
	}
	bpf_link__destroy(link);
}

/*
 * Unregisters the links, then destroys the skeletons (as bpftool's
 * name__destroy() does), the last held first
 */
static inline void pt_bpf_release(struct pt_bpf *b)
{
	while (b->nr_link > 0)
		bpf_link__destroy(b->link[--b->nr_link]);
	while (b->nr_skel > 0) {
		b->nr_skel--;
		if (b->desc[b->nr_skel])
			bpf_object__destroy_skeleton(b->desc[b->nr_skel]);
		free(b->skel[b->nr_skel]);
	}
}
#endif /* __LIBBPF_LIBBPF_H */

/* Result of a syscall: the return value, and errno when it failed */
struct res {
	long ret;
	int err;
};

/* The errno of a call that returned @ret, 0 when it succeeded */
static inline int err_of(long ret)
{
	return ret < 0 ? errno : 0;
}

/* The same for a call returning an fd, closed if it was opened */
static inline int err_fd(int fd)
{
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static inline struct res rs(long ret)
{
	return (struct res){ ret, ret < 0 ? errno : 0 };
}

/* The mount must give the same result and errno as the lower */
#define SAME(what, m, l) do { \
	struct res __m = (m), __l = (l); \
	EXPECT_TRUE(__m.ret == __l.ret && __m.err == __l.err) \
		TH_LOG("%s: mount %ld (%s), lower %ld (%s)", what, \
		       __m.ret, strerror(__m.err), __l.ret, \
		       strerror(__l.err)); \
} while (0)

/* "@root/@rel" in one of 16 rotating buffers */
static inline char *path_in(const char *root, const char *rel)
{
	static char bufs[16][PATH_MAX];
	static unsigned int next;
	char *buf = bufs[next++ % 16];

	snprintf(buf, PATH_MAX, "%s/%s", root, rel);
	return buf;
}

/*
 * One race of @n (at most 64) processes creating a file with O_EXCL, let
 * go at once: the even ones at @path, the odd ones at @odd_path (the same
 * file reached another way, or @path again).  Counts the winners and the
 * losers that got EEXIST.  Returns 0, or -1 if a racer could not start or
 * did not exit normally.
 */
static inline int pt_excl_race(const char *path, const char *odd_path,
			       int n, int *won, int *lost)
{
	pid_t pids[64];
	int go[2], i, status, ret = 0;
	char c;

	*won = 0;
	*lost = 0;
	if (n > 64 || pipe(go))
		return -1;
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			n = i;
			ret = -1;
			break;
		}
		if (pids[i])
			continue;
		close(go[1]);
		if (read(go[0], &c, 1) != 0)
			_exit(3);
		if (open(i & 1 ? odd_path : path,
			 O_CREAT | O_EXCL | O_WRONLY, 0644) >= 0)
			_exit(0);
		if (errno == EEXIST)
			_exit(1);
		fprintf(stderr, "# racer: %s\n", strerror(errno));
		_exit(2);
	}
	close(go[0]);
	close(go[1]);	/* go */
	for (i = 0; i < n; i++) {
		if (waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status)) {
			ret = -1;
			continue;
		}
		*won += WEXITSTATUS(status) == 0;
		*lost += WEXITSTATUS(status) == 1;
	}
	return ret;
}

#define LO(rel) path_in(PT_LOWER, rel)
#define MN(rel) path_in(PT_MNT, rel)

/* xorshift64: the seeded generator of the random tests */
static inline __u64 pt_rnd(__u64 *s)
{
	__u64 x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* Seconds, CLOCK_MONOTONIC */
static inline double pt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A number from the environment, or @def */
static inline unsigned long long pt_env_num(const char *name,
					    unsigned long long def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : def;
}

/* Make @n empty files @fmt (with one %d) in @dir */
static inline int pt_make_files(const char *dir, const char *fmt, int n)
{
	char path[PATH_MAX], name[NAME_MAX + 1];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), fmt, i);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		if (pt_write_file(path, "", 0644))
			return -1;
	}
	return 0;
}

/*
 * Read @dir with getdents64() into a buffer of @bufsize bytes: the
 * entries the first call returns in *@first, and all of them (0 if one of
 * the @n names "@prefix%d" came twice or not at all, or if a call failed).
 */
static inline int pt_getdents_count(const char *dir, const char *prefix,
				    int n, size_t bufsize, int *first)
{
	int fd, i, nr = 0, calls = 0, total = 0;
	size_t plen = strlen(prefix);
	bool *seen = calloc(n, sizeof(*seen));
	char *buf = malloc(bufsize);
	long len = -1, off;

	*first = -1;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !buf || !seen)
		goto out;
	while ((len = syscall(SYS_getdents64, fd, buf, bufsize)) > 0) {
		for (off = 0; off < len; nr++) {
			struct dirent64 *de = (void *)(buf + off);

			off += de->d_reclen;
			if (strncmp(de->d_name, prefix, plen) ||
			    sscanf(de->d_name + plen, "%d", &i) != 1 ||
			    i < 0 || i >= n)
				continue;
			if (seen[i])
				goto out;
			seen[i] = true;
		}
		if (!calls++)
			*first = nr;
	}
	for (i = 0; len == 0 && i < n && seen[i]; i++)
		;
	total = len == 0 && i == n ? nr : 0;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	free(seen);
	return total;
}

/* @path holds exactly @data */
#define EXPECT_FILE(data, path) do { \
	const char *__data = (data), *__path = (path); \
	char __buf[128]; \
	ssize_t __n = pt_read_file(__path, __buf, sizeof(__buf)); \
	EXPECT_EQ((ssize_t)strlen(__data), __n) \
		TH_LOG("reading %s: %s", __path, \
		       __n < 0 ? strerror(-__n) : __buf); \
	EXPECT_STREQ(__data, __buf); \
} while (0)

/* The names in @dir but "." and "..", sorted, one space after each */
#define EXPECT_NAMES(names, dir) do { \
	const char *__dir = (dir); \
	char __buf[256]; \
	int __n = pt_dir_names(__dir, __buf, sizeof(__buf)); \
	EXPECT_LE(0, __n) \
		TH_LOG("listing %s: %s", __dir, strerror(errno)); \
	EXPECT_STREQ(names, __buf); \
} while (0)

#endif /* FUSE_SELFTEST_PASSTHROUGH_H */
