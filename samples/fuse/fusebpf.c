// SPDX-License-Identifier: GPL-2.0
/*
 * fusebpf: FUSE-BPF mounts filtered by a fuse_ops program, without the fd
 * plumbing.  "fusebpf mount" loads a BPF object, registers its fuse_ops
 * struct_ops map, pins the registration's link and the object's other maps
 * under /sys/fs/bpf/fusebpf/NAME (NAME: the fuse_ops .name) so that they
 * outlive the command, and mounts a no-daemon view of a lower directory
 * with root_bpf=NAME.  The other commands unmount, unregister, list the
 * registered fuse_ops and print the counters of fuse_count.bpf.o.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/fuse.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/compiler.h>	/* tools/include: __printf */
#include <linux/kernel.h>	/* ARRAY_SIZE */

#define BPFFS_DIR	"/sys/fs/bpf"
#define PIN_ROOT	BPFFS_DIR "/fusebpf"
#define LINK_PIN	"link"
#define OPS_TYPE	"fuse_ops"
#define OPS_VALUE_TYPE	"bpf_struct_ops_fuse_ops"
#define OPS_NAME_MAX	16	/* BPF_FUSE_NAME_MAX + 1, <linux/fuse.h> */
#define MOUNT_DATA_MAX	4096	/* the kernel takes a page of options */

static const char usage_text[] =
"Usage: fusebpf mount [-o OPTS] [-p MAP] OBJ LOWER MNT\n"
"       fusebpf umount [-n NAME] MNT\n"
"       fusebpf unregister NAME\n"
"       fusebpf list [-a]\n"
"       fusebpf counters NAME\n"
"\n"
"  mount       load the BPF object OBJ, register its fuse_ops struct_ops\n"
"              map (-p MAP: the one named MAP, if OBJ has several), pin it\n"
"              at " PIN_ROOT "/NAME (NAME: the .name of the\n"
"              fuse_ops) and mount the directory LOWER at MNT, filtered\n"
"              by it (no daemon, root_bpf=NAME).  -o OPTS: more FUSE\n"
"              mount options, e.g. allow_other,ro\n"
"  umount      unmount MNT; with -n NAME, unregister NAME then\n"
"  unregister  unregister NAME and remove its pins: the name is free\n"
"              again, mounts using the program keep it\n"
"  list        the registered fuse_ops: map id and name, NAME, link id,\n"
"              pinned by fusebpf; -a: also those no longer registered but\n"
"              still in use by mounts\n"
"  counters    the calls by FUSE opcode counted by a program like\n"
"              fuse_count.bpf.o (its maps pre_count and post_count)\n"
"\n"
"Needs root (CAP_SYS_ADMIN; the pins are root's only).\n";

static int usage(void)
{
	fputs(usage_text, stderr);
	return 2;
}

/* Print "fusebpf: MSG: strerror(err)"; returns -1. */
static __printf(2, 3) int fail(int err, const char *fmt, ...)
{
	va_list ap;

	fputs("fusebpf: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
	return -1;
}

/* A fuse_ops name as the kernel takes it: [A-Za-z0-9_.], 1 to 15 chars */
static bool valid_name(const char *name)
{
	size_t i, len = strnlen(name, OPS_NAME_MAX);

	if (!len || len >= OPS_NAME_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_' &&
		    name[i] != '.')
			return false;
	return true;
}

static int check_name(const char *name)
{
	if (valid_name(name))
		return 0;
	fprintf(stderr, "fusebpf: \"%s\" is not a fuse_ops name\n", name);
	return -1;
}

/*
 * PIN_ROOT/NAME, or PIN_ROOT/NAME/FILE.  bpffs refuses '.' in names: '_'
 * stands for it, as in the pins of libbpf.
 */
static void pin_path(char *buf, const char *name, const char *file)
{
	char *s;

	snprintf(buf, PATH_MAX, "%s/%s%s%s", PIN_ROOT, name,
		 file ? "/" : "", file ? file : "");
	for (s = buf + strlen(PIN_ROOT); *s; s++)
		if (*s == '.')
			*s = '_';
}

/* Remove PIN_ROOT/NAME and the pins in it; returns 0 or -errno. */
static int rm_pins(const char *name)
{
	char dir[PATH_MAX], path[PATH_MAX * 2];
	struct dirent *de;
	int err = 0;
	DIR *d;

	pin_path(dir, name, NULL);
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path) && !err)
			err = -errno;
	}
	closedir(d);
	if (rmdir(dir) && !err)
		err = -errno;
	return err;
}

