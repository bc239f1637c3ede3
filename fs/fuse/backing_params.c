// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE-BPF: the mount options, parsed and checked in one place.
 *
 *   root_dir=<fd>	the directory that backs the root of the mount
 *   no_daemon		no /dev/fuse: every node is served by the kernel
 *   root_bpf=<name>	the registered fuse_ops filter of the root
 *   root_bpf_fd=<fd>	the same, by a descriptor of its map or link
 *
 * FUSE's fuse_parse_param() offers each option here first; what is not
 * ours (-ENOPARAM) it parses as before.  fuse_get_tree() checks the
 * options together (fuse_bpf_check_options()) before the connection is
 * made.
 */

#include "fuse_i.h"

#include <linux/file.h>
#include <linux/fs_parser.h>

enum {
	OPT_ROOT_DIR,
	OPT_NO_DAEMON,
	OPT_ROOT_BPF,
	OPT_ROOT_BPF_FD,
};

static const struct fs_parameter_spec fuse_bpf_fs_parameters[] = {
	fsparam_fd("root_dir", OPT_ROOT_DIR),
	fsparam_flag("no_daemon", OPT_NO_DAEMON),
	fsparam_string("root_bpf", OPT_ROOT_BPF),
	fsparam_u32("root_bpf_fd", OPT_ROOT_BPF_FD),
	{}
};

/**
 * fuse_bpf_parse_root_dir() - parse the root_dir= mount option
 * @fsc: the filesystem context
 * @param: the option: a file, or a file descriptor number
 * @result: the parsed option, the descriptor in uint_32
 *
 * root_dir= names the directory that backs the root of the mount.  Who may
 * give it is checked later, by fuse_bpf_check_options().
 *
 * Return: 0, the directory's path kept, referenced, in the fs context;
 * -EINVAL if given twice or on an idmapped mount, -EBADF for a bad
 * descriptor, -ENOTDIR if not a directory, -ELOOP if it stacks too deep.
 */
static int fuse_bpf_parse_root_dir(struct fs_context *fsc,
				   struct fs_parameter *param,
				   struct fs_parse_result *result)
{
	struct fuse_fs_context *ctx = fsc->fs_private;
	struct file *file;
	int err = 0;

	if (ctx->root_dir.dentry)
		return invalfc(fsc, "root_dir specified twice");
	if (param->type == fs_value_is_file)
		file = get_file(param->file);
	else
		file = fget(result->uint_32);
	if (!file)
		return errorfc(fsc, "root_dir: invalid file descriptor"), -EBADF;

	if (!d_can_lookup(file->f_path.dentry)) {
		errorfc(fsc, "root_dir: not a directory");
		err = -ENOTDIR;
	} else if (file->f_path.mnt->mnt_sb->s_stack_depth >=
		   FILESYSTEM_MAX_STACK_DEPTH) {
		errorfc(fsc, "root_dir: maximum fs stacking depth exceeded");
		err = -ELOOP;
	} else if (is_idmapped_mnt(file->f_path.mnt)) {
		errorfc(fsc, "root_dir: idmapped mounts are not supported");
		err = -EINVAL;
	} else {
		ctx->root_dir = file->f_path;
		path_get(&ctx->root_dir);
	}
	fput(file);
	return err;
}

/**
 * fuse_bpf_parse_no_daemon() - parse the no_daemon mount option
 * @fsc: the filesystem context
 *
 * A mount with no daemon needs CAP_SYS_ADMIN in the initial user namespace.
 *
 * Return: 0, -EINVAL if given twice, or -EPERM.
 */
static int fuse_bpf_parse_no_daemon(struct fs_context *fsc)
{
	struct fuse_fs_context *ctx = fsc->fs_private;

	if (ctx->no_daemon)
		return invalfc(fsc, "no_daemon specified twice");
	if (!capable(CAP_SYS_ADMIN))
		return errorfc(fsc, "no_daemon requires CAP_SYS_ADMIN"), -EPERM;
	ctx->no_daemon = true;
	return 0;
}

/**
 * fuse_bpf_parse_root_bpf() - parse the root_bpf= mount option
 * @fsc: the filesystem context
 * @param: the option, the name of a registered fuse_ops
 *
 * root_bpf=<name>: the registered fuse_ops program of the root, and so of
 * every node below it.  Only who may make the backed mount may choose its
 * filter (fuse_bpf_check_options() requires root_dir=).
 *
 * Return: 0, the program kept, referenced, in the fs context; -EINVAL if
 * root_bpf= or root_bpf_fd= was given before, -ENOENT if no fuse_ops of
 * that name is registered.
 */
static int fuse_bpf_parse_root_bpf(struct fs_context *fsc,
				   struct fs_parameter *param)
{
	struct fuse_fs_context *ctx = fsc->fs_private;

