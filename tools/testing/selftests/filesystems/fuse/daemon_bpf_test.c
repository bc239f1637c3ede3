// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE-BPF entries in LOOKUP replies: a daemon gives a node a backing (a
 * file descriptor of its own, or a backing id of FUSE_DEV_IOC_BACKING_OPEN)
 * and a fuse_ops filter, or takes them away, with struct fuse_bpf_entry_out
 * records after struct fuse_entry_out, sent with write() on /dev/fuse or
 * with the FUSE_DEV_IOC_BPF_RESPONSE ioctl.
 *
 * The daemon is the raw /dev/fuse one of fuse_daemon.c.  Its LOOKUP handler
 * answers each child of the root as a plan in shared memory says (which
 * entries, by write() or by the ioctl, malformed on purpose or not), which
 * the test changes between steps, and records what became of the reply:
 * the errno of the write() or ioctl, 0 when the kernel took it.  Every
 * request is counted by node id, and FORGETs too, so the tests tell which
 * requests a backed node still sends the daemon (none) and which node ids
 * the daemon ever hears of (only its own).  A refused reply must have
 * ended its request: the daemon then answers it again with EIO, which
 * must fail with ENOENT (and spares the caller a hang where it does not).
 * At the end of most tests the caches are dropped, and the FORGETs must
 * add up to the lookups the kernel took, node id by node id.
 *
 * - backing_fd_ioctl, backing_o_path: a directory backed by a descriptor
 *   is served from the lower directory, attributes included, and the
 *   daemon hears of nothing below it.
 * - backing_fd_by_write_einval: a descriptor is taken only by the ioctl.
 * - backing_id: a backing id, by write() and by the ioctl; unknown and
 *   closed ids are refused with ENOENT.
 * - mixed_tree: backed and daemon-served nodes side by side.
 * - unknown_type ... unknown_bpf_name: malformed replies are refused with
 *   the errno the uapi documents, the caller gets EIO, no lookup count is
 *   owed, and the connection goes on serving.  ioctl_bad_header: a
 *   header the ioctl refuses leaves the request to be answered.
 * - zero_nodeid_refused: entries for node id 0 (a negative entry).
 * - reply_already_answered: a second reply finds no request.
 * - unprivileged_daemon, no_passthrough_eloop: a backing needs
 *   CAP_SYS_ADMIN, and a daemon that accepted FUSE_PASSTHROUGH.
 * - revalidate_new_backing, remove_backing: a reply to the LOOKUP of a
 *   timed out dentry changes the node for new paths, not for open files.
 * - revalidate_same_backing_keeps_dentry: one that names what the node
 *   has keeps the dentry, and a mount on it (the RFC dropped it).
 * - forget_only_daemon_ids: FORGETs name the daemon's node ids only, and
 *   as many lookups as the kernel took.
 * - bpf_filter_by_name, bpf_filter_by_fd: the sample fuse_readonly filter
 *   given to a backed node, and taken away again.
 * - filter_entries_need_admin: but not by a replier without
 *   CAP_SYS_ADMIN, which cannot probe the registry either.
 * - daemon_ops_*: a backed node leaves the operations named to the daemon.
 * - backing_name_beneath: a backing named by one name in the directory's
 *   backing, never a path through other directories.
 * - abort_backed_nodes_go_on: the connection aborted mid-lookup.
 * - fopen_passthrough_same_connection: 6.12's FOPEN_PASSTHROUGH next to
 *   backed nodes.
 * - fallback_introduces_kernel_node: a filter's fallback from a node the
 *   kernel made reaches the daemon with a node id of the daemon's.
 * - fallback_introduces_body_nodes: so are the nodes a request names in
 *   its body (a rename's target directory, a link's source).
 * - racing_excl_creates_one_winner: O_EXCL creates racing in a backed
 *   directory.
 * - lower_mounts_kept_apart: backings of one directory through a
 *   read-only and a writable mount of the lower are distinct nodes, and
 *   renames and links between them are EXDEV.
 * - daemon_node_in_backed_dir, daemon_dir_under_backed_root: nodes of
 *   the daemon's in and under backed directories revalidate as FUSE's.
 * - readdirplus_never_overrides_backing: READDIRPLUS entries keep a
 *   backed node's attributes, and one of node id 0 makes no dentry.
 *
 * Each test runs as root in a mount namespace of its own, on a tmpfs over
 * /tmp.  A kernel warning during a test fails it.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <linux/const.h>
#include <bpf/libbpf.h>

#include "passthrough.h"
#include "fuse_bpf_reply.h"		/* samples/fuse */
#include "fuse_daemon.h"
#include "fuse_readonly.skel.h"
#include "fuse_test_user.skel.h"

#ifndef FUSE_PASSTHROUGH
#define FUSE_PASSTHROUGH	_BITULL(37)
#endif

#define LOWER_A		"lower-a"		/* lower a/f */
#define LOWER_B		"lower-b"		/* lower b/f */
#define LOWER_FILE	"lower-file"		/* lower file */
#define LOWER_G		"lower-g"		/* lower g */
#define DAEMON_DCHILD	"daemon's a/dchild"
#define DAEMON_DFILE	"daemon's c/dfile"
#define DAEMON_FILE	"the daemon's own file"
#define DAEMON_G	"the daemon's own g"
#define LOWER_MODE_A	0750
#define LOWER_MODE_B	0705
#define LOWER_UID	1234

#define KERNEL_ID_BIT	_BITULL(63)	/* node ids the kernel makes */
#define NR_IDS		32		/* node ids counted one by one */
#define NR_PLANS	8
#define PLAN_ENTRIES	(FUSE_BPF_MAX_ENTRIES + 1)
#define PLAN_EXTRA	32		/* most bytes a plan appends */
#define NOT_SENT	(-1)		/* a plan's errno: nothing sent */
#define CLOSED_FD	999		/* never open in the daemon */
#define UNKNOWN_ID	9999		/* never a backing id */
#define LONG_MS		60000		/* entry and attribute timeouts */
#define WAIT_MS		5000
#define FORGET_FILES	64

enum send { BY_WRITE, BY_IOCTL };

/* How the daemon answers a LOOKUP of a child of the root, and the outcome */
struct plan {
	char name[16];			/* "" if the slot is free */
	struct {
		enum send how;
		int nr;			/* entries sent */
		struct fuse_bpf_entry_out e[PLAN_ENTRIES];
		size_t extra;		/* zero bytes after the entries */
		bool open_id;		/* e[0].fd = BACKING_OPEN of id_fd */
		int id_fd;
		bool close_id;		/* and BACKING_CLOSE it first */
		bool drop_admin;	/* without CAP_SYS_ADMIN in effect */
		unsigned int ioc_size;	/* != 0: the ioctl's size */
		int oh_len_delta;	/* added to the header's len */
		bool twice;		/* send the reply again */
		bool then_plain;	/* refused: reply without entries */
		unsigned int delay_ms;	/* wait before replying */
		bool any_parent;	/* not only names in the root */
		bool zero_nodeid;	/* reply with node id 0 */
	} cfg;
	/*
	 * Set by the daemon: the errno of the send (0 if taken), and of the
	 * reply sent again, or after a refusal
	 */
	int err;
	int err2;
	int id_err;			/* of BACKING_OPEN or _CLOSE */
	unsigned long lookups;
	unsigned long accepted;		/* replies the kernel took */
};

/* Shared between the test and the serving child */
struct shm {
	struct plan plan[NR_PLANS];
	__u64 offered;			/* FUSE_INIT flags, flags2 << 32 */
	unsigned long req_on[NR_IDS];	/* requests but FORGETs, by node id */
	unsigned long looked_up[NR_IDS]; /* lookups the kernel took */
	unsigned long forgotten[NR_IDS]; /* sum of FORGETs' nlookup */
	unsigned long kernel_ids;	/* kernel-made node ids seen */
	unsigned long other_ids;	/* other node ids >= NR_IDS */
	__u64 pt_node;			/* opened with FOPEN_PASSTHROUGH */
	int pt_fd;			/* its backing file */
};

static void bump(unsigned long *counter, unsigned long n)
{
	__atomic_fetch_add(counter, n, __ATOMIC_SEQ_CST);
}

static unsigned long load(unsigned long *counter)
{
	return __atomic_load_n(counter, __ATOMIC_SEQ_CST);
}

static struct plan *plan_find(struct shm *s, const char *name)
{
	int i;

	for (i = 0; i < NR_PLANS; i++) {
		if (!strcmp(s->plan[i].name, name))
			return &s->plan[i];
	}
	return NULL;
}

/* The plan of @name, made if need be */
static struct plan *plan_of(struct shm *s, const char *name)
{
	struct plan *p = plan_find(s, name);

	if (p)
		return p;
	p = plan_find(s, "");
	if (!p || strlen(name) >= sizeof(p->name))
		abort();
	memset(p, 0, sizeof(*p));
	p->err = NOT_SENT;
	p->err2 = NOT_SENT;
	snprintf(p->name, sizeof(p->name), "%s", name);
	return p;
}

/* Sets @name's plan to a reply without entries, sent as @how says */
static struct plan *plan_set(struct shm *s, const char *name, enum send how)
{
	struct plan *p = plan_of(s, name);

	memset(&p->cfg, 0, sizeof(p->cfg));
	p->cfg.how = how;
	return p;
}

/* Adds an entry of @type with the fd field @fd */
static struct fuse_bpf_entry_out *plan_add(struct plan *p, __u32 type,
					   __u64 fd)
{
	struct fuse_bpf_entry_out *e = &p->cfg.e[p->cfg.nr++];

	memset(e, 0, sizeof(*e));
	e->entry_type = type;
	e->fd = fd;
	return e;
}

/* Adds a FUSE_ENTRY_BPF entry of the first @len bytes of @name */
static void plan_add_name(struct plan *p, const char *name, size_t len)
{
	struct fuse_bpf_entry_out *e = plan_add(p, FUSE_ENTRY_BPF, 0);

	memcpy(e->name, name, len);
}

/* Adds a backing id entry, the id of @fd opened at the lookup */
static void plan_add_id(struct plan *p, int fd, bool close_id)
{
	plan_add(p, FUSE_ENTRY_BACKING_ID, 0);
	p->cfg.open_id = true;
	p->cfg.id_fd = fd;
	p->cfg.close_id = close_id;
}

static const char *errstr(int err)
{
	if (err == NOT_SENT)
		return "not sent";
	return err ? strerror(err) : "taken";
}

/* ------------------------------------------------------------------ */
/* The daemon's handlers (in the serving child)                         */
/* ------------------------------------------------------------------ */

/* The handlers under the recorder, by opcode */
static fuse_daemon_handler_fn inner[FUSE_DAEMON_NR_OPCODES];

/* Counts the request by node id, and when its handler is done */
static void note_request_on(struct shm *s, __u64 id)
{
	if (id & KERNEL_ID_BIT)
		bump(&s->kernel_ids, 1);
	else if (id < NR_IDS)
		bump(&s->req_on[id], 1);
	else
		bump(&s->other_ids, 1);
}

static int recorder(struct fuse_daemon *d, const struct fuse_daemon_req *req)
{
	const struct fuse_rename_in *rename_in = req->arg;
	const struct fuse_link_in *link_in = req->arg;
	struct shm *s = d->priv;
	__u32 op = req->hdr->opcode;
	int ret;

	if (op != FUSE_FORGET && op != FUSE_BATCH_FORGET)
		note_request_on(s, req->hdr->nodeid);
	/* The node ids in the bodies of RENAME, RENAME2 and LINK */
	if ((op == FUSE_RENAME || op == FUSE_RENAME2) &&
	    req->arglen >= sizeof(*rename_in))
		note_request_on(s, rename_in->newdir);
	if (op == FUSE_LINK && req->arglen >= sizeof(*link_in))
		note_request_on(s, link_in->oldnodeid);
	ret = inner[op] ? inner[op](d, req) : -ENOSYS;
	return ret;
}

