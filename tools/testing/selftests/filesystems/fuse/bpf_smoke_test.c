// SPDX-License-Identifier: GPL-2.0
/*
 * Proves the BPF toolchain of the workbench on the test kernel: vmlinux
 * BTF, the JIT, a libbpf skeleton and bpftool built from the same tree.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>

#include "../../kselftest_harness.h"
#include "smoke.skel.h"

FIXTURE(smoke) {
	struct smoke *skel;
};

FIXTURE_SETUP(smoke)
{
	self->skel = smoke__open();
	ASSERT_NE(NULL, self->skel);
	self->skel->bss->target_tgid = getpid();
	ASSERT_EQ(0, smoke__load(self->skel));
	ASSERT_EQ(0, smoke__attach(self->skel));
}

FIXTURE_TEARDOWN(smoke)
{
	smoke__destroy(self->skel);
}

TEST_F(smoke, counts_getpid_through_core)
{
	int i;

	for (i = 0; i < 5; i++)
		syscall(SYS_getpid);
	EXPECT_EQ(5, self->skel->bss->getpid_calls);
	EXPECT_EQ(getpid(), self->skel->bss->seen_tgid);
}

TEST_F(smoke, program_is_jited)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int fd = bpf_program__fd(self->skel->progs.count_getpid);
	char buf[8] = {};
	FILE *f;

	ASSERT_EQ(0, bpf_prog_get_info_by_fd(fd, &info, &len));
	EXPECT_GT(info.jited_prog_len, 0);
	EXPECT_GT(info.btf_id, 0);
	f = fopen("/proc/sys/net/core/bpf_jit_enable", "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(buf, sizeof(buf), f));
	fclose(f);
	EXPECT_EQ('1', buf[0]);
}

TEST_F(smoke, bpftool_sees_program)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int fd = bpf_program__fd(self->skel->progs.count_getpid);
	char cmd[128], out[512] = {};
	FILE *p;

	ASSERT_EQ(0, bpf_prog_get_info_by_fd(fd, &info, &len));
	snprintf(cmd, sizeof(cmd), "bpftool prog show id %u 2>&1", info.id);
	p = popen(cmd, "r");
	ASSERT_NE(NULL, p);
	fread(out, 1, sizeof(out) - 1, p);
	EXPECT_EQ(0, pclose(p));
	EXPECT_NE(NULL, strstr(out, "count_getpid")) {
		TH_LOG("bpftool said: %s", out);
	}
}

/*
 * FUSE's types are in the kernel's BTF: vmlinux's when FUSE is built in,
 * fuse.ko's (split over vmlinux's) when it is a module, as in make
 * check's kernel; the fuse_ops type is always vmlinux's.
 */
TEST(kernel_btf_has_fuse)
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

TEST_HARNESS_MAIN