/*
 * Unregister NAME now: detaching the pinned link unregisters at once,
 * where the link's last reference, dropped with its pin, would do it from
 * a work item a little later.
 */
static int unregister(const char *name)
{
	char path[PATH_MAX];
	int fd, err;

	if (check_name(name))
		return -1;
	pin_path(path, name, LINK_PIN);
	fd = bpf_obj_get(path);
	if (fd >= 0) {
		bpf_link_detach(fd);
		close(fd);
	}
	err = rm_pins(name);
	if (err == -ENOENT)
		return fail(ENOENT, "%s: not registered by fusebpf", name);
	if (err)
		return fail(-err, "unpin %s", name);
	return 0;
}

/* Byte offset of member @name of struct @id, its type in @member_id */
static int member_offset(const struct btf *btf, __u32 id, const char *name,
			 __u32 *member_id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;
	int i;

	if (!t || !btf_is_struct(t))
		return -1;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		if (strcmp(btf__name_by_offset(btf, m->name_off), name))
			continue;
		if (member_id)
			*member_id = m->type;
		return btf_member_bit_offset(t, i) / 8;
	}
	return -1;
}

/* What "fusebpf mount" made, to undo it on failure */
struct reg {
	struct bpf_object *obj;
	struct bpf_map *map;	/* the fuse_ops struct_ops map */
	struct bpf_link *link;	/* its registration */
	char name[OPS_NAME_MAX];
	bool pin_dir;		/* PIN_ROOT/name was made */
};

static bool is_fuse_ops(const struct btf *btf, const struct bpf_map *map)
{
	const struct btf_type *t;

	if (!btf || bpf_map__type(map) != BPF_MAP_TYPE_STRUCT_OPS)
		return false;
	t = btf__type_by_id(btf, bpf_map__btf_value_type_id(map));
	return t && !strcmp(btf__name_by_offset(btf, t->name_off), OPS_TYPE);
}

/*
 * The fuse_ops map of the object: the only one, or the one named @want.
 * The others are not created, nor their programs loaded.
 */
static int pick_map(struct reg *r, const char *path, const char *want)
{
	const struct btf *btf = bpf_object__btf(r->obj);
	struct bpf_map *map;

	bpf_object__for_each_map(map, r->obj) {
		if (!is_fuse_ops(btf, map))
			continue;
		if (want && strcmp(bpf_map__name(map), want)) {
			bpf_map__set_autocreate(map, false);
			continue;
		}
		if (r->map) {
			fprintf(stderr, "fusebpf: %s: maps %s and %s: pick one with -p\n",
				path, bpf_map__name(r->map),
				bpf_map__name(map));
			return -1;
		}
		r->map = map;
	}
	if (!r->map)
		return fail(ENOENT, "%s: no fuse_ops struct_ops map%s%s", path,
			    want ? " named " : "", want ? want : "");
	bpf_map__set_autocreate(r->map, true);
	return 0;
}

/* The .name of the fuse_ops, from the map's initial value */
static int read_name(struct reg *r, const char *path)
{
	const struct btf *btf = bpf_object__btf(r->obj);
	const char *data = bpf_map__initial_value(r->map, NULL);
	int off;

	off = member_offset(btf, bpf_map__btf_value_type_id(r->map), "name",
			    NULL);
	if (!data || off < 0)
		return fail(EINVAL, "%s: map %s: no fuse_ops name member", path,
			    bpf_map__name(r->map));
	if (!valid_name(data + off)) {
		fprintf(stderr, "fusebpf: %s: map %s: bad .name \"%.*s\"\n",
			path, bpf_map__name(r->map), OPS_NAME_MAX, data + off);
		return -1;
	}
	snprintf(r->name, sizeof(r->name), "%s", data + off);
	return 0;
}