static int entry_init(struct fuse_daemon *d, const struct fuse_daemon_req *req)
{
	const struct fuse_init_in *in = req->arg;
	struct shm *s = d->priv;

	if (req->arglen >= offsetof(struct fuse_init_in, flags2) +
			   sizeof(in->flags2)) {
		s->offered = in->flags;
		if (in->flags & FUSE_INIT_EXT)
			s->offered |= (__u64)in->flags2 << 32;
	}
	return fuse_daemon_default_handler(FUSE_INIT)(d, req);
}

static void note_forget(struct shm *s, __u64 id, __u64 nlookup)
{
	if (id & KERNEL_ID_BIT)
		bump(&s->kernel_ids, 1);
	else if (id < NR_IDS)
		bump(&s->forgotten[id], nlookup);
	else
		bump(&s->other_ids, 1);
}

static int entry_forget(struct fuse_daemon *d,
			const struct fuse_daemon_req *req)
{
	const struct fuse_forget_in *in;

	in = fuse_daemon_req_arg(d, req, sizeof(*in));
	if (in)
		note_forget(d->priv, req->hdr->nodeid, in->nlookup);
	return fuse_daemon_default_handler(FUSE_FORGET)(d, req);
}

static int entry_batch_forget(struct fuse_daemon *d,
			      const struct fuse_daemon_req *req)
{
	const struct fuse_batch_forget_in *in;
	const struct fuse_forget_one *one;
	__u32 i;

	in = fuse_daemon_req_arg(d, req, sizeof(*in));
	if (in && req->arglen >= sizeof(*in) +
				 (size_t)in->count * sizeof(*one)) {
		one = (const void *)(in + 1);
		for (i = 0; i < in->count; i++)
			note_forget(d->priv, one[i].nodeid, one[i].nlookup);
	}
	return fuse_daemon_default_handler(FUSE_BATCH_FORGET)(d, req);
}

/* Sends @len bytes of reply: the errno it failed with, or 0 */
static int send_buf(struct fuse_daemon *d, enum send how, const void *buf,
		    size_t len, unsigned int ioc_size)
{
	ssize_t n;

	if (how == BY_IOCTL) {
		if (!ioc_size)
			ioc_size = len;
		/* The length taken, as write() returns it */
		n = ioctl(d->fd, FUSE_DEV_IOC_BPF_RESPONSE(ioc_size), buf);
		if (n < 0)
			return errno;
		return (size_t)n == len ? 0 : EMSGSIZE;
	}
	n = write(d->fd, buf, len);
	if (n < 0)
		return errno;
	return (size_t)n == len ? 0 : EMSGSIZE;
}

/*
 * The id of @fd in the connection's backing registry (closed again if
 * @close_id), or -errno
 */
static int backing_open(struct fuse_daemon *d, int fd, bool close_id)
{
	int id = fuse_bpf_backing_open(d->fd, fd), ret;

	if (id < 0 || !close_id)
		return id;
	ret = fuse_bpf_backing_close(d->fd, id);
	return ret ? ret : id;
}

/*
 * OPEN of the node s->pt_node with 6.12's FOPEN_PASSTHROUGH, on a backing
 * id of s->pt_fd; other nodes as usual.
 */
static int open_passthrough(struct fuse_daemon *d,
			    const struct fuse_daemon_req *req)
{
	struct fuse_open_out out = { .open_flags = FOPEN_PASSTHROUGH };
	struct shm *s = d->priv;
	int id;

	if (req->hdr->nodeid != s->pt_node)
		return fuse_daemon_default_handler(FUSE_OPEN)(d, req);
	id = backing_open(d, s->pt_fd, false);
	if (id < 0)
		return id;
	out.backing_id = id;
	return fuse_daemon_reply(d, req, &out, sizeof(out));
}

/*
 * LOOKUP: the node of the daemon's tree, with the entries of the name's
 * plan (children of the root only; none for others).  The reply is sent
 * here whatever comes of it: when the kernel refuses it, it ends the
 * request with EIO itself.  It is framed by the reply library
 * (fuse_bpf_reply_init()), with room for the malformed replies of the
 * plans: one entry too many and PLAN_EXTRA bytes more.
 */
static int entry_lookup(struct fuse_daemon *d,
			const struct fuse_daemon_req *req)
{
	struct fuse_bpf_entry_out e[PLAN_ENTRIES];
	union {
		struct fuse_bpf_reply r;
		char buf[offsetof(struct fuse_bpf_reply, entries) +
			 sizeof(e) + PLAN_EXTRA];
	} u;
	struct plan *p = NULL, plain = { .err = NOT_SENT };
	const char *name = req->arg;
	struct fuse_daemon_node *node;
	struct fuse_entry_out entry;
	struct shm *s = d->priv;
	unsigned long taken;
	size_t len, base;
	int ret;

	if (!req->arglen || !memchr(name, '\0', req->arglen))
		return -EINVAL;
	node = fuse_daemon_find_child(d, req->hdr->nodeid, name);
	if (!node)
		return -ENOENT;
	p = plan_find(s, name);
	if (p && req->hdr->nodeid != FUSE_ROOT_ID && !p->cfg.any_parent)
		p = NULL;
	if (!p)
		p = &plain;
	p->lookups++;

	memcpy(e, p->cfg.e, sizeof(e));
	if (p->cfg.open_id) {
		ret = backing_open(d, p->cfg.id_fd, p->cfg.close_id);
		p->id_err = ret < 0 ? -ret : 0;
		if (ret > 0)
			e[0].fd = ret;
	}
	fuse_daemon_fill_entry(d, node, &entry);
	if (p->cfg.zero_nodeid)
		entry.nodeid = 0;
	memset(&u, 0, sizeof(u));
	fuse_bpf_reply_init(&u.r, req->hdr->unique, &entry);
	base = u.r.hdr.len;
	len = base + p->cfg.nr * sizeof(e[0]) + p->cfg.extra;
	if (len > sizeof(u))
		abort();
	memcpy(u.buf + base, e, p->cfg.nr * sizeof(e[0]));
	u.r.hdr.len = len + p->cfg.oh_len_delta;

	if (p->cfg.delay_ms)
		usleep(p->cfg.delay_ms * 1000);
	if (p->cfg.drop_admin)
		cap_effective(1U << CAP_SYS_ADMIN);
	p->err = send_buf(d, p->cfg.how, &u, len, p->cfg.ioc_size);
	if (p->cfg.drop_admin)
		cap_effective(0);
	d->replied = true;
	taken = !p->err;
	p->err2 = NOT_SENT;
	if (p->cfg.twice && !p->err) {
		p->err2 = send_buf(d, p->cfg.how, &u, len, p->cfg.ioc_size);
		taken += !p->err2;
	} else if (p->err) {
		/*
		 * Refused: the kernel ended the request with EIO, unless it
		 * refused the reply before it looked for the request.  Answer
		 * again, without entries or with an error, so that the caller
		 * never hangs: ENOENT tells that the request was gone.
		 */
		u.r.hdr.len = p->cfg.then_plain ? base : sizeof(u.r.hdr);
		u.r.hdr.error = p->cfg.then_plain ? 0 : -EIO;
		p->err2 = send_buf(d, BY_WRITE, &u, u.r.hdr.len, 0);
		taken += p->cfg.then_plain && !p->err2;
	}
	node->nlookup += taken;
	p->accepted += taken;
	if (node->nodeid < NR_IDS)
		bump(&s->looked_up[node->nodeid], taken);
	return 0;
}

/*
 * READDIRPLUS of the root: its children with the daemon's own attributes,
 * and "zero", with node id 0, which must make no dentry.  Each entry with
 * a node id gives the kernel a lookup, counted as LOOKUP's are.  Listed
 * from the start in one reply, no "." or "..".
 */
#define ZERO_NAME	"zero"

static bool add_direntplus(char *buf, size_t size, size_t *used,
			   const struct fuse_entry_out *entry, const char *name,
			   __u32 type, __u64 off)
{
	struct fuse_direntplus *dp = (void *)(buf + *used);
	size_t namelen = strlen(name);
	size_t reclen = FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET_DIRENTPLUS +
					  namelen);

	if (reclen > size - *used)
		return false;
	dp->entry_out = *entry;
	dp->dirent.ino = entry->nodeid ?: 999;
	dp->dirent.off = off;
	dp->dirent.namelen = namelen;
	dp->dirent.type = type;
	memcpy(dp->dirent.name, name, namelen);
	*used += reclen;
	return true;
}

static int entry_readdirplus(struct fuse_daemon *d,
			     const struct fuse_daemon_req *req)
{
	const struct fuse_read_in *in = fuse_daemon_req_arg(d, req,
							    sizeof(*in));
	struct fuse_entry_out entry = { 0 };
	struct fuse_daemon_node *node;
	struct shm *s = d->priv;
	size_t size, used = 0, i;
	__u64 idx = 0;
	char *buf;
	int ret;

	if (!in || req->hdr->nodeid != FUSE_ROOT_ID)
		return -EINVAL;
	if (in->offset)
		return fuse_daemon_reply(d, req, NULL, 0);
	size = in->size < d->bufsize ? in->size : d->bufsize;
	buf = calloc(1, size);
	if (!buf)
		return -ENOMEM;
	for (i = 1; i < d->nr_nodes; i++) {
		node = d->nodes[i];
		if (node->parent != FUSE_ROOT_ID)
			continue;
		fuse_daemon_fill_entry(d, node, &entry);
		if (!add_direntplus(buf, size, &used, &entry, node->name,
				    (node->mode & S_IFMT) >> 12, ++idx))
			break;
		node->nlookup++;
		if (node->nodeid < NR_IDS)
			bump(&s->looked_up[node->nodeid], 1);
	}
	memset(&entry, 0, sizeof(entry));
	add_direntplus(buf, size, &used, &entry, ZERO_NAME, DT_REG, ++idx);
	ret = fuse_daemon_reply(d, req, buf, used);
	free(buf);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Test helpers                                                         */
/* ------------------------------------------------------------------ */

FIXTURE(entry) {
	struct fuse_daemon *d;
	struct shm *s;
	char lower[64];
	char mnt[64];
	int fd_a, fd_b, fd_file, fd_g, fd_path;
	__u64 id_a, id_b, id_c, id_dfile, id_file, id_g;
	struct pt_bpf bpf;	/* released after the daemon's unmount */
	unsigned long taint;
};

/* The fixture's data, for the helpers below */
#define entry_data FIXTURE_DATA(entry)

#define IN_MNT(rel)	path_in(self->mnt, rel)
#define IN_LOWER(rel)	path_in(self->lower, rel)

/* The same from the start of the open file @fd */
static ssize_t read_fd(int fd, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size - 1, 0);

	buf[n < 0 ? 0 : n] = '\0';
	return n < 0 ? -errno : n;
}

/* Creates @path with @data through the mount */
static int create_file(const char *path, const char *data)
{
	int fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
	ssize_t len = strlen(data), n;

	if (fd < 0)
		return -errno;
	n = write(fd, data, len);
	if (close(fd) || n != len)
		return n < 0 ? -errno : -EIO;
	return 0;
}

static void snapshot(struct fuse_daemon *d,
		     unsigned long count[FUSE_DAEMON_NR_OPCODES])
{
	__u32 op;

	for (op = 0; op < FUSE_DAEMON_NR_OPCODES; op++)
		count[op] = fuse_daemon_count(d, op);
}

/* No request but FORGETs since the snapshot @count */
static void expect_no_requests(struct __test_metadata *_metadata,
			       struct fuse_daemon *d,
			       unsigned long count[FUSE_DAEMON_NR_OPCODES])
{
	__u32 op;

	for (op = 0; op < FUSE_DAEMON_NR_OPCODES; op++) {
		if (op == FUSE_FORGET || op == FUSE_BATCH_FORGET)
			continue;
		EXPECT_EQ(count[op], fuse_daemon_count(d, op))
			TH_LOG("opcode %u sent to the daemon", op);
	}
}

