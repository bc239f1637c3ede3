// SPDX-License-Identifier: GPL-2.0
/*
 * Stress tests of the FUSE-BPF pure passthrough (no daemon).
 *
 * churn: four processes create, write, rename (also RENAME_NOREPLACE and
 * RENAME_EXCHANGE), link, unlink, mkdir, rmdir, stat, read and list names
 * from one small pool in one directory of the mount, for PT_STRESS_CHURN_SECS
 * (10 s).  Only the errors that the races can explain are allowed (ENOENT,
 * EEXIST, ENOTEMPTY, ...).  Afterwards the mount must show exactly the
 * lower directory: the same names, types and inode numbers, the same
 * attributes and data, also after the dentry and inode caches are dropped.
 * churn_lower: the same with two of the processes working on the lower
 * directory directly, so the mount has to follow changes made below it.
 *
 * stress-ng: stress-ng's filesystem stressors (dir, dentry, rename, link,
 * hdd, mmap, xattr, lockf, flock, fallocate, seek, sendfile, copy-file),
 * each on its own, with --verify and --temp-path on the mount of a tmpfs,
 * for PT_STRESS_NG_SECS (5) seconds each.  stress-ng must exit with 0 and
 * print no failure, error or skip, and it must leave no files behind (in
 * either view).  A missing stress-ng is a failure.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/mman.h>

#include "passthrough.h"

#define CHURN_PROCS	4
#define CHURN_SECS	10
#define NR_TOP		10	/* n0..n9 in the churn directory */
#define NR_SUB		3	/* s0..s2 below them */
#define MAX_UNEXP	16
#define MAX_ENTS	256
#define LOWER_MB	128

/* Churn */

enum churn_op {
	C_CREATE, C_RENAME, C_UNLINK, C_LINK, C_MKDIR, C_RMDIR, C_READDIR,
	C_STAT, C_READ, NR_COPS
};

static const char * const cop_name[NR_COPS] = {
	"create", "rename", "unlink", "link", "mkdir", "rmdir", "readdir",
	"stat", "read",
};

struct churn_shared {
	unsigned long ok[NR_COPS], err[NR_COPS];
	/*
	 * With processes renaming directories on the lower directly, a walk
	 * through the mount may meet a directory whose dentry is moving
	 * (d_splice_alias() gives ESTALE, as on NFS): counted, not an error.
	 * Documentation/filesystems/fuse-bpf.rst says so.
	 */
	int on_lower;
	unsigned long estale;
	int nunexp;
	struct {
		int op, err, proc;
		char path[2][16];
	} unexp[MAX_UNEXP];
};

/* "nX" (80%) or "nX/sY" */
static void churn_name(__u64 *s, char *p)
{
	int top = pt_rnd(s) % NR_TOP;

	if (pt_rnd(s) % 5)
		sprintf(p, "n%d", top);
	else
		sprintf(p, "n%d/s%d", top, (int)(pt_rnd(s) % NR_SUB));
}

/* Bits of the errnos that the races of the other processes can explain */
#define E(x) (1ULL << (x))
static __u64 allowed(int op, const char *p1, const char *p2, int flags)
{
	bool deep = strchr(p1, '/') || (p2 && strchr(p2, '/'));
	__u64 path = deep ? E(ENOENT) | E(ENOTDIR) : 0;

	switch (op) {
	case C_CREATE:
		return path | E(EEXIST) | E(EISDIR);
	case C_RENAME:
		return E(ENOENT) | E(ENOTDIR) | E(EEXIST) | E(ENOTEMPTY) |
		       E(EISDIR) | E(EINVAL);
	case C_UNLINK:
		return E(ENOENT) | E(EISDIR) | path;
	case C_LINK:
		return E(ENOENT) | E(EEXIST) | E(EPERM) | path;
	case C_MKDIR:
		return E(EEXIST) | path;
	case C_RMDIR:
		return E(ENOENT) | E(ENOTDIR) | E(ENOTEMPTY);
	case C_READDIR:
	case C_STAT:
	case C_READ:
		return E(ENOENT) | E(ENOTDIR) | E(EISDIR);
	}
	return 0;
}