/*
 * Open the object, pick its fuse_ops map and read its name.  The map gets
 * a link (as in SEC(".struct_ops.link")) even if the object did not ask
 * for one: the pinned link is the registration that unregister removes.
 */
static int reg_open(struct reg *r, const char *path, const char *want)
{
	r->obj = bpf_object__open_file(path, NULL);
	if (!r->obj)
		return fail(errno, "open %s", path);
	if (pick_map(r, path, want) || read_name(r, path))
		return -1;
	if (bpf_map__set_map_flags(r->map,
				   bpf_map__map_flags(r->map) | BPF_F_LINK))
		return fail(EINVAL, "%s: map %s: set BPF_F_LINK", path,
			    bpf_map__name(r->map));
	return 0;
}

static int mount_bpffs(void)
{
	struct statfs st;

	if (!statfs(BPFFS_DIR, &st) && (__u32)st.f_type == BPF_FS_MAGIC)
		return 0;
	if (mount("bpf", BPFFS_DIR, "bpf", 0, "mode=0700"))
		return fail(errno, "mount bpffs at %s", BPFFS_DIR);
	return 0;
}

/* PIN_ROOT/name, which must not exist yet */
static int make_pin_dir(struct reg *r)
{
	char dir[PATH_MAX];

	if (mount_bpffs())
		return -1;
	if (mkdir(PIN_ROOT, 0700) && errno != EEXIST)
		return fail(errno, "mkdir %s", PIN_ROOT);
	pin_path(dir, r->name, NULL);
	if (mkdir(dir, 0700)) {
		if (errno == EEXIST)
			fprintf(stderr, "fusebpf: %s is registered already (see list)\n",
				r->name);
		return fail(errno, "mkdir %s", dir);
	}
	r->pin_dir = true;
	return 0;
}

/*
 * The link at PIN_ROOT/name/link, every other map of the object beside it
 * (but those not created and those the object pins itself, with
 * __uint(pinning, ...)).
 */
static int pin_all(struct reg *r)
{
	char path[PATH_MAX];
	struct bpf_map *map;
	int err;

	pin_path(path, r->name, LINK_PIN);
	err = bpf_link__pin(r->link, path);
	if (err)
		return fail(-err, "pin %s", path);
	bpf_object__for_each_map(map, r->obj) {
		if (map == r->map || !bpf_map__autocreate(map) ||
		    bpf_map__is_pinned(map))
			continue;
		pin_path(path, r->name, bpf_map__name(map));
		err = bpf_map__pin(map, path);
		if (err)
			return fail(-err, "pin %s", path);
	}
	return 0;
}

/* Load the object, register its fuse_ops, pin it */
static int reg_make(struct reg *r, const char *path)
{
	int err;

	if (make_pin_dir(r))
		return -1;
	err = bpf_object__load(r->obj);
	if (err)
		return fail(-err, "load %s", path);
	r->link = bpf_map__attach_struct_ops(r->map);
	if (!r->link) {
		err = errno;
		if (err == EEXIST)
			fprintf(stderr, "fusebpf: another fuse_ops has the name %s\n",
				r->name);
		return fail(err, "register fuse_ops %s", r->name);
	}
	return pin_all(r);
}

/* Undo reg_open() and reg_make(): unregister at once, unpin, unload */
static void reg_undo(struct reg *r)
{
	if (r->link)
		bpf_link__detach(r->link);
	if (r->pin_dir)
		rm_pins(r->name);
	bpf_link__destroy(r->link);
	bpf_object__close(r->obj);
}

/* Let the pins keep the registration: close our fds only */
static void reg_keep(struct reg *r)
{
	bpf_link__disconnect(r->link);
	bpf_link__destroy(r->link);
	bpf_object__close(r->obj);
}

/*
 * The options of passthrough.h's pt_mount() with root_bpf=, but for
 * allow_other: other users get in only if -o allow_other asks for it.
 */
static int mount_view(const char *name, int lower_fd, const char *mnt,
		      const char *opts)
{
	char data[MOUNT_DATA_MAX];
	int n;

	n = snprintf(data, sizeof(data), "root_dir=%d,no_daemon,root_bpf=%s%s%s",
		     lower_fd, name, opts ? "," : "", opts ? opts : "");
	if (n >= (int)sizeof(data))
		return fail(E2BIG, "mount options");
	if (mount("fusebpf", mnt, "fuse", 0, data))
		return fail(errno, "mount %s (options %s; the kernel log may say more)",
			    mnt, data);
	return 0;
}