/* Mounts the daemon; the first access waits for its FUSE_INIT reply */
static void daemon_up(struct __test_metadata *_metadata,
		      entry_data *self)
{
	struct stat st;
	int ret;

	ret = fuse_daemon_mount(self->d, self->mnt, NULL);
	ASSERT_EQ(0, ret)
		TH_LOG("mounting: %s", strerror(-ret));
	ASSERT_EQ(0, stat(self->mnt, &st))
		TH_LOG("stat of the root: %s", strerror(errno));
	ASSERT_TRUE(!!(self->s->offered & FUSE_PASSTHROUGH))
		TH_LOG("FUSE_PASSTHROUGH not offered in FUSE_INIT");
}

/*
 * stat() of the child @name of the root, which the daemon's reply (its
 * plan) gives an entry the kernel must refuse with @err: the caller gets
 * EIO, and the daemon's node no lookup to forget.
 */
static void expect_refused(struct __test_metadata *_metadata,
			   entry_data *self, const char *name,
			   int err)
{
	struct plan *p = plan_of(self->s, name);
	unsigned long lookups = p->lookups, accepted = p->accepted;
	struct stat st;
	int ret, saved;

	ret = stat(IN_MNT(name), &st);
	saved = errno;
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_TRUE(ret == -1 && saved == EIO)
		TH_LOG("%s: stat() %s, not EIO", name,
		       ret ? strerror(saved) : "succeeded");
	EXPECT_LT(lookups, p->lookups)
		TH_LOG("%s: no LOOKUP", name);
	EXPECT_EQ(err, p->err)
		TH_LOG("%s: the daemon's reply %s, not %s", name,
		       errstr(p->err), strerror(err));
	EXPECT_EQ(ENOENT, p->err2)
		TH_LOG("%s: the refused reply left its request pending (%s)",
		       name, errstr(p->err2));
	EXPECT_EQ(accepted, p->accepted);
}

/*
 * The connection still serves: a file of the daemon and, if @backed, a
 * lower directory given by descriptor to "b".
 */
static void expect_alive(struct __test_metadata *_metadata,
			 entry_data *self, bool backed)
{
	struct plan *p;

	EXPECT_FILE(DAEMON_DFILE, IN_MNT("c/dfile"));
	if (!backed)
		return;
	p = plan_set(self->s, "b", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_b);
	EXPECT_FILE(LOWER_B, IN_MNT("b/f"));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(0, p->err)
		TH_LOG("backing b: %s", errstr(p->err));
}

/* Every lookup the kernel took forgotten, dropping caches if need be */
static bool all_forgotten(struct shm *s)
{
	struct timespec ts = { 0, 10000000 };
	int round, i, waited;

	for (round = 0; round < 20; round++) {
		sync();
		pt_write_str("/proc/sys/vm/drop_caches", "2");
		for (waited = 0; waited < 50; waited++) {
			for (i = 0; i < NR_IDS; i++) {
				if (load(&s->forgotten[i]) !=
				    load(&s->looked_up[i]))
					break;
			}
			if (i == NR_IDS)
				return true;
			nanosleep(&ts, NULL);
		}
	}
	return false;
}

/*
 * With nothing open on the mount, the caches dropped: FORGETs come for
 * every lookup the kernel took, refused replies and replaced inodes
 * included, and for no other.
 */
static void expect_all_forgotten(struct __test_metadata *_metadata,
				 entry_data *self)
{
	struct shm *s = self->s;
	int i;

	EXPECT_TRUE(all_forgotten(s));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	for (i = 0; i < NR_IDS; i++) {
		EXPECT_EQ(s->looked_up[i], s->forgotten[i])
			TH_LOG("node %d: %lu lookups taken, %lu forgotten", i,
			       s->looked_up[i], s->forgotten[i]);
	}
	EXPECT_EQ(0UL, self->d->shared->errors)
		TH_LOG("the daemon saw bad requests or FORGETs");
}

static int open_dir(const char *path)
{
	return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/*
 * The lower: a/ (f, uid LOWER_UID), b/ (f, bonly), file, g.  The daemon's
 * tree: a/ (dchild), b/, c/ (dfile), file, g, of other modes and sizes.
 * The backing descriptors are opened before the daemon forks.
 */
FIXTURE_SETUP(entry)
{
	char tmpl[] = PT_SCRATCH "/fuse-entry.XXXXXX";
	struct fuse_daemon *d;
	__u64 id;
	__u32 op;

	self->fd_a = -1;
	self->fd_b = -1;
	self->fd_file = -1;
	self->fd_g = -1;
	self->fd_path = -1;
	self->taint = pt_taint();
	umask(022);
	ASSERT_EQ(0, pt_private_mounts());
	ASSERT_EQ(0, mount("tmpfs", PT_SCRATCH, "tmpfs", 0, "mode=1777"));
	ASSERT_NE(NULL, mkdtemp(tmpl));
	snprintf(self->lower, sizeof(self->lower), "%s/lower", tmpl);
	snprintf(self->mnt, sizeof(self->mnt), "%s/mnt", tmpl);
	ASSERT_EQ(0, mkdir(self->lower, 0755));
	ASSERT_EQ(0, mkdir(self->mnt, 0755));
	ASSERT_EQ(0, mkdir(IN_LOWER("a"), LOWER_MODE_A));
	ASSERT_EQ(0, pt_write_file(IN_LOWER("a/f"), LOWER_A, 0644));
	ASSERT_EQ(0, chown(IN_LOWER("a/f"), LOWER_UID, LOWER_UID));
	ASSERT_EQ(0, mkdir(IN_LOWER("b"), LOWER_MODE_B));
	ASSERT_EQ(0, pt_write_file(IN_LOWER("b/f"), LOWER_B, 0644));
	ASSERT_EQ(0, pt_write_file(IN_LOWER("b/bonly"), "", 0644));
	ASSERT_EQ(0, pt_write_file(IN_LOWER("file"), LOWER_FILE, 0644));
	ASSERT_EQ(0, pt_write_file(IN_LOWER("g"), LOWER_G, 0644));

	self->fd_a = open_dir(IN_LOWER("a"));
	ASSERT_LE(0, self->fd_a);
	self->fd_b = open_dir(IN_LOWER("b"));
	ASSERT_LE(0, self->fd_b);
	self->fd_file = open(IN_LOWER("file"), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->fd_file);
	self->fd_g = open(IN_LOWER("g"), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->fd_g);
	self->fd_path = open(IN_LOWER("a"),
			     O_PATH | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, self->fd_path);
	ASSERT_EQ(-1, fcntl(CLOSED_FD, F_GETFD));

	self->s = mmap(NULL, sizeof(*self->s), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->s);

	d = fuse_daemon_new();
	ASSERT_NE(NULL, d);
	self->d = d;
	d->priv = self->s;
	d->init_flags |= FUSE_PASSTHROUGH;
	d->max_stack_depth = 1;
	d->entry_timeout_ms = LONG_MS;
	d->attr_timeout_ms = LONG_MS;

	self->id_a = fuse_daemon_add_dir(d, FUSE_ROOT_ID, "a", 0755);
	ASSERT_NE(0ULL, self->id_a);
	id = fuse_daemon_add_file(d, self->id_a, "dchild", 0644,
				  DAEMON_DCHILD, strlen(DAEMON_DCHILD));
	ASSERT_NE(0ULL, id);
	self->id_b = fuse_daemon_add_dir(d, FUSE_ROOT_ID, "b", 0755);
	ASSERT_NE(0ULL, self->id_b);
	self->id_c = fuse_daemon_add_dir(d, FUSE_ROOT_ID, "c", 0755);
	ASSERT_NE(0ULL, self->id_c);
	self->id_dfile = fuse_daemon_add_file(d, self->id_c, "dfile", 0644,
					      DAEMON_DFILE,
					      strlen(DAEMON_DFILE));
	ASSERT_NE(0ULL, self->id_dfile);
	self->id_file = fuse_daemon_add_file(d, FUSE_ROOT_ID, "file", 0600,
					     DAEMON_FILE,
					     strlen(DAEMON_FILE));
	ASSERT_NE(0ULL, self->id_file);
	self->id_g = fuse_daemon_add_file(d, FUSE_ROOT_ID, "g", 0600,
					  DAEMON_G, strlen(DAEMON_G));
	ASSERT_NE(0ULL, self->id_g);
	ASSERT_GT((size_t)NR_IDS, d->nr_nodes);

	fuse_daemon_set_handler(d, FUSE_INIT, entry_init);
	fuse_daemon_set_handler(d, FUSE_LOOKUP, entry_lookup);
	fuse_daemon_set_handler(d, FUSE_FORGET, entry_forget);
	fuse_daemon_set_handler(d, FUSE_BATCH_FORGET, entry_batch_forget);
	for (op = 0; op < FUSE_DAEMON_NR_OPCODES; op++) {
		inner[op] = d->handlers[op];
		d->handlers[op] = recorder;
	}
}

/*
 * Whatever the test did: the daemon never heard of a node id it did not
 * give, and was never told to forget more lookups than the kernel took.
 */
FIXTURE_TEARDOWN(entry)
{
	int i;

	if (self->d) {
		EXPECT_EQ(0, fuse_daemon_umount(self->d));
		EXPECT_EQ(0UL, self->s->kernel_ids)
			TH_LOG("the daemon saw node ids of the kernel");
		EXPECT_EQ(0UL, self->s->other_ids);
		for (i = 0; i < NR_IDS; i++) {
			EXPECT_GE(self->s->looked_up[i],
				  self->s->forgotten[i])
				TH_LOG("node %d forgotten more than looked up",
				       i);
		}
		fuse_daemon_free(self->d);
	}
	pt_bpf_release(&self->bpf);
	if (self->s)
		munmap(self->s, sizeof(*self->s));
	close(self->fd_a);
	close(self->fd_b);
	close(self->fd_file);
	close(self->fd_g);
	close(self->fd_path);
	EXPECT_EQ(self->taint, pt_taint())
		TH_LOG("the kernel warned during this test: see dmesg");
}

/* ------------------------------------------------------------------ */
/* Backing by descriptor                                                */
/* ------------------------------------------------------------------ */

/*
 * "a" backed by the lower a/ through the ioctl: its attributes, contents
 * and changes are the lower's, and the daemon gets no request for it or
 * below it.
 */
TEST_F(entry, backing_fd_ioctl)
{
	unsigned long count[FUSE_DAEMON_NR_OPCODES];
	struct plan *p;
	struct stat st;

	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	daemon_up(_metadata, self);

	ASSERT_EQ(0, stat(IN_MNT("a"), &st))
		TH_LOG("stat a: %s", strerror(errno));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(0, p->err)
		TH_LOG("the backing entry: %s", errstr(p->err));
	EXPECT_EQ(1UL, p->accepted);
	EXPECT_EQ((mode_t)(S_IFDIR | LOWER_MODE_A), st.st_mode);

	snapshot(self->d, count);
	EXPECT_FILE(LOWER_A, IN_MNT("a/f"));
	EXPECT_NAMES("f ", IN_MNT("a"));
	ASSERT_EQ(0, stat(IN_MNT("a/f"), &st));
	EXPECT_EQ((off_t)strlen(LOWER_A), st.st_size);
	EXPECT_EQ((uid_t)LOWER_UID, st.st_uid);
	EXPECT_EQ(ENOENT, stat(IN_MNT("a/dchild"), &st) ? errno : 0);

	/* Changes below a are the lower's */
	EXPECT_EQ(0, create_file(IN_MNT("a/new"), "new data"));
	EXPECT_FILE("new data", IN_LOWER("a/new"));
	EXPECT_EQ(0, mkdir(IN_MNT("a/sub"), 0755));
	EXPECT_EQ(0, create_file(IN_MNT("a/sub/g"), "deeper"));
	EXPECT_FILE("deeper", IN_LOWER("a/sub/g"));
	EXPECT_EQ(0, rename(IN_MNT("a/new"), IN_MNT("a/renamed")));
	EXPECT_EQ(0, unlink(IN_MNT("a/sub/g")));
	EXPECT_EQ(0, rmdir(IN_MNT("a/sub")));
	EXPECT_NAMES("f renamed ", IN_LOWER("a"));
	EXPECT_NAMES("f renamed ", IN_MNT("a"));

	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	expect_no_requests(_metadata, self->d, count);
	EXPECT_EQ(0UL, self->s->req_on[self->id_a])
		TH_LOG("requests on the backed node a");
	EXPECT_EQ(0UL, self->s->kernel_ids);
	expect_all_forgotten(_metadata, self);
}

/* A descriptor entry sent by write() is refused */
TEST_F(entry, backing_fd_by_write_einval)
{
	struct plan *p;

	p = plan_set(self->s, "a", BY_WRITE);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	daemon_up(_metadata, self);
	expect_refused(_metadata, self, "a", EINVAL);
	expect_alive(_metadata, self, true);
	expect_all_forgotten(_metadata, self);
	EXPECT_EQ(0UL, self->s->looked_up[self->id_a]);
}

/* An O_PATH descriptor is a backing as good as any */
TEST_F(entry, backing_o_path)
{
	struct plan *p;
	struct stat st;

	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_path);
	daemon_up(_metadata, self);

	EXPECT_FILE(LOWER_A, IN_MNT("a/f"));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(0, p->err)
		TH_LOG("an O_PATH backing: %s", errstr(p->err));
	ASSERT_EQ(0, stat(IN_MNT("a"), &st));
	EXPECT_EQ((mode_t)(S_IFDIR | LOWER_MODE_A), st.st_mode);
	EXPECT_EQ(0UL, self->s->req_on[self->id_a]);
}