static int churn_readdir(int dfd, const char *p)
{
	struct dirent *de;
	DIR *d;
	int fd;

	fd = openat(dfd, p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	errno = 0;
	while ((de = readdir(d)))
		;
	if (errno) {
		int err = errno;

		closedir(d);
		errno = err;
		return -1;
	}
	closedir(d);
	return 0;
}

static void churn_child(struct churn_shared *sh, const char *dir, int proc,
			double secs)
{
	__u64 s = 0x9e3779b97f4a7c15ULL * (proc + 1);
	double end = pt_now() + secs;
	char p1[16], p2[16], buf[64];
	long count = 0;
	int dfd;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		_exit(2);
	while ((count++ & 15) || pt_now() < end) {
		int op = pt_rnd(&s) % NR_COPS, flags = 0, fd, ret, len;

		churn_name(&s, p1);
		churn_name(&s, p2);
		errno = 0;
		switch (op) {
		case C_CREATE:
			flags = pt_rnd(&s) % 3 ? 0 : O_EXCL;
			fd = openat(dfd, p1, O_CREAT | O_WRONLY | O_TRUNC |
				    O_CLOEXEC | flags, 0644);
			ret = fd < 0 ? -1 : 0;
			if (fd >= 0) {
				len = snprintf(buf, sizeof(buf),
					       "proc %d op %ld\n", proc, count);
				if (write(fd, buf, len) != len)
					ret = -1;
				close(fd);
			}
			break;
		case C_RENAME: {
			static const int rf[] = {
				0, 0, RENAME_NOREPLACE, RENAME_EXCHANGE,
			};

			flags = rf[pt_rnd(&s) % 4];
			ret = renameat2(dfd, p1, dfd, p2, flags);
			break;
		}
		case C_UNLINK:
			ret = unlinkat(dfd, p1, 0);
			break;
		case C_LINK:
			ret = linkat(dfd, p1, dfd, p2, 0);
			break;
		case C_MKDIR:
			ret = mkdirat(dfd, p1, 0755);
			break;
		case C_RMDIR:
			ret = unlinkat(dfd, p1, AT_REMOVEDIR);
			break;
		case C_READDIR:
			ret = churn_readdir(dfd, pt_rnd(&s) % 2 ? "." : p1);
			break;
		case C_STAT: {
			struct stat st;

			ret = fstatat(dfd, p1, &st, AT_SYMLINK_NOFOLLOW);
			break;
		}
		case C_READ:
			fd = openat(dfd, p1, O_RDONLY | O_CLOEXEC);
			ret = fd < 0 ? -1 : 0;
			if (fd >= 0) {
				if (read(fd, buf, sizeof(buf)) < 0)
					ret = -1;
				close(fd);
			}
			break;
		}
		if (!ret) {
			__atomic_fetch_add(&sh->ok[op], 1, __ATOMIC_RELAXED);
			continue;
		}
		__atomic_fetch_add(&sh->err[op], 1, __ATOMIC_RELAXED);
		if (errno == ESTALE && sh->on_lower) {
			__atomic_fetch_add(&sh->estale, 1, __ATOMIC_RELAXED);
			continue;
		}
		if (errno < 64 &&
		    (allowed(op, p1, p2, flags) & E(errno)) &&
		    !(op == C_CREATE && errno == EEXIST && !(flags & O_EXCL)))
			continue;
		ret = __atomic_fetch_add(&sh->nunexp, 1, __ATOMIC_RELAXED);
		if (ret < MAX_UNEXP) {
			sh->unexp[ret].op = op;
			sh->unexp[ret].err = errno;
			sh->unexp[ret].proc = proc;
			memcpy(sh->unexp[ret].path[0], p1, sizeof(p1));
			memcpy(sh->unexp[ret].path[1], p2, sizeof(p2));
		}
	}
	close(dfd);
	_exit(0);
}

struct ent {
	char name[32];
	unsigned char type;
	ino_t ino;
};

static int ent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ent *)a)->name,
		      ((const struct ent *)b)->name);
}

