// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE-BPF filters: struct fuse_ops programs chosen with root_bpf= at
 * mount time.
 *
 * The sample programs of samples/fuse (fuse_hide, fuse_suffix, fuse_redact,
 * fuse_readonly, fuse_count, fuse_trivial) and the test-only fuse_test_*
 * programs are registered with libbpf, then a no-daemon view of a tmpfs
 * lower is mounted with them and checked from both sides: what the
 * caller sees through the view, what the lower filesystem got.  The
 * registry (a name taken once, unknown names, unregistering while a
 * mount uses the program) and the verifier's refusals (fuse_reject_*
 * programs, each in an object of its own) are checked too.
 *
 * Each test that mounts runs in a mount namespace of its own with a
 * tmpfs on /tmp, so nothing it mounts outlives it; the programs a test
 * registers go with its process.  Run as root, on a kernel with
 * CONFIG_FUSE_BPF.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdarg.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <linux/fuse.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "passthrough.h"
#include "fuse_count.h"		/* samples/fuse */
#include "fuse_redact.h"

#include "fuse_count.skel.h"
#include "fuse_hide.skel.h"
#include "fuse_readonly.skel.h"
#include "fuse_redact.skel.h"
#include "fuse_suffix.skel.h"
#include "fuse_trivial.skel.h"
#include "fuse_view.skel.h"
#include "fuse_test_postonly.skel.h"
#include "fuse_test_preonly.skel.h"
#include "fuse_test_rewrite.skel.h"
#include "fuse_test_grow.skel.h"
#include "fuse_test_relookup.skel.h"
#include "fuse_test_release_unused.skel.h"
#include "fuse_test_retval.skel.h"
#include "fuse_test_fh.skel.h"
#include "fuse_test_stale.skel.h"
#include "fuse_test_user.skel.h"
#include "fuse_reject_buf_read.skel.h"
#include "fuse_reject_buf_write.skel.h"
#include "fuse_reject_const_write.skel.h"
#include "fuse_reject_meta_write.skel.h"
#include "fuse_reject_oob_slice.skel.h"
#include "fuse_reject_release.skel.h"
#include "fuse_reject_ro_slice.skel.h"
#include "fuse_reject_syscall.skel.h"
#include "fuse_reject_tracing.skel.h"
#include "fuse_reject_untrusted.skel.h"

#define LOWER		PT_LOWER
#define MNT		PT_MNT
#define MNT2		PT_SCRATCH "/mnt2"
#define LOWER_MB	32
#define NOBODY		65534

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE	1	/* <linux/fs.h> */
#endif

/* Opcode bits of bpf_fuse_meta_info (include/uapi/linux/bpf.h) */
#ifndef FUSE_PREFILTER
#define FUSE_PREFILTER		0x10000
#define FUSE_POSTFILTER		0x20000
#endif

/* ------------------------------------------------------------------ */
/* Helpers                                                              */
/* ------------------------------------------------------------------ */

static int rename_flags(const char *from, const char *to, unsigned int flags)
{
	return syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, flags);
}

/* Mount the view of the lower at @target with the program named @name */
static int mount_filter(const char *target, const char *name)
{
	char opt[64];

	snprintf(opt, sizeof(opt), "root_bpf=%s", name);
	return pt_mount(LOWER, target, opt);
}

/* Mount the view at @target with the program of descriptor @fd */
static int mount_filter_fd(const char *target, int fd)
{
	char opt[64];

	snprintf(opt, sizeof(opt), "root_bpf_fd=%d", fd);
	return pt_mount(LOWER, target, opt);
}

/* Whether @dir lists @name ("." and ".." included) */
static bool dir_has(const char *dir, const char *name)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool found = false;

	if (!d)
		return false;
	while (!found && (de = readdir(d)))
		found = !strcmp(de->d_name, name);
	closedir(d);
	return found;
}

/*
 * The entries of @dir but "." and "..", and how many of them end with
 * @sfx (NULL: none is counted) in *@with; -1 if it cannot be listed.
 */
static int dir_count(const char *dir, const char *sfx, int *with)
{
	size_t sl = sfx ? strlen(sfx) : 0;
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	*with = 0;
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		n++;
		if (sfx && len >= sl && !strcmp(de->d_name + len - sl, sfx))
			(*with)++;
	}
	closedir(d);
	return n;
}

/* The permission bits of @st */
static int perms(const struct stat *st)
{
	return st->st_mode & 07777;
}

/* Make the empty file @name in @dir */
static int touch_in(const char *dir, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return pt_write_file(path, "", 0644);
}

/* A name of @len times @c, in @buf */
static char *long_name(char *buf, char c, size_t len)
{
	memset(buf, c, len);
	buf[len] = '\0';
	return buf;
}

/* ------------------------------------------------------------------ */
/* The fixture: a tmpfs lower, the view mounted by each test            */
/* ------------------------------------------------------------------ */

/*
 * The programs a test loads and registers are held in self->bpf: the
 * teardown unregisters and destroys them, then unmounts.
 */
FIXTURE(filter) {
	struct pt_env env;
	struct pt_bpf bpf;
};

FIXTURE_SETUP(filter)
{
	pt_env_lower(_metadata, &self->env, PT_TMPFS, LOWER_MB);
}

FIXTURE_TEARDOWN(filter)
{
	pt_bpf_release(&self->bpf);
	umount2(MNT2, MNT_DETACH);
	pt_env_teardown(_metadata, &self->env);
}

/* Mount the view at MNT with the program registered as @name */
static void mount_view(struct __test_metadata *_metadata, const char *name)
{
	ASSERT_EQ(0, mount_filter(MNT, name))
		TH_LOG("mount with root_bpf=%s: %s", name, strerror(errno));
}

/* ------------------------------------------------------------------ */
/* fuse_hide                                                            */
/* ------------------------------------------------------------------ */

/*
 * "hidden" cannot be looked up nor listed, at any depth, also in a
 * directory of several readdir chunks; it is still on the lower, and
 * names that merely start like it, or differ from it in their first or
 * last byte only, are not hidden.
 */
TEST_F(filter, hide)
{
	struct fuse_hide *skel;
	char names[256];
	struct stat st;
	int with;

	skel = PT_BPF_LOAD(&self->bpf, fuse_hide);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.hide_ops);
	ASSERT_EQ(0, mkdir(LO("hidden"), 0755));
	ASSERT_EQ(0, pt_write_file(LO("hidden/secret"), "s", 0644));
	ASSERT_EQ(0, pt_write_file(LO("hidden2"), "", 0644));
	ASSERT_EQ(0, pt_write_file(LO("hiddem"), "", 0644));
	ASSERT_EQ(0, pt_write_file(LO("xidden"), "", 0644));
	ASSERT_EQ(0, mkdir(LO("shown"), 0755));
	ASSERT_EQ(0, mkdir(LO("shown/hidden"), 0755));
	ASSERT_EQ(0, mkdir(LO("big"), 0755));
	ASSERT_EQ(0, pt_make_files(LO("big"), "a-long-file-name-%04d", 200));
	ASSERT_EQ(0, mkdir(LO("big/hidden"), 0755));
	ASSERT_EQ(0, pt_make_files(LO("big"), "z-long-file-name-%04d", 200));
	mount_view(_metadata, "hide");

	EXPECT_EQ(ENOENT, err_of(stat(MN("hidden"), &st)));
	EXPECT_EQ(ENOENT, err_of(stat(MN("hidden/secret"), &st)));
	EXPECT_EQ(ENOENT, err_of(stat(MN("shown/hidden"), &st)));
	EXPECT_EQ(ENOENT, err_of(stat(MN("big/hidden"), &st)));
	EXPECT_EQ(0, err_of(stat(MN("hidden2"), &st)));

	EXPECT_EQ(5, pt_dir_names(MNT, names, sizeof(names)));
	EXPECT_STREQ("big hiddem hidden2 shown xidden ", names);
	EXPECT_EQ(0, pt_dir_names(MN("shown"), names, sizeof(names)));
	EXPECT_EQ(400, dir_count(MN("big"), NULL, &with));
	EXPECT_FALSE(dir_has(MN("big"), "hidden"));
	EXPECT_TRUE(dir_has(MN("big"), "."));
	EXPECT_TRUE(dir_has(MN("big"), ".."));

	EXPECT_EQ(0, stat(LO("hidden/secret"), &st));
	EXPECT_TRUE(dir_has(LOWER, "hidden"));
}

/*
 * The lower changes under a filtered view: a name renamed to "hidden" on
 * the lower, whose dentry the view had cached, is hidden at once (the
 * cached dentry is revalidated, the lookup goes through the filter
 * again); an open file of it keeps working; a "hidden" renamed away shows
 * up under its new name.
 */
TEST_F(filter, hide_lower_changes)
{
	struct fuse_hide *skel;
	char names[256], buf[8];
	struct stat st;
	int fd;

	skel = PT_BPF_LOAD(&self->bpf, fuse_hide);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.hide_ops);
	ASSERT_EQ(0, mkdir(LO("dir"), 0755));
	ASSERT_EQ(0, pt_write_file(LO("dir/f"), "data", 0644));
	ASSERT_EQ(0, mkdir(LO("hidden"), 0755));
	mount_view(_metadata, "hide");

	ASSERT_EQ(0, stat(MN("dir/f"), &st));
	fd = open(MN("dir/f"), O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, rename(LO("hidden"), LO("was-hidden")));
	ASSERT_EQ(0, rename(LO("dir"), LO("hidden")));

	EXPECT_EQ(ENOENT, err_of(stat(MN("dir/f"), &st)));
	EXPECT_EQ(ENOENT, err_of(stat(MN("hidden/f"), &st)));
	EXPECT_EQ(0, err_of(stat(MN("was-hidden"), &st)));
	/* Listings come from the lower as it is now */
	EXPECT_EQ(1, pt_dir_names(MNT, names, sizeof(names)));
	EXPECT_STREQ("was-hidden ", names);
	EXPECT_EQ(4, pread(fd, buf, sizeof(buf), 0));
	EXPECT_EQ(0, close(fd));
}

/*
 * The lower's events are not forwarded in a directory whose filter has a
 * lookup member (it might hide the name): a watch of the view hears
 * neither "hidden" nor another name made on the lower, and a name made
 * through the view once.
 */
TEST_F(filter, hide_inotify)
{
	struct fuse_hide *skel;
	char buf[4096] __attribute__((aligned(8)));
	struct pollfd p;
	struct inotify_event *e;
	int in, wd;
	ssize_t len;

	skel = PT_BPF_LOAD(&self->bpf, fuse_hide);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.hide_ops);
	mount_view(_metadata, "hide");
	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	ASSERT_LE(0, in);
	wd = inotify_add_watch(in, MNT, IN_CREATE | IN_DELETE);
	ASSERT_LE(0, wd);
	ASSERT_EQ(0, mkdir(LO("hidden"), 0755));
	ASSERT_EQ(0, pt_write_file(LO("other"), "", 0644));
	ASSERT_EQ(0, unlink(LO("other")));
	ASSERT_EQ(0, mkdir(MN("made"), 0755));

	p = (struct pollfd){ .fd = in, .events = POLLIN };
	ASSERT_EQ(1, poll(&p, 1, 2000));
	len = read(in, buf, sizeof(buf));
	ASSERT_LT(0, len);
	e = (void *)buf;
	EXPECT_EQ(sizeof(*e) + e->len, len) TH_LOG("more than one event");
	EXPECT_EQ(wd, e->wd);
	EXPECT_EQ(IN_CREATE | IN_ISDIR, e->mask);
	EXPECT_STREQ("made", e->len ? e->name : "");
	EXPECT_EQ(0, poll(&p, 1, 300));
	close(in);
}