/* ------------------------------------------------------------------ */
/* Backing ids                                                          */
/* ------------------------------------------------------------------ */

/*
 * 6.12's FUSE_DEV_IOC_BACKING_OPEN takes regular files only, so the ids
 * are of the lower files "file" and "g".
 */
TEST_F(entry, backing_id)
{
	struct plan *p;
	struct stat st;

	/* An id never opened, then one closed before the reply */
	p = plan_set(self->s, "file", BY_WRITE);
	plan_add(p, FUSE_ENTRY_BACKING_ID, UNKNOWN_ID);
	daemon_up(_metadata, self);
	expect_refused(_metadata, self, "file", ENOENT);

	p = plan_set(self->s, "file", BY_WRITE);
	plan_add_id(p, self->fd_file, true);
	expect_refused(_metadata, self, "file", ENOENT);
	EXPECT_EQ(0, p->id_err)
		TH_LOG("BACKING_OPEN/CLOSE: %s", strerror(p->id_err));

	/* An open id, by write() */
	p = plan_set(self->s, "file", BY_WRITE);
	plan_add_id(p, self->fd_file, false);
	ASSERT_EQ(0, stat(IN_MNT("file"), &st))
		TH_LOG("stat file: %s", strerror(errno));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(0, p->id_err)
		TH_LOG("BACKING_OPEN: %s", strerror(p->id_err));
	EXPECT_EQ(0, p->err)
		TH_LOG("the backing id entry: %s", errstr(p->err));
	EXPECT_EQ((off_t)strlen(LOWER_FILE), st.st_size);
	EXPECT_EQ((mode_t)(S_IFREG | 0644), st.st_mode);
	EXPECT_FILE(LOWER_FILE, IN_MNT("file"));

	/* And by the ioctl */
	p = plan_set(self->s, "g", BY_IOCTL);
	plan_add_id(p, self->fd_g, false);
	EXPECT_FILE(LOWER_G, IN_MNT("g"));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(0, p->err)
		TH_LOG("the backing id entry: %s", errstr(p->err));

	EXPECT_EQ(0UL, self->s->req_on[self->id_file]);
	EXPECT_EQ(0UL, self->s->req_on[self->id_g]);
	expect_all_forgotten(_metadata, self);
}

/* ------------------------------------------------------------------ */
/* Backed and daemon nodes together                                     */
/* ------------------------------------------------------------------ */

TEST_F(entry, mixed_tree)
{
	unsigned long reads, opens;
	struct plan *p;
	struct stat st;

	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	daemon_up(_metadata, self);

	/* The root and c are the daemon's */
	EXPECT_NAMES("a b c file g ", self->mnt);
	EXPECT_NAMES("dfile ", IN_MNT("c"));
	reads = fuse_daemon_count(self->d, FUSE_READ);
	opens = fuse_daemon_count(self->d, FUSE_OPEN);
	EXPECT_FILE(DAEMON_DFILE, IN_MNT("c/dfile"));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_LT(reads, fuse_daemon_count(self->d, FUSE_READ));
	EXPECT_LT(opens, fuse_daemon_count(self->d, FUSE_OPEN));
	ASSERT_EQ(0, stat(IN_MNT("c"), &st));
	EXPECT_EQ((mode_t)(S_IFDIR | 0755), st.st_mode);

	/* a is the lower's */
	reads = fuse_daemon_count(self->d, FUSE_READ);
	EXPECT_FILE(LOWER_A, IN_MNT("a/f"));
	EXPECT_NAMES("f ", IN_MNT("a"));
	ASSERT_EQ(0, stat(IN_MNT("a"), &st));
	EXPECT_EQ((mode_t)(S_IFDIR | LOWER_MODE_A), st.st_mode);
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(0, p->err);
	EXPECT_EQ(reads, fuse_daemon_count(self->d, FUSE_READ));
	EXPECT_EQ(0UL, self->s->req_on[self->id_a]);

	/* And the daemon's file next to it is the daemon's */
	EXPECT_FILE(DAEMON_FILE, IN_MNT("file"));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_LT(0UL, self->s->req_on[self->id_file]);
	expect_all_forgotten(_metadata, self);
}

/* ------------------------------------------------------------------ */
/* Malformed replies                                                    */
/* ------------------------------------------------------------------ */

TEST_F(entry, unknown_type)
{
	static const __u32 types[] = { 0, FUSE_ENTRY_BACKING_NAME + 1,
					0x7fffffff };
	struct plan *p;
	size_t i;

	daemon_up(_metadata, self);
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		p = plan_set(self->s, "a", BY_IOCTL);
		plan_add(p, types[i], self->fd_a);
		expect_refused(_metadata, self, "a", EINVAL);
	}
	expect_alive(_metadata, self, true);
	expect_all_forgotten(_metadata, self);
}

/*
 * Node id 0 with entries, the RFC's way to back a name the daemon keeps
 * no node for, is refused: node id 0 is FUSE's negative entry.
 */
TEST_F(entry, zero_nodeid_refused)
{
	struct plan *p;

	daemon_up(_metadata, self);
	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	p->cfg.zero_nodeid = true;
	expect_refused(_metadata, self, "a", EINVAL);
	p = plan_set(self->s, "a", BY_WRITE);
	plan_add(p, FUSE_ENTRY_BACKING_ID, UNKNOWN_ID);
	p->cfg.zero_nodeid = true;
	expect_refused(_metadata, self, "a", EINVAL);
	expect_alive(_metadata, self, true);
	expect_all_forgotten(_metadata, self);
}

/* Two backing entries, whatever their kinds */
TEST_F(entry, two_backings)
{
	struct plan *p;

	daemon_up(_metadata, self);
	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_b);
	expect_refused(_metadata, self, "a", EINVAL);

	/* The id is refused for being a second backing, not for its value */
	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	plan_add(p, FUSE_ENTRY_BACKING_ID, UNKNOWN_ID);
	expect_refused(_metadata, self, "a", EINVAL);

	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	plan_add(p, FUSE_ENTRY_REMOVE_BACKING, 0);
	expect_refused(_metadata, self, "a", EINVAL);
	/* Also with the removal first */
	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_REMOVE_BACKING, 0);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	expect_refused(_metadata, self, "a", EINVAL);
	expect_alive(_metadata, self, true);
	expect_all_forgotten(_metadata, self);
}

/* Two filter entries: refused for being two, before a name is looked up */
TEST_F(entry, two_bpf_entries)
{
	struct plan *p;

	daemon_up(_metadata, self);
	p = plan_set(self->s, "a", BY_WRITE);
	plan_add(p, FUSE_ENTRY_REMOVE_BPF, 0);
	plan_add(p, FUSE_ENTRY_REMOVE_BPF, 0);
	expect_refused(_metadata, self, "a", EINVAL);

	p = plan_set(self->s, "a", BY_WRITE);
	plan_add(p, FUSE_ENTRY_REMOVE_BPF, 0);
	plan_add_name(p, "no-such-prog", sizeof("no-such-prog"));
	expect_refused(_metadata, self, "a", EINVAL);
	expect_alive(_metadata, self, true);
	expect_all_forgotten(_metadata, self);
}

TEST_F(entry, nonzero_unused)
{
	struct plan *p;

	daemon_up(_metadata, self);
	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a)->unused = 1;
	expect_refused(_metadata, self, "a", EINVAL);

	p = plan_set(self->s, "a", BY_WRITE);
	plan_add(p, FUSE_ENTRY_REMOVE_BACKING, 0)->unused = 1;
	expect_refused(_metadata, self, "a", EINVAL);

	/* Checked before the name: EINVAL, not ENOENT */
	p = plan_set(self->s, "a", BY_WRITE);
	plan_add_name(p, "no-such-prog", sizeof("no-such-prog"));
	p->cfg.e[0].unused = 0x80000000;
	expect_refused(_metadata, self, "a", EINVAL);
	expect_alive(_metadata, self, true);
	expect_all_forgotten(_metadata, self);
}

TEST_F(entry, nonzero_unused2)
{
	struct plan *p;

	daemon_up(_metadata, self);
	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a)->unused2 = 1;
	expect_refused(_metadata, self, "a", EINVAL);

	p = plan_set(self->s, "file", BY_WRITE);
	plan_add_id(p, self->fd_file, false);
	p->cfg.e[0].unused2 = 1ULL << 63;
	expect_refused(_metadata, self, "file", EINVAL);
	EXPECT_EQ(0, p->id_err);
	expect_alive(_metadata, self, true);
	expect_all_forgotten(_metadata, self);
}

TEST_F(entry, closed_fd)
{
	struct plan *p;

	daemon_up(_metadata, self);
	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, CLOSED_FD);
	expect_refused(_metadata, self, "a", EBADF);

	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, (1ULL << 32) | self->fd_a);
	expect_refused(_metadata, self, "a", EBADF);
	expect_alive(_metadata, self, true);
	expect_all_forgotten(_metadata, self);
}

/* Bytes after the entries that are not a whole entry */
TEST_F(entry, trailing_partial_entry)
{
	struct plan *p;

	daemon_up(_metadata, self);
	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	p->cfg.extra = 20;
	expect_refused(_metadata, self, "a", EINVAL);

	p = plan_set(self->s, "a", BY_WRITE);
	p->cfg.extra = 20;
	expect_refused(_metadata, self, "a", EINVAL);
	expect_alive(_metadata, self, true);
	expect_all_forgotten(_metadata, self);
}

/* One entry more than FUSE_BPF_MAX_ENTRIES */
TEST_F(entry, three_entries)
{
	struct plan *p;

	daemon_up(_metadata, self);
	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	plan_add(p, FUSE_ENTRY_REMOVE_BPF, 0);
	plan_add(p, FUSE_ENTRY_REMOVE_BPF, 0);
	ASSERT_EQ(FUSE_BPF_MAX_ENTRIES + 1, p->cfg.nr);
	expect_refused(_metadata, self, "a", EINVAL);
	expect_alive(_metadata, self, true);
	expect_all_forgotten(_metadata, self);
}

/* The backing's file type must be the one of the reply's attributes */
TEST_F(entry, type_mismatch)
{
	struct plan *p;

	daemon_up(_metadata, self);
	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_file);
	expect_refused(_metadata, self, "a", EINVAL);

	p = plan_set(self->s, "file", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	expect_refused(_metadata, self, "file", EINVAL);

	p = plan_set(self->s, "a", BY_WRITE);
	plan_add_id(p, self->fd_file, false);
	expect_refused(_metadata, self, "a", EINVAL);
	EXPECT_EQ(0, p->id_err);
	expect_alive(_metadata, self, true);
	expect_all_forgotten(_metadata, self);
}

