// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE-BPF filters: the fuse_ops struct_ops type, its registry of programs
 * by name, and the kfuncs that give a program access to a fuse_buffer.
 *
 * This part is built in (it needs the verifier's dynptr support and
 * vmlinux BTF); fs/fuse, built in or as a module, takes programs from the
 * registry with bpf_fuse_ops_get() and calls their members directly.
 */

#include <linux/bpf.h>
#include <linux/bpf_fuse.h>
#include <linux/bpf_verifier.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/filter.h>
#include <linux/init.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>

/* Registered fuse_ops, by name: a name is taken once. */
struct bpf_fuse_entry {
	struct list_head list;
	struct fuse_ops *ops;
};

static LIST_HEAD(bpf_fuse_list);
static DEFINE_MUTEX(bpf_fuse_lock);

static struct bpf_fuse_entry *bpf_fuse_find(const char *name)
{
	struct bpf_fuse_entry *e;

	lockdep_assert_held(&bpf_fuse_lock);
	list_for_each_entry(e, &bpf_fuse_list, list)
		if (!strncmp(e->ops->name, name, sizeof(e->ops->name)))
			return e;
	return NULL;
}

/**
 * bpf_fuse_ops_get - take a registered fuse_ops by name
 * @name: its name, the &fuse_ops.name it was registered with
 *
 * The program stays loaded until bpf_fuse_ops_put(), even if it is
 * unregistered meanwhile: unregistering only takes its name back.
 *
 * Context: Process context: takes the registry's mutex, may sleep.
 *
 * Return: the program, with a reference on its struct_ops map; NULL if
 * no program of that name is registered.
 */
struct fuse_ops *bpf_fuse_ops_get(const char *name)
{
	struct bpf_fuse_entry *e;
	struct fuse_ops *ops = NULL;

	mutex_lock(&bpf_fuse_lock);
	e = bpf_fuse_find(name);
	if (e && bpf_struct_ops_get(e->ops))
		ops = e->ops;
	mutex_unlock(&bpf_fuse_lock);
	return ops;
}
EXPORT_SYMBOL_GPL(bpf_fuse_ops_get);

/* The registered fuse_ops of struct_ops map id @id, referenced */
static struct fuse_ops *bpf_fuse_ops_get_id(u32 id)
{
	struct bpf_fuse_entry *e;
	struct fuse_ops *ops = NULL;

	mutex_lock(&bpf_fuse_lock);
	list_for_each_entry(e, &bpf_fuse_list, list) {
		if (bpf_struct_ops_id(e->ops) == id) {
			if (bpf_struct_ops_get(e->ops))
				ops = e->ops;
			break;
		}
	}
	mutex_unlock(&bpf_fuse_lock);
	return ops;
}

/**
 * bpf_fuse_ops_get_fd - take a registered fuse_ops by file descriptor
 * @fd: a descriptor, in the current task's file table, of its struct_ops
 *	map or of its struct_ops link
 *
 * Unlike names, descriptors do not collide: the caller names the very
 * program it holds.  The program is found by the id of the map; it must
 * be registered (a detached link names none).  Drop the reference with
 * bpf_fuse_ops_put().
 *
 * Context: Process context: takes the registry's mutex, may sleep.
 *
 * Return: the program, referenced; ERR_PTR(-EBADF) if @fd is not open,
 * ERR_PTR(-EINVAL) if it is not a registered fuse_ops map or its link.
 */
struct fuse_ops *bpf_fuse_ops_get_fd(int fd)
{
	struct bpf_link_info info = {};
	struct fuse_ops *ops;
	struct bpf_link *link;
	struct bpf_map *map;
	u32 id;

	map = bpf_map_get(fd);
	if (!IS_ERR(map)) {
		id = map->id;
		bpf_map_put(map);
	} else {
		link = bpf_link_get_from_fd(fd);
		if (IS_ERR(link))
			return ERR_CAST(link);
		id = 0;
		if (link->type == BPF_LINK_TYPE_STRUCT_OPS &&
		    !link->ops->fill_link_info(link, &info))
			id = info.struct_ops.map_id;
		bpf_link_put(link);
	}
	ops = id ? bpf_fuse_ops_get_id(id) : NULL;
	return ops ?: ERR_PTR(-EINVAL);
}
EXPORT_SYMBOL_GPL(bpf_fuse_ops_get_fd);