#define BIG_FILES	1000

/*
 * With a readdir postfilter, one getdents64() call returns as many
 * entries as the lower's does, the filter running on chunk after chunk
 * until the caller's buffer is full; small buffers that fill in the
 * middle of a chunk go on where they stopped, each entry once.
 */
TEST_F(filter, hide_getdents_fills_buffer)
{
	struct fuse_hide *skel;
	int first_lo, first_mn;

	skel = PT_BPF_LOAD(&self->bpf, fuse_hide);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.hide_ops);
	ASSERT_EQ(0, mkdir(LO("big"), 0755));
	ASSERT_EQ(0, pt_make_files(LO("big"), "a-%04d", BIG_FILES));
	mount_view(_metadata, "hide");

	EXPECT_EQ(BIG_FILES + 2, pt_getdents_count(LO("big"), "a-", BIG_FILES, 65536, &first_lo));
	EXPECT_EQ(BIG_FILES + 2, pt_getdents_count(MN("big"), "a-", BIG_FILES, 65536, &first_mn));
	EXPECT_EQ(BIG_FILES + 2, first_lo);
	EXPECT_EQ(first_lo, first_mn)
		TH_LOG("one getdents64 of 64 KiB: %d entries on the lower, %d through the mount",
		       first_lo, first_mn);
	EXPECT_EQ(BIG_FILES + 2, pt_getdents_count(MN("big"), "a-", BIG_FILES, 1000, &first_mn));
	EXPECT_LT(0, first_mn);
	EXPECT_EQ(BIG_FILES + 2, pt_getdents_count(MN("big"), "a-", BIG_FILES, 100, &first_mn));
}

/* ------------------------------------------------------------------ */
/* fuse_suffix                                                          */
/* ------------------------------------------------------------------ */

/* Names are the lower's with ".sfx", both ways; "." and ".." are not */
TEST_F(filter, suffix_names)
{
	struct fuse_suffix *skel;
	struct stat m, l;
	char names[256];

	skel = PT_BPF_LOAD(&self->bpf, fuse_suffix);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.suffix_ops);
	ASSERT_EQ(0, pt_write_file(LO("file"), "data", 0644));
	ASSERT_EQ(0, pt_write_file(LO("a"), "", 0644));
	ASSERT_EQ(0, pt_write_file(LO("b.sfx"), "", 0644));
	ASSERT_EQ(0, mkdir(LO("dir"), 0755));
	ASSERT_EQ(0, pt_write_file(LO("dir/inner"), "in", 0644));
	mount_view(_metadata, "suffix");

	EXPECT_EQ(4, pt_dir_names(MNT, names, sizeof(names)));
	EXPECT_STREQ("a.sfx b.sfx.sfx dir.sfx file.sfx ", names);
	EXPECT_TRUE(dir_has(MNT, "."));
	EXPECT_TRUE(dir_has(MNT, ".."));
	EXPECT_EQ(1, pt_dir_names(MN("dir.sfx"), names, sizeof(names)));
	EXPECT_STREQ("inner.sfx ", names);

	ASSERT_EQ(0, stat(MN("file.sfx"), &m));
	ASSERT_EQ(0, stat(LO("file"), &l));
	EXPECT_EQ(l.st_ino, m.st_ino);
	EXPECT_EQ(4, pt_read_file(MN("file.sfx"), names, sizeof(names)));
	EXPECT_STREQ("data", names);
	EXPECT_EQ(2, pt_read_file(MN("dir.sfx/inner.sfx"), names,
				  sizeof(names)));
	EXPECT_EQ(0, err_of(stat(MN("b.sfx.sfx"), &m)));
	EXPECT_EQ(0, err_of(stat(MN("a.sfx"), &m)));

	/* The lower's names are not in the view */
	EXPECT_EQ(ENOENT, err_of(stat(MN("file"), &m)));
	EXPECT_EQ(ENOENT, err_of(stat(MN("b.sfx"), &m)));
	EXPECT_EQ(ENOENT, err_of(stat(MN(".sfx"), &m)));
	EXPECT_EQ(ENOENT, err_of(stat(MN("dir.sfx/inner"), &m)));
}

/*
 * Listings of several chunks, where each renamed record grows, and lower
 * names that cannot take the suffix within NAME_MAX, left out.
 */
TEST_F(filter, suffix_many)
{
	struct fuse_suffix *skel;
	char name[NAME_MAX + 1], path[PATH_MAX];
	struct stat st;
	int with;

	skel = PT_BPF_LOAD(&self->bpf, fuse_suffix);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.suffix_ops);
	ASSERT_EQ(0, mkdir(LO("many"), 0755));
	ASSERT_EQ(0, pt_make_files(LO("many"), "f%04d", 500));
	/* The longest name that takes the suffix, and one a byte longer */
	ASSERT_EQ(0, touch_in(LO("many"), long_name(name, 'y', NAME_MAX - 3)));
	ASSERT_EQ(0, touch_in(LO("many"), long_name(name, 'x', NAME_MAX - 4)));
	mount_view(_metadata, "suffix");

	EXPECT_EQ(502, dir_count(LO("many"), NULL, &with));
	EXPECT_EQ(501, dir_count(MN("many.sfx"), ".sfx", &with));
	EXPECT_EQ(501, with);
	EXPECT_TRUE(dir_has(MN("many.sfx"), "f0000.sfx"));
	EXPECT_TRUE(dir_has(MN("many.sfx"), "f0499.sfx"));
	/* The x name is listed, and found, with the suffix */
	snprintf(path, sizeof(path), "%s/%s.sfx", MN("many.sfx"), name);
	EXPECT_TRUE(dir_has(MN("many.sfx"), strrchr(path, '/') + 1));
	EXPECT_EQ(0, err_of(stat(path, &st)));
}

/* ------------------------------------------------------------------ */
/* fuse_redact                                                          */
/* ------------------------------------------------------------------ */

static int prefix_set(struct bpf_map *prefixes, __u32 slot, const char *pre)
{
	struct redact_prefix p = { .len = strlen(pre) };

	memcpy(p.str, pre, p.len);
	return bpf_map__update_elem(prefixes, &slot, sizeof(slot), &p,
				    sizeof(p), BPF_ANY);
}

static int redact_set(struct fuse_redact *skel, __u32 slot, const char *pre)
{
	return prefix_set(skel->maps.prefixes, slot, pre);
}

/*
 * Listings leave out the names with a prefix of the map, as the map is
 * now: chunks all left out (300 "tmp-" files) are skipped; lookups still
 * find what listings leave out.
 */
TEST_F(filter, redact)
{
	struct fuse_redact *skel;
	char names[256];
	struct stat st;
	int with;

	skel = PT_BPF_LOAD(&self->bpf, fuse_redact);
	/* Slot 2 stays unused */
	ASSERT_EQ(0, redact_set(skel, 0, "tmp"));
	ASSERT_EQ(0, redact_set(skel, 1, ".#"));
	ASSERT_EQ(0, redact_set(skel, 3, "backup-"));
	pt_bpf_register(_metadata, &self->bpf, skel->maps.redact_ops);
	ASSERT_EQ(0, pt_make_files(LOWER, "tmp-%04d", 300));
	ASSERT_EQ(0, pt_write_file(LO("tmpfile"), "", 0644));
	ASSERT_EQ(0, pt_write_file(LO("tmp"), "", 0644));
	ASSERT_EQ(0, pt_write_file(LO("tm"), "", 0644));
	ASSERT_EQ(0, pt_write_file(LO("notmp"), "", 0644));
	ASSERT_EQ(0, pt_write_file(LO(".#lock"), "", 0644));
	ASSERT_EQ(0, pt_write_file(LO("backup-1"), "", 0644));
	ASSERT_EQ(0, pt_write_file(LO("backup"), "", 0644));
	mount_view(_metadata, "redact");

	EXPECT_EQ(3, pt_dir_names(MNT, names, sizeof(names)));
	EXPECT_STREQ("backup notmp tm ", names);
	EXPECT_EQ(0, stat(MN("tmpfile"), &st));
	EXPECT_EQ(0, stat(MN(".#lock"), &st));

	/* The map changes, the view follows */
	ASSERT_EQ(0, redact_set(skel, 0, ""));
	EXPECT_EQ(305, dir_count(MNT, NULL, &with));
	EXPECT_TRUE(dir_has(MNT, "tmp-0299"));
	EXPECT_FALSE(dir_has(MNT, "backup-1"));
}

/* fuse_view (make bench's 3b): fuse_hide and fuse_redact in one filter */
TEST_F(filter, view)
{
	struct fuse_view *skel;
	char names[256];
	struct stat st;

	skel = PT_BPF_LOAD(&self->bpf, fuse_view);
	ASSERT_EQ(0, prefix_set(skel->maps.prefixes, 0, "~"));
	pt_bpf_register(_metadata, &self->bpf, skel->maps.view_ops);
	ASSERT_EQ(0, mkdir(LO("hidden"), 0755));
	ASSERT_EQ(0, pt_write_file(LO("~draft"), "", 0644));
	ASSERT_EQ(0, pt_write_file(LO("doc"), "", 0644));
	mount_view(_metadata, "view");

	EXPECT_EQ(1, pt_dir_names(MNT, names, sizeof(names)));
	EXPECT_STREQ("doc ", names);
	EXPECT_EQ(ENOENT, err_of(stat(MN("hidden"), &st)));
	EXPECT_EQ(0, stat(MN("~draft"), &st));
}

/* ------------------------------------------------------------------ */
/* Revalidation asks the lookup filter again                            */
/* ------------------------------------------------------------------ */

/*
 * A name the filter hides once it is in the dcache is gone at the next
 * walk, open file or not, and back when the filter lets it be again.
 */
TEST_F(filter, revalidate_hide_later)
{
	struct fuse_test_relookup *skel;
	struct stat st;
	int fd;

	skel = PT_BPF_LOAD(&self->bpf, fuse_test_relookup);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.relookup_ops);
	ASSERT_EQ(0, pt_write_file(LO("victim"), "v", 0644));
	mount_view(_metadata, "relookup");

	ASSERT_EQ(0, stat(MN("victim"), &st));
	fd = open(MN("victim"), O_RDONLY);
	ASSERT_LE(0, fd);
	skel->bss->hide = 1;
	EXPECT_EQ(ENOENT, err_of(stat(MN("victim"), &st)));
	EXPECT_EQ(ENOENT, err_of(access(MN("victim"), F_OK)));
	/* What was open stays open, as after an unlink */
	EXPECT_EQ(0, fstat(fd, &st));
	close(fd);
	/* Negative now: it stays so while hidden, comes back when not */
	EXPECT_EQ(ENOENT, err_of(stat(MN("victim"), &st)));
	skel->bss->hide = 0;
	EXPECT_EQ(0, stat(MN("victim"), &st));
	EXPECT_FILE("v", MN("victim"));
}

