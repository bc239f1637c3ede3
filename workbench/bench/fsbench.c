// SPDX-License-Identifier: GPL-2.0
/*
 * fsbench: the metadata workloads of make bench, timed in one process so
 * that no fork or exec is measured.  Each timed command prints one line:
 *
 *	<seconds> <operations>
 *
 *   fsbench mkfiles DIR N [SIZE]     make DIR/f00000.. (setup, not timed)
 *   fsbench stat DIR N [PASSES]      lstat() of DIR/fNNNNN, by name from DIR
 *   fsbench open DIR N [PASSES]      open(O_RDONLY) + close() of each file
 *   fsbench readdir DIR [PASSES]     getdents64() of DIR to its end
 *   fsbench create DIR N [SIZE]      create N files of SIZE bytes, unlink them
 *   fsbench walk DIR                 recursive readdir + fstatat() of every
 *                                    entry (find DIR -ls without the output)
 *   fsbench pread FILE BS N          N preads of BS bytes at offset 0
 *
 * FSBENCH_WARMUP=1 runs the command once untimed first (create and walk
 * included); FSBENCH_TRACE_PID=/sys/kernel/tracing/set_event_pid makes the
 * timed run the one traced process: the pid is written after the warm-up,
 * and left there (the list empties when we exit, which traces no one).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int quiet;

static void report(double start, long ops)
{
	double t = now() - start;

	if (!quiet)
		printf("%.6f %ld\n", t, ops);
}

static void trace_pid(const char *file)
{
	char buf[32];
	int fd, len;

	if (!file)
		return;
	fd = open(file, O_WRONLY | O_TRUNC);
	if (fd < 0)
		die(file);
	len = snprintf(buf, sizeof(buf), "%d\n", getpid());
	if (write(fd, buf, len) != len)
		die(file);
	close(fd);
}

/* The names f00000.. made before the clock starts, NAME_SLOT bytes apart. */
#define NAME_SLOT	24
static char *names;

static void make_names(long n)
{
	names = malloc(n * NAME_SLOT + NAME_SLOT);
	if (!names)
		die("malloc");
	for (long i = 0; i < n; i++)
		snprintf(names + NAME_SLOT * i, NAME_SLOT, "f%05ld", i);
}

#define NAME(i)	(names + NAME_SLOT * (i))

static void enter(const char *dir)
{
	if (chdir(dir))
		die(dir);
}

static int mkfiles(long n, long size)
{
	char *data = calloc(1, size ? size : 1);

	make_names(n);
	for (long i = 0; i < n; i++) {
		int fd = open(NAME(i), O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0)
			die(NAME(i));
		if (size && write(fd, data, size) != size)
			die("write");
		close(fd);
	}
	free(data);
	return 0;
}

static int do_stat(long n, long passes)
{
	struct stat st;
	double t = now();

	for (long p = 0; p < passes; p++)
		for (long i = 0; i < n; i++)
			if (lstat(NAME(i), &st))
				die(NAME(i));
	report(t, n * passes);
	return 0;
}

static int do_open(long n, long passes)
{
	double t = now();

	for (long p = 0; p < passes; p++)
		for (long i = 0; i < n; i++) {
			int fd = open(NAME(i), O_RDONLY);

			if (fd < 0)
				die(NAME(i));
			close(fd);
		}
	report(t, n * passes);
	return 0;
}

static long getdents_all(int fd, char *buf, size_t size)
{
	long n, entries = 0;

	while ((n = syscall(SYS_getdents64, fd, buf, size)) > 0)
		for (long off = 0; off < n;) {
			struct dirent64 *d = (void *)(buf + off);

			off += d->d_reclen;
			entries++;
		}
	if (n < 0)
		die("getdents64");
	return entries;
}

static int do_readdir(const char *dir, long passes)
{
	static char buf[32768];		/* glibc's readdir buffer size */
	long entries = 0;
	double t = now();

	for (long p = 0; p < passes; p++) {
		int fd = open(dir, O_RDONLY | O_DIRECTORY);

		if (fd < 0)
			die(dir);
		entries += getdents_all(fd, buf, sizeof(buf));
		close(fd);
	}
	report(t, entries);
	return 0;
}