/**
 * bpf_fuse_ops_tryget - take another reference to a fuse_ops
 * @ops: a program whose struct_ops map the caller keeps alive (by a
 *	reference of its own), or NULL
 *
 * Another reference to a program held already, as a node takes its
 * parent's filter.  Drop it with bpf_fuse_ops_put().
 *
 * Context: Any context: does not sleep.
 *
 * Return: @ops, with one more reference on its map; NULL if @ops is NULL
 * or its map's last reference is already gone.
 */
struct fuse_ops *bpf_fuse_ops_tryget(struct fuse_ops *ops)
{
	return ops && bpf_struct_ops_get(ops) ? ops : NULL;
}
EXPORT_SYMBOL_GPL(bpf_fuse_ops_tryget);

/**
 * bpf_fuse_ops_put - drop a reference to a fuse_ops
 * @ops: a program taken with bpf_fuse_ops_get(), bpf_fuse_ops_get_fd() or
 *	bpf_fuse_ops_tryget(); NULL does nothing
 *
 * The last reference to its struct_ops map frees the map and its
 * programs, later: after an RCU grace period or from a workqueue.
 *
 * Context: Any context: does not sleep.
 */
void bpf_fuse_ops_put(struct fuse_ops *ops)
{
	if (ops)
		bpf_struct_ops_put(ops);
}
EXPORT_SYMBOL_GPL(bpf_fuse_ops_put);

/*
 * What the kfuncs allocate for a fuse_buffer.  A buffer that grows moves
 * to a larger block, but a dynptr a program took earlier still covers the
 * old one: the old block is kept, linked from the new, until the
 * operation ends (bpf_fuse_free_buffer()), so that no write through such
 * a dynptr reaches freed memory.
 */
struct bpf_fuse_block {
	struct bpf_fuse_block *prev;
	u8 data[] __aligned(8);
};

static struct bpf_fuse_block *bpf_fuse_block_of(void *data)
{
	return container_of(data, struct bpf_fuse_block, data[0]);
}

/**
 * bpf_fuse_free_buffer - free what was allocated for a fuse_buffer
 * @buf: an argument of an operation that is over
 *
 * Frees what bpf_fuse_get_rw_dynptr() or bpf_fuse_set_buffer() allocated,
 * once the operation is over: @buf->data and the blocks it grew out of if
 * the buffer has %BPF_FUSE_ALLOCATED, which is cleared, so that a second
 * call does nothing.  Data the buffer was set up with is never freed.
 * @buf->data is not reset: the buffer must not be read afterwards.
 *
 * Context: Any context.
 */
void bpf_fuse_free_buffer(struct fuse_buffer *buf)
{
	struct bpf_fuse_block *b, *prev;

	if (!(buf->flags & BPF_FUSE_ALLOCATED))
		return;
	for (b = bpf_fuse_block_of(buf->data); b; b = prev) {
		prev = b->prev;
		kfree(b);
	}
	buf->flags &= ~BPF_FUSE_ALLOCATED;
}
EXPORT_SYMBOL_GPL(bpf_fuse_free_buffer);

/*
 * Make @buf writable with @size bytes in use.  A buffer that is not ours
 * (MUST_ALLOCATE) or too small is copied into a new block, never past the
 * protocol's limit (max_size); the block it leaves, if ours, is kept
 * until the operation ends.  Bytes the buffer gains are zeroed, whether
 * or not the contents are kept: memory set up for a larger size (a
 * readdir page, an xattr list) may hold stale bytes there.
 */
static void *bpf_fuse_get_writable(struct fuse_buffer *buf, u64 size,
				   bool copy, gfp_t gfp)
{
	bool own = !(buf->flags & BPF_FUSE_MUST_ALLOCATE) ||
		   (buf->flags & BPF_FUSE_ALLOCATED);
	struct bpf_fuse_block *b;

	if (buf->flags & BPF_FUSE_IMMUTABLE)
		return NULL;
	if (!(buf->flags & BPF_FUSE_VARIABLE_SIZE)) {
		if (size > buf->size)
			return NULL;
		size = buf->size;
	} else if (size > buf->max_size) {
		return NULL;
	}
	if (own && size <= buf->alloc_size) {
		if (size > buf->size)
			memset(buf->data + buf->size, 0, size - buf->size);
		goto done;
	}
	b = kzalloc(struct_size(b, data, size ?: 1), gfp | __GFP_NOWARN);
	if (!b)
		return NULL;
	if (copy)
		memcpy(b->data, buf->data, min_t(u64, size, buf->size));
	if (buf->flags & BPF_FUSE_ALLOCATED)
		b->prev = bpf_fuse_block_of(buf->data);
	buf->data = b->data;
	buf->alloc_size = size ?: 1;
	buf->flags |= BPF_FUSE_ALLOCATED;
done:
	buf->size = size;
	buf->flags |= BPF_FUSE_MODIFIED;
	return buf->data;
}