/* The entries of @dir and of its subdirectories ("n1/s0"), sorted */
static int list_tree(const char *dir, struct ent *ents, int max)
{
	char sub[PATH_MAX];
	struct dirent *de;
	int n = 0, i, top;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d)) && n < max) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(ents[n].name, sizeof(ents[n].name), "%.31s",
			 de->d_name);
		ents[n].type = de->d_type;
		ents[n].ino = de->d_ino;
		n++;
	}
	closedir(d);
	top = n;
	for (i = 0; i < top; i++) {
		if (ents[i].type != DT_DIR)
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, ents[i].name);
		d = opendir(sub);
		if (!d)
			return -1;
		while ((de = readdir(d)) && n < max) {
			if (!strcmp(de->d_name, ".") ||
			    !strcmp(de->d_name, ".."))
				continue;
			snprintf(ents[n].name, sizeof(ents[n].name), "%s/%.20s",
				 ents[i].name, de->d_name);
			ents[n].type = de->d_type;
			ents[n].ino = de->d_ino;
			n++;
		}
		closedir(d);
	}
	qsort(ents, n, sizeof(*ents), ent_cmp);
	return n;
}

static const char *stat_str(const struct stat *st, char *buf)
{
	snprintf(buf, 256,
		 "ino %lu mode 0%o nlink %lu size %ld blocks %ld mtime %ld.%09ld ctime %ld.%09ld",
		 (unsigned long)st->st_ino, st->st_mode,
		 (unsigned long)st->st_nlink, (long)st->st_size,
		 (long)st->st_blocks, (long)st->st_mtim.tv_sec,
		 st->st_mtim.tv_nsec, (long)st->st_ctim.tv_sec,
		 st->st_ctim.tv_nsec);
	return buf;
}

