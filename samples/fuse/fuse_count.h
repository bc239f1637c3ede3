/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The maps of fuse_count.bpf.c, shared with what reads them (the
 * selftests; fusebpf counters finds them by name): by FUSE opcode (the one
 * of the member called), the calls of its prefilter and postfilter and
 * what the last ones saw in struct bpf_fuse_meta_info.
 */
#ifndef _FUSE_COUNT_H
#define _FUSE_COUNT_H

#define COUNT_OPCODES	64	/* above FUSE_TMPFILE, the last one filtered */

struct count_seen {
	__u64 pre_nodeid;	/* meta->nodeid of the last prefilter call */
	__u64 post_nodeid;	/* and of the last postfilter call */
	__u32 pre_opcode;	/* their meta->opcode */
	__u32 post_opcode;
	__s32 post_error;	/* meta->error_in of the last postfilter call */
	__u32 pad;
};

#endif /* _FUSE_COUNT_H */