	if (ctx->root_bpf)
		return invalfc(fsc, "root_bpf or root_bpf_fd specified twice");
	ctx->root_bpf = bpf_fuse_ops_get(param->string);
	if (!ctx->root_bpf)
		return errorfc(fsc, "root_bpf: no fuse_ops named %s",
			       param->string), -ENOENT;
	return 0;
}

/**
 * fuse_bpf_parse_root_bpf_fd() - parse the root_bpf_fd= mount option
 * @fsc: the filesystem context
 * @fd: a descriptor of a registered fuse_ops struct_ops map or of its link
 *
 * root_bpf_fd=<fd>: as root_bpf=, by a descriptor.  Names are global and
 * may collide: a descriptor names the program its holder registered.
 *
 * Return: 0, the program kept, referenced, in the fs context; -EINVAL if
 * root_bpf= or root_bpf_fd= was given before, or the error of
 * bpf_fuse_ops_get_fd() (-EBADF, -EINVAL).
 */
static int fuse_bpf_parse_root_bpf_fd(struct fs_context *fsc, unsigned int fd)
{
	struct fuse_fs_context *ctx = fsc->fs_private;
	struct fuse_ops *ops;

	if (ctx->root_bpf)
		return invalfc(fsc, "root_bpf or root_bpf_fd specified twice");
	ops = bpf_fuse_ops_get_fd(fd);
	if (IS_ERR(ops))
		return errorfc(fsc, "root_bpf_fd: not a registered fuse_ops map or link"),
		       PTR_ERR(ops);
	ctx->root_bpf = ops;
	return 0;
}

/**
 * fuse_bpf_parse_param() - parse one mount option, if it is FUSE-BPF's
 * @fsc: the filesystem context
 * @param: the option
 *
 * Return: -ENOPARAM if @param is not a FUSE-BPF option (FUSE parses it
 * then), else 0 or the error of its parser.
 */
int fuse_bpf_parse_param(struct fs_context *fsc, struct fs_parameter *param)
{
	struct fs_parse_result result;
	int opt;

	opt = fs_parse(fsc, fuse_bpf_fs_parameters, param, &result);
	if (opt < 0)
		return opt;
	switch (opt) {
	case OPT_ROOT_DIR:
		return fuse_bpf_parse_root_dir(fsc, param, &result);
	case OPT_NO_DAEMON:
		return fuse_bpf_parse_no_daemon(fsc);
	case OPT_ROOT_BPF:
		return fuse_bpf_parse_root_bpf(fsc, param);
	case OPT_ROOT_BPF_FD:
		return fuse_bpf_parse_root_bpf_fd(fsc, result.uint_32);
	}
	return -EINVAL;
}

/*
 * Who may make a backed mount: its nodes act on the lower filesystem with
 * the mounter's credentials, so the mounter must be privileged over every
 * filesystem (CAP_SYS_ADMIN in the initial user namespace, as 6.12's FUSE
 * passthrough asks of FUSE_DEV_IOC_BACKING_OPEN), and must be acting for
 * itself: a setuid-root program run by a user (real uid not its
 * effective one) would hand that user root's credentials on the lower.
 */
static int fuse_bpf_may_mount(struct fs_context *fsc)
{
	if (!capable(CAP_SYS_ADMIN))
		return errorfc(fsc, "root_dir requires CAP_SYS_ADMIN"), -EPERM;
	if (!uid_eq(current_uid(), current_euid()))
		return errorfc(fsc, "root_dir: refused to a setuid program"),
		       -EPERM;
	return 0;
}

/**
 * fuse_bpf_check_options() - check the FUSE-BPF mount options together
 * @fsc: the filesystem context, its options parsed
 *
 * root_dir= asks who may make a backed mount (fuse_bpf_may_mount()).
 * root_bpf= and root_bpf_fd= need root_dir=; no_daemon needs root_dir=
 * and excludes fd=.
 *
 * Context: fuse_get_tree(), before the connection is made.
 *
 * Return: 0, -EPERM or -EINVAL.
 */
int fuse_bpf_check_options(struct fs_context *fsc)
{
	struct fuse_fs_context *ctx = fsc->fs_private;
	int err;

	if (ctx->root_dir.dentry) {
		err = fuse_bpf_may_mount(fsc);
		if (err)
			return err;
	}
	if (ctx->root_bpf && !ctx->root_dir.dentry)
		return invalfc(fsc, "root_bpf requires root_dir");
	if (!ctx->no_daemon)
		return 0;
	if (!ctx->root_dir.dentry)
		return invalfc(fsc, "no_daemon requires root_dir");
	if (ctx->fd_present)
		return invalfc(fsc, "no_daemon excludes fd");
	return 0;
}