static long read_file(const char *path, char *buf, size_t size)
{
	long ret;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = read(fd, buf, size);
	if (ret < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * The mount's view of @rel must be the lower's: names, types, inode
 * numbers, attributes and contents.  Returns the number of differences.
 */
static int compare_views(struct __test_metadata *_metadata, const char *mnt,
			 const char *lower, const char *rel)
{
	static struct ent em[MAX_ENTS], el[MAX_ENTS];
	char pm[PATH_MAX], pl[PATH_MAX], bm[256], bl[256];
	int nm, nl, i, bad = 0;

	snprintf(pm, sizeof(pm), "%s/%s", mnt, rel);
	snprintf(pl, sizeof(pl), "%s/%s", lower, rel);
	nm = list_tree(pm, em, MAX_ENTS);
	nl = list_tree(pl, el, MAX_ENTS);
	EXPECT_EQ(nl, nm) {
		for (i = 0; i < nm; i++)
			TH_LOG("mount: %s", em[i].name);
		for (i = 0; i < nl; i++)
			TH_LOG("lower: %s", el[i].name);
		return 1;
	}
	for (i = 0; i < nm; i++) {
		struct stat sm, sl;
		long lm, ll;

		if (strcmp(em[i].name, el[i].name) || em[i].type != el[i].type ||
		    em[i].ino != el[i].ino) {
			TH_LOG("entry %d: mount %s type %d ino %lu, lower %s type %d ino %lu",
			       i, em[i].name, em[i].type, (unsigned long)em[i].ino,
			       el[i].name, el[i].type, (unsigned long)el[i].ino);
			bad++;
			continue;
		}
		snprintf(pm, sizeof(pm), "%.1000s/%.1000s/%.31s", mnt, rel,
			 em[i].name);
		snprintf(pl, sizeof(pl), "%.1000s/%.1000s/%.31s", lower, rel,
			 el[i].name);
		if (lstat(pm, &sm) || lstat(pl, &sl)) {
			TH_LOG("lstat %s: %s", em[i].name, strerror(errno));
			bad++;
			continue;
		}
		if (sm.st_ino != sl.st_ino || sm.st_mode != sl.st_mode ||
		    sm.st_nlink != sl.st_nlink || sm.st_size != sl.st_size ||
		    sm.st_uid != sl.st_uid || sm.st_gid != sl.st_gid ||
		    sm.st_blocks != sl.st_blocks ||
		    sm.st_mtim.tv_sec != sl.st_mtim.tv_sec ||
		    sm.st_mtim.tv_nsec != sl.st_mtim.tv_nsec ||
		    sm.st_ctim.tv_sec != sl.st_ctim.tv_sec ||
		    sm.st_ctim.tv_nsec != sl.st_ctim.tv_nsec ||
		    em[i].ino != sm.st_ino) {
			TH_LOG("%s: mount %s", em[i].name, stat_str(&sm, bm));
			TH_LOG("%s: lower %s", el[i].name, stat_str(&sl, bl));
			bad++;
			continue;
		}
		if (!S_ISREG(sm.st_mode))
			continue;
		lm = read_file(pm, bm, sizeof(bm));
		ll = read_file(pl, bl, sizeof(bl));
		if (lm != ll || (lm > 0 && memcmp(bm, bl, lm))) {
			TH_LOG("%s: differ: mount %ld \"%.*s\", lower %ld \"%.*s\"",
			       em[i].name, lm, (int)(lm > 0 ? lm : 0), bm, ll,
			       (int)(ll > 0 ? ll : 0), bl);
			bad++;
		}
	}
	return bad;
}

/* Forget the dentries and inodes of the mount (and of everything else) */
static void forget_caches(void)
{
	const char *knob = "/proc/sys/vm/drop_caches";
	int fd = open(knob, O_WRONLY | O_CLOEXEC);

	sync();
	if (fd >= 0) {
		if (write(fd, "3\n", 2) != 2)
			perror(knob);
		close(fd);
	}
}

PT_FIXTURE(stress, pt_env_lower, LOWER_MB)

/* @on_lower of the CHURN_PROCS processes work on the lower directly */
static void run_churn(struct __test_metadata *_metadata, const char *mnt,
		      const char *lower, int on_lower, double secs)
{
	char mdir[PATH_MAX], ldir[PATH_MAX];
	struct churn_shared *sh;
	unsigned long total = 0;
	pid_t pids[CHURN_PROCS];
	int i, status, bad;

	snprintf(mdir, sizeof(mdir), "%s/churn", mnt);
	snprintf(ldir, sizeof(ldir), "%s/churn", lower);
	ASSERT_EQ(0, mkdir(mdir, 0755));
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	sh->on_lower = on_lower;
	for (i = 0; i < CHURN_PROCS; i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (!pids[i])
			churn_child(sh, i < on_lower ? ldir : mdir, i, secs);
	}
	for (i = 0; i < CHURN_PROCS; i++) {
		ASSERT_EQ(pids[i], waitpid(pids[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) {
			TH_LOG("worker %d: status 0x%x", i, status);
		}
	}
	for (i = 0; i < NR_COPS; i++) {
		printf("# %-8s %6lu ok %6lu failed\n", cop_name[i], sh->ok[i],
		       sh->err[i]);
		total += sh->ok[i] + sh->err[i];
	}
	printf("# %d procs (%d on the lower), %.1f s: %lu ops, %d unexpected, %lu ESTALE\n",
	       CHURN_PROCS, on_lower, secs, total, sh->nunexp, sh->estale);
	for (i = 0; i < sh->nunexp && i < MAX_UNEXP; i++) {
		bool two = sh->unexp[i].op == C_RENAME ||
			   sh->unexp[i].op == C_LINK;

		TH_LOG("process %d: %s(%s%s%s): %s", sh->unexp[i].proc,
		       cop_name[sh->unexp[i].op], sh->unexp[i].path[0],
		       two ? ", " : "", two ? sh->unexp[i].path[1] : "",
		       strerror(sh->unexp[i].err));
	}
	EXPECT_EQ(0, sh->nunexp);
	/* every kind of operation succeeded sometimes */
	for (i = 0; i < NR_COPS; i++) {
		const char *name = cop_name[i];

		EXPECT_LT(0, sh->ok[i]) {
			TH_LOG("no %s succeeded", name);
		}
	}

	bad = compare_views(_metadata, mnt, lower, "churn");
	EXPECT_EQ(0, bad);
	forget_caches();
	bad = compare_views(_metadata, mnt, lower, "churn");
	EXPECT_EQ(0, bad) {
		TH_LOG("after dropping the caches");
	}
	munmap(sh, sizeof(*sh));
}

TEST_F_TIMEOUT(stress, churn, 180)
{
	run_churn(_metadata, PT_MNT, PT_LOWER, 0,
		  pt_env_num("PT_STRESS_CHURN_SECS", CHURN_SECS));
}

TEST_F_TIMEOUT(stress, churn_lower, 180)
{
	run_churn(_metadata, PT_MNT, PT_LOWER, CHURN_PROCS / 2,
		  pt_env_num("PT_STRESS_CHURN_SECS", CHURN_SECS) / 2.0);
}

/* stress-ng */

FIXTURE(stressng) {
	struct pt_env env;
};

/* ext4 would double the run time: stress-ng runs on tmpfs only */
FIXTURE_VARIANT(stressng) {
	enum pt_lower_kind kind;
	int secs;
};

FIXTURE_VARIANT_ADD(stressng, tmpfs) {
	.kind = PT_TMPFS,
	.secs = 5,
};

FIXTURE_SETUP(stressng)
{
	pt_env_lower(_metadata, &self->env, variant->kind, LOWER_MB);
	pt_env_mount(_metadata);
}

FIXTURE_TEARDOWN(stressng)
{
	pt_env_teardown(_metadata, &self->env);
}

static bool find_in_path(const char *prog, char *out, size_t len)
{
	char *copy, *dir, *save;
	bool found = false;

	copy = strdup(getenv("PATH") ?: "");
	for (dir = strtok_r(copy, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		snprintf(out, len, "%s/%s", dir, prog);
		found = !access(out, X_OK);
	}
	free(copy);
	return found;
}

/*
 * Run "stress-ng --@name @workers @opts --verify --timeout <secs>s --temp-path
 * <mnt>/sng --metrics-brief"; it must succeed, say nothing of failures,
 * errors or skips, report its metrics and leave no files behind.
 */
/* stress-ng's stressor @name on the mount, with @workers and @opts */
static void stress_ng(struct __test_metadata *_metadata, int secs,
		      const char *name, const char *workers, const char *opts)
{
	char prog[PATH_MAX], tmp[PATH_MAX], ltmp[PATH_MAX], opt[64], tmo[32];
	char *argv[32], *copy, *tok, *save, *out, *line, *lsave;
	size_t size = 0, cap = 1 << 16;
	int argc = 0, pfd[2], status, i, n;
	long long bogo = -1;
	bool bad_line = false;
	struct ent ents[4];
	double t0 = pt_now();
	pid_t pid;
	ssize_t r;

	ASSERT_TRUE(find_in_path("stress-ng", prog, sizeof(prog))) {
		TH_LOG("stress-ng is not installed (not in PATH=%s): these tests need it",
		       getenv("PATH") ?: "");
	}
	secs = pt_env_num("PT_STRESS_NG_SECS", secs);
	snprintf(tmp, sizeof(tmp), "%s/sng", PT_MNT);
	snprintf(ltmp, sizeof(ltmp), "%s/sng", PT_LOWER);
	ASSERT_EQ(0, mkdir(tmp, 0755));
	snprintf(opt, sizeof(opt), "--%s", name);
	snprintf(tmo, sizeof(tmo), "%ds", secs);
	argv[argc++] = prog;
	argv[argc++] = opt;
	argv[argc++] = (char *)workers;
	copy = strdup(opts);
	for (tok = strtok_r(copy, " ", &save); tok && argc < 20;
	     tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc++] = "--verify";
	argv[argc++] = "--timeout";
	argv[argc++] = tmo;
	argv[argc++] = "--temp-path";
	argv[argc++] = tmp;
	argv[argc++] = "--metrics-brief";
	argv[argc] = NULL;

	ASSERT_EQ(0, pipe2(pfd, O_CLOEXEC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		execv(prog, argv);
		_exit(127);
	}
	close(pfd[1]);
	out = malloc(cap);
	ASSERT_NE(NULL, out);
	while ((r = read(pfd[0], out + size, cap - 1 - size)) > 0) {
		size += r;
		if (size == cap - 1) {
			cap *= 2;
			out = realloc(out, cap);
			ASSERT_NE(NULL, out);
		}
	}
	out[size] = 0;
	close(pfd[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));

	for (line = strtok_r(out, "\n", &lsave); line;
	     line = strtok_r(NULL, "\n", &lsave)) {
		char *m = strstr(line, "] ");
		char sname[64];
		long long ops;

		if (strstr(line, "fail") || strstr(line, "error") ||
		    strstr(line, "skip")) {
			bad_line = true;
			TH_LOG("stress-ng: %s", line);
		}
		if (bogo < 0 && strstr(line, "metrc:") && m &&
		    sscanf(m + 2, "%63s %lld", sname, &ops) == 2 &&
		    !strcmp(sname, name))
			bogo = ops;
	}
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		TH_LOG("%s exited with status 0x%x", prog, status);
	}
	EXPECT_FALSE(bad_line);
	/* slow stressors may finish no bogo operation in TCG: 0 is fine */
	EXPECT_LE(0, bogo) {
		TH_LOG("stress-ng reported no metrics for %s", name);
	}
	/* stress-ng cleans up after itself, in both views */
	n = list_tree(tmp, ents, 4);
	EXPECT_EQ(0, n) {
		for (i = 0; i < n; i++)
			TH_LOG("left in the mount: %s", ents[i].name);
	}
	n = list_tree(ltmp, ents, 4);
	EXPECT_EQ(0, n) {
		for (i = 0; i < n; i++)
			TH_LOG("left in the lower: %s", ents[i].name);
	}
	printf("# stress-ng %s %ds: %s (%lld bogo ops, %.0f s)\n", name, secs,
	       _metadata->exit_code ? "FAILED" : "ok", bogo, pt_now() - t0);
	free(copy);
	free(out);
}

#define NG_TIMEOUT 180

TEST_F_TIMEOUT(stressng, dir, NG_TIMEOUT)
{
	stress_ng(_metadata, variant->secs, "dir", "1", "--dir-dirs 64");
}

TEST_F_TIMEOUT(stressng, dentry, NG_TIMEOUT)
{
	stress_ng(_metadata, variant->secs, "dentry", "1", "--dentries 256");
}

TEST_F_TIMEOUT(stressng, rename, NG_TIMEOUT)
{
	stress_ng(_metadata, variant->secs, "rename", "2", "");
}

TEST_F_TIMEOUT(stressng, link, NG_TIMEOUT)
{
	stress_ng(_metadata, variant->secs, "link", "1", "");
}

TEST_F_TIMEOUT(stressng, hdd, NG_TIMEOUT)
{
	stress_ng(_metadata, variant->secs, "hdd", "2",
		  "--hdd-bytes 4M --hdd-write-size 4K");
}

TEST_F_TIMEOUT(stressng, mmap, NG_TIMEOUT)
{
	stress_ng(_metadata, variant->secs, "mmap", "2",
		  "--mmap-file --mmap-bytes 4M");
}

TEST_F_TIMEOUT(stressng, xattr, NG_TIMEOUT)
{
	stress_ng(_metadata, variant->secs, "xattr", "2", "");
}

TEST_F_TIMEOUT(stressng, lockf, NG_TIMEOUT)
{
	stress_ng(_metadata, variant->secs, "lockf", "2", "");
}

TEST_F_TIMEOUT(stressng, flock, NG_TIMEOUT)
{
	stress_ng(_metadata, variant->secs, "flock", "2", "");
}

TEST_F_TIMEOUT(stressng, fallocate, NG_TIMEOUT)
{
	stress_ng(_metadata, variant->secs, "fallocate", "2",
		  "--fallocate-bytes 4M");
}

TEST_F_TIMEOUT(stressng, seek, NG_TIMEOUT)
{
	stress_ng(_metadata, variant->secs, "seek", "2",
		  "--seek-size 4M --seek-punch");
}

TEST_F_TIMEOUT(stressng, sendfile, NG_TIMEOUT)
{
	stress_ng(_metadata, variant->secs, "sendfile", "2",
		  "--sendfile-size 64K");
}

TEST_F_TIMEOUT(stressng, copy_file, NG_TIMEOUT)
{
	stress_ng(_metadata, variant->secs, "copy-file", "2",
		  "--copy-file-bytes 128M");
}

int main(int argc, char **argv)
{
	pt_ext4_template(LOWER_MB);
	return test_harness_run(argc, argv);
}