static int cmd_mount(int argc, char **argv)
{
	const char *opts = NULL, *want = NULL, *obj, *lower, *mnt;
	struct reg r = {};
	int c, fd, err;

	while ((c = getopt(argc, argv, "o:p:")) != -1) {
		if (c == 'o')
			opts = optarg;
		else if (c == 'p')
			want = optarg;
		else
			return usage();
	}
	if (argc - optind != 3)
		return usage();
	obj = argv[optind];
	lower = argv[optind + 1];
	mnt = argv[optind + 2];
	fd = open(lower, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return fail(errno, "open %s", lower), 1;
	err = reg_open(&r, obj, want);
	if (!err)
		err = reg_make(&r, obj);
	if (!err)
		err = mount_view(r.name, fd, mnt, opts);
	close(fd);
	if (err) {
		reg_undo(&r);
		return 1;
	}
	reg_keep(&r);
	return 0;
}

static int cmd_umount(int argc, char **argv)
{
	const char *name = NULL;
	int c;

	while ((c = getopt(argc, argv, "n:")) != -1) {
		if (c != 'n')
			return usage();
		name = optarg;
	}
	if (argc - optind != 1)
		return usage();
	if (name && check_name(name))
		return 1;
	if (umount2(argv[optind], 0))
		return fail(errno, "umount %s", argv[optind]), 1;
	return name && unregister(name) ? 1 : 0;
}

static int cmd_unregister(int argc, char **argv)
{
	if (argc != 2)
		return usage();
	return unregister(argv[1]) ? 1 : 0;
}

/* Where the kernel keeps the fuse_ops in a struct_ops map's value */
struct kern_ops {
	struct btf *btf;	/* the kernel's */
	__u32 value_id;		/* struct bpf_struct_ops_fuse_ops */
	__u32 value_size;
	int name_off;		/* of data.name in it */
	int state_off;		/* of common.state */
	int inuse;		/* BPF_STRUCT_OPS_STATE_INUSE */
};

/* The value of enumerator @name of enum @type, or -1 */
static int enum_value(const struct btf *btf, const char *type,
		      const char *name)
{
	int i, id = btf__find_by_name_kind(btf, type, BTF_KIND_ENUM);
	const struct btf_type *t;
	const struct btf_enum *e;

	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, id);
	e = btf_enum(t);
	for (i = 0; i < btf_vlen(t); i++, e++)
		if (!strcmp(btf__name_by_offset(btf, e->name_off), name))
			return e->val;
	return -1;
}

static int kern_ops_init(struct kern_ops *k)
{
	__u32 data_id = 0, common_id = 0;
	int id, data, common;

	k->btf = btf__load_vmlinux_btf();
	if (!k->btf)
		return fail(errno, "load the kernel's BTF");
	id = btf__find_by_name_kind(k->btf, OPS_VALUE_TYPE, BTF_KIND_STRUCT);
	if (id < 0)
		return fail(ENOENT, "kernel BTF: no struct %s (no FUSE-BPF?)",
			    OPS_VALUE_TYPE);
	k->value_id = id;
	k->value_size = btf__resolve_size(k->btf, id);
	data = member_offset(k->btf, id, "data", &data_id);
	common = member_offset(k->btf, id, "common", &common_id);
	k->name_off = member_offset(k->btf, data_id, "name", NULL);
	k->state_off = member_offset(k->btf, common_id, "state", NULL);
	k->inuse = enum_value(k->btf, "bpf_struct_ops_state",
			      "BPF_STRUCT_OPS_STATE_INUSE");
	if (data < 0 || common < 0 || k->name_off < 0 || k->state_off < 0)
		return fail(EINVAL, "kernel BTF: unexpected struct %s",
			    OPS_VALUE_TYPE);
	k->name_off += data;
	k->state_off += common;
	return 0;
}