/**
 * bpf_fuse_set_buffer - give a fuse_buffer new contents, as a filter may
 * @buf: the buffer, not read-only
 * @data: the new contents
 * @size: their size: the buffer's own, if it has a fixed one
 *
 * For the daemon's filters, which answer with the whole argument.  The
 * contents are copied in place if the buffer's memory is the kernel's to
 * change (no %BPF_FUSE_MUST_ALLOCATE, or allocated earlier) and large
 * enough, else into a new allocation that bpf_fuse_free_buffer() frees;
 * the buffer then holds @size bytes and has %BPF_FUSE_MODIFIED.
 *
 * Context: Process context: allocates with GFP_KERNEL, may sleep.
 *
 * Return: 0; -EPERM (with a warning: a caller's bug) if @buf is read-only;
 * -E2BIG if @size is past the limit of a variable-size buffer or is not
 * the size of a fixed-size one; -ENOMEM.
 */
int bpf_fuse_set_buffer(struct fuse_buffer *buf, const void *data, u32 size)
{
	void *p;

	if (WARN_ON_ONCE(buf->flags & BPF_FUSE_IMMUTABLE))
		return -EPERM;
	if (buf->flags & BPF_FUSE_VARIABLE_SIZE ? size > buf->max_size :
						  size != buf->size)
		return -E2BIG;
	p = bpf_fuse_get_writable(buf, size, false, GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	memcpy(p, data, size);
	return 0;
}
EXPORT_SYMBOL_GPL(bpf_fuse_set_buffer);

__bpf_kfunc_start_defs();

/**
 * bpf_fuse_get_rw_dynptr - a writable dynptr over a fuse_buffer
 * @handle: a buffer argument of the filter
 * @dynptr__uninit: the dynptr to set up; null on failure
 * @size: the bytes the buffer will hold, up to its max_size; a buffer
 *	without %BPF_FUSE_VARIABLE_SIZE keeps its size, which @size must not
 *	exceed
 * @copy: keep the current contents (up to @size); if false, the bytes
 *	the buffer had are unspecified (the old bytes or zeroes) and the
 *	program should write them all.  Bytes added are zeroed either way.
 *
 * The buffer is written in place if its memory is the kernel's to change
 * (no %BPF_FUSE_MUST_ALLOCATE, or allocated by an earlier call) and large
 * enough, else moved to a new zeroed allocation (its contents copied if
 * @copy) that is freed when the operation ends, whatever its result.  It
 * then holds @size bytes and has %BPF_FUSE_MODIFIED; the dynptr covers
 * them.  A dynptr taken over the buffer before it moved still covers the
 * old allocation, which is kept until the operation ends too: writes
 * through it are lost, never made to freed memory.
 *
 * Fails (null dynptr) on a read-only buffer (a postfilter's inputs),
 * past the buffer's protocol limit, and when the allocation fails; the
 * buffer is then unchanged.
 *
 * Context: fuse_ops programs only, which are not sleepable: allocates with
 * GFP_ATOMIC.
 */
__bpf_kfunc void bpf_fuse_get_rw_dynptr(struct fuse_buffer_handle *handle,
					struct bpf_dynptr *dynptr__uninit,
					u64 size, bool copy)
{
	struct bpf_dynptr_kern *ptr = (struct bpf_dynptr_kern *)dynptr__uninit;
	struct fuse_buffer *buffer = container_of(handle, struct fuse_buffer,
						  handle);
	void *data = bpf_fuse_get_writable(buffer, size, copy, GFP_ATOMIC);

	if (!data) {
		bpf_dynptr_set_null(ptr);
		return;
	}
	bpf_dynptr_init(ptr, data, BPF_DYNPTR_TYPE_LOCAL, 0, buffer->size);
}

/**
 * bpf_fuse_get_ro_dynptr - a read-only dynptr over a fuse_buffer
 * @handle: a buffer argument of the filter
 * @dynptr__uninit: the dynptr to set up
 *
 * Never fails: the dynptr covers the bytes in use.  Writes through it
 * (bpf_dynptr_write(), bpf_dynptr_slice_rdwr()) fail.
 *
 * Context: fuse_ops programs only; does not sleep or allocate.
 */
__bpf_kfunc void bpf_fuse_get_ro_dynptr(const struct fuse_buffer_handle *handle,
					struct bpf_dynptr *dynptr__uninit)
{
	struct bpf_dynptr_kern *ptr = (struct bpf_dynptr_kern *)dynptr__uninit;
	const struct fuse_buffer *buffer =
		container_of(handle, struct fuse_buffer, handle);

	bpf_dynptr_init(ptr, buffer->data, BPF_DYNPTR_TYPE_LOCAL, 0,
			buffer->size);
	bpf_dynptr_set_rdonly(ptr);
}

/**
 * bpf_fuse_return_len - the length of a fuse_buffer
 * @handle: a buffer argument of the filter
 *
 * The bytes in use in the buffer.
 *
 * Context: fuse_ops programs only.
 *
 * Return: the bytes in use, which a successful bpf_fuse_get_rw_dynptr()
 * sets.
 */
__bpf_kfunc u32 bpf_fuse_return_len(struct fuse_buffer_handle *handle)
{
	return container_of(handle, struct fuse_buffer, handle)->size;
}

__bpf_kfunc_end_defs();

/* Only the buffers the kernel passed a filter: no pointer cast or walked to */
BTF_KFUNCS_START(bpf_fuse_kfunc_ids)
BTF_ID_FLAGS(func, bpf_fuse_get_rw_dynptr, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_fuse_get_ro_dynptr, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_fuse_return_len, KF_TRUSTED_ARGS)
BTF_KFUNCS_END(bpf_fuse_kfunc_ids)

static const struct btf_type *fuse_buffer_type, *fuse_meta_type;
static u32 fuse_ops_type_id, fuse_buffer_id, fuse_buffer_handle_id;

/*
 * The structures a program may write: those its member takes a pointer
 * to, not const (a postfilter's inputs are), but the buffers and the meta
 * information.  Found in BTF at init: bpf_fuse_writable[] holds the type
 * ids, bpf_fuse_member_writable[] for each member of struct fuse_ops a
 * bit for each of them it may write.  A new member's types come with it.
 */
#define BPF_FUSE_MAX_WRITABLE	64
#define BPF_FUSE_MAX_MEMBERS	128
static u32 bpf_fuse_writable[BPF_FUSE_MAX_WRITABLE];
static unsigned int bpf_fuse_nr_writable;
static u64 bpf_fuse_member_writable[BPF_FUSE_MAX_MEMBERS];

/* The kfuncs are for fuse_ops programs only. */
static int bpf_fuse_kfunc_filter(const struct bpf_prog *prog, u32 kfunc_id)
{
	if (!btf_id_set8_contains(&bpf_fuse_kfunc_ids, kfunc_id))
		return 0;
	if (prog->type == BPF_PROG_TYPE_STRUCT_OPS && fuse_ops_type_id &&
	    btf_is_kernel(prog->aux->attach_btf) &&
	    !btf_is_module(prog->aux->attach_btf) &&
	    prog->aux->attach_btf_id == fuse_ops_type_id)
		return 0;
	return -EACCES;
}

static const struct btf_kfunc_id_set bpf_fuse_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &bpf_fuse_kfunc_ids,
	.filter = bpf_fuse_kfunc_filter,
};

