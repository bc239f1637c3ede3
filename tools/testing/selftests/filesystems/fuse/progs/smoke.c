// SPDX-License-Identifier: GPL-2.0
/*
 * Workbench smoke test: a raw tracepoint that counts getpid() calls of one
 * process and reads the caller's tgid through CO-RE, proving that BTF,
 * the JIT and libbpf skeletons work on the test kernel.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#define NR_GETPID 39	/* x86_64 */

pid_t target_tgid;
__u64 getpid_calls;
pid_t seen_tgid;

SEC("tp_btf/sys_enter")
int BPF_PROG(count_getpid, struct pt_regs *regs, long id)
{
	struct task_struct *task = bpf_get_current_task_btf();

	if (BPF_CORE_READ(task, tgid) != target_tgid || id != NR_GETPID)
		return 0;
	__sync_fetch_and_add(&getpid_calls, 1);
	seen_tgid = BPF_CORE_READ(task, tgid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