/*
 * A name the filter looks up under another lower name follows the filter:
 * positive and negative dentries are checked against the lower name the
 * filter gives now, never against their own name on the lower.
 */
TEST_F(filter, revalidate_renamed_name)
{
	struct fuse_test_relookup *skel;
	struct stat st;

	skel = PT_BPF_LOAD(&self->bpf, fuse_test_relookup);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.relookup_ops);
	ASSERT_EQ(0, pt_write_file(LO("a"), "a", 0644));
	ASSERT_EQ(0, pt_write_file(LO("b"), "bb", 0644));
	/* A lower file of the view's own name, which the filter never asks */
	ASSERT_EQ(0, pt_write_file(LO("alias"), "decoy", 0644));
	mount_view(_metadata, "relookup");

	EXPECT_FILE("a", MN("alias"));
	skel->bss->target = 1;
	EXPECT_FILE("bb", MN("alias"));
	ASSERT_EQ(0, unlink(LO("alias")));
	EXPECT_FILE("bb", MN("alias"));
	/* "c" is not on the lower: a negative dentry */
	skel->bss->target = 2;
	EXPECT_EQ(ENOENT, err_of(stat(MN("alias"), &st)));
	EXPECT_EQ(ENOENT, err_of(stat(MN("alias"), &st)));
	/* ... until "c" appears on the lower (no "alias" there) */
	ASSERT_EQ(0, pt_write_file(LO("c"), "ccc", 0644));
	EXPECT_FILE("ccc", MN("alias"));
	/* and goes again */
	ASSERT_EQ(0, unlink(LO("c")));
	EXPECT_EQ(ENOENT, err_of(stat(MN("alias"), &st)));
	/* A lower "alias" is not what the view's "alias" is */
	ASSERT_EQ(0, pt_write_file(LO("alias"), "decoy", 0644));
	EXPECT_EQ(ENOENT, err_of(stat(MN("alias"), &st)));
	skel->bss->target = 0;
	EXPECT_FILE("a", MN("alias"));
}

/*
 * Bytes a filter adds to a buffer and does not write are zeroes: here the
 * 64 a listxattr postfilter appends to the list, in the kernel buffer
 * that a listxattr of the lower with a long list used just before.
 */
TEST_F(filter, grown_bytes_zeroed)
{
	struct fuse_test_grow *skel;
	static char list[4096];
	char name[64];
	ssize_t n, i;
	int round;

	skel = PT_BPF_LOAD(&self->bpf, fuse_test_grow);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.grow_ops);
	ASSERT_EQ(0, pt_write_file(LO("f"), "", 0644));
	ASSERT_EQ(0, pt_write_file(LO("junk"), "", 0644));
	ASSERT_EQ(0, setxattr(LO("f"), "user.k", "v", 1, 0));
	for (i = 0; i < 60; i++) {
		snprintf(name, sizeof(name), "user.%s-%02zd",
			 "JJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJJ", i);
		ASSERT_EQ(0, setxattr(LO("junk"), name, "", 0, 0));
	}
	mount_view(_metadata, "grow");

	EXPECT_EQ(7 + 64, listxattr(MN("f"), NULL, 0));
	for (round = 0; round < 8; round++) {
		ASSERT_LT(2048, listxattr(LO("junk"), list, sizeof(list)));
		memset(list, 0x5a, sizeof(list));
		n = listxattr(MN("f"), list, sizeof(list));
		ASSERT_EQ(7 + 64, n);
		EXPECT_EQ(0, memcmp(list, "user.k", 7));
		for (i = 7; i < n; i++)
			if (list[i])
				break;
		EXPECT_EQ(n, i) TH_LOG("round %d: byte %zd is 0x%02x",
				       round, i, (unsigned char)list[i]);
	}
}

/* ------------------------------------------------------------------ */
/* fuse_readonly                                                        */
/* ------------------------------------------------------------------ */

static void readonly_lower(struct __test_metadata *_metadata)
{
	ASSERT_EQ(0, pt_write_file(LO("f"), "data", 0644));
	ASSERT_EQ(0, pt_write_file(LO("f2"), "more", 0644));
	ASSERT_EQ(0, mkdir(LO("d"), 0755));
	ASSERT_EQ(0, symlink("f", LO("l")));
	ASSERT_EQ(0, setxattr(LO("f"), "user.k", "v", 1, 0));
}

/* Every way to change the lower fails with EROFS, and changes nothing */
TEST_F(filter, readonly_writes)
{
	struct fuse_readonly *skel;
	char names[64];
	struct stat st;

	skel = PT_BPF_LOAD(&self->bpf, fuse_readonly);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.readonly_ops);
	readonly_lower(_metadata);
	mount_view(_metadata, "readonly");

	EXPECT_EQ(EROFS, err_fd(open(MN("f"), O_WRONLY)));
	EXPECT_EQ(EROFS, err_fd(open(MN("f"), O_RDWR)));
	EXPECT_EQ(EROFS, err_fd(open(MN("f"), O_RDONLY | O_TRUNC)));
	EXPECT_EQ(EROFS, err_fd(open(MN("new"), O_CREAT | O_WRONLY, 0644)));
	EXPECT_EQ(EROFS, err_fd(open(MN("new"), O_CREAT | O_RDONLY, 0644)));
	EXPECT_EQ(EROFS, err_fd(open(MN("d"), O_TMPFILE | O_RDWR, 0600)));
	EXPECT_EQ(EROFS, err_of(mkdir(MN("nd"), 0755)));
	EXPECT_EQ(EROFS, err_of(mkfifo(MN("fifo"), 0644)));
	EXPECT_EQ(EROFS, err_of(unlink(MN("f"))));
	EXPECT_EQ(EROFS, err_of(rmdir(MN("d"))));
	EXPECT_EQ(EROFS, err_of(rename(MN("f"), MN("g"))));
	EXPECT_EQ(EROFS, err_of(rename_flags(MN("f"), MN("g"),
					     RENAME_NOREPLACE)));
	EXPECT_EQ(EROFS, err_of(link(MN("f"), MN("h"))));
	EXPECT_EQ(EROFS, err_of(symlink("f", MN("s"))));
	EXPECT_EQ(EROFS, err_of(chmod(MN("f"), 0600)));
	EXPECT_EQ(EROFS, err_of(chown(MN("f"), 1, 1)));
	EXPECT_EQ(EROFS, err_of(truncate(MN("f"), 1)));
	EXPECT_EQ(EROFS, err_of(utimensat(AT_FDCWD, MN("f"), NULL, 0)));
	EXPECT_EQ(EROFS, err_of(setxattr(MN("f"), "user.k", "w", 1, 0)));
	EXPECT_EQ(EROFS, err_of(setxattr(MN("f"), "user.n", "w", 1, 0)));
	EXPECT_EQ(EROFS, err_of(removexattr(MN("f"), "user.k")));

	/* Nothing reached the lower */
	EXPECT_EQ(4, pt_dir_names(LOWER, names, sizeof(names)));
	EXPECT_STREQ("d f f2 l ", names);
	EXPECT_EQ(4, pt_read_file(LO("f"), names, sizeof(names)));
	ASSERT_EQ(0, stat(LO("f"), &st));
	EXPECT_EQ(0644, perms(&st));
	EXPECT_EQ(0, (long)st.st_uid);
	EXPECT_EQ(1, getxattr(LO("f"), "user.k", names, sizeof(names)));
	EXPECT_EQ(ENODATA, err_of(getxattr(LO("f"), "user.n", names,
					   sizeof(names))));
}

/* What does not change the lower works as on any view */
TEST_F(filter, readonly_reads)
{
	struct fuse_readonly *skel;
	char buf[64];
	struct statfs sfs;
	struct stat st;
	int fd;

	skel = PT_BPF_LOAD(&self->bpf, fuse_readonly);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.readonly_ops);
	readonly_lower(_metadata);
	mount_view(_metadata, "readonly");

	EXPECT_EQ(4, pt_read_file(MN("f"), buf, sizeof(buf)));
	EXPECT_STREQ("data", buf);
	fd = open(MN("f"), O_RDONLY | O_CREAT, 0644);	/* exists: no create */
	EXPECT_LE(0, fd);
	if (fd >= 0) {
		EXPECT_EQ(0, fsync(fd));
		EXPECT_EQ(0, close(fd));
	}
	EXPECT_EQ(0, stat(MN("f"), &st));
	EXPECT_EQ(4, st.st_size);
	EXPECT_EQ(4, pt_dir_names(MNT, buf, sizeof(buf)));
	EXPECT_STREQ("d f f2 l ", buf);
	EXPECT_EQ(1, readlink(MN("l"), buf, sizeof(buf)));
	EXPECT_EQ('f', buf[0]);
	EXPECT_EQ(1, getxattr(MN("f"), "user.k", buf, sizeof(buf)));
	EXPECT_EQ('v', buf[0]);
	EXPECT_LT(0, listxattr(MN("f"), buf, sizeof(buf)));
	EXPECT_EQ(0, access(MN("f"), R_OK));
	EXPECT_EQ(0, statfs(MNT, &sfs));
}

/*
 * With opens for writing let through (the selftest's switch of the
 * program), the writes of an open file fail in their own filters.
 */
TEST_F(filter, readonly_open_files)
{
	struct fuse_readonly *skel;
	loff_t in = 0, out = 0;
	char buf[16];
	int fd, fd2;

	skel = PT_BPF_OPEN(&self->bpf, fuse_readonly);
	skel->rodata->open_for_write = true;
	ASSERT_EQ(0, fuse_readonly__load(skel));
	pt_bpf_register(_metadata, &self->bpf, skel->maps.readonly_ops);
	readonly_lower(_metadata);
	mount_view(_metadata, "readonly");

	fd = open(MN("f"), O_RDWR);
	ASSERT_LE(0, fd) TH_LOG("open: %s", strerror(errno));
	fd2 = open(MN("f2"), O_RDWR);
	ASSERT_LE(0, fd2) TH_LOG("open: %s", strerror(errno));
	EXPECT_EQ(EROFS, err_of(fallocate(fd, 0, 0, 8192)));
	EXPECT_EQ(EROFS, err_of(copy_file_range(fd, &in, fd2, &out, 4, 0)));
	close(fd2);
	close(fd);

	EXPECT_EQ(4, pt_read_file(LO("f"), buf, sizeof(buf)));
	EXPECT_EQ(4, pt_read_file(LO("f2"), buf, sizeof(buf)));
	EXPECT_STREQ("more", buf);
}

/* ------------------------------------------------------------------ */
/* fuse_count                                                           */
/* ------------------------------------------------------------------ */

static __u64 count_get(struct bpf_map *map, __u32 opcode)
{
	__u64 n = 0;

	bpf_map__lookup_elem(map, &opcode, sizeof(opcode), &n, sizeof(n), 0);
	return n;
}

static struct count_seen count_last(struct fuse_count *skel, __u32 opcode)
{
	struct count_seen s = {};

	bpf_map__lookup_elem(skel->maps.last_call, &opcode, sizeof(opcode),
			     &s, sizeof(s), 0);
	return s;
}