/* The same reply twice: the second finds no request */
TEST_F(entry, reply_already_answered)
{
	struct plan *p, *q;
	struct stat st;

	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	p->cfg.twice = true;
	q = plan_set(self->s, "c", BY_WRITE);
	q->cfg.twice = true;
	daemon_up(_metadata, self);

	EXPECT_EQ(0, stat(IN_MNT("a"), &st));
	EXPECT_EQ(0, stat(IN_MNT("c"), &st));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(0, p->err);
	EXPECT_EQ(ENOENT, p->err2)
		TH_LOG("ioctl again: %s", errstr(p->err2));
	EXPECT_EQ(1UL, p->accepted);
	EXPECT_EQ(0, q->err);
	EXPECT_EQ(ENOENT, q->err2)
		TH_LOG("write() again: %s", errstr(q->err2));
	EXPECT_EQ(1UL, q->accepted);
	EXPECT_FILE(LOWER_A, IN_MNT("a/f"));
	EXPECT_FILE(DAEMON_DFILE, IN_MNT("c/dfile"));
	expect_all_forgotten(_metadata, self);
}

/*
 * An ioctl shorter than a header, or whose header's len is not its size,
 * is refused before a request is looked for: the request is still the
 * daemon's to answer, here without entries.
 */
TEST_F(entry, ioctl_bad_header)
{
	struct plan *p, *q;
	struct stat st;

	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	p->cfg.ioc_size = sizeof(struct fuse_out_header) - 8;
	p->cfg.then_plain = true;
	q = plan_set(self->s, "c", BY_IOCTL);
	plan_add(q, FUSE_ENTRY_BACKING, self->fd_a);
	q->cfg.oh_len_delta = -(int)sizeof(struct fuse_bpf_entry_out);
	q->cfg.then_plain = true;
	daemon_up(_metadata, self);

	EXPECT_EQ(0, stat(IN_MNT("a"), &st))
		TH_LOG("stat a: %s", strerror(errno));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(EINVAL, p->err)
		TH_LOG("a short ioctl: %s", errstr(p->err));
	EXPECT_EQ(0, p->err2);
	EXPECT_EQ((mode_t)(S_IFDIR | 0755), st.st_mode);
	EXPECT_NAMES("dchild ", IN_MNT("a"));

	EXPECT_EQ(0, stat(IN_MNT("c"), &st))
		TH_LOG("stat c: %s", strerror(errno));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(EINVAL, q->err)
		TH_LOG("a header's len not the ioctl's: %s", errstr(q->err));
	EXPECT_EQ(0, q->err2);
	EXPECT_NAMES("dfile ", IN_MNT("c"));
	expect_alive(_metadata, self, true);
	expect_all_forgotten(_metadata, self);
}

/* A name of BPF_FUSE_NAME_MAX + 1 characters, no NUL */
TEST_F(entry, unterminated_bpf_name)
{
	static const char name[] = "readonly-readonly-readonly";
	struct plan *p;

	daemon_up(_metadata, self);
	p = plan_set(self->s, "a", BY_WRITE);
	plan_add_name(p, name, BPF_FUSE_NAME_MAX + 1);
	expect_refused(_metadata, self, "a", EINVAL);

	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	plan_add_name(p, name, BPF_FUSE_NAME_MAX + 1);
	expect_refused(_metadata, self, "a", EINVAL);
	expect_alive(_metadata, self, true);
	expect_all_forgotten(_metadata, self);
}

TEST_F(entry, unknown_bpf_name)
{
	struct plan *p;

	daemon_up(_metadata, self);
	p = plan_set(self->s, "a", BY_WRITE);
	plan_add_name(p, "no-such-prog", sizeof("no-such-prog"));
	expect_refused(_metadata, self, "a", ENOENT);

	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	plan_add_name(p, "no-such-prog", sizeof("no-such-prog"));
	expect_refused(_metadata, self, "a", ENOENT);
	expect_alive(_metadata, self, true);
	expect_all_forgotten(_metadata, self);
}

/* ------------------------------------------------------------------ */
/* Who may give a backing                                               */
/* ------------------------------------------------------------------ */

/* A daemon without CAP_SYS_ADMIN in effect when it sends the reply */
TEST_F(entry, unprivileged_daemon)
{
	struct plan *p;

	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	p->cfg.drop_admin = true;
	daemon_up(_metadata, self);
	expect_refused(_metadata, self, "a", EPERM);
	/* With the capability back, the same reply is taken */
	p->cfg.drop_admin = false;
	EXPECT_FILE(LOWER_A, IN_MNT("a/f"));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(0, p->err);
	expect_alive(_metadata, self, true);
	expect_all_forgotten(_metadata, self);
}

/* /dev/kmsg, read from its end on */
static int kmsg_open_end(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0 && lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The kernel log records since kmsg_open_end() that contain @str */
static int kmsg_count(int fd, const char *str)
{
	char rec[1024];
	ssize_t n;
	int count = 0;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten: go on */
		if (n <= 0)
			break;
		rec[n] = '\0';
		count += !!strstr(rec, str);
	}
	return count;
}

/*
 * A daemon that did not accept FUSE_PASSTHROUGH (an RFC daemon does not
 * know the flag) may give no backing: ELOOP, and one kernel log line per
 * connection that says what to do.
 */
TEST_F(entry, no_passthrough_eloop)
{
	const char *hint = "accept FUSE_PASSTHROUGH in FUSE_INIT";
	struct plan *p;
	int kmsg = kmsg_open_end();

	ASSERT_LE(0, kmsg);
	self->d->init_flags &= ~FUSE_PASSTHROUGH;
	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	daemon_up(_metadata, self);
	expect_refused(_metadata, self, "a", ELOOP);
	expect_refused(_metadata, self, "a", ELOOP);
	EXPECT_EQ(1, kmsg_count(kmsg, hint));
	close(kmsg);
	expect_alive(_metadata, self, false);
	expect_all_forgotten(_metadata, self);
}

/* ------------------------------------------------------------------ */
/* Revalidation                                                         */
/* ------------------------------------------------------------------ */

/*
 * With entries timing out at once, every path walk looks "a" up again.
 * Another backing gives the path a new inode, and open files keep the
 * old one; a reply without entries leaves the node as it is.
 */
TEST_F(entry, revalidate_new_backing)
{
	unsigned long lookups;
	struct plan *p;
	char buf[64];
	struct stat st;
	int fd;

	self->d->entry_timeout_ms = 0;
	self->d->attr_timeout_ms = 0;
	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	daemon_up(_metadata, self);

	fd = open(IN_MNT("a/f"), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd)
		TH_LOG("open a/f: %s", strerror(errno));
	EXPECT_EQ((ssize_t)strlen(LOWER_A), read_fd(fd, buf, sizeof(buf)));
	EXPECT_STREQ(LOWER_A, buf);
	/* The same backing again */
	EXPECT_FILE(LOWER_A, IN_MNT("a/f"));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(0, p->err);

	/* Another one */
	lookups = p->lookups;
	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_b);
	EXPECT_FILE(LOWER_B, IN_MNT("a/f"));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_LT(lookups, p->lookups)
		TH_LOG("a not looked up again");
	EXPECT_EQ(0, p->err);
	EXPECT_NAMES("bonly f ", IN_MNT("a"));
	ASSERT_EQ(0, stat(IN_MNT("a"), &st));
	EXPECT_EQ((mode_t)(S_IFDIR | LOWER_MODE_B), st.st_mode);
	/* The open file is still the one of a/ */
	EXPECT_EQ((ssize_t)strlen(LOWER_A), read_fd(fd, buf, sizeof(buf)));
	EXPECT_STREQ(LOWER_A, buf);

	/* No entries: still backed by b/, attributes and all */
	lookups = p->lookups;
	p = plan_set(self->s, "a", BY_WRITE);
	EXPECT_FILE(LOWER_B, IN_MNT("a/f"));
	ASSERT_EQ(0, stat(IN_MNT("a"), &st));
	EXPECT_EQ((mode_t)(S_IFDIR | LOWER_MODE_B), st.st_mode);
	EXPECT_NAMES("bonly f ", IN_MNT("a"));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_LT(lookups, p->lookups);
	EXPECT_EQ(0, p->err);

	EXPECT_EQ(0, close(fd));
	EXPECT_EQ(0UL, self->s->req_on[self->id_a])
		TH_LOG("requests on the backed node a");
	expect_all_forgotten(_metadata, self);
}

/*
 * A revalidating LOOKUP whose reply names the backing and filter the node
 * has keeps the dentry.  The RFC failed such a revalidation and looked
 * the name up again: d_invalidate() of the dentry, so two LOOKUPs for
 * every walk once the entry timed out, and a mount on the directory
 * detached by the first of those walks.
 */
TEST_F(entry, revalidate_same_backing_keeps_dentry)
{
	char marker[PATH_MAX];
	unsigned long lookups;
	struct plan *p;
	int i;

	self->d->entry_timeout_ms = 0;
	self->d->attr_timeout_ms = 0;
	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	daemon_up(_metadata, self);
	EXPECT_FILE(LOWER_A, IN_MNT("a/f"));

	ASSERT_EQ(0, mount("tmpfs", IN_MNT("a"), "tmpfs", 0, NULL));
	snprintf(marker, sizeof(marker), "%s", IN_MNT("a/marker"));
	ASSERT_EQ(0, pt_write_file(marker, "m", 0644));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	lookups = p->lookups;
	for (i = 0; i < 5; i++)
		EXPECT_EQ(0, access(marker, F_OK) ? errno : 0)
			TH_LOG("walk %d: the mount on a/ is gone", i);
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(lookups + 5, p->lookups)
		TH_LOG("one LOOKUP of a per walk expected");
	EXPECT_EQ(0, p->err);
	EXPECT_EQ(0, umount2(IN_MNT("a"), 0) ? errno : 0);
	EXPECT_FILE(LOWER_A, IN_MNT("a/f"));
	expect_all_forgotten(_metadata, self);
}

/* A reply taking the backing away: the node is the daemon's again */
TEST_F(entry, remove_backing)
{
	unsigned long readdirs;
	struct plan *p;
	char buf[64];
	struct stat st;
	int fd;

	self->d->entry_timeout_ms = 0;
	self->d->attr_timeout_ms = 0;
	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	daemon_up(_metadata, self);

	EXPECT_NAMES("f ", IN_MNT("a"));
	fd = open(IN_MNT("a/f"), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd)
		TH_LOG("open a/f: %s", strerror(errno));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(0, p->err);
	EXPECT_EQ(0UL, self->s->req_on[self->id_a]);

	readdirs = fuse_daemon_count(self->d, FUSE_READDIR);
	p = plan_set(self->s, "a", BY_WRITE);
	plan_add(p, FUSE_ENTRY_REMOVE_BACKING, 0);
	EXPECT_NAMES("dchild ", IN_MNT("a"));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(0, p->err)
		TH_LOG("removing the backing: %s", errstr(p->err));
	EXPECT_LT(readdirs, fuse_daemon_count(self->d, FUSE_READDIR));
	EXPECT_LT(0UL, self->s->req_on[self->id_a]);
	EXPECT_FILE(DAEMON_DCHILD, IN_MNT("a/dchild"));
	ASSERT_EQ(0, stat(IN_MNT("a"), &st));
	EXPECT_EQ((mode_t)(S_IFDIR | 0755), st.st_mode);
	EXPECT_EQ(ENOENT, stat(IN_MNT("a/f"), &st) ? errno : 0);

	/* The open file still reads the lower */
	EXPECT_EQ((ssize_t)strlen(LOWER_A), read_fd(fd, buf, sizeof(buf)));
	EXPECT_STREQ(LOWER_A, buf);
	EXPECT_EQ(0, close(fd));
	expect_all_forgotten(_metadata, self);
}

