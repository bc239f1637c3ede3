// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE-BPF filters that would pass the mounter's privileges on to the
 * caller.  The lower filesystem runs each operation with the mounter's
 * credentials, after the VFS judged the caller on what it asked for; so a
 * rewrite must not turn it into what the caller could not have asked:
 *
 * - an xattr name moved within security.* or trusted.* (security.selinux
 *   into security.capability, set with the mounter's CAP_SETFCAP), or a
 *   security.* value changed;
 * - S_ISUID or S_ISGID added to the mode of a create, mknod, mkdir or
 *   O_TMPFILE (kept by the mounter's CAP_FSETID where the VFS took it
 *   from the caller).
 *
 * progs/fuse_test_escalate.c makes each of these rewrites: the kernel
 * refuses them with EPERM and the lower is untouched, while the same calls
 * the filter leaves alone still work.  Run as root, on a kernel with
 * CONFIG_FUSE_BPF and tmpfs xattrs.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <sys/xattr.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "passthrough.h"

#include "fuse_test_escalate.skel.h"

#define LOWER_MB	32
#define NOBODY		65534
#define TMPFILE_MODE	0751	/* given set-id bits by the filter */

/* A v2 security.capability value: CAP_NET_RAW, permitted and effective */
static struct vfs_cap_data file_caps(void)
{
	struct vfs_cap_data cap = {
		.magic_etc = htole32(VFS_CAP_REVISION_2 |
				     VFS_CAP_FLAGS_EFFECTIVE),
	};

	cap.data[0].permitted = htole32(1U << CAP_NET_RAW);
	return cap;
}

/* Whether @path has the xattr @name on the lower */
static bool lower_has(const char *path, const char *name)
{
	char buf[64];

	return getxattr(path, name, buf, sizeof(buf)) >= 0;
}

/* The mode bits (no file type) of @path, -1 if it cannot be stat'ed */
static int mode_of(const char *path)
{
	struct stat st;

	return lstat(path, &st) ? -1 : (int)(st.st_mode & 07777);
}

/* ------------------------------------------------------------------ */
/* The fixture: a tmpfs lower, the view mounted with "escalate"         */
/* ------------------------------------------------------------------ */

FIXTURE(filter) {
	struct pt_env env;
	struct fuse_test_escalate *skel;
	struct bpf_link *reg;
};

FIXTURE_SETUP(filter)
{
	pt_env_lower(_metadata, &self->env, PT_TMPFS, LOWER_MB);
	self->skel = fuse_test_escalate__open_and_load();
	ASSERT_NE(NULL, self->skel);
	self->reg = bpf_map__attach_struct_ops(self->skel->maps.escalate_ops);
	ASSERT_NE(NULL, self->reg)
		TH_LOG("registering escalate_ops: %s", strerror(errno));
	ASSERT_EQ(0, pt_write_file(LO("f"), "", 0644));
	ASSERT_EQ(0, pt_mount(PT_LOWER, PT_MNT, "root_bpf=escalate"))
		TH_LOG("mount with root_bpf=escalate: %s", strerror(errno));
}

FIXTURE_TEARDOWN(filter)
{
	pt_env_teardown(_metadata, &self->env);
	bpf_link__destroy(self->reg);
	fuse_test_escalate__destroy(self->skel);
}

/* ------------------------------------------------------------------ */
/* xattr names and values                                               */
/* ------------------------------------------------------------------ */

/*
 * security.selinux, which the filter makes security.capability, is
 * neither set, read nor removed; security.capability itself still is.
 */
TEST_F(filter, xattr_security_name)
{
	struct vfs_cap_data cap = file_caps();
	char buf[64];

	EXPECT_EQ(EPERM, err_of(setxattr(MN("f"), "security.selinux", &cap,
					 sizeof(cap), 0)));
	EXPECT_FALSE(lower_has(LO("f"), "security.capability"));
	EXPECT_FALSE(lower_has(LO("f"), "security.selinux"));

	ASSERT_EQ(0, setxattr(LO("f"), "security.capability", &cap,
			      sizeof(cap), 0));
	EXPECT_EQ(EPERM, err_of(getxattr(MN("f"), "security.selinux", buf,
					 sizeof(buf))));
	EXPECT_EQ(EPERM, err_of(removexattr(MN("f"), "security.selinux")));
	EXPECT_TRUE(lower_has(LO("f"), "security.capability"));

	/* Names the filter leaves alone */
	EXPECT_EQ((ssize_t)sizeof(cap), getxattr(MN("f"), "security.capability",
						 buf, sizeof(buf)));
	EXPECT_EQ(0, removexattr(MN("f"), "security.capability"));
	EXPECT_FALSE(lower_has(LO("f"), "security.capability"));
	EXPECT_EQ(0, setxattr(MN("f"), "security.capability", &cap,
			      sizeof(cap), 0));
	EXPECT_TRUE(lower_has(LO("f"), "security.capability"));
}

/* As root without CAP_SETFCAP: file capabilities, then through the rename */
static int set_caps_no_setfcap(void *path)
{
	struct vfs_cap_data cap = file_caps();

	if (cap_effective(1U << CAP_SETFCAP))
		return 100;
	/* The caller may not set them itself */
	if (!setxattr(path, "security.capability", &cap, sizeof(cap), 0))
		return 101;
	if (errno != EPERM)
		return 102;
	return err_of(setxattr(path, "security.selinux", &cap, sizeof(cap), 0));
}

/*
 * A caller without CAP_SETFCAP (but with the CAP_SYS_ADMIN security.selinux
 * needs) does not get file capabilities set with the mounter's through the
 * rename.
 */
TEST_F(filter, xattr_security_name_no_setfcap)
{
	EXPECT_EQ(EPERM, pt_as_user(0, set_caps_no_setfcap, MN("f")));
	EXPECT_FALSE(lower_has(LO("f"), "security.capability"));
	EXPECT_FALSE(lower_has(LO("f"), "security.selinux"));
}

/*
 * trusted.a, which the filter makes trusted.b, is neither set, read nor
 * removed; trusted.b and trusted.c themselves still are.
 */
TEST_F(filter, xattr_trusted_name)
{
	char buf[64];

	EXPECT_EQ(EPERM, err_of(setxattr(MN("f"), "trusted.a", "A", 1, 0)));
	EXPECT_FALSE(lower_has(LO("f"), "trusted.a"));
	EXPECT_FALSE(lower_has(LO("f"), "trusted.b"));

	ASSERT_EQ(0, setxattr(LO("f"), "trusted.a", "A", 1, 0));
	ASSERT_EQ(0, setxattr(LO("f"), "trusted.b", "B", 1, 0));
	EXPECT_EQ(EPERM, err_of(getxattr(MN("f"), "trusted.a", buf,
					 sizeof(buf))));
	EXPECT_EQ(EPERM, err_of(removexattr(MN("f"), "trusted.a")));
	EXPECT_TRUE(lower_has(LO("f"), "trusted.a"));
	EXPECT_TRUE(lower_has(LO("f"), "trusted.b"));

	/* Names the filter leaves alone */
	EXPECT_EQ(1, getxattr(MN("f"), "trusted.b", buf, sizeof(buf)));
	EXPECT_EQ('B', buf[0]);
	EXPECT_EQ(0, removexattr(MN("f"), "trusted.b"));
	EXPECT_FALSE(lower_has(LO("f"), "trusted.b"));
	EXPECT_EQ(0, setxattr(MN("f"), "trusted.c", "C", 1, 0));
	EXPECT_TRUE(lower_has(LO("f"), "trusted.c"));
}

/* The value of security.value, which the filter changes, is not set */
TEST_F(filter, xattr_security_value)
{
	char buf[64];

	EXPECT_EQ(EPERM, err_of(setxattr(MN("f"), "security.value", "mine", 4,
					 0)));
	EXPECT_FALSE(lower_has(LO("f"), "security.value"));

	/* A value the filter leaves alone */
	EXPECT_EQ(0, setxattr(MN("f"), "security.other", "mine", 4, 0));
	EXPECT_EQ(4, getxattr(LO("f"), "security.other", buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "mine", 4));
}

/* ------------------------------------------------------------------ */
/* Set-id bits of new nodes                                             */
/* ------------------------------------------------------------------ */

/*
 * Nodes named "setid*", which the filter gives S_ISUID and S_ISGID, are
 * not made; others are, with the mode asked, set-id bits included.
 */
TEST_F(filter, mode_setid_added)
{
	EXPECT_EQ(EPERM, err_fd(open(MN("setid_f"), O_CREAT | O_WRONLY,
				     0755)));
	EXPECT_EQ(EPERM, err_of(mknod(MN("setid_n"), S_IFIFO | 0644, 0)));
	EXPECT_EQ(EPERM, err_of(mkdir(MN("setid_d"), 0755)));
	EXPECT_EQ(-1, mode_of(LO("setid_f")));
	EXPECT_EQ(-1, mode_of(LO("setid_n")));
	EXPECT_EQ(-1, mode_of(LO("setid_d")));

	/* Nodes the filter leaves alone */
	EXPECT_EQ(0, err_fd(open(MN("plain_f"), O_CREAT | O_WRONLY, 0755)));
	EXPECT_EQ(0, mknod(MN("plain_n"), S_IFIFO | 0644, 0));
	EXPECT_EQ(0, mkdir(MN("plain_d"), 0755));
	EXPECT_EQ(0755, mode_of(LO("plain_f")));
	EXPECT_EQ(0644, mode_of(LO("plain_n")));
	EXPECT_EQ(0755, mode_of(LO("plain_d")));
	/* root may ask for set-id bits itself */
	EXPECT_EQ(0, err_fd(open(MN("own_f"), O_CREAT | O_WRONLY, 06755)));
	EXPECT_EQ(06755, mode_of(LO("own_f")));
}

struct create_args {
	const char *path;
	mode_t mode;
};

static int create_file(void *arg)
{
	struct create_args *c = arg;

	return err_fd(open(c->path, O_CREAT | O_EXCL | O_WRONLY, c->mode));
}

/*
 * nobody, who is not in the group of a set-group-ID directory, does not
 * get a file of that group with S_ISGID kept by the mounter's CAP_FSETID;
 * asking for S_ISGID itself, it gets the file without it, as on the lower.
 */
TEST_F(filter, mode_setgid_dir_unprivileged)
{
	struct create_args setid = { MN("sg/setid_x"), 0755 };
	struct create_args own = { MN("sg/own_x"), 02755 };
	struct stat st;

	ASSERT_EQ(0, mkdir(LO("sg"), 0755));
	ASSERT_EQ(0, chmod(LO("sg"), 02777));

	EXPECT_EQ(EPERM, pt_as_user(NOBODY, create_file, &setid));
	EXPECT_EQ(-1, mode_of(LO("sg/setid_x")));

	EXPECT_EQ(0, pt_as_user(NOBODY, create_file, &own));
	ASSERT_EQ(0, lstat(LO("sg/own_x"), &st));
	EXPECT_EQ(0755, st.st_mode & 07777);
	EXPECT_EQ(NOBODY, (long)st.st_uid);
	EXPECT_EQ(0, (long)st.st_gid);
}

/* An O_TMPFILE file the filter gives set-id bits is not made */
TEST_F(filter, mode_setid_tmpfile)
{
	struct stat st;
	int fd;

	EXPECT_EQ(EPERM, err_fd(open(PT_MNT, O_TMPFILE | O_WRONLY,
				     TMPFILE_MODE)));

	/* A mode the filter leaves alone */
	fd = open(PT_MNT, O_TMPFILE | O_WRONLY, 0750);
	ASSERT_LE(0, fd) TH_LOG("O_TMPFILE: %s", strerror(errno));
	ASSERT_EQ(0, fstat(fd, &st));
	EXPECT_EQ(0750, st.st_mode & 07777);
	close(fd);
}

int main(int argc, char **argv)
{
	return test_harness_run(argc, argv);
}