/*
 * The index in bpf_fuse_writable[] of the struct a member's parameter
 * points to, if it is not const and not a buffer or the meta information;
 * -ENOENT otherwise.
 */
static int bpf_fuse_writable_index(const struct btf *btf,
				   const struct btf_param *param)
{
	const struct btf_type *t = btf_type_by_id(btf, param->type);
	unsigned int i;
	u32 id;

	if (!t || !btf_type_is_ptr(t))
		return -ENOENT;
	id = t->type;
	for (t = btf_type_by_id(btf, id); t && btf_kind(t) != BTF_KIND_STRUCT;
	     t = btf_type_by_id(btf, id)) {
		if (btf_kind(t) != BTF_KIND_VOLATILE &&
		    btf_kind(t) != BTF_KIND_TYPEDEF)
			return -ENOENT;	/* const, or not a struct */
		id = t->type;
	}
	if (!t || t == fuse_buffer_type || t == fuse_meta_type)
		return -ENOENT;
	for (i = 0; i < bpf_fuse_nr_writable; i++)
		if (bpf_fuse_writable[i] == id)
			return i;
	if (bpf_fuse_nr_writable == BPF_FUSE_MAX_WRITABLE)
		return -E2BIG;
	bpf_fuse_writable[bpf_fuse_nr_writable] = id;
	return bpf_fuse_nr_writable++;
}