static void count_reset(struct fuse_count *skel)
{
	struct count_seen s = {};
	__u64 zero = 0;
	__u32 op;

	for (op = 0; op < COUNT_OPCODES; op++) {
		bpf_map__update_elem(skel->maps.pre_count, &op,
				     sizeof(op), &zero, sizeof(zero), BPF_ANY);
		bpf_map__update_elem(skel->maps.post_count, &op,
				     sizeof(op), &zero, sizeof(zero), BPF_ANY);
		bpf_map__update_elem(skel->maps.last_call, &op, sizeof(op),
				     &s, sizeof(s), BPF_ANY);
	}
}

/*
 * Since the last count_reset(), the filters of @op were called @n times
 * each (0: at least once), and told their opcode.  Where the kernel may
 * repeat an operation (lookups, attribute refreshes, readdir chunks)
 * the test asks for at least once.
 */
static void expect_calls(struct __test_metadata *_metadata,
			 struct fuse_count *skel, __u32 op, const char *name,
			 __u64 n)
{
	__u64 pre = count_get(skel->maps.pre_count, op);
	__u64 post = count_get(skel->maps.post_count, op);
	struct count_seen s = count_last(skel, op);

	if (n) {
		EXPECT_EQ(n, pre) TH_LOG("%s prefilter", name);
		EXPECT_EQ(n, post) TH_LOG("%s postfilter", name);
	} else {
		EXPECT_NE(0ULL, pre) TH_LOG("%s prefilter", name);
		EXPECT_NE(0ULL, post) TH_LOG("%s postfilter", name);
	}
	if (pre)
		EXPECT_EQ(op | FUSE_PREFILTER, s.pre_opcode)
			TH_LOG("%s prefilter: opcode %#x", name, s.pre_opcode);
	if (post)
		EXPECT_EQ(op | FUSE_POSTFILTER, s.post_opcode)
			TH_LOG("%s postfilter: opcode %#x", name,
			       s.post_opcode);
}

#define EXPECT_CALLS(skel, op, n) expect_calls(_metadata, skel, op, #op, n)

/* Operations on names and directories */
TEST_F(filter, count_names)
{
	struct fuse_count *skel;
	struct count_seen s;
	char buf[64];
	struct stat st;
	__u64 d_node;
	int fd;
	DIR *d;

	skel = PT_BPF_LOAD(&self->bpf, fuse_count);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.count_ops);
	ASSERT_EQ(0, pt_write_file(LO("f"), "data", 0644));
	ASSERT_EQ(0, mkdir(LO("full"), 0755));
	ASSERT_EQ(0, pt_write_file(LO("full/x"), "", 0644));
	mount_view(_metadata, "count");

	count_reset(skel);
	EXPECT_EQ(0, stat(MN("f"), &st));
	EXPECT_CALLS(skel, FUSE_LOOKUP, 0);
	s = count_last(skel, FUSE_LOOKUP);
	EXPECT_EQ(FUSE_ROOT_ID, (long)s.pre_nodeid);
	EXPECT_EQ(0, s.post_error);
	/* No lower entry: a negative dentry, and error_in -ENOENT */
	count_reset(skel);
	EXPECT_EQ(ENOENT, err_of(stat(MN("missing"), &st)));
	EXPECT_CALLS(skel, FUSE_LOOKUP, 0);
	EXPECT_EQ(-ENOENT, count_last(skel, FUSE_LOOKUP).post_error);

	count_reset(skel);
	EXPECT_EQ(0, mkdir(MN("d"), 0755));
	EXPECT_CALLS(skel, FUSE_MKDIR, 1);
	EXPECT_EQ(FUSE_ROOT_ID, (long)count_last(skel, FUSE_MKDIR).pre_nodeid);

	count_reset(skel);
	d = opendir(MN("d"));
	ASSERT_NE(NULL, d);
	EXPECT_CALLS(skel, FUSE_OPENDIR, 1);
	d_node = count_last(skel, FUSE_OPENDIR).pre_nodeid;
	EXPECT_NE(FUSE_ROOT_ID, (long)d_node);
	count_reset(skel);
	while (readdir(d))
		;
	EXPECT_CALLS(skel, FUSE_READDIR, 0);
	count_reset(skel);
	EXPECT_EQ(0, fsync(dirfd(d)));
	EXPECT_CALLS(skel, FUSE_FSYNCDIR, 1);
	closedir(d);

	/* The node of a creation is the parent directory */
	count_reset(skel);
	EXPECT_EQ(0, mkfifo(MN("d/fifo"), 0644));
	EXPECT_CALLS(skel, FUSE_MKNOD, 1);
	EXPECT_EQ(d_node, count_last(skel, FUSE_MKNOD).pre_nodeid);

	/*
	 * creat() runs create_open on the directory, then the new node's
	 * open filter, as any open of it (the RFC ran create_open only)
	 */
	count_reset(skel);
	fd = open(MN("new"), O_CREAT | O_EXCL | O_RDWR, 0644);
	EXPECT_LE(0, fd);
	EXPECT_CALLS(skel, FUSE_CREATE, 1);
	EXPECT_CALLS(skel, FUSE_OPEN, 1);
	close(fd);

	count_reset(skel);
	fd = open(MN("d"), O_TMPFILE | O_RDWR, 0600);
	EXPECT_LE(0, fd);
	EXPECT_CALLS(skel, FUSE_TMPFILE, 1);
	close(fd);

	count_reset(skel);
	EXPECT_EQ(0, symlink("f", MN("sl")));
	EXPECT_CALLS(skel, FUSE_SYMLINK, 1);
	count_reset(skel);
	EXPECT_EQ(1, readlink(MN("sl"), buf, sizeof(buf)));
	EXPECT_CALLS(skel, FUSE_READLINK, 0);

	count_reset(skel);
	EXPECT_EQ(0, link(MN("f"), MN("hl")));
	EXPECT_CALLS(skel, FUSE_LINK, 1);
	count_reset(skel);
	EXPECT_EQ(0, rename(MN("hl"), MN("hl2")));
	EXPECT_CALLS(skel, FUSE_RENAME, 1);
	count_reset(skel);
	EXPECT_EQ(0, rename_flags(MN("hl2"), MN("hl3"), RENAME_NOREPLACE));
	EXPECT_CALLS(skel, FUSE_RENAME2, 1);
	count_reset(skel);
	EXPECT_EQ(0, unlink(MN("hl3")));
	EXPECT_CALLS(skel, FUSE_UNLINK, 1);

	/* The postfilter sees the lower's error */
	count_reset(skel);
	EXPECT_EQ(ENOTEMPTY, err_of(rmdir(MN("full"))));
	EXPECT_CALLS(skel, FUSE_RMDIR, 1);
	EXPECT_EQ(-ENOTEMPTY, count_last(skel, FUSE_RMDIR).post_error);
	EXPECT_EQ(0, unlink(MN("d/fifo")));
	count_reset(skel);
	EXPECT_EQ(0, rmdir(MN("d")));
	EXPECT_CALLS(skel, FUSE_RMDIR, 1);
	EXPECT_EQ(0, count_last(skel, FUSE_RMDIR).post_error);
}

/* Operations on attributes, xattrs and open files */
TEST_F(filter, count_files)
{
	struct fuse_count *skel;
	loff_t in = 0, out = 0;
	struct statfs sfs;
	struct statx stx;
	char buf[64];
	int fd, fd2;

	skel = PT_BPF_LOAD(&self->bpf, fuse_count);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.count_ops);
	ASSERT_EQ(0, pt_write_file(LO("f"), "data", 0644));
	ASSERT_EQ(0, pt_write_file(LO("g"), "", 0644));
	mount_view(_metadata, "count");

	count_reset(skel);
	EXPECT_EQ(0, statfs(MNT, &sfs));
	EXPECT_CALLS(skel, FUSE_STATFS, 1);
	EXPECT_EQ(FUSE_ROOT_ID, (long)count_last(skel, FUSE_STATFS).pre_nodeid);

	count_reset(skel);
	EXPECT_EQ(0, statx(AT_FDCWD, MN("f"), AT_STATX_FORCE_SYNC,
			   STATX_BASIC_STATS, &stx));
	EXPECT_CALLS(skel, FUSE_GETATTR, 0);
	count_reset(skel);
	EXPECT_EQ(0, access(MN("f"), W_OK));
	EXPECT_CALLS(skel, FUSE_ACCESS, 0);
	count_reset(skel);
	EXPECT_EQ(0, chmod(MN("f"), 0600));
	EXPECT_CALLS(skel, FUSE_SETATTR, 1);

	count_reset(skel);
	EXPECT_EQ(0, setxattr(MN("f"), "user.a", "1", 1, 0));
	EXPECT_CALLS(skel, FUSE_SETXATTR, 1);
	count_reset(skel);
	EXPECT_EQ(1, getxattr(MN("f"), "user.a", buf, sizeof(buf)));
	EXPECT_CALLS(skel, FUSE_GETXATTR, 1);
	count_reset(skel);
	EXPECT_LT(0, listxattr(MN("f"), buf, sizeof(buf)));
	EXPECT_CALLS(skel, FUSE_LISTXATTR, 1);
	count_reset(skel);
	EXPECT_EQ(0, removexattr(MN("f"), "user.a"));
	EXPECT_CALLS(skel, FUSE_REMOVEXATTR, 1);

	count_reset(skel);
	fd = open(MN("f"), O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_CALLS(skel, FUSE_OPEN, 1);
	fd2 = open(MN("g"), O_RDWR);
	ASSERT_LE(0, fd2);
	count_reset(skel);
	EXPECT_EQ(0, fallocate(fd, 0, 0, 8192));
	EXPECT_CALLS(skel, FUSE_FALLOCATE, 1);
	count_reset(skel);
	EXPECT_EQ(0, lseek(fd, 0, SEEK_DATA));
	EXPECT_CALLS(skel, FUSE_LSEEK, 1);
	count_reset(skel);
	EXPECT_EQ(4, copy_file_range(fd, &in, fd2, &out, 4, 0));
	EXPECT_CALLS(skel, FUSE_COPY_FILE_RANGE, 1);
	count_reset(skel);
	EXPECT_EQ(0, fsync(fd));
	EXPECT_CALLS(skel, FUSE_FSYNC, 1);
	count_reset(skel);
	EXPECT_EQ(0, close(fd));
	EXPECT_CALLS(skel, FUSE_FLUSH, 1);
	close(fd2);

	EXPECT_EQ(4, pt_read_file(LO("g"), buf, sizeof(buf)));
	EXPECT_STREQ("data", buf);
}

/* ------------------------------------------------------------------ */
/* fuse_trivial                                                         */
/* ------------------------------------------------------------------ */