/* ------------------------------------------------------------------ */
/* FORGET                                                               */
/* ------------------------------------------------------------------ */

/*
 * Many nodes below a backed directory, then the caches dropped: FORGETs
 * come for the daemon's nodes, as many lookups as the kernel took, and
 * never for a node id of the kernel's.
 */
TEST_F_TIMEOUT(entry, forget_only_daemon_ids, 120)
{
	char path[64], buf[64];
	struct plan *p;
	struct stat st;
	int i;

	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	daemon_up(_metadata, self);

	ASSERT_EQ(0, mkdir(IN_MNT("a/sub"), 0755))
		TH_LOG("mkdir a/sub: %s", strerror(errno));
	for (i = 0; i < FORGET_FILES; i++) {
		snprintf(path, sizeof(path), "a/%s%d", i % 2 ? "sub/" : "",
			 i);
		snprintf(buf, sizeof(buf), "file %d", i);
		EXPECT_EQ(0, create_file(IN_MNT(path), buf));
		EXPECT_EQ(0, stat(IN_MNT(path), &st));
		EXPECT_FILE(buf, IN_MNT(path));
	}
	EXPECT_FILE(LOWER_A, IN_MNT("a/f"));
	EXPECT_LE(0, pt_dir_names(IN_MNT("a/sub"), buf, sizeof(buf)));
	EXPECT_FILE(DAEMON_DFILE, IN_MNT("c/dfile"));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(0, p->err);
	ASSERT_LT(0UL, self->s->looked_up[self->id_a]);
	ASSERT_LT(0UL, self->s->looked_up[self->id_dfile]);
	EXPECT_EQ(0UL, self->s->req_on[self->id_a]);

	expect_all_forgotten(_metadata, self);
	EXPECT_LT(0UL, self->s->forgotten[self->id_a]);
	EXPECT_EQ(0UL, self->s->kernel_ids)
		TH_LOG("the daemon saw node ids of the kernel");
	EXPECT_EQ(0UL, self->s->other_ids);
}

/* ------------------------------------------------------------------ */
/* Filters                                                              */
/* ------------------------------------------------------------------ */

/* The lower is unchanged but for the files @names */
#define EXPECT_LOWER_A(names) EXPECT_NAMES(names, IN_LOWER("a"))

/*
 * FUSE_ENTRY_BACKING_NAME: a backing named by one name in the backing of
 * the directory the lookup was in (a, which leaves LOOKUP to the daemon).
 * Never a path: one through bob/, which only the lower's owner may
 * search, would be walked with the backing credentials.
 */
TEST_F(entry, backing_name_beneath)
{
	static const struct {
		const char *name;
		int err;
	} bad[] = {
		{ "../b/f", EINVAL },	/* .. out of a */
		{ "esc/f", EINVAL },	/* a relative symlink out of a */
		{ "abs/etc", EINVAL },	/* an absolute symlink */
		{ "/etc/passwd", EINVAL },
		{ "..", EINVAL },
		{ ".", EINVAL },
		/* Through a directory only the lower's owner may search */
		{ "bob/notes", EINVAL },
		{ "none", ENOENT },
		{ "sub", EINVAL },	/* a directory for the daemon's file */
		{ "esc", EINVAL },	/* a symlink, itself, for a file */
	};
	struct fuse_bpf_entry_out *e;
	struct plan *p, *q;
	unsigned long reads;
	struct stat st;
	unsigned int i;

	ASSERT_EQ(0, symlink("../b", IN_LOWER("a/esc")));
	ASSERT_EQ(0, symlink("/", IN_LOWER("a/abs")));
	ASSERT_EQ(0, mkdir(IN_LOWER("a/sub"), 0755));
	ASSERT_EQ(0, mkdir(IN_LOWER("a/bob"), 0700));
	ASSERT_EQ(0, pt_write_file(IN_LOWER("a/bob/notes"), "bob's", 0600));
	ASSERT_EQ(0, chown(IN_LOWER("a/bob"), LOWER_UID, LOWER_UID));
	self->d->entry_timeout_ms = 0;
	p = plan_set(self->s, "a", BY_IOCTL);
	e = plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	e->daemon_ops = 1ULL << FUSE_LOOKUP;
	q = plan_set(self->s, "dchild", BY_WRITE);
	q->cfg.any_parent = true;
	e = plan_add(q, FUSE_ENTRY_BACKING_NAME, 0);
	snprintf(e->name, sizeof(e->name), "%s", "f");
	daemon_up(_metadata, self);

	reads = fuse_daemon_count(self->d, FUSE_READ);
	EXPECT_FILE(LOWER_A, IN_MNT("a/dchild"));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(0, q->err)
		TH_LOG("a/dchild by name: %s", errstr(q->err));
	EXPECT_EQ(reads, fuse_daemon_count(self->d, FUSE_READ));

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		q = plan_set(self->s, "dchild", BY_WRITE);
		q->cfg.any_parent = true;
		e = plan_add(q, FUSE_ENTRY_BACKING_NAME, 0);
		snprintf(e->name, sizeof(e->name), "%s", bad[i].name);
		EXPECT_EQ(EIO, stat(IN_MNT("a/dchild"), &st) ? errno : 0)
			TH_LOG("%s", bad[i].name);
		ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
		EXPECT_EQ(bad[i].err, q->err)
			TH_LOG("%s: %s", bad[i].name, errstr(q->err));
	}

	/* Not in a directory with a backing: nothing to be below */
	p = plan_set(self->s, "c", BY_WRITE);
	e = plan_add(p, FUSE_ENTRY_BACKING_NAME, 0);
	snprintf(e->name, sizeof(e->name), "%s", "f");
	expect_refused(_metadata, self, "c", EINVAL);
}

/*
 * On the same connection, a daemon's file opened with 6.12's
 * FOPEN_PASSTHROUGH reads its backing file, next to a node backed at
 * lookup and a file the daemon serves itself.
 */
TEST_F(entry, fopen_passthrough_same_connection)
{
	unsigned long reads;
	struct plan *p;

	self->s->pt_node = self->id_file;
	self->s->pt_fd = self->fd_file;
	inner[FUSE_OPEN] = open_passthrough;
	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	daemon_up(_metadata, self);

	reads = fuse_daemon_count(self->d, FUSE_READ);
	EXPECT_FILE(LOWER_FILE, IN_MNT("file"));
	EXPECT_FILE(LOWER_A, IN_MNT("a/f"));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(reads, fuse_daemon_count(self->d, FUSE_READ));
	EXPECT_FILE(DAEMON_DFILE, IN_MNT("c/dfile"));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_LT(reads, fuse_daemon_count(self->d, FUSE_READ));
	expect_all_forgotten(_metadata, self);
}

/* Loads progs/fuse_test_user.c and registers it, as "user" */
static void user_ops_register(struct __test_metadata *_metadata,
			      entry_data *self)
{
	struct fuse_test_user *skel = PT_BPF_LOAD(&self->bpf, fuse_test_user);

	pt_bpf_register(_metadata, &self->bpf, skel->maps.user_ops);
}

/* Starts the daemon; its lookup of "a" gives a its backing and "user" */
static void user_daemon_up(struct __test_metadata *_metadata,
			   entry_data *self)
{
	struct plan *p = plan_set(self->s, "a", BY_IOCTL);

	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	plan_add_name(p, "user", sizeof("user"));
	daemon_up(_metadata, self);
}

/*
 * A filter sends a lookup in a directory the kernel made to the daemon
 * (progs/fuse_test_user.c: names "daemon"): the kernel first introduces
 * the directory to the daemon with a LOOKUP of its name, so that the
 * daemon sees its own node id, never the kernel's, and gets the FORGET of
 * that lookup when the directory goes.
 */
TEST_F(entry, fallback_introduces_kernel_node)
{
	__u64 id_sub, id_daemon;

	user_ops_register(_metadata, self);
	ASSERT_EQ(0, mkdir(IN_LOWER("a/sub"), 0755));
	id_sub = fuse_daemon_add_dir(self->d, self->id_a, "sub", 0755);
	ASSERT_NE(0ULL, id_sub);
	id_daemon = fuse_daemon_add_file(self->d, id_sub, "daemon", 0644,
					 DAEMON_DFILE, strlen(DAEMON_DFILE));
	ASSERT_NE(0ULL, id_daemon);
	ASSERT_GT((__u64)NR_IDS, id_daemon);
	user_daemon_up(_metadata, self);

	EXPECT_FILE(DAEMON_DFILE, IN_MNT("a/sub/daemon"));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(0, plan_find(self->s, "a")->err);
	EXPECT_EQ(1UL, self->s->looked_up[id_sub])
		TH_LOG("sub was not introduced by one lookup");
	EXPECT_LT(0UL, self->s->req_on[id_sub])
		TH_LOG("the lookup of daemon did not come with sub's id");
	EXPECT_LT(0UL, self->s->req_on[id_daemon]);
	EXPECT_EQ(0UL, self->s->kernel_ids);
	/* The rest of sub stays the kernel's */
	ASSERT_EQ(0, pt_write_file(IN_LOWER("a/sub/lower"), "x", 0644));
	EXPECT_FILE("x", IN_MNT("a/sub/lower"));
	expect_all_forgotten(_metadata, self);
}

/*
 * A filter sends a rename and a link between nodes the kernel made to the
 * daemon (progs/fuse_test_user.c: names "daemon_mv" and "daemon_ln").
 * Both nodes each request names are introduced first: the one in its
 * header and the one in its body (the rename's target directory, the
 * link's source), so that the daemon never sees a node id of the
 * kernel's.  This daemon does not implement RENAME and LINK: ENOSYS
 * (EPERM for link()).
 */
TEST_F(entry, fallback_introduces_body_nodes)
{
	__u64 id_s1, id_s2, id_f;

	user_ops_register(_metadata, self);
	ASSERT_EQ(0, mkdir(IN_LOWER("a/s1"), 0755));
	ASSERT_EQ(0, mkdir(IN_LOWER("a/s2"), 0755));
	ASSERT_EQ(0, pt_write_file(IN_LOWER("a/s1/daemon_mv"), "m", 0644));
	ASSERT_EQ(0, pt_write_file(IN_LOWER("a/s1/f"), "f", 0644));
	id_s1 = fuse_daemon_add_dir(self->d, self->id_a, "s1", 0755);
	id_s2 = fuse_daemon_add_dir(self->d, self->id_a, "s2", 0755);
	ASSERT_NE(0ULL, id_s1);
	ASSERT_NE(0ULL, id_s2);
	id_f = fuse_daemon_add_file(self->d, id_s1, "f", 0644, "f", 1);
	ASSERT_NE(0ULL, id_f);
	ASSERT_GT((__u64)NR_IDS, id_f);
	user_daemon_up(_metadata, self);

	errno = 0;
	EXPECT_EQ(-1, rename(IN_MNT("a/s1/daemon_mv"), IN_MNT("a/s2/moved")));
	EXPECT_EQ(ENOSYS, errno);
	/* fuse_link() turns the daemon's ENOSYS into EPERM */
	errno = 0;
	EXPECT_EQ(-1, link(IN_MNT("a/s1/f"), IN_MNT("a/s2/daemon_ln")));
	EXPECT_EQ(EPERM, errno);
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(0UL, self->s->kernel_ids)
		TH_LOG("the daemon saw %lu kernel node ids",
		       self->s->kernel_ids);
	EXPECT_EQ(1UL, self->s->looked_up[id_s2])
		TH_LOG("s2 was not introduced by one lookup");
	EXPECT_EQ(1UL, self->s->looked_up[id_f])
		TH_LOG("f was not introduced by one lookup");
	/* The rename's body and the link's header name s2, the link's body f */
	EXPECT_LE(2UL, self->s->req_on[id_s2]);
	EXPECT_LE(1UL, self->s->req_on[id_f]);
	/* Nothing moved on the lower */
	EXPECT_EQ(0, access(IN_LOWER("a/s1/daemon_mv"), F_OK));
	EXPECT_EQ(-1, access(IN_LOWER("a/s2/daemon_ln"), F_OK));
	expect_all_forgotten(_metadata, self);
}

