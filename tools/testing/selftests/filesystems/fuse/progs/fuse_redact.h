/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The prefixes map of fuse_redact.c, shared with the test that fills it:
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
#endif

#endif /* _FUSE_REDACT_H */
