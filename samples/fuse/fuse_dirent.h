/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Walking and rewriting the buffer of a readdir postfilter: a FUSE_READDIR
 * reply, struct fuse_dirent records each padded to 8 bytes, names not NUL
 * terminated.  The records are read and moved through a dynptr, 8 bytes
 * at a time, so that every access has a constant size the verifier checks
 * and the loops stay bounded.
 */
#ifndef _FUSE_DIRENT_PROGS_H
#define _FUSE_DIRENT_PROGS_H

#include "fuse_bpf.h"

#define FUSE_NAME_OFFSET	offsetof(struct fuse_dirent, name)
/* Each record is padded to 8 bytes, as in include/uapi/linux/fuse.h */
#define FUSE_DIRENT_ALIGN(x)	(((x) + 7) & ~7U)
#define FUSE_DIRENT_SIZE(len)	FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET + (len))

/* The most records a filled chunk (4096 bytes at most) holds */
#define FUSE_DIRENT_MAX		(4096 / FUSE_DIRENT_SIZE(1))

/* The largest buffer a readdir postfilter may write */
#define FUSE_DIRENT_BUF_MAX	8192

/*
 * Read the header of the record at @off of a buffer of @size bytes into
 * @d.  Returns the size of the record, 0 at the end of the buffer and for
 * a record that does not fit in it.  The header is read through a slice,
 * which points into the buffer: no bpf_dynptr_read() copy per record.
 */
static __always_inline __u32 fuse_dirent_read(const struct bpf_dynptr *p,
					      __u32 off, __u32 size,
					      struct fuse_dirent *d)
{
	const struct fuse_dirent *h;
	__u32 len;

	if (off + FUSE_NAME_OFFSET > size)
		return 0;
	h = bpf_dynptr_slice(p, off, NULL, FUSE_NAME_OFFSET);
	if (!h)
		return 0;
	d->ino = h->ino;
	d->off = h->off;
	d->namelen = h->namelen;
	d->type = h->type;
	if (!d->namelen || d->namelen > NAME_MAX)
		return 0;
	len = FUSE_DIRENT_SIZE(d->namelen);
	return off + len <= size ? len : 0;
}

/* Whether the name of the record at @off, of header @d, is @str */
static __always_inline bool fuse_dirent_is(const struct bpf_dynptr *p,
					   __u32 off,
					   const struct fuse_dirent *d,
					   const char *str, __u32 len)
{
	return d->namelen == len &&
	       fuse_dynptr_eq(p, off + FUSE_NAME_OFFSET, str, len);
}

#define fuse_dirent_name_is(p, off, d, str) \
	fuse_dirent_is(p, off, d, str, sizeof(str) - 1)

/* "." and "..", which a filter should leave alone */
static __always_inline bool fuse_dirent_is_dot(const struct bpf_dynptr *p,
					       __u32 off,
					       const struct fuse_dirent *d)
{
	return fuse_dirent_name_is(p, off, d, ".") ||
	       fuse_dirent_name_is(p, off, d, "..");
}

/*
 * Move @len bytes (a multiple of 8) from @src down to @dst <= @src in
 * @p, first bytes first: the areas may overlap.
 */
static __always_inline int fuse_dirent_move_down(struct bpf_dynptr *p,
						 __u32 dst, __u32 src,
						 __u32 len)
{
	__u64 word;
	int i;

	if (dst == src)
		return 0;
	bpf_for(i, 0, FUSE_DIRENT_BUF_MAX / sizeof(word)) {
		__u32 at = i * sizeof(word);

		if (at >= len)
			break;
		if (bpf_dynptr_read(&word, sizeof(word), p, src + at, 0) ||
		    bpf_dynptr_write(p, dst + at, &word, sizeof(word), 0))
			return -EIO;
	}
	return 0;
}

