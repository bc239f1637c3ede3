// SPDX-License-Identifier: GPL-2.0
/*
 * passthrough_harden_test: a BPF LSM program on dentry_create_files_as,
 * the hook a stacking filesystem calls so that the LSMs label what it
 * makes on the lower filesystem as its caller's (SELinux's create SID,
 * Smack's transmuting directories).  For FUSE dentries it records, per
 * file type, the calls and the ids of both credentials it is given, and
 * it refuses the name "lsm-refused".  inode_create then counts the
 * creates that run with the credentials it was given last: those the
 * lower filesystem's create must run with.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#define FUSE_SUPER_MAGIC	0x65735546
#define EKEYREJECTED		129
#define S_IFMT			00170000

static const char refused_name[] = "lsm-refused";

/* Indexed by file type, (mode & S_IFMT) >> 12 */
__u32 calls[16];
__u32 old_fsuid[16];	/* the caller's */
__u32 old_euid[16];
__u32 new_fsuid[16];	/* what the lower node is made with */
__u32 new_euid[16];
__u32 refused;
__u64 new_cred;		/* the last credentials given */
__u32 creates_with_new;	/* inode_create calls running with them */

static bool is_refused(const struct qstr *name)
{
	char buf[sizeof(refused_name)] = {};
	unsigned int i;

	if (bpf_probe_read_kernel_str(buf, sizeof(buf), name->name) !=
	    sizeof(refused_name))
		return false;
	for (i = 0; i < sizeof(refused_name); i++)
		if (buf[i] != refused_name[i])
			return false;
	return true;
}

SEC("lsm/dentry_create_files_as")
int BPF_PROG(create_files_as, struct dentry *dentry, int mode,
	     struct qstr *name, const struct cred *old, struct cred *new)
{
	unsigned int type = ((unsigned int)mode & S_IFMT) >> 12;

	if (dentry->d_sb->s_magic != FUSE_SUPER_MAGIC)
		return 0;
	type &= 15;
	__sync_fetch_and_add(&calls[type], 1);
	old_fsuid[type] = old->fsuid.val;
	old_euid[type] = old->euid.val;
	new_fsuid[type] = new->fsuid.val;
	new_euid[type] = new->euid.val;
	new_cred = (__u64)new;
	if (!is_refused(name))
		return 0;
	__sync_fetch_and_add(&refused, 1);
	return -EKEYREJECTED;
}

SEC("lsm/inode_create")
int BPF_PROG(create_as, struct inode *dir, struct dentry *dentry, umode_t mode)
{
	struct task_struct *task = bpf_get_current_task_btf();
	const struct cred *cred = BPF_CORE_READ(task, cred);

	if (new_cred && (__u64)cred == new_cred)
		__sync_fetch_and_add(&creates_with_new, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