static int bpf_fuse_find_writable(const struct btf *btf,
				  const struct btf_type *ops)
{
	const struct btf_member *m;
	const struct btf_param *p;
	const struct btf_type *t;
	int i, j, idx;

	if (btf_type_vlen(ops) > BPF_FUSE_MAX_MEMBERS)
		return -E2BIG;
	for_each_member(i, ops, m) {
		t = btf_type_resolve_func_ptr(btf, m->type, NULL);
		if (!t)
			continue;
		p = btf_params(t);
		for (j = 0; j < btf_type_vlen(t); j++) {
			idx = bpf_fuse_writable_index(btf, &p[j]);
			if (idx == -E2BIG)
				return idx;
			if (idx >= 0)
				bpf_fuse_member_writable[i] |= BIT_ULL(idx);
		}
	}
	return 0;
}

static int bpf_fuse_init(struct btf *btf)
{
	s32 id;

	id = btf_find_by_name_kind(btf, "fuse_ops", BTF_KIND_STRUCT);
	if (id < 0)
		return -EINVAL;
	fuse_ops_type_id = id;

	id = btf_find_by_name_kind(btf, "fuse_buffer", BTF_KIND_STRUCT);
	if (id < 0)
		return -EINVAL;
	fuse_buffer_type = btf_type_by_id(btf, id);
	fuse_buffer_id = id;
	id = btf_find_by_name_kind(btf, "fuse_buffer_handle", BTF_KIND_STRUCT);
	if (id < 0)
		return -EINVAL;
	fuse_buffer_handle_id = id;
	id = btf_find_by_name_kind(btf, "bpf_fuse_meta_info", BTF_KIND_STRUCT);
	if (id < 0)
		return -EINVAL;
	fuse_meta_type = btf_type_by_id(btf, id);
	return bpf_fuse_find_writable(btf, btf_type_by_id(btf, fuse_ops_type_id));
}

/*
 * A fuse_buffer argument is, to the program, a fuse_buffer_handle: empty,
 * so that its fields can be neither read nor written, only the pointer
 * passed to the kfuncs.
 */
static bool bpf_fuse_is_valid_access(int off, int size,
				     enum bpf_access_type type,
				     const struct bpf_prog *prog,
				     struct bpf_insn_access_aux *info)
{
	if (!bpf_tracing_btf_ctx_access(off, size, type, prog, info))
		return false;
	if (base_type(info->reg_type) == PTR_TO_BTF_ID &&
	    btf_is_kernel(info->btf) && !btf_is_module(info->btf) &&
	    info->btf_id == fuse_buffer_id)
		info->btf_id = fuse_buffer_handle_id;
	return true;
}

/* May the program of member @member write a struct of type @id? */
static bool bpf_fuse_is_writable(u32 member, u32 id)
{
	unsigned int i;

	if (member >= BPF_FUSE_MAX_MEMBERS)
		return false;
	for (i = 0; i < bpf_fuse_nr_writable; i++)
		if (bpf_fuse_writable[i] == id)
			return bpf_fuse_member_writable[member] & BIT_ULL(i);
	return false;
}

/*
 * Writes: the FUSE protocol structures the program's member takes, not
 * const, are the program's to rewrite (bpf_fuse_member_writable); a
 * fuse_buffer only through a dynptr; a postfilter's inputs, the meta
 * information and anything else not at all.  The member is the
 * program's expected_attach_type, as the verifier's struct_ops check
 * has it.  (6.12 asks about writes only: reads of kernel structures are
 * the verifier's own business, and give a program nothing it could write
 * through.)
 */
static int bpf_fuse_btf_struct_access(struct bpf_verifier_log *log,
				      const struct bpf_reg_state *reg,
				      int off, int size)
{
	const struct bpf_verifier_env *env =
		container_of(log, struct bpf_verifier_env, log);
	const struct btf_type *t = btf_type_by_id(reg->btf, reg->btf_id);
	const char *name = btf_name_by_offset(reg->btf, t->name_off);

	if (reg->btf_id == fuse_buffer_handle_id && !btf_is_module(reg->btf)) {
		bpf_log(log, "direct access to fuse_buffer is not allowed\n");
		return -EACCES;
	}
	if (btf_is_module(reg->btf) ||
	    !bpf_fuse_is_writable(env->prog->expected_attach_type,
				  reg->btf_id)) {
		bpf_log(log, "write to %s is not allowed\n", name);
		return -EACCES;
	}
	if (off < 0 || off + size > t->size) {
		bpf_log(log, "write past the end of %s (off %d size %d)\n",
			name, off, size);
		return -EACCES;
	}
	return 0;
}

