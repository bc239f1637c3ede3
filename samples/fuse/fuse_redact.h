/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The prefixes map of fuse_redact.bpf.c, shared with what fills it:
 * an array of REDACT_PREFIXES slots, unused ones of length 0.
 */
#ifndef _FUSE_REDACT_H
#define _FUSE_REDACT_H

#define REDACT_PREFIXES		8
#define REDACT_PREFIX_MAX	32

struct redact_prefix {
	__u32 len;			/* bytes of str, 0 for an unused slot */
	char str[REDACT_PREFIX_MAX];	/* not NUL terminated */
};

#ifdef __bpf__
/* Whether the first @len bytes of @name are those of prefix @pre */
static __always_inline bool redact_match(const char *name, __u32 len,
					 const struct redact_prefix *pre)
{
	int i;

	if (!pre->len || pre->len > len)
		return false;
	bpf_for(i, 0, REDACT_PREFIX_MAX) {
		if (i >= pre->len)
			break;
		if (name[i] != pre->str[i])
			return false;
	}
	return true;
}

/*
 * Which slots of @prefixes hold a prefix now, a bit each: read once per
 * chunk of a listing, so that names are compared with those only.
 */
static __always_inline __u32 redact_slots(void *prefixes)
{
	struct redact_prefix *pre;
	__u32 slots = 0, key;
	int i;

	bpf_for(i, 0, REDACT_PREFIXES) {
		key = i;
		pre = bpf_map_lookup_elem(prefixes, &key);
		if (pre && pre->len)
			slots |= 1U << i;
	}
	return slots;
}

/*
 * Whether the record at @off of @p, of header @d, starts with a prefix
 * of @prefixes (an array map of struct redact_prefix, REDACT_PREFIXES
 * slots) in one of the @slots (redact_slots()): the listing filter of
 * fuse_redact.bpf.c and fuse_view.bpf.c.  With no prefix set, no name is read.
 */
static __always_inline bool redact_dirent_in(void *prefixes, __u32 slots,
					     const struct bpf_dynptr *p,
					     __u32 off,
					     const struct fuse_dirent *d)
{
	char name[REDACT_PREFIX_MAX] = {};
	__u32 len = d->namelen;
	__u32 key;
	int i;

	if (!slots)
		return false;
	/* The prefixes are no longer than this: the rest does not matter */
	if (len > REDACT_PREFIX_MAX)
		len = REDACT_PREFIX_MAX;
	if (bpf_dynptr_read(name, len, p, off + FUSE_NAME_OFFSET, 0))
		return false;
	bpf_for(i, 0, REDACT_PREFIXES) {
		struct redact_prefix *pre;

		if (!(slots & (1U << i)))
			continue;
		key = i;
		pre = bpf_map_lookup_elem(prefixes, &key);
		if (pre && redact_match(name, d->namelen, pre))
			return true;
	}
	return false;
}
#endif

#endif /* _FUSE_REDACT_H */