/* Filters that change nothing: the view works as without them */
TEST_F(filter, trivial)
{
	struct fuse_trivial *skel;
	char buf[64];
	struct stat st;

	skel = PT_BPF_LOAD(&self->bpf, fuse_trivial);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.trivial_ops);
	mount_view(_metadata, "trivial");

	EXPECT_EQ(0, mkdir(MN("d"), 0755));
	EXPECT_EQ(0, pt_write_file(MN("d/f"), "data", 0644));
	EXPECT_EQ(0, rename(MN("d/f"), MN("d/g")));
	EXPECT_EQ(0, setxattr(MN("d/g"), "user.k", "v", 1, 0));
	EXPECT_EQ(4, pt_read_file(LO("d/g"), buf, sizeof(buf)));
	EXPECT_STREQ("data", buf);
	EXPECT_EQ(1, getxattr(LO("d/g"), "user.k", buf, sizeof(buf)));
	EXPECT_EQ(1, pt_dir_names(MN("d"), buf, sizeof(buf)));
	EXPECT_STREQ("g ", buf);
	EXPECT_EQ(0, stat(MN("d/g"), &st));
	EXPECT_EQ(4, st.st_size);
	EXPECT_EQ(0, unlink(MN("d/g")));
	EXPECT_EQ(0, rmdir(MN("d")));
	EXPECT_FALSE(dir_has(LOWER, "d"));
}

/* ------------------------------------------------------------------ */
/* Rewrites and errors (fuse_test_rewrite)                              */
/* ------------------------------------------------------------------ */

/* Prefilters rewrite names, modes and values on their way to the lower */
TEST_F(filter, rewrite_inputs)
{
	struct fuse_test_rewrite *skel;
	struct stat m, l;
	char buf[64];

	skel = PT_BPF_LOAD(&self->bpf, fuse_test_rewrite);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.rewrite_ops);
	ASSERT_EQ(0, pt_write_file(LO("target"), "T", 0644));
	ASSERT_EQ(0, pt_write_file(LO("f"), "", 0644));
	mount_view(_metadata, "rewrite");

	/* lookup: "alias" is "target" */
	EXPECT_EQ(1, pt_read_file(MN("alias"), buf, sizeof(buf)));
	EXPECT_STREQ("T", buf);
	ASSERT_EQ(0, stat(MN("alias"), &m));
	ASSERT_EQ(0, stat(LO("target"), &l));
	EXPECT_EQ(l.st_ino, m.st_ino);
	EXPECT_EQ(ENOENT, err_of(stat(LO("alias"), &l)));

	/* mkdir: another name and mode */
	EXPECT_EQ(0, mkdir(MN("mkdir_in"), 0755));
	ASSERT_EQ(0, stat(LO("mkdir_out"), &l));
	EXPECT_TRUE(S_ISDIR(l.st_mode));
	EXPECT_EQ(0700, perms(&l));
	EXPECT_EQ(ENOENT, err_of(stat(LO("mkdir_in"), &l)));
	EXPECT_EQ(0, stat(MN("mkdir_out"), &m));

	/* setxattr: another value, of another size */
	EXPECT_EQ(0, setxattr(MN("f"), "user.rewrite", "original", 8, 0));
	EXPECT_EQ(14, getxattr(LO("f"), "user.rewrite", buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "filtered-value", 14));
}

/* Postfilters rewrite what the caller gets back */
TEST_F(filter, rewrite_outputs)
{
	struct fuse_test_rewrite *skel;
	char buf[64];
	struct stat m, l;

	skel = PT_BPF_LOAD(&self->bpf, fuse_test_rewrite);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.rewrite_ops);
	ASSERT_EQ(0, pt_write_file(LO("f"), "", 0644));
	ASSERT_EQ(0, setxattr(LO("f"), "user.secret", "password123", 11, 0));
	ASSERT_EQ(0, setxattr(LO("f"), "user.plain", "plain", 5, 0));
	ASSERT_EQ(0, pt_write_file(LO("magic"), "", 0644));
	ASSERT_EQ(0, truncate(LO("magic"), 12345));
	mount_view(_metadata, "rewrite");

	/* getxattr: the value and its size */
	EXPECT_EQ(8, getxattr(MN("f"), "user.secret", buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "redacted", 8));
	EXPECT_EQ(8, getxattr(MN("f"), "user.secret", NULL, 0));
	EXPECT_EQ(ERANGE, err_of(getxattr(MN("f"), "user.secret", buf, 4)));
	EXPECT_EQ(5, getxattr(MN("f"), "user.plain", buf, sizeof(buf)));
	EXPECT_EQ(11, getxattr(LO("f"), "user.secret", buf, sizeof(buf)));

	/* getattr: mode, size and owner */
	ASSERT_EQ(0, stat(MN("magic"), &m));
	EXPECT_EQ(54321, m.st_size);
	EXPECT_EQ(4242, (long)m.st_uid);
	EXPECT_TRUE(S_ISREG(m.st_mode));
	EXPECT_EQ(0600, perms(&m));
	ASSERT_EQ(0, stat(LO("magic"), &l));
	EXPECT_EQ(12345, l.st_size);
	EXPECT_EQ(0, (long)l.st_uid);
	EXPECT_EQ(0644, perms(&l));
	ASSERT_EQ(0, stat(MN("f"), &m));
	EXPECT_EQ(0, m.st_size);
	EXPECT_EQ(0644, perms(&m));
}

/*
 * An lseek postfilter sets the position the caller gets, which is the
 * file's from then on; a negative one fails the seek with EINVAL and
 * leaves the position as it was.
 */
TEST_F(filter, rewrite_lseek)
{
	struct fuse_test_rewrite *skel;
	char data[2001], c;
	int fd, i;

	skel = PT_BPF_LOAD(&self->bpf, fuse_test_rewrite);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.rewrite_ops);
	for (i = 0; i < 2000; i++)
		data[i] = 'a' + i % 26;
	data[2000] = '\0';
	ASSERT_EQ(0, pt_write_file(LO("seek"), data, 0644));
	mount_view(_metadata, "rewrite");

	fd = open(MN("seek"), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(10, lseek(fd, 10, SEEK_SET));
	EXPECT_EQ(1000, lseek(fd, 777, SEEK_SET));
	EXPECT_EQ(1000, lseek(fd, 0, SEEK_CUR));
	ASSERT_EQ(1, read(fd, &c, 1));
	EXPECT_EQ(data[1000], c);
	EXPECT_EQ(EINVAL, err_of(lseek(fd, 666, SEEK_SET)));
	EXPECT_EQ(1001, lseek(fd, 0, SEEK_CUR));
	ASSERT_EQ(1, read(fd, &c, 1));
	EXPECT_EQ(data[1001], c);
	close(fd);
}

/*
 * A prefilter's errno fails the operation before the lower sees it, a
 * postfilter's after the lower did it.
 */
TEST_F(filter, errno_pre_and_post)
{
	struct fuse_test_rewrite *skel;
	char buf[8];
	struct stat st;

	skel = PT_BPF_LOAD(&self->bpf, fuse_test_rewrite);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.rewrite_ops);
	ASSERT_EQ(0, pt_write_file(LO("keep"), "", 0644));
	ASSERT_EQ(0, pt_write_file(LO("other"), "", 0644));
	mount_view(_metadata, "rewrite");

	EXPECT_EQ(EPERM, err_of(unlink(MN("keep"))));
	EXPECT_EQ(0, stat(LO("keep"), &st));
	EXPECT_EQ(0, unlink(MN("other")));
	EXPECT_EQ(ENOENT, err_of(stat(LO("other"), &st)));

	EXPECT_EQ(EDOM, err_of(setxattr(MN("keep"), "user.fail", "x", 1, 0)));
	EXPECT_EQ(1, getxattr(LO("keep"), "user.fail", buf, sizeof(buf)));
}

/* nobody's chown of @path, which it owns, to itself */
static int chown_to_self(void *path)
{
	return chown(path, NOBODY, -1) ? errno : 0;
}

/* A chmod of @path the test filter drops */
static int chmod_dropped(void *path)
{
	return chmod(path, 0715) ? errno : 0;
}

/* An ftruncate of @path the test filter gives an explicit mtime */
static int ftruncate_mtime(void *path)
{
	int fd = open(path, O_WRONLY), ret;

	if (fd < 0)
		return 100 + errno;
	ret = ftruncate(fd, 9999) ? errno : 0;
	close(fd);
	return ret;
}

struct userns_chown {
	int userns;
	const char *path;
};

/* As the root of a user namespace, chown a file to that root */
static int chown_in_userns(void *arg)
{
	struct userns_chown *c = arg;

	if (setns(c->userns, CLONE_NEWUSER) || setresgid(0, 0, 0) ||
	    setresuid(0, 0, 0))
		return 125;
	return chown(c->path, 0, -1) ? errno : 0;
}

/*
 * A setattr prefilter's rewrite is the change made: values it changes
 * reach the lower, a change it drops is not made, one it adds is refused;
 * the caller is judged on the change as rewritten.
 */
TEST_F(filter, rewrite_setattr)
{
	struct fuse_test_rewrite *skel;
	struct timespec ts[2] = { { 4242, 0 }, { 0, UTIME_OMIT } };
	struct userns_chown ns = { .path = MN("mine") };
	struct stat l;

	skel = PT_BPF_LOAD(&self->bpf, fuse_test_rewrite);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.rewrite_ops);
	ASSERT_EQ(0, pt_write_file(LO("f"), "0123456789", 0644));
	ASSERT_EQ(0, pt_write_file(LO("mine"), "", 0644));
	ASSERT_EQ(0, chown(LO("mine"), NOBODY, NOBODY));
	ASSERT_EQ(0, pt_write_file(LO("suid"), "data", 0644));
	ASSERT_EQ(0, chmod(LO("suid"), 04666));
	mount_view(_metadata, "rewrite");

	/* mode 0751 is made 0700 */
	EXPECT_EQ(0, chmod(MN("f"), 0751));
	ASSERT_EQ(0, stat(LO("f"), &l));
	EXPECT_EQ(0700, perms(&l));
	/* a truncate the filter adds to a chmod: refused, nothing changed */
	EXPECT_EQ(EPERM, err_of(chmod(MN("f"), 0713)));
	ASSERT_EQ(0, stat(LO("f"), &l));
	EXPECT_EQ(0700, perms(&l));
	EXPECT_EQ(10, l.st_size);
	/* a chmod the filter drops: not made */
	EXPECT_EQ(0, chmod(MN("f"), 0715));
	ASSERT_EQ(0, stat(LO("f"), &l));
	EXPECT_EQ(0700, perms(&l));
	/* a truncate to 7777 is one to 1111 */
	EXPECT_EQ(0, truncate(MN("f"), 7777));
	ASSERT_EQ(0, stat(LO("f"), &l));
	EXPECT_EQ(1111, l.st_size);
	/* an atime of 4242 is one of 2424 */
	EXPECT_EQ(0, utimensat(AT_FDCWD, MN("f"), ts, 0));
	ASSERT_EQ(0, stat(LO("f"), &l));
	EXPECT_EQ(2424, (long)l.st_atime);
	/* root's chown to nobody is one to root */
	EXPECT_EQ(0, chown(MN("f"), NOBODY, -1));
	ASSERT_EQ(0, stat(LO("f"), &l));
	EXPECT_EQ(0, (long)l.st_uid);
	/* nobody's chown of its file to itself, made one to root: refused */
	EXPECT_EQ(EPERM, pt_as_user(NOBODY, chown_to_self, MN("mine")));
	ASSERT_EQ(0, stat(LO("mine"), &l));
	EXPECT_EQ(NOBODY, (long)l.st_uid);
	/* without the filter, nobody may */
	EXPECT_EQ(0, pt_as_user(NOBODY, chown_to_self, LO("mine")));

	/* the root of a user namespace cannot give "mine" to the host's */
	ns.userns = pt_userns_fd(NOBODY);
	ASSERT_LE(0, ns.userns);
	EXPECT_EQ(EINVAL, pt_as_user(0, chown_in_userns, &ns));
	ASSERT_EQ(0, stat(LO("mine"), &l));
	EXPECT_EQ(NOBODY, (long)l.st_uid);
	close(ns.userns);

	/* a change nobody may not make, dropped by the filter: refused */
	EXPECT_EQ(EPERM, pt_as_user(NOBODY, chmod_dropped, MN("f")));
	/*
	 * A time the filter makes explicit is nobody's to give, also in an
	 * ftruncate that kills the setuid bit of a file it may write.
	 */
	EXPECT_EQ(EPERM, pt_as_user(NOBODY, ftruncate_mtime, MN("suid")));
	ASSERT_EQ(0, stat(LO("suid"), &l));
	EXPECT_EQ(4, l.st_size);
	EXPECT_NE(12345, (long)l.st_mtime);
	EXPECT_EQ(04666, l.st_mode & 07777);

	/* values the kernel cannot take: EINVAL, nothing changed */
	EXPECT_EQ(EINVAL, err_of(chown(MN("f"), 4300, -1)));
	EXPECT_EQ(EINVAL, err_of(truncate(MN("f"), 8888)));
	ts[0].tv_sec = 4343;
	EXPECT_EQ(EINVAL, err_of(utimensat(AT_FDCWD, MN("f"), ts, 0)));
	ASSERT_EQ(0, stat(LO("f"), &l));
	EXPECT_EQ(0700, perms(&l));
	EXPECT_EQ(1111, l.st_size);
	EXPECT_EQ(2424, (long)l.st_atime);
	EXPECT_EQ(0, (long)l.st_uid);
}