/* The id of the live struct_ops link of map @map_id, or 0 */
static __u32 ops_link(__u32 map_id)
{
	struct bpf_link_info info;
	__u32 id = 0, len;
	bool found;
	int fd;

	while (!bpf_link_get_next_id(id, &id)) {
		fd = bpf_link_get_fd_by_id(id);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		found = !bpf_link_get_info_by_fd(fd, &info, &len) &&
			info.type == BPF_LINK_TYPE_STRUCT_OPS &&
			info.struct_ops.map_id == map_id;
		close(fd);
		if (found)
			return id;
	}
	return 0;
}

/* The map id of the struct_ops link pinned for @name, or 0 */
static __u32 pinned_map(const char *name)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	char path[PATH_MAX];
	int fd, err;

	if (!valid_name(name))
		return 0;
	pin_path(path, name, LINK_PIN);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return 0;
	err = bpf_link_get_info_by_fd(fd, &info, &len);
	close(fd);
	if (err || info.type != BPF_LINK_TYPE_STRUCT_OPS)
		return 0;
	return info.struct_ops.map_id;
}

/* The LINK column: its id, "-" if registered without a link, else "none" */
static void link_column(char *buf, size_t len, __u32 link, bool inuse)
{
	if (link)
		snprintf(buf, len, "%u", link);
	else
		snprintf(buf, len, "%s", inuse ? "-" : "none");
}

/* Print map @id if it is a fuse_ops that is registered (or @all) */
static void list_map(const struct kern_ops *k, __u32 id, bool all, char *val)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), zero = 0, link;
	char name[OPS_NAME_MAX + 1] = "", col[16];
	bool inuse;
	int fd, state;

	fd = bpf_map_get_fd_by_id(id);
	if (fd < 0)
		return;
	if (bpf_map_get_info_by_fd(fd, &info, &len) ||
	    info.type != BPF_MAP_TYPE_STRUCT_OPS ||
	    info.btf_vmlinux_value_type_id != k->value_id ||
	    info.value_size != k->value_size ||
	    bpf_map_lookup_elem(fd, &zero, val))
		goto out;
	memcpy(name, val + k->name_off, OPS_NAME_MAX);
	memcpy(&state, val + k->state_off, sizeof(state));
	inuse = state == k->inuse;
	link = ops_link(id);
	if (!link && !inuse && !all)
		goto out;
	link_column(col, sizeof(col), link, inuse);
	printf("%-6u %-16s %-16s %-6s %s\n", id, info.name, name, col,
	       pinned_map(name) == id ? "yes" : "no");
out:
	close(fd);
}

static int cmd_list(int argc, char **argv)
{
	struct kern_ops k = {};
	bool all = false;
	__u32 id = 0;
	char *val;
	int c;

	while ((c = getopt(argc, argv, "a")) != -1) {
		if (c != 'a')
			return usage();
		all = true;
	}
	if (argc != optind)
		return usage();
	if (kern_ops_init(&k)) {
		btf__free(k.btf);
		return 1;
	}
	val = calloc(1, k.value_size);
	if (!val) {
		btf__free(k.btf);
		return fail(ENOMEM, "list"), 1;
	}
	printf("%-6s %-16s %-16s %-6s %s\n", "ID", "MAP", "NAME", "LINK",
	       "PINNED");
	while (!bpf_map_get_next_id(id, &id))
		list_map(&k, id, all, val);
	if (errno != ENOENT)
		fail(errno, "list the maps");
	free(val);
	btf__free(k.btf);
	return errno == ENOENT ? 0 : 1;
}

/* enum fuse_opcode of include/uapi/linux/fuse.h */
#define OP(x)	{ FUSE_##x, #x }
static const struct {
	__u32 op;
	const char *name;
} opcode_names[] = {
	OP(LOOKUP), OP(FORGET), OP(GETATTR), OP(SETATTR), OP(READLINK),
	OP(SYMLINK), OP(MKNOD), OP(MKDIR), OP(UNLINK), OP(RMDIR), OP(RENAME),
	OP(LINK), OP(OPEN), OP(READ), OP(WRITE), OP(STATFS), OP(RELEASE),
	OP(FSYNC), OP(SETXATTR), OP(GETXATTR), OP(LISTXATTR),
	OP(REMOVEXATTR), OP(FLUSH), OP(INIT), OP(OPENDIR), OP(READDIR),
	OP(RELEASEDIR), OP(FSYNCDIR), OP(GETLK), OP(SETLK), OP(SETLKW),
	OP(ACCESS), OP(CREATE), OP(INTERRUPT), OP(BMAP), OP(DESTROY),
	OP(IOCTL), OP(POLL), OP(NOTIFY_REPLY), OP(BATCH_FORGET),
	OP(FALLOCATE), OP(READDIRPLUS), OP(RENAME2), OP(LSEEK),
	OP(COPY_FILE_RANGE), OP(SETUPMAPPING), OP(REMOVEMAPPING), OP(SYNCFS),
	OP(TMPFILE), OP(STATX),
};

