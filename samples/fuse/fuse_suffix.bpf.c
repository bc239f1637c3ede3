// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE-BPF sample: every name of the view is that of the lower filesystem
 * with ".sfx" added, with nothing but a lookup and a readdir filter.
 *
 * readdir adds the suffix to each entry but "." and ".."; lookup takes it
 * off before the lower filesystem sees the name, and fails with ENOENT a
 * name that lacks it, so that a lower name is reached only by its view
 * name.  Lower names too long to take the suffix are left out.
 */
#include "fuse_bpf.h"
#include "fuse_dirent.h"

#define SFX	".sfx"
#define SFX_LEN	(sizeof(SFX) - 1)

SEC("struct_ops/lookup_prefilter")
uint32_t BPF_PROG(suffix_lookup_pre, const struct bpf_fuse_meta_info *meta,
		  struct fuse_buffer *name)
{
	__u32 size = bpf_fuse_return_len(name);	/* with the NUL */
	struct bpf_dynptr ro, rw;
	char nul = '\0';

	/* A name of the view is one character or more, then the suffix */
	if (size < SFX_LEN + 2)
		return -ENOENT;
	bpf_fuse_get_ro_dynptr(name, &ro);
	if (!fuse_dynptr_eq(&ro, size - 1 - SFX_LEN, SFX, SFX_LEN))
		return -ENOENT;

	/* Cut the name before the suffix */
	size -= SFX_LEN;
	bpf_fuse_get_rw_dynptr(name, &rw, size, true);
	if (bpf_dynptr_size(&rw) != size ||
	    bpf_dynptr_write(&rw, size - 1, &nul, 1, 0))
		return -ENOMEM;
	return BPF_FUSE_CONTINUE;
}

/* What becomes of a record: its new size, 0 when it is left out */
static __always_inline __u32 suffix_size(const struct bpf_dynptr *p,
					 __u32 off,
					 const struct fuse_dirent *d)
{
	if (fuse_dirent_is_dot(p, off, d))
		return FUSE_DIRENT_SIZE(d->namelen);
	if (d->namelen > NAME_MAX - SFX_LEN)
		return 0;
	return FUSE_DIRENT_SIZE(d->namelen + SFX_LEN);
}

/*
 * The bytes the records renamed grow by (padding may absorb a suffix: 0
 * or 8 each), in @grow, and whether any record changes at all.
 */
static __always_inline bool suffix_scan(const struct bpf_dynptr *p,
					__u32 size, __u32 *grow)
{
	struct fuse_dirent d;
	__u32 off = 0, len, new;
	bool changed = false;
	int i;

	*grow = 0;
	bpf_for(i, 0, FUSE_DIRENT_MAX) {
		len = fuse_dirent_read(p, off, size, &d);
		if (!len)
			break;
		new = suffix_size(p, off, &d);
		if (new > len)
			*grow += new - len;
		/* A name but "." and ".." is renamed or left out */
		if (!fuse_dirent_is_dot(p, off, &d))
			changed = true;
		off += len;
	}
	return changed;
}

/* Rename the record just moved to @w, of header @d, to a size of @len */
static __always_inline int suffix_rename(struct bpf_dynptr *p, __u32 w,
					 const struct fuse_dirent *d,
					 __u32 len)
{
	__u32 namelen = d->namelen + SFX_LEN;
	__u32 end = w + FUSE_NAME_OFFSET + namelen;
	__u64 zero = 0;

	if (bpf_dynptr_write(p, w + offsetof(struct fuse_dirent, namelen),
			     &namelen, sizeof(namelen), 0) ||
	    bpf_dynptr_write(p, end - SFX_LEN, SFX, SFX_LEN, 0) ||
	    bpf_dynptr_write(p, end, &zero, (w + len - end) & 7, 0))
		return -EIO;
	return 0;
}

/*
 * The records sit @grow bytes up from the start of @p: write them renamed
 * from the start.  Each record grows by @grow at most in all, so the
 * write offset never passes the read offset.  Returns the new size.
 */
static __always_inline int suffix_rewrite(struct bpf_dynptr *p, __u32 size,
					  __u32 grow)
{
	__u32 r = grow, w = 0, len, new;
	struct fuse_dirent d;
	int i;

	bpf_for(i, 0, FUSE_DIRENT_MAX) {
		len = fuse_dirent_read(p, r, size, &d);
		if (!len)
			break;
		new = suffix_size(p, r, &d);
		if (new) {
			if (fuse_dirent_move_down(p, w, r, len))
				return -EIO;
			if (!fuse_dirent_is_dot(p, w, &d) &&
			    suffix_rename(p, w, &d, new))
				return -EIO;
			w += new;
		}
		r += len;
	}
	return w;
}

/*
 * No prefilter: the postfilter runs after every readdir of the lower.
 * The records are moved up by what the renamed ones grow by, then
 * written back renamed from the start of the buffer, in place.
 */
SEC("struct_ops/readdir_postfilter")
uint32_t BPF_PROG(suffix_readdir_post, const struct bpf_fuse_meta_info *meta,
		  const struct fuse_read_in *in, struct fuse_read_out *out,
		  struct fuse_buffer *buffer)
{
	__u32 size = bpf_fuse_return_len(buffer), grow;
	struct bpf_dynptr ro, rw;
	int new;

	bpf_fuse_get_ro_dynptr(buffer, &ro);
	if (!suffix_scan(&ro, size, &grow))
		return BPF_FUSE_CONTINUE;
	bpf_fuse_get_rw_dynptr(buffer, &rw, size + grow, true);
	if (bpf_dynptr_size(&rw) != size + grow)
		return -ENOMEM;
	if (fuse_dirent_move_up(&rw, grow, 0, size))
		return -EIO;
	new = suffix_rewrite(&rw, size + grow, grow);
	if (new < 0)
		return new;
	return fuse_dirent_truncate(buffer, new);
}

SEC(".struct_ops.link")
struct fuse_ops suffix_ops = {
	.lookup_prefilter	= (void *)suffix_lookup_pre,
	.readdir_postfilter	= (void *)suffix_readdir_post,
	.name			= "suffix",
};

char LICENSE[] SEC("license") = "GPL";