/*
 * MKDIR: a directory of the daemon's, as the name of the request asks,
 * with one lookup for the kernel (counted as LOOKUP's are).
 */
static int entry_mkdir(struct fuse_daemon *d, const struct fuse_daemon_req *req)
{
	const struct fuse_mkdir_in *in = fuse_daemon_req_arg(d, req,
							     sizeof(*in));
	const char *name = (const char *)(in + 1);
	struct fuse_daemon_node *node;
	struct fuse_entry_out out;
	struct shm *s = d->priv;
	__u64 id;

	if (!in || req->arglen <= sizeof(*in) ||
	    !memchr(name, '\0', req->arglen - sizeof(*in)))
		return -EINVAL;
	if (fuse_daemon_find_child(d, req->hdr->nodeid, name))
		return -EEXIST;
	id = fuse_daemon_add_dir(d, req->hdr->nodeid, name, in->mode & 07777);
	node = id ? fuse_daemon_node(d, id) : NULL;
	if (!node)
		return -ENOMEM;
	fuse_daemon_fill_entry(d, node, &out);
	node->nlookup++;
	if (id < NR_IDS)
		bump(&s->looked_up[id], 1);
	return fuse_daemon_reply(d, req, &out, sizeof(out));
}

/* stat() of @path twice more sends the daemon no LOOKUP */
static void expect_cached(struct __test_metadata *_metadata,
			  entry_data *self, const char *path)
{
	unsigned long lookups;
	struct stat st;

	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	lookups = fuse_daemon_count(self->d, FUSE_LOOKUP);
	EXPECT_EQ(0, stat(path, &st))
		TH_LOG("%s: %s", path, strerror(errno));
	EXPECT_EQ(0, stat(path, &st))
		TH_LOG("%s: %s", path, strerror(errno));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(lookups, fuse_daemon_count(self->d, FUSE_LOOKUP))
		TH_LOG("%s looked up again on each walk", path);
}

/*
 * Daemon nodes inside backed directories: "x", made by the daemon's MKDIR
 * (daemon_ops of the backed "b"), and "daemon", a lookup the filter sends
 * to the daemon in the kernel's a/sub, with a child "leaf".  They have no
 * backing: they are the daemon's, and revalidate as FUSE's do, with the
 * entry timeout the daemon gave (not looked up again on each walk).
 */
TEST_F(entry, daemon_node_in_backed_dir)
{
	struct fuse_bpf_entry_out *e;
	__u64 id_sub, id_daemon;
	struct plan *p;
	struct stat st;

	user_ops_register(_metadata, self);
	inner[FUSE_MKDIR] = entry_mkdir;
	ASSERT_EQ(0, mkdir(IN_LOWER("a/sub"), 0755));
	id_sub = fuse_daemon_add_dir(self->d, self->id_a, "sub", 0755);
	id_daemon = fuse_daemon_add_dir(self->d, id_sub, "daemon", 0750);
	ASSERT_NE(0ULL, id_daemon);
	ASSERT_NE(0ULL, fuse_daemon_add_file(self->d, id_daemon, "leaf", 0644,
					     DAEMON_DFILE,
					     strlen(DAEMON_DFILE)));
	p = plan_set(self->s, "b", BY_IOCTL);
	e = plan_add(p, FUSE_ENTRY_BACKING, self->fd_b);
	e->daemon_ops = 1ULL << FUSE_MKDIR;
	user_daemon_up(_metadata, self);

	ASSERT_EQ(0, mkdir(IN_MNT("b/x"), 0700));
	EXPECT_EQ(ENOENT, stat(IN_LOWER("b/x"), &st) ? errno : 0);
	ASSERT_EQ(0, stat(IN_MNT("b/x"), &st))
		TH_LOG("b/x: %s", strerror(errno));
	EXPECT_TRUE(S_ISDIR(st.st_mode));
	expect_cached(_metadata, self, IN_MNT("b/x"));

	ASSERT_EQ(0, stat(IN_MNT("a/sub/daemon"), &st));
	EXPECT_EQ(0750, st.st_mode & 07777);
	expect_cached(_metadata, self, IN_MNT("a/sub/daemon"));
	EXPECT_FILE(DAEMON_DFILE, IN_MNT("a/sub/daemon/leaf"));
	expect_cached(_metadata, self, IN_MNT("a/sub/daemon/leaf"));
	EXPECT_FILE(LOWER_B, IN_MNT("b/f"));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(0, plan_find(self->s, "b")->err);
	expect_all_forgotten(_metadata, self);
}

/*
 * The same on a root_dir= mount: the root is backed, and the filter sends
 * the lookup of "daemon" to the daemon.  "daemon" and its child "leaf"
 * are the daemon's: they keep their dentries for the entry timeout, and a
 * mount on "leaf" stays (d_invalidate() would detach it).
 */
TEST_F(entry, daemon_dir_under_backed_root)
{
	char opts[64], sub[PATH_MAX];
	__u64 id_daemon;
	int root_fd, ret;
	struct stat st;

	user_ops_register(_metadata, self);
	id_daemon = fuse_daemon_add_dir(self->d, FUSE_ROOT_ID, "daemon", 0755);
	ASSERT_NE(0ULL, id_daemon);
	ASSERT_NE(0ULL, fuse_daemon_add_dir(self->d, id_daemon, "leaf",
					    0755));
	root_fd = open_dir(self->lower);
	ASSERT_LE(0, root_fd);
	snprintf(opts, sizeof(opts), "root_dir=%d,root_bpf=user", root_fd);
	ret = fuse_daemon_mount(self->d, self->mnt, opts);
	close(root_fd);
	ASSERT_EQ(0, ret)
		TH_LOG("mounting: %s", strerror(-ret));

	EXPECT_FILE(LOWER_FILE, IN_MNT("file"));
	ASSERT_EQ(0, stat(IN_MNT("daemon/leaf"), &st));
	expect_cached(_metadata, self, IN_MNT("daemon"));
	expect_cached(_metadata, self, IN_MNT("daemon/leaf"));
	snprintf(sub, sizeof(sub), "%s", IN_MNT("daemon/leaf"));
	ASSERT_EQ(0, mount("tmpfs", sub, "tmpfs", 0, NULL));
	ASSERT_EQ(0, pt_write_file(IN_MNT("daemon/leaf/t"), "t", 0644));
	EXPECT_FILE("t", IN_MNT("daemon/leaf/t"));
	EXPECT_EQ(0, umount2(sub, 0))
		TH_LOG("the mount on daemon/leaf: %s", strerror(errno));
}

/*
 * "a" backed by the lower a/, "b" by the same directory through a
 * read-only bind mount of the lower: the lower mount is part of a backing.
 * b/f is a node of its own, read-only as its mount; a rename or a link
 * between a and b crosses lower mounts (EXDEV, as rename(2) and link(2)
 * across mounts), and nothing reaches the read-only mount.
 */
TEST_F(entry, lower_mounts_kept_apart)
{
	char ro[80], path[PATH_MAX];
	struct plan *p;
	int fd_ro, fd;

	snprintf(ro, sizeof(ro), "%s.ro", self->lower);
	ASSERT_EQ(0, mkdir(ro, 0755));
	ASSERT_EQ(0, mount(self->lower, ro, NULL, MS_BIND, NULL));
	ASSERT_EQ(0, mount(NULL, ro, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY,
			   NULL));
	snprintf(path, sizeof(path), "%s/a", ro);
	fd_ro = open_dir(path);
	ASSERT_LE(0, fd_ro);
	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	p = plan_set(self->s, "b", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, fd_ro);
	daemon_up(_metadata, self);

	EXPECT_FILE(LOWER_A, IN_MNT("a/f"));
	EXPECT_FILE(LOWER_A, IN_MNT("b/f"));
	fd = open(IN_MNT("b/f"), O_WRONLY | O_APPEND);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EROFS, errno);
	if (fd >= 0)
		close(fd);
	fd = open(IN_MNT("a/f"), O_WRONLY | O_APPEND);
	EXPECT_LE(0, fd);
	if (fd >= 0)
		close(fd);
	EXPECT_EQ(EXDEV, rename(IN_MNT("a/f"), IN_MNT("b/g")) ? errno : 0);
	EXPECT_EQ(EXDEV, rename(IN_MNT("b/f"), IN_MNT("a/g")) ? errno : 0);
	EXPECT_EQ(EXDEV, link(IN_MNT("a/f"), IN_MNT("b/h")) ? errno : 0);
	EXPECT_EQ(EXDEV, link(IN_MNT("b/f"), IN_MNT("a/h")) ? errno : 0);
	EXPECT_LOWER_A("f ");
	/* Within one mount, as before */
	EXPECT_EQ(0, rename(IN_MNT("a/f"), IN_MNT("a/g")));
	EXPECT_EQ(0, rename(IN_MNT("a/g"), IN_MNT("a/f")));
	EXPECT_EQ(EROFS, rename(IN_MNT("b/f"), IN_MNT("b/g")) ? errno : 0);
	EXPECT_LOWER_A("f ");
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(0, plan_find(self->s, "b")->err);

	EXPECT_EQ(0, fuse_daemon_umount(self->d));
	close(fd_ro);
	EXPECT_EQ(0, umount2(ro, MNT_DETACH));
}

/*
 * Racing O_EXCL creates of one name in a directory the daemon backed: one
 * winner, EEXIST for the others, one file on the lower, and no request to
 * the daemon.
 */
TEST_F(entry, racing_excl_creates_one_winner)
{
	enum { RACERS = 8, ROUNDS = 20 };
	unsigned long before;
	int round, won, lost;
	char name[32];
	struct plan *p;

	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	daemon_up(_metadata, self);
	ASSERT_EQ(0, access(IN_MNT("a/f"), F_OK));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	before = fuse_daemon_started(self->d);

	for (round = 0; round < ROUNDS; round++) {
		snprintf(name, sizeof(name), "a/excl%d", round);
		ASSERT_EQ(0, pt_excl_race(IN_MNT(name), IN_MNT(name), RACERS,
					  &won, &lost));
		EXPECT_EQ(1, won) TH_LOG("round %d", round);
		EXPECT_EQ(RACERS - 1, lost) TH_LOG("round %d", round);
		snprintf(name, sizeof(name), "excl%d", round);
		EXPECT_EQ(0, faccessat(self->fd_a, name, F_OK, 0));
	}
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(before, fuse_daemon_started(self->d))
		TH_LOG("the daemon saw requests for the creates");
}

/*
 * The connection aborted (the daemon's death, or fusectl's abort) while a
 * lookup waits for the daemon's reply: the lookup ends with ECONNABORTED
 * and the late reply is refused.  Backed nodes go on: what the kernel
 * serves from a backing needs no daemon, open files and cached names
 * included; what needs the daemon fails with ENOTCONN.
 */