/*
 * An access prefilter that asks for more is checked for it (W_OK is
 * checked as W_OK | X_OK); one that asks for less grants nothing the
 * lower refused (R_OK | X_OK checked as R_OK).
 */
TEST_F(filter, rewrite_access)
{
	struct fuse_test_rewrite *skel;

	skel = PT_BPF_LOAD(&self->bpf, fuse_test_rewrite);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.rewrite_ops);
	ASSERT_EQ(0, pt_write_file(LO("rw"), "", 0644));
	ASSERT_EQ(0, chmod(LO("rw"), 0666));
	mount_view(_metadata, "rewrite");

	EXPECT_EQ(0, access(LO("rw"), W_OK));
	EXPECT_EQ(EACCES, err_of(access(MN("rw"), W_OK)));
	EXPECT_EQ(0, access(MN("rw"), R_OK));
	EXPECT_EQ(EACCES, err_of(access(LO("rw"), R_OK | X_OK)));
	EXPECT_EQ(EACCES, err_of(access(MN("rw"), R_OK | X_OK)));
}

/*
 * open, opendir and O_TMPFILE prefilters: flags other than O_DIRECT,
 * O_DSYNC and O_SYNC cannot be changed (the filter adds O_APPEND to an
 * O_NONBLOCK | O_DSYNC open), those only for regular files; an O_TMPFILE
 * file's permission bits can.
 */
TEST_F(filter, rewrite_open_flags)
{
	struct fuse_test_rewrite *skel;
	struct stat st;
	int fd;

	skel = PT_BPF_LOAD(&self->bpf, fuse_test_rewrite);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.rewrite_ops);
	ASSERT_EQ(0, pt_write_file(LO("f"), "data", 0644));
	mount_view(_metadata, "rewrite");

	EXPECT_EQ(EPERM, err_fd(open(MN("f"), O_WRONLY | O_NONBLOCK | O_DSYNC)));
	EXPECT_EQ(0, err_fd(open(MN("f"), O_WRONLY | O_DSYNC)));
	EXPECT_EQ(EPERM, err_fd(open(MN("."), O_TMPFILE | O_RDWR | O_NONBLOCK |
				     O_DSYNC, 0600)));

	/* O_DIRECT the filter adds: the file has it, as if asked */
	fd = open(MN("f"), O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd);
	EXPECT_EQ(O_DIRECT, fcntl(fd, F_GETFL) & O_DIRECT);
	close(fd);
	fd = open(MN("."), O_TMPFILE | O_RDWR | O_NONBLOCK, 0600);
	ASSERT_LE(0, fd) TH_LOG("O_TMPFILE | O_NONBLOCK: %s", strerror(errno));
	EXPECT_EQ(O_DIRECT, fcntl(fd, F_GETFL) & O_DIRECT);
	close(fd);
	/* I/O flags of a directory, which has no I/O: EINVAL */
	EXPECT_EQ(EINVAL, err_fd(open(MN("."), O_RDONLY | O_DIRECTORY |
					     O_DSYNC)));
	EXPECT_EQ(0, err_fd(open(MN("."), O_RDONLY | O_DIRECTORY)));

	fd = open(MN("."), O_TMPFILE | O_RDWR, 0641);
	ASSERT_LE(0, fd) TH_LOG("O_TMPFILE: %s", strerror(errno));
	ASSERT_EQ(0, fstat(fd, &st));
	EXPECT_EQ(0600, perms(&st));
	close(fd);
	fd = open(MN("."), O_TMPFILE | O_RDWR, 0640);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fstat(fd, &st));
	EXPECT_EQ(0640, perms(&st));
	close(fd);
}

FIXTURE(filter_ext4) {
	struct pt_env env;
	struct pt_bpf bpf;
};

FIXTURE_SETUP(filter_ext4)
{
	pt_env_lower(_metadata, &self->env, PT_EXT4, LOWER_MB);
}

FIXTURE_TEARDOWN(filter_ext4)
{
	pt_bpf_release(&self->bpf);
	pt_env_teardown(_metadata, &self->env);
}

#define DIO_SIZE	16384

/* Write @path: DIO_SIZE bytes of 'd'.  0, or -1 */
static int write_dio_file(const char *path)
{
	static char data[DIO_SIZE];
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644), ret;

	if (fd < 0)
		return -1;
	memset(data, 'd', sizeof(data));
	ret = write(fd, data, DIO_SIZE) == DIO_SIZE ? 0 : -1;
	close(fd);
	return ret;
}

/*
 * The first DIO_SIZE bytes of @path mapped, its page cache emptied first
 * (and checked empty), to watch with page_cached(); NULL on failure.
 */
static void *map_uncached(const char *path)
{
	unsigned char vec[DIO_SIZE / 4096];
	void *map = MAP_FAILED;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	if (!fsync(fd) && !posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
		map = mmap(NULL, DIO_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return NULL;
	if (mincore(map, DIO_SIZE, vec) || (vec[0] & 1)) {
		munmap(map, DIO_SIZE);
		return NULL;
	}
	return map;
}

/* Whether the first page of @map is in the page cache: 1, 0, or -1 */
static int page_cached(void *map)
{
	unsigned char vec[DIO_SIZE / 4096];

	return mincore(map, DIO_SIZE, vec) ? -1 : vec[0] & 1;
}

/*
 * Whether the first page of @path is in the page cache after a 4 KiB
 * read of @read_path opened with @flags, the cache of @path emptied first.
 */
static int cached_after_read(const char *path, const char *read_path,
			     int flags)
{
	void *buf = NULL, *map = map_uncached(path);
	int fd = -1, ret = -1;

	if (!map)
		return -1;
	if (posix_memalign(&buf, 4096, 4096))
		goto out;
	fd = open(read_path, flags);
	if (fd >= 0 && pread(fd, buf, 4096, 0) == 4096 &&
	    ((char *)buf)[0] == 'd')
		ret = page_cached(map);
	if (fd >= 0)
		close(fd);
out:
	munmap(map, DIO_SIZE);
	free(buf);
	return ret;
}

/*
 * An open prefilter's O_DIRECT reaches the backing file: a read of the
 * lower through it leaves nothing in the lower's page cache (the filter
 * adds O_DIRECT to an O_NONBLOCK open), where a buffered read does.
 */
TEST_F(filter_ext4, rewrite_open_direct)
{
	struct fuse_test_rewrite *skel;

	skel = PT_BPF_LOAD(&self->bpf, fuse_test_rewrite);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.rewrite_ops);
	ASSERT_EQ(0, write_dio_file(LO("f")));
	mount_view(_metadata, "rewrite");

	EXPECT_EQ(1, cached_after_read(LO("f"), MN("f"), O_RDONLY));
	EXPECT_EQ(0, cached_after_read(LO("f"), MN("f"), O_RDONLY | O_NONBLOCK));
}

/*
 * posix_fadvise(WILLNEED) (and readahead(2)) on a backed file reads ahead
 * into the backing file's page cache, which its reads use; there is no
 * daemon to read ahead through.
 */
TEST_F(filter_ext4, fadvise_reaches_backing)
{
	int fd, i, cached = 0;
	void *map;

	ASSERT_EQ(0, write_dio_file(LO("f")));
	map = map_uncached(LO("f"));
	ASSERT_NE(NULL, map);
	ASSERT_EQ(0, pt_mount(LOWER, MNT, NULL));

	fd = open(MN("f"), O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, posix_fadvise(fd, 0, DIO_SIZE, POSIX_FADV_WILLNEED));
	/* The read-ahead is asynchronous: up to 2 s for the first page */
	for (i = 0; i < 200; i++) {
		cached = page_cached(map);
		ASSERT_LE(0, cached);
		if (cached)
			break;
		usleep(10000);
	}
	EXPECT_EQ(1, cached);
	close(fd);
	munmap(map, DIO_SIZE);
}

/* ------------------------------------------------------------------ */
/* What else a filter returns, and filters of one side only             */
/* ------------------------------------------------------------------ */

/* To the daemon: there is none on a no_daemon mount */
TEST_F(filter, user_without_daemon)
{
	struct fuse_test_user *skel;
	struct stat st;

	skel = PT_BPF_LOAD(&self->bpf, fuse_test_user);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.user_ops);
	ASSERT_EQ(0, pt_write_file(LO("daemon"), "", 0644));
	ASSERT_EQ(0, pt_write_file(LO("user_pre"), "", 0644));
	ASSERT_EQ(0, pt_write_file(LO("user_post"), "", 0644));
	ASSERT_EQ(0, pt_write_file(LO("plain"), "", 0644));
	mount_view(_metadata, "user");

	EXPECT_EQ(EOPNOTSUPP, err_of(stat(MN("daemon"), &st)));
	/* Nor the daemon's own filters */
	EXPECT_EQ(EOPNOTSUPP, err_of(stat(MN("user_pre"), &st)));
	EXPECT_EQ(EOPNOTSUPP, err_of(stat(MN("user_post"), &st)));
	EXPECT_EQ(0, err_of(stat(MN("plain"), &st)));
}

/* A prefilter asking for a postfilter the program lacks */
TEST_F(filter, prefilter_only)
{
	struct fuse_test_preonly *skel;
	struct stat st;

	skel = PT_BPF_LOAD(&self->bpf, fuse_test_preonly);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.preonly_ops);
	mount_view(_metadata, "preonly");

	EXPECT_EQ(0, mkdir(MN("ok"), 0755));
	ASSERT_EQ(0, stat(LO("ok"), &st));
	EXPECT_TRUE(S_ISDIR(st.st_mode));
	EXPECT_EQ(EPERM, err_of(mkdir(MN("denied"), 0755)));
	EXPECT_EQ(ENOENT, err_of(stat(LO("denied"), &st)));
	EXPECT_EQ(2, (long)skel->bss->mkdir_calls);
}

