// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE-BPF no-daemon passthrough under injected faults.
 *
 * Every family of operations (names, attributes and xattrs, file I/O,
 * directories, lookups of cold names) runs through the mount while the
 * kernel's fault injectors fail some of its allocations (failslab,
 * fail_page_alloc) or the FUSE-BPF helpers marked ALLOW_ERROR_INJECTION
 * (fail_function).  Injection is limited to this process (task-filter
 * and /proc/thread-self/make-it-fail) and switched on around the
 * operations only.  Each call may fail or succeed; afterwards the mount
 * must still work, the kernel must not have warned (taint, and the
 * workbench's scan of the log), and the ext4 lower must pass e2fsck -fn.
 * The number of failures injected is printed per family and injector,
 * and each injector must have been hit.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/xattr.h>
#include <sys/file.h>

#include "passthrough.h"

#define LOWER_MB	64
#define DEBUGFS		"/sys/kernel/debug"
#define ROUNDS		20
#define TIMES		1000000L

static long get_long(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? strtol(buf, NULL, 0) : -1;
}

/* One fault injector: its debugfs directory and what it fails */
struct injector {
	const char *name;
	const char *dir;
	const char *func;	/* fail_function: the function */
	const char *retval;	/* fail_function: what it returns */
};

/* retval is read as an unsigned 64-bit number */
#define EIO_RETVAL	"0xfffffffffffffffb"
#define ENOMEM_RETVAL	"0xfffffffffffffff4"

#define INJECT_FUNC(fn, ret) \
	{ .name = "fail_function:" #fn, .dir = DEBUGFS "/fail_function", \
	  .func = #fn, .retval = ret }

static const struct injector injectors[] = {
	{ .name = "failslab", .dir = DEBUGFS "/failslab" },
	{ .name = "fail_page_alloc", .dir = DEBUGFS "/fail_page_alloc" },
	INJECT_FUNC(fuse_bpf_run, EIO_RETVAL),
	INJECT_FUNC(fuse_bpf_getattr_lower, EIO_RETVAL),
	INJECT_FUNC(fuse_bpf_iget, ENOMEM_RETVAL),
	INJECT_FUNC(fuse_bpf_lookup_child, ENOMEM_RETVAL),
	INJECT_FUNC(fuse_bpf_open_backing, ENOMEM_RETVAL),
	INJECT_FUNC(fuse_bpf_get_caller_creds, "0"),
	INJECT_FUNC(fuse_bpf_create_creds, ENOMEM_RETVAL),
};

static int inj_attr(const struct injector *inj, const char *attr,
		    const char *val)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", inj->dir, attr);
	return pt_write_str(path, val);
}

/* Arm @inj: fail every call it sees in a task marked make-it-fail */
static int inj_arm(const struct injector *inj, int probability)
{
	char buf[32], path[PATH_MAX];

	if (inj->func) {
		if (pt_write_str(DEBUGFS "/fail_function/inject", inj->func))
			return -1;
		snprintf(path, sizeof(path), "%s/%s/retval", inj->dir,
			 inj->func);
		if (pt_write_str(path, inj->retval))
			return -1;
	} else {
		if (inj_attr(inj, "ignore-gfp-wait", "N"))
			return -1;
		if (!strcmp(inj->name, "fail_page_alloc") &&
		    (inj_attr(inj, "ignore-gfp-highmem", "N") ||
		     inj_attr(inj, "min-order", "0")))
			return -1;
	}
	snprintf(buf, sizeof(buf), "%d", probability);
	if (inj_attr(inj, "task-filter", "Y") ||
	    inj_attr(inj, "verbose", "0") ||
	    inj_attr(inj, "interval", "1") ||
	    inj_attr(inj, "space", "0") ||
	    inj_attr(inj, "probability", buf))
		return -1;
	snprintf(buf, sizeof(buf), "%ld", TIMES);
	return inj_attr(inj, "times", buf);
}

/* Disarm @inj; returns the number of failures it injected */
static long inj_disarm(const struct injector *inj)
{
	char path[PATH_MAX];
	long left;

	snprintf(path, sizeof(path), "%s/times", inj->dir);
	left = get_long(path);
	inj_attr(inj, "probability", "0");
	if (inj->func)
		pt_write_str(DEBUGFS "/fail_function/inject", "\n");
	return left < 0 ? -1 : TIMES - left;
}

/*
 * Mark this task for the injectors, or unmark it.  The file is opened
 * beforehand: a write to it allocates nothing, so it cannot itself be
 * failed, but an open could be.  Tried again a few times all the same.
 */
static int make_it_fail_fd = -1;

static int make_it_fail(bool on)
{
	int i;

	if (make_it_fail_fd < 0)
		make_it_fail_fd = open("/proc/thread-self/make-it-fail",
				       O_WRONLY | O_CLOEXEC);
	for (i = 0; i < 100; i++)
		if (pwrite(make_it_fail_fd, on ? "1" : "0", 1, 0) == 1)
			return 0;
	return -1;
}

/* ------------------------------------------------------------------ */
/* The families: each runs a round of its calls, results ignored        */
/* ------------------------------------------------------------------ */

static char *mn(int round, const char *what)
{
	static char bufs[16][PATH_MAX];
	static unsigned int next;
	char *p = bufs[next++ % 16];

	snprintf(p, PATH_MAX, PT_MNT "/%s%d", what, round);
	return p;
}

static unsigned long calls;

#define CALL(x) do { (void)(x); calls++; } while (0)

static void names_round(int r)
{
	int fd;

	CALL(mkdir(mn(r, "d"), 0755));
	fd = open(mn(r, "f"), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	CALL(fd);
	if (fd >= 0)
		close(fd);
	CALL(mknod(mn(r, "p"), S_IFIFO | 0644, 0));
	CALL(symlink("f", mn(r, "s")));
	CALL(link(mn(r, "f"), mn(r, "h")));
	CALL(rename(mn(r, "h"), mn(r, "g")));
	CALL(renameat2(AT_FDCWD, mn(r, "g"), AT_FDCWD, mn(r, "s"),
		       RENAME_EXCHANGE));
	CALL(rename(mn(r, "d"), mn(r, "e")));
	fd = open(PT_MNT, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	CALL(fd);
	if (fd >= 0)
		close(fd);
	CALL(unlink(mn(r, "f")));
	CALL(unlink(mn(r, "g")));
	CALL(unlink(mn(r, "s")));
	CALL(unlink(mn(r, "p")));
	CALL(rmdir(mn(r, "e")));
}

static void attrs_round(int r)
{
	static const struct timespec ts[2] = { { 1, 0 }, { 2, 0 } };
	char buf[256];
	struct stat st;
	struct statfs sfs;
	int fd;

	fd = open(mn(r, "a"), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
	CALL(fd);
	CALL(stat(mn(r, "a"), &st));
	CALL(chmod(mn(r, "a"), 0600));
	CALL(chown(mn(r, "a"), 1000, 1000));
	CALL(utimensat(AT_FDCWD, mn(r, "a"), ts, 0));
	CALL(truncate(mn(r, "a"), 4096));
	CALL(setxattr(mn(r, "a"), "user.k", "v", 1, 0));
	CALL(getxattr(mn(r, "a"), "user.k", buf, sizeof(buf)));
	CALL(listxattr(mn(r, "a"), buf, sizeof(buf)));
	CALL(removexattr(mn(r, "a"), "user.k"));
	CALL(setxattr(mn(r, "a"), "trusted.k", "v", 1, 0));
	CALL(getxattr(mn(r, "a"), "system.posix_acl_access", buf,
		      sizeof(buf)));
	CALL(statfs(PT_MNT, &sfs));
	CALL(access(mn(r, "a"), R_OK | W_OK));
	if (fd >= 0) {
		CALL(fchmod(fd, 0644));
		CALL(ftruncate(fd, 1));
		CALL(fstat(fd, &st));
		close(fd);
	}
	CALL(unlink(mn(r, "a")));
}

static void file_round(int r)
{
	static char buf[65536];
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_len = 10 };
	struct stat st;
	int fd, fd2;
	void *map;

	fd = open(mn(r, "io"), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
	CALL(fd);
	if (fd < 0)
		return;
	CALL(pwrite(fd, buf, sizeof(buf), 0));
	CALL(pread(fd, buf, sizeof(buf), 4096));
	CALL(fsync(fd));
	CALL(fdatasync(fd));
	CALL(fallocate(fd, 0, 0, 1 << 20));
	CALL(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
		       8192));
	CALL(lseek(fd, 0, SEEK_DATA));
	CALL(lseek(fd, 0, SEEK_HOLE));
	CALL(fcntl(fd, F_SETLK, &fl));
	CALL(flock(fd, LOCK_EX | LOCK_NB));
	map = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CALL(map == MAP_FAILED ? -1 : 0);
	if (map != MAP_FAILED) {
		/*
		 * A fault that fails, or one past the end of a file whose
		 * writes failed, is SIGBUS, not an error to look at.
		 */
		make_it_fail(false);
		if (!fstat(fd, &st) && st.st_size >= 8192)
			memset(map, 'm', 8192);
		make_it_fail(true);
		CALL(msync(map, 8192, MS_SYNC));
		munmap(map, 8192);
	}
	fd2 = open(mn(r, "io2"), O_CREAT | O_RDWR | O_TRUNC | O_CLOEXEC,
		   0644);
	CALL(fd2);
	if (fd2 >= 0) {
		CALL(copy_file_range(fd, NULL, fd2, NULL, 65536, 0));
		CALL(sendfile(fd2, fd, NULL, 4096));
		close(fd2);
	}
	close(fd);
	CALL(unlink(mn(r, "io")));
	CALL(unlink(mn(r, "io2")));
}

static void dirs_round(int r)
{
	struct dirent *de;
	DIR *dir;
	int i, n = 0;

	for (i = 0; i < 20; i++)
		CALL(mknod(mn(r * 100 + i, "de"), S_IFREG | 0644, 0));
	dir = opendir(PT_MNT);
	CALL(dir ? 0 : -1);
	if (dir) {
		while ((de = readdir(dir)))
			n++;
		rewinddir(dir);
		CALL(readdir(dir) ? 0 : -1);
		CALL(fsync(dirfd(dir)));
		closedir(dir);
	}
	for (i = 0; i < 20; i++)
		CALL(unlink(mn(r * 100 + i, "de")));
	(void)n;
}

/* Lookups of names the dcache does not have: drop_caches before */
static void lookup_round(int r)
{
	struct stat st;
	int i;

	for (i = 0; i < 10; i++)
		CALL(stat(path_in(PT_MNT, i & 1 ? "cold/a/b" : "cold/a"),
			  &st));
	CALL(stat(mn(r, "missing"), &st));
	CALL(access(path_in(PT_MNT, "cold/a/b/c"), F_OK));
}

struct family {
	const char *name;
	void (*round)(int r);
	bool cold;	/* drop the dcache before each round */
};

static const struct family families[] = {
	{ .name = "names", .round = names_round },
	{ .name = "attrs", .round = attrs_round },
	{ .name = "file", .round = file_round },
	{ .name = "dirs", .round = dirs_round },
	{ .name = "lookup", .round = lookup_round, .cold = true },
};

/* The mount works: a file written, read back and removed */
static int mount_works(void)
{
	char buf[8] = "";
	int fd;

	fd = open(PT_MNT "/check", O_CREAT | O_RDWR | O_TRUNC | O_CLOEXEC,
		  0644);
	if (fd < 0)
		return -1;
	if (pwrite(fd, "alive", 5, 0) != 5 || pread(fd, buf, 5, 0) != 5 ||
	    memcmp(buf, "alive", 5)) {
		close(fd);
		return -1;
	}
	close(fd);
	return unlink(PT_MNT "/check");
}

/* Remove what a round that failed half-way left, without injection */
static void cleanup_mount(void)
{
	DIR *dir = opendir(PT_MNT);
	struct dirent *de;
	char path[PATH_MAX];

	if (!dir)
		return;
	while ((de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strcmp(de->d_name, "cold"))
			continue;
		snprintf(path, sizeof(path), PT_MNT "/%s", de->d_name);
		if (unlink(path))
			rmdir(path);
	}
	closedir(dir);
}

FIXTURE(inject) {
	struct pt_env env;
};

FIXTURE_VARIANT(inject) {
	enum pt_lower_kind kind;
};

FIXTURE_VARIANT_ADD(inject, tmpfs) {
	.kind = PT_TMPFS,
};

FIXTURE_VARIANT_ADD(inject, ext4) {
	.kind = PT_EXT4,
};

/*
 * Keep every page of this process resident: a page of the program (read
 * over 9p in the guest) or of its stack that failed to come in under
 * fail_page_alloc would be SIGBUS, not a result.
 */
static void resident(void)
{
	char stack[256 << 10];

	memset(stack, 0, sizeof(stack));
	/* Keep the compiler from dropping the stores */
	__asm__ __volatile__("" : : "r"(stack) : "memory");
	mlockall(MCL_CURRENT | MCL_FUTURE);
}

FIXTURE_SETUP(inject)
{
	struct stat st;

	pt_env_lower(_metadata, &self->env, variant->kind, LOWER_MB);
	ASSERT_EQ(0, mkdir(PT_LOWER "/cold", 0755));
	ASSERT_EQ(0, mkdir(PT_LOWER "/cold/a", 0755));
	ASSERT_EQ(0, mkdir(PT_LOWER "/cold/a/b", 0755));
	pt_env_mount(_metadata);
	if (stat(DEBUGFS "/failslab", &st))
		ASSERT_EQ(0, mount("debugfs", DEBUGFS, "debugfs", 0, NULL));
	ASSERT_EQ(0, stat(DEBUGFS "/fail_function", &st))
		TH_LOG("no fault injection in this kernel");
	ASSERT_EQ(0, make_it_fail(false));
	resident();
}

FIXTURE_TEARDOWN(inject)
{
	unsigned int i;

	make_it_fail(false);
	for (i = 0; i < ARRAY_SIZE(injectors); i++)
		inj_disarm(&injectors[i]);
	pt_env_teardown(_metadata, &self->env);
}

/*
 * e2fsck -fn on an ext4 lower, unmounted: on its loop device, which the
 * lower's loopfd keeps bound (the image file itself is already unlinked).
 */
static int fsck_lower(struct pt_lower *l)
{
	char cmd[2 * PATH_MAX + 64], dev[PATH_MAX], fd[64];
	ssize_t n;
	int ret;

	if (l->kind != PT_EXT4)
		return 0;
	if (umount2(PT_MNT, 0))
		printf("# umount %s: %s\n", PT_MNT, strerror(errno));
	if (umount2(l->dir, 0)) {
		printf("# umount %s: %s\n", l->dir, strerror(errno));
		return -1;
	}
	snprintf(fd, sizeof(fd), "/proc/self/fd/%d", l->loopfd);
	n = readlink(fd, dev, sizeof(dev) - 1);
	if (n < 0)
		return -1;
	dev[n] = '\0';
	snprintf(cmd, sizeof(cmd), "e2fsck -fn %s >%s/fsck.out 2>&1", dev,
		 PT_SCRATCH);
	ret = pt_run(cmd);
	if (ret) {
		fflush(stdout);
		pt_run("sed 's/^/# /' " PT_SCRATCH "/fsck.out");
	}
	return ret;
}

TEST_F_TIMEOUT(inject, every_family, 600)
{
	long hits[ARRAY_SIZE(injectors)] = { 0 };
	unsigned int i, f;
	int r;

	for (i = 0; i < ARRAY_SIZE(injectors); i++) {
		const struct injector *inj = &injectors[i];

		for (f = 0; f < ARRAY_SIZE(families); f++) {
			unsigned long before = calls;
			long n;

			ASSERT_EQ(0, inj_arm(inj, inj->func ? 30 : 10))
				TH_LOG("arming %s: %s", inj->name,
				       strerror(errno));
			for (r = 0; r < ROUNDS; r++) {
				if (families[f].cold)
					pt_write_str("/proc/sys/vm/drop_caches",
						     "2");
				ASSERT_EQ(0, make_it_fail(true));
				families[f].round(r);
				ASSERT_EQ(0, make_it_fail(false));
			}
			n = inj_disarm(inj);
			ASSERT_LE(0, n);
			hits[i] += n;
			printf("# %-40s %-7s %5ld failures injected in %lu calls\n",
			       inj->name, families[f].name, n,
			       calls - before);
			cleanup_mount();
			ASSERT_EQ(0, mount_works())
				TH_LOG("after %s on %s: %s", inj->name,
				       families[f].name, strerror(errno));
		}
	}
	for (i = 0; i < ARRAY_SIZE(injectors); i++)
		EXPECT_LT(0, hits[i])
			TH_LOG("%s was never hit", injectors[i].name);
	EXPECT_EQ(0, fsck_lower(&self->env.lower))
		TH_LOG("e2fsck -fn found errors on the lower");
}

int main(int argc, char **argv)
{
	pt_ext4_template(LOWER_MB);
	return test_harness_run(argc, argv);
}