static int do_create(long n, long size)
{
	char *data = calloc(1, size ? size : 1);
	double t = now();

	for (long i = 0; i < n; i++) {
		int fd = open(NAME(i), O_WRONLY | O_CREAT | O_EXCL, 0644);

		if (fd < 0)
			die(NAME(i));
		if (size && write(fd, data, size) != size)
			die("write");
		close(fd);
	}
	for (long i = 0; i < n; i++)
		if (unlink(NAME(i)))
			die(NAME(i));
	report(t, 2 * n);
	free(data);
	return 0;
}

static long walk(int dirfd)
{
	static char buf[32768];
	long count = 0;
	struct stat st;
	char *names = NULL;
	size_t len = 0, cap = 0;
	long n;

	/* Read the whole directory first, as find does, then stat. */
	while ((n = syscall(SYS_getdents64, dirfd, buf, sizeof(buf))) > 0)
		for (long off = 0; off < n;) {
			struct dirent64 *d = (void *)(buf + off);
			size_t l = strlen(d->d_name) + 1;

			off += d->d_reclen;
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				continue;
			if (len + l > cap) {
				cap = (cap + l) * 2;
				names = realloc(names, cap);
			}
			memcpy(names + len, d->d_name, l);
			len += l;
		}
	if (n < 0)
		die("getdents64");
	for (size_t off = 0; off < len; off += strlen(names + off) + 1) {
		const char *nm = names + off;

		if (fstatat(dirfd, nm, &st, AT_SYMLINK_NOFOLLOW))
			die(nm);
		count++;
		if (S_ISDIR(st.st_mode)) {
			int fd = openat(dirfd, nm, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);

			if (fd < 0)
				die(nm);
			count += walk(fd);
			close(fd);
		}
	}
	free(names);
	return count;
}

static int do_walk(const char *dir)
{
	double t = now();
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	long n;

	if (fd < 0)
		die(dir);
	n = walk(fd);
	close(fd);
	report(t, n);
	return 0;
}

static int do_pread(const char *file, long bs, long n)
{
	char *buf = malloc(bs);
	int fd = open(file, O_RDONLY);
	double t;

	if (fd < 0)
		die(file);
	t = now();
	for (long i = 0; i < n; i++)
		if (pread(fd, buf, bs, 0) < 0)
			die("pread");
	report(t, n);
	close(fd);
	free(buf);
	return 0;
}

static long arg(int argc, char **argv, int i, long def)
{
	return i < argc ? atol(argv[i]) : def;
}

static int run(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (argc < 3)
		goto usage;
	if (!strcmp(cmd, "mkfiles") && argc >= 4) {
		enter(argv[2]);
		return mkfiles(atol(argv[3]), arg(argc, argv, 4, 0));
	}
	if (!strcmp(cmd, "stat") && argc >= 4) {
		enter(argv[2]);
		make_names(atol(argv[3]));
		return do_stat(atol(argv[3]), arg(argc, argv, 4, 1));
	}
	if (!strcmp(cmd, "open") && argc >= 4) {
		enter(argv[2]);
		make_names(atol(argv[3]));
		return do_open(atol(argv[3]), arg(argc, argv, 4, 1));
	}
	if (!strcmp(cmd, "readdir"))
		return do_readdir(argv[2], arg(argc, argv, 3, 1));
	if (!strcmp(cmd, "create") && argc >= 4) {
		enter(argv[2]);
		make_names(atol(argv[3]));
		return do_create(atol(argv[3]), arg(argc, argv, 4, 0));
	}
	if (!strcmp(cmd, "walk"))
		return do_walk(argv[2]);
	if (!strcmp(cmd, "pread") && argc >= 5)
		return do_pread(argv[2], atol(argv[3]), atol(argv[4]));
usage:
	fprintf(stderr, "usage: fsbench mkfiles|stat|open|readdir|create|walk|pread ...\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *warm = getenv("FSBENCH_WARMUP"), *trace = getenv("FSBENCH_TRACE_PID");
	char cwd[4096];
	int ret;

	if (!getcwd(cwd, sizeof(cwd)))
		die("getcwd");
	if (warm && *warm && strcmp(warm, "0")) {
		quiet = 1;
		ret = run(argc, argv);
		quiet = 0;
		if (ret || chdir(cwd))
			return ret ? ret : 1;
	}
	trace_pid(trace);
	return run(argc, argv);
}
