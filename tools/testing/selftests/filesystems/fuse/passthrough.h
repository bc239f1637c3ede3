/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the FUSE-BPF pure passthrough selftests: scratch lower
 * filesystems (tmpfs, ext4 on a loop device) and no-daemon mounts.
 */
#ifndef FUSE_SELFTEST_PASSTHROUGH_H
#define FUSE_SELFTEST_PASSTHROUGH_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <grp.h>
#include <linux/loop.h>

enum pt_lower_kind { PT_TMPFS, PT_EXT4 };

struct pt_lower {
	enum pt_lower_kind kind;
	char dir[PATH_MAX];	/* the lower filesystem's mount point */
	char img[PATH_MAX];	/* ext4 image file */
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
 * Mount a fresh lower filesystem of @size_mb MiB at @dir (created).
 * ext4 is made with mkfs.ext4 on a sparse image in the guest's /tmp.
 */
static inline int pt_lower_make(struct pt_lower *l, enum pt_lower_kind kind,
				const char *dir, int size_mb)
{
	char opts[64], dev[64], cmd[PATH_MAX + 128];
	int fd;

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
	fd = open(l->img, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)size_mb << 20)) {
		close(fd);
		return -1;
	}
	close(fd);
	snprintf(cmd, sizeof(cmd),
		 "mkfs.ext4 -q -F -b 4096 -I 256 -O ^has_journal %s", l->img);
	if (pt_run(cmd))
		return -1;
	l->loopfd = pt_loop_attach(l->img, dev, sizeof(dev));
	if (l->loopfd < 0)
		return -1;
	return mount(dev, dir, "ext4", 0, "user_xattr,acl");
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

#endif /* FUSE_SELFTEST_PASSTHROUGH_H */