static const struct bpf_verifier_ops bpf_fuse_verifier_ops = {
	.get_func_proto		= bpf_base_func_proto,
	.is_valid_access	= bpf_fuse_is_valid_access,
	.btf_struct_access	= bpf_fuse_btf_struct_access,
};

/* Filters run in atomic context (some under RCU walk): no sleepable ones. */
static int bpf_fuse_check_member(const struct btf_type *t,
				 const struct btf_member *member,
				 const struct bpf_prog *prog)
{
	return prog->sleepable ? -EINVAL : 0;
}

static int bpf_fuse_init_member(const struct btf_type *t,
				const struct btf_member *member,
				void *kdata, const void *udata)
{
	const struct fuse_ops *uops = udata;
	struct fuse_ops *ops = kdata;

	if (__btf_member_bit_offset(t, member) / 8 !=
	    offsetof(struct fuse_ops, name))
		return 0;
	if (bpf_obj_name_cpy(ops->name, uops->name, sizeof(ops->name)) <= 0)
		return -EINVAL;
	return 1;
}

/*
 * Registering offers a filter to every mount that names it: it takes
 * CAP_SYS_ADMIN, as making such a mount does, so that a less privileged
 * loader (CAP_BPF, a BPF token) cannot plant a filter under a name a
 * privileged mounter will pick.
 */
static int bpf_fuse_reg(void *kdata, struct bpf_link *link)
{
	struct fuse_ops *ops = kdata;
	struct bpf_fuse_entry *e;
	int err = 0;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	e = kmalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->ops = ops;
	mutex_lock(&bpf_fuse_lock);
	if (bpf_fuse_find(ops->name))
		err = -EEXIST;
	else
		list_add_tail(&e->list, &bpf_fuse_list);
	mutex_unlock(&bpf_fuse_lock);
	if (err)
		kfree(e);
	return err;
}

static void bpf_fuse_unreg(void *kdata, struct bpf_link *link)
{
	struct fuse_ops *ops = kdata;
	struct bpf_fuse_entry *e;

	mutex_lock(&bpf_fuse_lock);
	e = bpf_fuse_find(ops->name);
	if (e && e->ops == ops) {
		list_del(&e->list);
		kfree(e);
	}
	mutex_unlock(&bpf_fuse_lock);
}

/*
 * The cfi_stubs.  Release filters get none: they are not called (a
 * release cannot fail), and a member without a stub cannot be loaded.
 */
#define FUSE_OPS_MEMBER(NAME, ...)	\
static u32 stub_##NAME(__VA_ARGS__)	\
{					\
	return 0;			\
}

#define FUSE_OPS_UNSUPPORTED(...)

#include <linux/fuse_ops_defs.h>
#undef FUSE_OPS_MEMBER

static struct fuse_ops bpf_fuse_ops_stubs = {
#define FUSE_OPS_MEMBER(NAME, ...) .NAME = stub_##NAME,
#include <linux/fuse_ops_defs.h>
#undef FUSE_OPS_UNSUPPORTED
#undef FUSE_OPS_MEMBER
};

static struct bpf_struct_ops bpf_fuse_struct_ops = {
	.verifier_ops	= &bpf_fuse_verifier_ops,
	.init		= bpf_fuse_init,
	.check_member	= bpf_fuse_check_member,
	.init_member	= bpf_fuse_init_member,
	.reg		= bpf_fuse_reg,
	.unreg		= bpf_fuse_unreg,
	.name		= "fuse_ops",
	.cfi_stubs	= &bpf_fuse_ops_stubs,
	.owner		= THIS_MODULE,
};

static int __init bpf_fuse_ops_init(void)
{
	int err;

	err = register_btf_kfunc_id_set(BPF_PROG_TYPE_STRUCT_OPS,
					&bpf_fuse_kfunc_set);
	if (err)
		return err;
	return register_bpf_struct_ops(&bpf_fuse_struct_ops, fuse_ops);
}
late_initcall(bpf_fuse_ops_init);