#undef OP

static const char *opcode_name(__u32 op)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(opcode_names); i++)
		if (opcode_names[i].op == op)
			return opcode_names[i].name;
	return "?";
}

/* One column of the counters: an array map of u64 by FUSE opcode */
struct counter {
	const char *maps[2];	/* its name in fuse_count.bpf.c, or this */
	__u64 *v;
	__u32 n;		/* entries; 0: no map */
};

/* Read counter @c of the pins of @name, summed over CPUs if per-CPU */
static int read_counter(const char *name, struct counter *c)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), i;
	char path[PATH_MAX];
	int fd = -1, ncpus = 1, j, k;
	__u64 *vals;

	for (k = 0; k < 2 && fd < 0; k++) {
		pin_path(path, name, c->maps[k]);
		fd = bpf_obj_get(path);
	}
	if (fd < 0)
		return -1;
	if (bpf_map_get_info_by_fd(fd, &info, &len) || info.value_size != 8) {
		close(fd);
		return -1;
	}
	if (info.type == BPF_MAP_TYPE_PERCPU_ARRAY)
		ncpus = libbpf_num_possible_cpus();
	c->v = calloc(info.max_entries, sizeof(*c->v));
	vals = calloc(ncpus > 0 ? ncpus : 1, sizeof(*vals));
	for (i = 0; c->v && vals && i < info.max_entries; i++) {
		if (bpf_map_lookup_elem(fd, &i, vals))
			break;
		for (j = 0; j < ncpus; j++)
			c->v[i] += vals[j];
		c->n = i + 1;
	}
	free(vals);
	close(fd);
	return c->n ? 0 : -1;
}

static void print_count(const struct counter *c, __u32 op)
{
	if (op < c->n)
		printf(" %12llu", (unsigned long long)c->v[op]);
	else
		printf(" %12s", "-");
}

static bool counted(const struct counter *c, __u32 op)
{
	return op < c->n && c->v[op];
}

static int cmd_counters(int argc, char **argv)
{
	struct counter cs[2] = {
		{ .maps = { "pre_count", "prefilter_calls" } },
		{ .maps = { "post_count", "postfilter_calls" } },
	};
	__u32 op, n = 0;
	int i, found = 0;

	if (argc != 2)
		return usage();
	if (check_name(argv[1]))
		return 1;
	for (i = 0; i < 2; i++) {
		if (!read_counter(argv[1], &cs[i]))
			found++;
		else
			fprintf(stderr, "fusebpf: %s: no map %s (nor %s) pinned at %s/%s\n",
				argv[1], cs[i].maps[0], cs[i].maps[1],
				PIN_ROOT, argv[1]);
		n = cs[i].n > n ? cs[i].n : n;
	}
	if (found)
		printf("%-6s %-16s %12s %12s\n", "opcode", "name", "pre", "post");
	for (op = 0; found && op < n; op++) {
		if (!counted(&cs[0], op) && !counted(&cs[1], op))
			continue;
		printf("%-6u %-16s", op, opcode_name(op));
		print_count(&cs[0], op);
		print_count(&cs[1], op);
		putchar('\n');
	}
	free(cs[0].v);
	free(cs[1].v);
	return found ? 0 : 1;
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{ "mount", cmd_mount },
	{ "umount", cmd_umount },
	{ "unregister", cmd_unregister },
	{ "list", cmd_list },
	{ "counters", cmd_counters },
};

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage_text, stdout);
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "fusebpf: unknown command %s\n", argv[1]);
	return usage();
}