/* A postfilter without a prefilter runs, and its output is the result */
TEST_F(filter, postfilter_only)
{
	struct fuse_test_postonly *skel;
	struct statfs m, l;

	skel = PT_BPF_LOAD(&self->bpf, fuse_test_postonly);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.postonly_ops);
	mount_view(_metadata, "postonly");

	ASSERT_EQ(0, statfs(MNT, &m));
	ASSERT_EQ(0, statfs(LOWER, &l));
	EXPECT_EQ(200, (long)m.f_namelen);
	EXPECT_EQ(NAME_MAX, (long)l.f_namelen);
	EXPECT_LT(0, (long)skel->bss->statfs_calls);
	EXPECT_EQ(0, skel->data->statfs_error);
}

/* ------------------------------------------------------------------ */
/* What a program returns, and memory it may hold on to                 */
/* ------------------------------------------------------------------ */

/*
 * The errno a call gets when a filter returns @ret: itself for a user
 * errno (-1 to -511), EINVAL for anything else a prefilter returns (the
 * kernel's own codes, -ERESTARTSYS and -EIOCBQUEUED among them, are not
 * for the VFS to see); a postfilter's value that is not negative leaves
 * the result alone.
 */
static int errno_of_ret(int ret, bool post)
{
	if (ret < 0 && ret >= -511)
		return -ret;
	return post && ret >= 0 ? 0 : EINVAL;
}

static int read_one(const char *path)
{
	int fd = open(path, O_RDONLY), err;
	char c;

	if (fd < 0)
		return 100 + errno;
	err = read(fd, &c, 1) < 0 ? errno : 0;
	close(fd);
	return err;
}

static int write_one(const char *path)
{
	int fd = open(path, O_WRONLY), err;

	if (fd < 0)
		return 100 + errno;
	err = write(fd, "x", 1) < 0 ? errno : 0;
	close(fd);
	return err;
}

/*
 * Whatever a read, write or getattr prefilter or postfilter returns, the
 * caller gets a user errno or the result: never a kernel-internal code
 * (-EIOCBQUEUED reaches a BUG_ON in new_sync_read(), -ERESTARTSYS loops).
 */
TEST_F(filter, return_values_clamped)
{
	static const int rets[] = {
		-1, -EDOM, -133, -511, -512 /* ERESTARTSYS */,
		-513, -514, -516, -517, -518, -521, -524, -529 /* EIOCBQUEUED */,
		-4095, -4096, -70000, INT_MIN, 5, 77, INT_MAX,
	};
	struct fuse_test_retval *skel;
	struct stat st;
	unsigned int i;
	int ret, post;

	skel = PT_BPF_LOAD(&self->bpf, fuse_test_retval);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.retval_ops);
	ASSERT_EQ(0, pt_write_file(LO("f"), "data", 0644));
	mount_view(_metadata, "retval");

	for (i = 0; i < ARRAY_SIZE(rets); i++) {
		for (post = 0; post < 2; post++) {
			ret = rets[i];
			skel->bss->pre_ret = post ? 0 : ret;
			skel->bss->post_ret = post ? ret : 0;
			EXPECT_EQ(errno_of_ret(ret, post), read_one(MN("f")))
				TH_LOG("read, %sfilter returning %d",
				       post ? "post" : "pre", ret);
			EXPECT_EQ(errno_of_ret(ret, post), write_one(MN("f")))
				TH_LOG("write, %sfilter returning %d",
				       post ? "post" : "pre", ret);
			EXPECT_EQ(errno_of_ret(ret, post),
				  err_of(stat(MN("f"), &st)))
				TH_LOG("stat, %sfilter returning %d",
				       post ? "post" : "pre", ret);
		}
	}
	skel->bss->pre_ret = 0;
	skel->bss->post_ret = 0;
}

/*
 * The handle an open or opendir postfilter gives the file is the fh the
 * prefilters of its later operations see (read, lseek, fsync, flush,
 * readdir), as a daemon's open reply's would be (the RFC's item: it was
 * dropped).  A mount without a daemon sends no FUSE_RELEASE for it.
 */
TEST_F(filter, open_fh_carried)
{
	struct fuse_test_fh *skel;
	struct dirent *de;
	char c;
	DIR *d;
	int fd;

	skel = PT_BPF_LOAD(&self->bpf, fuse_test_fh);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.fh_ops);
	ASSERT_EQ(0, pt_write_file(LO("f"), "data", 0644));
	mount_view(_metadata, "fh");
	skel->bss->file_fh = 0xf11e0000cafeULL;
	skel->bss->dir_fh = 0xd1200000beefULL;

	fd = open(MN("f"), O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(1, pread(fd, &c, 1, 0));
	EXPECT_EQ(1, lseek(fd, 1, SEEK_SET));
	EXPECT_EQ(0, fsync(fd));
	EXPECT_EQ(0, close(fd));
	EXPECT_EQ(0xf11e0000cafeULL, skel->bss->seen_read);
	EXPECT_EQ(0xf11e0000cafeULL, skel->bss->seen_lseek);
	EXPECT_EQ(0xf11e0000cafeULL, skel->bss->seen_fsync);
	EXPECT_EQ(0xf11e0000cafeULL, skel->bss->seen_flush);

	d = opendir(MNT);
	ASSERT_NE(NULL, d);
	de = readdir(d);
	EXPECT_NE(NULL, de);
	closedir(d);
	EXPECT_EQ(0xd1200000beefULL, skel->bss->seen_readdir);

	/* An open whose postfilter gives none: 0, as before */
	skel->bss->file_fh = 0;
	fd = open(MN("f"), O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(1, pread(fd, &c, 1, 0));
	EXPECT_EQ(0, close(fd));
	EXPECT_EQ(0ULL, skel->bss->seen_read);
}

/*
 * A copy_file_range prefilter may not copy more than the caller asked
 * (EINVAL, nothing copied); unchanged, the copy is made.
 */
TEST_F(filter, copy_file_range_len_bound)
{
	struct fuse_test_retval *skel;
	char data[8192];
	struct stat st;
	int in, out;

	skel = PT_BPF_LOAD(&self->bpf, fuse_test_retval);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.retval_ops);
	memset(data, 'c', sizeof(data) - 1);
	data[sizeof(data) - 1] = '\0';
	ASSERT_EQ(0, pt_write_file(LO("src"), data, 0644));
	ASSERT_EQ(0, pt_write_file(LO("dst"), "", 0644));
	mount_view(_metadata, "retval");
	in = open(MN("src"), O_RDONLY);
	ASSERT_LE(0, in);
	out = open(MN("dst"), O_WRONLY);
	ASSERT_LE(0, out);

	skel->bss->copy_grow = 4096;
	EXPECT_EQ(-1, copy_file_range(in, NULL, out, NULL, 100, 0));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, stat(LO("dst"), &st));
	EXPECT_EQ(0, st.st_size);
	skel->bss->copy_grow = 0;
	EXPECT_EQ(100, copy_file_range(in, NULL, out, NULL, 100, 0));
	ASSERT_EQ(0, stat(LO("dst"), &st));
	EXPECT_EQ(100, st.st_size);

	close(out);
	close(in);
}

/*
 * A readdir postfilter that drops every record and keeps sending the next
 * chunk elsewhere than the lower directory goes: the listing fails with
 * EIO after a bounded number of chunks, where it would spin until killed.
 */
TEST_F_TIMEOUT(filter, readdir_offset_spin_bounded, 120)
{
	struct fuse_test_retval *skel;
	DIR *d;

	skel = PT_BPF_LOAD(&self->bpf, fuse_test_retval);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.retval_ops);
	ASSERT_EQ(0, pt_make_files(LOWER, "f%d", 8));
	mount_view(_metadata, "retval");
	EXPECT_TRUE(dir_has(MNT, "f7"));

	skel->bss->readdir_spin = 1;
	d = opendir(MNT);
	ASSERT_NE(NULL, d);
	errno = 0;
	EXPECT_EQ(NULL, readdir(d));
	EXPECT_EQ(EIO, errno);
	closedir(d);
	EXPECT_LT(100, skel->bss->readdir_posts);
	EXPECT_GT(10000, skel->bss->readdir_posts);
	skel->bss->readdir_spin = 0;
	EXPECT_TRUE(dir_has(MNT, "f7"));
}

/*
 * A filter takes a dynptr over a name, grows the name through a second
 * one, then writes through the first: the write lands in memory the
 * operation still owns (the kernel frees nothing a dynptr may cover
 * before the operation ends: KASAN would report it), not in the name.
 */
TEST_F(filter, grown_buffer_old_dynptr)
{
	struct fuse_test_stale *skel;
	char grown[200];
	int i;

	skel = PT_BPF_LOAD(&self->bpf, fuse_test_stale);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.stale_ops);
	memset(grown, 'g', sizeof(grown) - 1);
	grown[sizeof(grown) - 1] = '\0';
	ASSERT_EQ(0, pt_write_file(LO(grown), "grown", 0644));
	mount_view(_metadata, "stale");

	for (i = 0; i < 50; i++) {
		EXPECT_FILE("grown", MN("grow"));
		ASSERT_EQ(0, pt_write_str("/proc/sys/vm/drop_caches", "2"));
	}
}

#define LINK_A	"link-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define LINK_B	"link-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

/*
 * readlink of a link that is renamed meanwhile, between names too long
 * to be kept in the dentry (a rename frees the old one): the filters read
 * every byte of the name they are given, which must stay valid for the
 * whole operation.  A stress: bounded in time, clean under KASAN.
 */
TEST_F(filter, readlink_name_during_rename)
{
	struct fuse_test_stale *skel;
	char target[PATH_MAX], buf[PATH_MAX];
	unsigned long reads = 0;
	int status, i;
	ssize_t n;
	pid_t pid;

	skel = PT_BPF_LOAD(&self->bpf, fuse_test_stale);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.stale_ops);
	/* A target long enough to live outside the lower inode */
	memset(target, 't', 3000);
	target[3000] = '\0';
	ASSERT_EQ(0, symlink(target, LO(LINK_A)));
	mount_view(_metadata, "stale");

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		double end = pt_now() + 3;

		for (i = 0; pt_now() < end; i++) {
			if (rename(MN(LINK_A), MN(LINK_B)) ||
			    rename(MN(LINK_B), MN(LINK_A)))
				_exit(1);
		}
		_exit(0);
	}
	for (i = 0; i < 100000; i++) {
		n = readlink(MN(i & 1 ? LINK_B : LINK_A), buf, sizeof(buf));
		if (n >= 0) {
			EXPECT_EQ(3000, n);
			reads++;
		} else {
			EXPECT_EQ(ENOENT, errno);
		}
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
	}
	if (i == 100000)
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	EXPECT_LT(0UL, reads);
	EXPECT_LE(reads, (unsigned long)skel->bss->link_reads);
}

/* ------------------------------------------------------------------ */
/* The registry                                                         */
/* ------------------------------------------------------------------ */