TEST_F(entry, abort_backed_nodes_go_on)
{
	struct plan *p;
	struct stat st;
	char buf[64];
	int fd, status;
	pid_t pid;

	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	p = plan_set(self->s, "b", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_b);
	p->cfg.delay_ms = 1500;
	daemon_up(_metadata, self);

	fd = open(IN_MNT("a/f"), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(stat(IN_MNT("b"), &st) ? errno : 0);
	usleep(300 * 1000);
	ASSERT_EQ(0, pt_abort_conn(self->mnt));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(ECONNABORTED, WEXITSTATUS(status));

	EXPECT_EQ((ssize_t)strlen(LOWER_A), pread(fd, buf, sizeof(buf), 0));
	EXPECT_FILE(LOWER_A, IN_MNT("a/f"));
	EXPECT_EQ(0, create_file(IN_MNT("a/new"), "x"));
	EXPECT_EQ(0, access(IN_LOWER("a/new"), F_OK));
	EXPECT_EQ(ENOTCONN, stat(IN_MNT("file"), &st) ? errno : 0);
	EXPECT_EQ(0, close(fd));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(ENOENT, p->err)
		TH_LOG("the late reply: %s", errstr(p->err));
}

/*
 * daemon_ops: a backed node leaves the operations the daemon names to it.
 * OPENDIR: the listing of a is the daemon's, its files the lower's.
 */
TEST_F(entry, daemon_ops_opendir)
{
	unsigned long readdirs, reads;
	struct fuse_bpf_entry_out *e;
	struct plan *p;

	p = plan_set(self->s, "a", BY_IOCTL);
	e = plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	e->daemon_ops = 1ULL << FUSE_OPENDIR;
	daemon_up(_metadata, self);

	readdirs = fuse_daemon_count(self->d, FUSE_READDIR);
	reads = fuse_daemon_count(self->d, FUSE_READ);
	EXPECT_NAMES("dchild ", IN_MNT("a"));
	EXPECT_FILE(LOWER_A, IN_MNT("a/f"));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(0, p->err);
	EXPECT_LT(readdirs, fuse_daemon_count(self->d, FUSE_READDIR));
	EXPECT_LT(0UL, self->s->req_on[self->id_a]);
	EXPECT_EQ(reads, fuse_daemon_count(self->d, FUSE_READ));
	expect_all_forgotten(_metadata, self);
}

/* LOOKUP: the names in a are the daemon's, its listing the lower's */
TEST_F(entry, daemon_ops_lookup)
{
	unsigned long lookups;
	struct fuse_bpf_entry_out *e;
	struct plan *p;
	struct stat st;

	p = plan_set(self->s, "a", BY_IOCTL);
	e = plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	e->daemon_ops = 1ULL << FUSE_LOOKUP;
	daemon_up(_metadata, self);

	lookups = fuse_daemon_count(self->d, FUSE_LOOKUP);
	EXPECT_NAMES("f ", IN_MNT("a"));
	EXPECT_FILE(DAEMON_DCHILD, IN_MNT("a/dchild"));
	EXPECT_EQ(ENOENT, stat(IN_MNT("a/f"), &st) ? errno : 0);
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(0, p->err);
	EXPECT_LT(lookups + 1, fuse_daemon_count(self->d, FUSE_LOOKUP));
	expect_all_forgotten(_metadata, self);
}

/*
 * Bits the daemon cannot take: GETATTR, the open files' operations.  Locks
 * among them: a file the kernel opened takes its flock and POSIX locks on
 * the backing file and drops them there, so no lock the daemon took can
 * outlive it (the daemon gets locks only on files it opened, which it
 * releases with FUSE_RELEASE_FLOCK_UNLOCK as on any FUSE mount).
 */
TEST_F(entry, daemon_ops_refused)
{
	static const __u32 bad[] = { FUSE_GETATTR, FUSE_READ, FUSE_READDIR,
				     FUSE_FORGET, FUSE_GETLK, FUSE_SETLK,
				     FUSE_SETLKW, FUSE_FLUSH, FUSE_RELEASE,
				     63 };
	struct fuse_bpf_entry_out *e;
	struct plan *p;
	unsigned int i;

	daemon_up(_metadata, self);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		p = plan_set(self->s, "a", BY_IOCTL);
		e = plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
		e->daemon_ops = (1ULL << FUSE_OPENDIR) | (1ULL << bad[i]);
		expect_refused(_metadata, self, "a", EINVAL);
	}
}

/*
 * fuse_readonly, registered as "readonly", given by name to the backed
 * "a", then taken away: a reply with a new filter gives a new inode, and
 * taking the filter away keeps the backing.
 */
TEST_F(entry, bpf_filter_by_name)
{
	struct fuse_readonly *skel;
	struct plan *p;
	int pin;

	skel = PT_BPF_LOAD(&self->bpf, fuse_readonly);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.readonly_ops);

	self->d->entry_timeout_ms = 0;
	self->d->attr_timeout_ms = 0;
	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	daemon_up(_metadata, self);
	EXPECT_EQ(0, create_file(IN_MNT("a/n1"), "1"));

	/* The filter too, the same backing */
	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	plan_add_name(p, "readonly", sizeof("readonly"));
	EXPECT_EQ(-EROFS, create_file(IN_MNT("a/n2"), "2"));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(0, p->err)
		TH_LOG("the filter entry: %s", errstr(p->err));
	EXPECT_EQ(EROFS, mkdir(IN_MNT("a/d"), 0755) ? errno : 0);
	EXPECT_EQ(EROFS, unlink(IN_MNT("a/n1")) ? errno : 0);
	EXPECT_FILE(LOWER_A, IN_MNT("a/f"));
	EXPECT_LOWER_A("f n1 ");

	/*
	 * The filter taken away, by write(): the backing stays.  A reply
	 * without a backing entry keeps the backing of a node the kernel
	 * still holds: hold it (with entry_timeout 0, the name's dentry goes
	 * at each lookup, and with it the last reference on its inode).
	 */
	pin = open(IN_MNT("a"), O_PATH | O_CLOEXEC);
	ASSERT_LE(0, pin);
	p = plan_set(self->s, "a", BY_WRITE);
	plan_add(p, FUSE_ENTRY_REMOVE_BPF, 0);
	EXPECT_EQ(0, create_file(IN_MNT("a/n3"), "3"));
	close(pin);
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(0, p->err)
		TH_LOG("removing the filter: %s", errstr(p->err));
	EXPECT_LOWER_A("f n1 n3 ");
	EXPECT_EQ(0UL, self->s->req_on[self->id_a]);

	expect_all_forgotten(_metadata, self);
}

/*
 * Filter entries need CAP_SYS_ADMIN, as backing descriptors do: a replier
 * without it can neither take away the filter a node has, nor give one,
 * nor tell a registered name from an unknown one (EPERM for both).
 */
TEST_F(entry, filter_entries_need_admin)
{
	static const char *const names[] = { "readonly", "nosuchname" };
	struct fuse_readonly *skel;
	struct plan *p;
	unsigned int i;
	int pin;

	skel = PT_BPF_LOAD(&self->bpf, fuse_readonly);
	pt_bpf_register(_metadata, &self->bpf, skel->maps.readonly_ops);
	self->d->entry_timeout_ms = 0;
	self->d->attr_timeout_ms = 0;
	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	plan_add_name(p, "readonly", sizeof("readonly"));
	daemon_up(_metadata, self);
	EXPECT_EQ(-EROFS, create_file(IN_MNT("a/n1"), "1"));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	ASSERT_EQ(0, p->err);
	pin = open(IN_MNT("a"), O_PATH | O_CLOEXEC);
	ASSERT_LE(0, pin);
	/* The daemon counts the LOOKUP open() made after it replied */
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));

	p = plan_set(self->s, "a", BY_WRITE);
	plan_add(p, FUSE_ENTRY_REMOVE_BPF, 0);
	p->cfg.drop_admin = true;
	expect_refused(_metadata, self, "a", EPERM);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		p = plan_set(self->s, "a", BY_WRITE);
		plan_add_name(p, names[i], strlen(names[i]) + 1);
		p->cfg.drop_admin = true;
		expect_refused(_metadata, self, "a", EPERM);
	}
	/* A plain reply keeps the filter the node has */
	plan_set(self->s, "a", BY_WRITE);
	EXPECT_EQ(-EROFS, create_file(IN_MNT("a/n2"), "2"));
	EXPECT_LOWER_A("f ");
	close(pin);

	expect_all_forgotten(_metadata, self);
}

/*
 * The same program by descriptor: its link or its map, through the ioctl
 * only; a descriptor that is not a registered fuse_ops is refused.
 */
TEST_F(entry, bpf_filter_by_fd)
{
	struct fuse_readonly *skel;
	struct bpf_link *link;
	struct plan *p;
	int link_fd, map_fd;

	skel = PT_BPF_LOAD(&self->bpf, fuse_readonly);
	link = pt_bpf_register(_metadata, &self->bpf, skel->maps.readonly_ops);
	link_fd = bpf_link__fd(link);
	map_fd = bpf_map__fd(skel->maps.readonly_ops);
	ASSERT_LE(0, link_fd);
	ASSERT_LE(0, map_fd);
	daemon_up(_metadata, self);

	/* By write(): refused */
	p = plan_set(self->s, "a", BY_WRITE);
	plan_add(p, FUSE_ENTRY_BPF_FD, link_fd);
	expect_refused(_metadata, self, "a", EINVAL);

	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	plan_add(p, FUSE_ENTRY_BPF_FD, CLOSED_FD);
	expect_refused(_metadata, self, "a", EBADF);

	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	plan_add(p, FUSE_ENTRY_BPF_FD, self->fd_file);
	expect_refused(_metadata, self, "a", EINVAL);

	/* The link */
	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	plan_add(p, FUSE_ENTRY_BPF_FD, link_fd);
	EXPECT_EQ(-EROFS, create_file(IN_MNT("a/n1"), "1"));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(0, p->err)
		TH_LOG("the link's descriptor: %s", errstr(p->err));
	EXPECT_FILE(LOWER_A, IN_MNT("a/f"));

	/* The map */
	p = plan_set(self->s, "b", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_b);
	plan_add(p, FUSE_ENTRY_BPF_FD, map_fd);
	EXPECT_EQ(-EROFS, create_file(IN_MNT("b/n1"), "1"));
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_EQ(0, p->err)
		TH_LOG("the map's descriptor: %s", errstr(p->err));
	EXPECT_FILE(LOWER_B, IN_MNT("b/f"));
	EXPECT_LOWER_A("f ");
	EXPECT_NAMES("bonly f ", IN_LOWER("b"));

	expect_all_forgotten(_metadata, self);
}

/*
 * READDIRPLUS never overrides a backing: the root's listing names "a",
 * which a LOOKUP reply backed, with the daemon's own attributes; "a"
 * keeps the lower directory's mode and contents.  An entry with node id 0
 * makes no dentry: its name is looked up again.
 */
TEST_F(entry, readdirplus_never_overrides_backing)
{
	unsigned long lookups;
	struct stat st;
	struct plan *p;

	self->d->init_flags |= FUSE_DO_READDIRPLUS;
	inner[FUSE_READDIRPLUS] = entry_readdirplus;
	self->d->handlers[FUSE_READDIRPLUS] = recorder;
	p = plan_set(self->s, "a", BY_IOCTL);
	plan_add(p, FUSE_ENTRY_BACKING, self->fd_a);
	daemon_up(_metadata, self);

	ASSERT_EQ(0, stat(IN_MNT("a"), &st));
	EXPECT_EQ((unsigned int)LOWER_MODE_A, st.st_mode & 07777);
	EXPECT_NAMES("a b c file g " ZERO_NAME " ", self->mnt);
	EXPECT_LT(0UL, fuse_daemon_count(self->d, FUSE_READDIRPLUS))
		TH_LOG("the root was not listed with READDIRPLUS");
	ASSERT_EQ(0, stat(IN_MNT("a"), &st));
	EXPECT_EQ((unsigned int)LOWER_MODE_A, st.st_mode & 07777)
		TH_LOG("READDIRPLUS gave a the daemon's mode %o",
		       st.st_mode & 07777);
	EXPECT_FILE(LOWER_A, IN_MNT("a/f"));
	EXPECT_EQ(0UL, self->s->req_on[self->id_a]);
	/* The daemon's own nodes take its attributes, as on any mount */
	ASSERT_EQ(0, stat(IN_MNT("file"), &st));
	EXPECT_EQ((off_t)strlen(DAEMON_FILE), st.st_size);

	lookups = fuse_daemon_count(self->d, FUSE_LOOKUP);
	EXPECT_EQ(ENOENT, stat(IN_MNT(ZERO_NAME), &st) ? errno : 0);
	ASSERT_TRUE(fuse_daemon_quiesce(self->d, WAIT_MS));
	EXPECT_LT(lookups, fuse_daemon_count(self->d, FUSE_LOOKUP))
		TH_LOG("node id 0 made a dentry");
	expect_all_forgotten(_metadata, self);
}

TEST_HARNESS_MAIN