/* The same from @src up to @dst >= @src, last bytes first */
static __always_inline int fuse_dirent_move_up(struct bpf_dynptr *p,
					       __u32 dst, __u32 src,
					       __u32 len)
{
	__u64 word;
	int i;

	if (dst == src)
		return 0;
	bpf_for(i, 0, FUSE_DIRENT_BUF_MAX / sizeof(word)) {
		__u32 at = i * sizeof(word);

		if (at >= len)
			break;
		at = len - sizeof(word) - at;
		if (bpf_dynptr_read(&word, sizeof(word), p, src + at, 0) ||
		    bpf_dynptr_write(p, dst + at, &word, sizeof(word), 0))
			return -EIO;
	}
	return 0;
}

/*
 * Make @buffer @size bytes long, keeping what it holds up to there: the
 * end of a rewrite that dropped records.  A smaller size never needs an
 * allocation, so this fails only on a bug of the caller.
 */
static __always_inline int fuse_dirent_truncate(struct fuse_buffer *buffer,
						__u32 size)
{
	struct bpf_dynptr p;

	bpf_fuse_get_rw_dynptr(buffer, &p, size, true);
	return bpf_dynptr_size(&p) == size ? 0 : -EIO;
}

/*
 * Whether the record at @off, of header @d, is to be dropped; @ctx is the
 * filter's, for what it reads once per chunk rather than once per record.
 */
typedef bool (*fuse_dirent_drop_t)(const struct bpf_dynptr *p, __u32 off,
				   const struct fuse_dirent *d, void *ctx);

/* Whether any of the @size bytes of records in @p is to be dropped */
static __always_inline bool fuse_dirent_any(const struct bpf_dynptr *p,
					    __u32 size, fuse_dirent_drop_t drop,
					    void *ctx)
{
	struct fuse_dirent d;
	__u32 off = 0, len;
	int i;

	bpf_for(i, 0, FUSE_DIRENT_MAX) {
		len = fuse_dirent_read(p, off, size, &d);
		if (!len)
			break;
		if (drop(p, off, &d, ctx))
			return true;
		off += len;
	}
	return false;
}

/*
 * Move the records to keep to the front of @p, in their order: the write
 * offset never passes the read offset.  Returns the bytes kept.
 */
static __always_inline int fuse_dirent_compact(struct bpf_dynptr *p,
					       __u32 size,
					       fuse_dirent_drop_t drop,
					       void *ctx)
{
	struct fuse_dirent d;
	__u32 r = 0, w = 0, len;
	int i;

	bpf_for(i, 0, FUSE_DIRENT_MAX) {
		len = fuse_dirent_read(p, r, size, &d);
		if (!len)
			break;
		if (!drop(p, r, &d, ctx)) {
			if (fuse_dirent_move_down(p, w, r, len))
				return -EIO;
			w += len;
		}
		r += len;
	}
	return w;
}

/*
 * Drop the records of @buffer that @drop picks, given @ctx.  The buffer is copied
 * (made writable) only when there is one to drop: the common listing
 * costs one read of each header.  A chunk left empty is fine: the kernel
 * goes on with the next one.
 */
static __always_inline int fuse_dirent_filter(struct fuse_buffer *buffer,
					      fuse_dirent_drop_t drop,
					      void *ctx)
{
	__u32 size = bpf_fuse_return_len(buffer);
	struct bpf_dynptr ro, rw;
	int kept;

	bpf_fuse_get_ro_dynptr(buffer, &ro);
	if (!fuse_dirent_any(&ro, size, drop, ctx))
		return 0;
	bpf_fuse_get_rw_dynptr(buffer, &rw, size, true);
	if (bpf_dynptr_size(&rw) != size)
		return -ENOMEM;
	kept = fuse_dirent_compact(&rw, size, drop, ctx);
	if (kept < 0)
		return kept;
	return fuse_dirent_truncate(buffer, kept);
}

#endif /* _FUSE_DIRENT_PROGS_H */