/* No mount: the programs only, held as in the fixture filter */
FIXTURE(bpf) {
	struct pt_bpf bpf;
};

FIXTURE_SETUP(bpf)
{
}

FIXTURE_TEARDOWN(bpf)
{
	pt_bpf_release(&self->bpf);
}

/*
 * FUSE's types are in the kernel's BTF: vmlinux's when FUSE is built in,
 * fuse.ko's (split over vmlinux's) when it is a module, as in make
 * check's kernel; the fuse_ops type is always vmlinux's.
 */
TEST_F(bpf, kernel_btf_has_fuse)
{
	struct btf *vmlinux = btf__load_vmlinux_btf(), *btf;

	ASSERT_NE(NULL, vmlinux);
	EXPECT_LT(0, btf__find_by_name_kind(vmlinux, "fuse_ops",
					    BTF_KIND_STRUCT));
	btf = vmlinux;
	if (btf__find_by_name_kind(vmlinux, "fuse_conn", BTF_KIND_STRUCT) < 0)
		btf = btf__load_module_btf("fuse", vmlinux);
	ASSERT_NE(NULL, btf) {
		TH_LOG("no BTF of the fuse module: %s", strerror(errno));
	}
	EXPECT_LT(0, btf__find_by_name_kind(btf, "fuse_conn", BTF_KIND_STRUCT));
	if (btf != vmlinux)
		btf__free(btf);
	btf__free(vmlinux);
}

/* A name is registered once; unregistering gives it back */
TEST_F(bpf, duplicate_name)
{
	struct fuse_hide *a = PT_BPF_LOAD(&self->bpf, fuse_hide);
	struct fuse_hide *b = PT_BPF_LOAD(&self->bpf, fuse_hide);
	struct bpf_link *la, *lb;

	la = pt_bpf_register(_metadata, &self->bpf, a->maps.hide_ops);
	lb = bpf_map__attach_struct_ops(b->maps.hide_ops);
	EXPECT_EQ(NULL, lb);
	EXPECT_EQ(EEXIST, errno);
	pt_bpf_hold_link(&self->bpf, lb);

	pt_bpf_unregister(&self->bpf, la);
	lb = bpf_map__attach_struct_ops(b->maps.hide_ops);
	EXPECT_NE(NULL, lb) TH_LOG("register again: %s", strerror(errno));
	pt_bpf_hold_link(&self->bpf, lb);
}

/*
 * Registering takes CAP_SYS_ADMIN: a loader with CAP_BPF alone cannot
 * plant a filter under a name a privileged mounter will pick.
 */
TEST_F(bpf, register_needs_sys_admin)
{
	struct fuse_hide *skel = PT_BPF_LOAD(&self->bpf, fuse_hide);
	struct bpf_link *link;

	ASSERT_EQ(0, cap_effective(1U << CAP_SYS_ADMIN));
	link = bpf_map__attach_struct_ops(skel->maps.hide_ops);
	EXPECT_EQ(NULL, link);
	EXPECT_EQ(EPERM, errno);
	pt_bpf_hold_link(&self->bpf, link);
	ASSERT_EQ(0, cap_effective(0));
}

/*
 * root_bpf_fd=: a descriptor of the registered map or of its link names
 * the very program its holder registered; anything else is refused.
 */
TEST_F(filter, root_bpf_fd)
{
	struct fuse_hide *skel;
	struct bpf_link *reg;
	char opt[64];
	struct stat st;
	int map, fd;

	skel = PT_BPF_LOAD(&self->bpf, fuse_hide);
	map = bpf_map__fd(skel->maps.hide_ops);
	ASSERT_EQ(0, mkdir(LO("hidden"), 0755));
	/* Loaded, not registered */
	EXPECT_EQ(EINVAL, err_of(mount_filter_fd(MNT, map)));

	reg = pt_bpf_register(_metadata, &self->bpf, skel->maps.hide_ops);
	ASSERT_EQ(0, mount_filter_fd(MNT, map));
	EXPECT_EQ(ENOENT, err_of(stat(MN("hidden"), &st)));
	ASSERT_EQ(0, umount2(MNT, 0));
	ASSERT_EQ(0, mount_filter_fd(MNT, bpf_link__fd(reg)));
	EXPECT_EQ(ENOENT, err_of(stat(MN("hidden"), &st)));
	ASSERT_EQ(0, umount2(MNT, 0));

	/* Not a BPF map or link, not open, given with root_bpf= */
	fd = open(LOWER, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(EINVAL, err_of(mount_filter_fd(MNT, fd)));
	ASSERT_EQ(0, close(fd));
	/* Not the fd just closed: the mount helper reuses it for root_dir= */
	ASSERT_EQ(-1, fcntl(1000, F_GETFD));
	EXPECT_EQ(EBADF, err_of(mount_filter_fd(MNT, 1000)));
	snprintf(opt, sizeof(opt), "root_bpf=hide,root_bpf_fd=%d", map);
	EXPECT_EQ(EINVAL, err_of(pt_mount(LOWER, MNT, opt)));
}

TEST_F(filter, unknown_name)
{
	EXPECT_EQ(ENOENT, err_of(mount_filter(MNT, "no_such_filter")));
}

/*
 * A mount keeps its program when the program is unregistered and its
 * last fd is closed; the name is free at once, so a new mount by that
 * name fails until it is registered again.  A few cycles, to catch a
 * reference left behind.  What is checked after unregistering was not
 * looked up nor listed before, so that the program runs for it.
 */
TEST_F(filter, unregister_while_mounted)
{
	struct fuse_hide *skel;
	struct stat st;
	int cycle;

	ASSERT_EQ(0, mkdir(LO("hidden"), 0755));
	ASSERT_EQ(0, mkdir(LO("shown"), 0755));
	ASSERT_EQ(0, mkdir(LO("shown/hidden"), 0755));
	for (cycle = 0; cycle < 4; cycle++) {
		skel = PT_BPF_LOAD(&self->bpf, fuse_hide);
		pt_bpf_register(_metadata, &self->bpf, skel->maps.hide_ops);
		mount_view(_metadata, "hide");
		EXPECT_EQ(ENOENT, err_of(stat(MN("hidden"), &st)));

		pt_bpf_release(&self->bpf);

		EXPECT_EQ(ENOENT, err_of(stat(MN("shown/hidden"), &st)))
			TH_LOG("cycle %d: the mount lost its program", cycle);
		EXPECT_FALSE(dir_has(MNT, "hidden"));
		EXPECT_TRUE(dir_has(MNT, "shown"));
		EXPECT_EQ(ENOENT, err_of(mount_filter(MNT2, "hide")))
			TH_LOG("cycle %d: mounted by an unregistered name",
			       cycle);
		umount2(MNT2, MNT_DETACH);
		ASSERT_EQ(0, umount(MNT))
			TH_LOG("cycle %d: %s", cycle, strerror(errno));
	}
}

/* ------------------------------------------------------------------ */
/* Programs the kernel refuses                                          */
/* ------------------------------------------------------------------ */

/* What libbpf said while loading, the verifier's log among it */
static char load_log[65536];
static size_t load_log_len;

static int load_log_print(enum libbpf_print_level level, const char *fmt,
			  va_list ap)
{
	size_t room = sizeof(load_log) - load_log_len;
	int n;

	if (level == LIBBPF_DEBUG || room <= 1)
		return 0;
	n = vsnprintf(load_log + load_log_len, room, fmt, ap);
	if (n > 0)
		load_log_len += (size_t)n < room ? (size_t)n : room - 1;
	return 0;
}

/* An object fails to load, and the verifier says @msg about it */
static void expect_reject(struct __test_metadata *_metadata,
			  const void *(*elf_bytes)(size_t *size),
			  const char *msg)
{
	libbpf_print_fn_t old;
	struct bpf_object *obj;
	const void *elf;
	size_t size;
	int err;

	elf = elf_bytes(&size);
	obj = bpf_object__open_mem(elf, size, NULL);
	ASSERT_NE(NULL, obj);
	load_log_len = 0;
	load_log[0] = '\0';
	old = libbpf_set_print(load_log_print);
	err = bpf_object__load(obj);
	libbpf_set_print(old);
	bpf_object__close(obj);

	EXPECT_NE(0, err) TH_LOG("the program loaded");
	EXPECT_NE(NULL, strstr(load_log, msg))
		TH_LOG("no \"%s\" in:\n%s", msg, load_log);
}

/*
 * A fuse_buffer is read and written through the kfuncs only: to the
 * verifier, a filter's buffer is an empty fuse_buffer_handle.
 */
TEST(reject_buf_write)
{
	expect_reject(_metadata, fuse_reject_buf_write__elf_bytes,
		      "direct access to fuse_buffer is not allowed");
}

TEST(reject_buf_read)
{
	expect_reject(_metadata, fuse_reject_buf_read__elf_bytes,
		      "access beyond struct fuse_buffer_handle at off 8 size 4");
}

/* A postfilter's inputs are read-only: its prototype has them const */
TEST(reject_const_write)
{
	expect_reject(_metadata, fuse_reject_const_write__elf_bytes,
		      "write to fuse_lseek_in is not allowed");
}

/* meta is the kernel's: the opcode, the node, the lower's result */
TEST(reject_meta_write)
{
	expect_reject(_metadata, fuse_reject_meta_write__elf_bytes,
		      "write to bpf_fuse_meta_info is not allowed");
}

/* bpf_dynptr_slice() memory is read-only, and as long as asked for */
TEST(reject_ro_slice)
{
	expect_reject(_metadata, fuse_reject_ro_slice__elf_bytes,
		      "cannot write into rdonly_mem");
}

TEST(reject_oob_slice)
{
	expect_reject(_metadata, fuse_reject_oob_slice__elf_bytes,
		      "invalid access to memory, mem_size=4 off=4 size=1");
}

/* The fuse_buffer kfuncs are for fuse_ops programs only */
TEST(reject_tracing)
{
	expect_reject(_metadata, fuse_reject_tracing__elf_bytes,
		      "calling kernel function bpf_fuse_get_ro_dynptr is not allowed");
}

TEST(reject_syscall)
{
	expect_reject(_metadata, fuse_reject_syscall__elf_bytes,
		      "calling kernel function bpf_fuse_return_len is not allowed");
}

/* The kfuncs take the buffers the kernel passed, no pointer made from them */
TEST(reject_untrusted)
{
	expect_reject(_metadata, fuse_reject_untrusted__elf_bytes,
		      "must be referenced or trusted");
}

/* Release filters are not called: a release cannot fail */
TEST(reject_release)
{
	expect_reject(_metadata, fuse_reject_release__elf_bytes,
		      "attach to unsupported member release_prefilter of struct fuse_ops");
}

/* ... and an RFC object loads once it neither sets nor loads the member */
TEST_F(bpf, release_unused_loads)
{
	struct fuse_test_release_unused *skel;

	skel = PT_BPF_LOAD(&self->bpf, fuse_test_release_unused);
	EXPECT_FALSE(bpf_program__autoload(skel->progs.unused_release));
	EXPECT_TRUE(bpf_program__autoload(skel->progs.unused_lookup));
}

int main(int argc, char **argv)
{
	return test_harness_run(argc, argv);
}
