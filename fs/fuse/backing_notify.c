// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE-BPF: inotify and dnotify of changes made on the lower filesystem.
 *
 * A change made through the mount raises its event on the FUSE inodes, as
 * on any filesystem.  A change made on the lower filesystem directly raises
 * it on the lower inodes only: each backed directory of the mount puts a
 * mark of a kernel-internal fsnotify group on its lower directory (as
 * dnotify and nfsd's file cache do), and the mark's handler raises the
 * event again on the FUSE directory, with the name as it is, and on the
 * FUSE node of the name if it is in the inode cache.
 *
 * The operations the mount itself runs on the lower filesystem raise lower
 * events too: those are not raised again.  Such an operation marks its FUSE
 * node as being changed by the current task (fuse_bpf_notify_begin()), and
 * the handler, which runs in the task that made the change, skips events
 * of a node the current task is changing.
 */

#include "fuse_i.h"

#include <linux/fsnotify_backend.h>

/* Changes of names in the directory */
#define FUSE_BPF_NOTIFY_DIRENT	(FS_CREATE | FS_DELETE | FS_MOVED_FROM | \
				 FS_MOVED_TO)
/* Changes of the directory's children, or of the root itself */
#define FUSE_BPF_NOTIFY_CHANGE	(FS_MODIFY | FS_ATTRIB)
#define FUSE_BPF_NOTIFY_MASK	(FUSE_BPF_NOTIFY_DIRENT | \
				 FUSE_BPF_NOTIFY_CHANGE | FS_EVENT_ON_CHILD)

/**
 * struct fuse_bpf_watch - the mark of a backed directory on its lower one
 * @mark: the mark, on the lower directory inode
 * @dir: the FUSE directory, NULL once it is evicted
 */
struct fuse_bpf_watch {
	struct fsnotify_mark mark;
	struct inode *dir;
};

static struct fsnotify_group *fuse_bpf_notify_group;

/*
 * An inode no watcher can reach: the inode of an event for a child that
 * has no FUSE inode, which then goes to the directory's watchers only.
 */
static struct inode fuse_bpf_unwatched;

/*
 * The FUSE directory of a mark, referenced, or NULL if it is being
 * evicted or nothing is watched on its mount: every change made on the
 * lower directory or its files, through the mount too, comes here, and
 * most mounts have no watcher.  The inode's memory, its superblock and
 * the superblock's fsnotify information are freed after an RCU grace
 * period.
 */
static struct inode *fuse_bpf_watch_dir(struct fuse_bpf_watch *w)
{
	struct inode *dir;

	rcu_read_lock();
	dir = READ_ONCE(w->dir);
	if (dir && fsnotify_sb_has_watchers(dir->i_sb))
		dir = igrab(dir);
	else
		dir = NULL;
	rcu_read_unlock();
	return dir;
}

/* Is the current task changing @inode through the mount? */
static bool fuse_bpf_changing(struct inode *inode)
{
	return READ_ONCE(get_fuse_inode(inode)->bpf_changer) == current;
}

/*
 * Names a filter or the daemon decides on are not told: the lookup
 * filter of the directory may hide them, or the daemon keeps its lookups.
 */
static bool fuse_bpf_notify_names(struct inode *dir)
{
	return !fuse_bpf_filters(dir, lookup) &&
	       !fuse_bpf_filters(dir, readdir) &&
	       !fuse_bpf_daemon_op(dir, FUSE_LOOKUP);
}

static int fuse_bpf_child_test(struct inode *inode, void *lower)
{
	struct dentry *d = fuse_bpf_dentry_rcu(inode);

	return d && d_inode_rcu(d) == lower;
}

/**
 * fuse_bpf_notify_child() - the FUSE inode an event on a lower child goes to
 * @dir: the FUSE directory
 * @lower: the lower child
 * @mine: set if the current task is changing that FUSE inode
 *
 * Context: does not sleep.
 *
 * Return: the FUSE inode of @lower in the mount of @dir, referenced, if it
 * is in the inode cache and is watched; else &fuse_bpf_unwatched.
 */
static struct inode *fuse_bpf_notify_child(struct inode *dir,
					   struct inode *lower, bool *mine)
{
	struct inode *inode;

	rcu_read_lock();
	inode = find_inode_rcu(dir->i_sb, (unsigned long)lower,
			       fuse_bpf_child_test, lower);
	*mine = inode && fuse_bpf_changing(inode);
	if (inode && !*mine && READ_ONCE(inode->i_fsnotify_marks))
		inode = igrab(inode);
	else
		inode = NULL;
	rcu_read_unlock();
	return inode ?: &fuse_bpf_unwatched;
}

/*
 * An event on a child of the lower directory (@mask has FS_EVENT_ON_CHILD):
 * to the watchers of @dir, with the name, and of the child's FUSE inode.
 */
static void fuse_bpf_notify_on_child(struct inode *dir, u32 mask,
				     struct inode *lower,
				     const struct qstr *name)
{
	struct inode *child;
	bool mine;

	child = fuse_bpf_notify_child(dir, lower, &mine);
	if (mine)
		return;
	fsnotify(mask, dir, FSNOTIFY_EVENT_INODE, dir, name, child, 0);
	if (child != &fuse_bpf_unwatched)
		iput(child);
}

/*
 * The handler of the group's marks.  The lower filesystem calls it in the
 * task that made the change, with the locks of the change held: it
 * neither sleeps on nor takes locks of the FUSE mount.
 */
static int fuse_bpf_notify_event(struct fsnotify_mark *mark, u32 mask,
				 struct inode *lower, struct inode *lower_dir,
				 const struct qstr *name, u32 cookie)
{
	struct fuse_bpf_watch *w = container_of(mark, struct fuse_bpf_watch,
						mark);
	struct inode *dir = fuse_bpf_watch_dir(w);

	if (!dir)
		return 0;
	if (mask & FS_EVENT_ON_CHILD) {
		if (fuse_bpf_notify_names(dir))
			fuse_bpf_notify_on_child(dir, mask, lower, name);
	} else if (name) {
		if (fuse_bpf_notify_names(dir) && !fuse_bpf_changing(dir))
			fsnotify(mask, dir, FSNOTIFY_EVENT_INODE, dir, name,
				 NULL, cookie);
	} else if (dir == d_inode(dir->i_sb->s_root) &&
		   !fuse_bpf_changing(dir)) {
		/* Other directories hear of it from their parent's mark */
		fsnotify(mask, dir, FSNOTIFY_EVENT_INODE, NULL, NULL, dir, 0);
	}
	iput(dir);
	return 0;
}

static void fuse_bpf_watch_free(struct fsnotify_mark *mark)
{
	kfree(container_of(mark, struct fuse_bpf_watch, mark));
}

static const struct fsnotify_ops fuse_bpf_notify_ops = {
	.handle_inode_event = fuse_bpf_notify_event,
	.free_mark = fuse_bpf_watch_free,
};

/**
 * fuse_bpf_watch_lower() - hear of changes made on a directory's lower one
 * @inode: a new backed FUSE inode; nothing is done unless it is a directory
 *
 * Puts a mark on the lower directory, whose events are raised again on
 * @inode.  If it cannot be made (no memory), @inode's watchers do not hear
 * of changes made on the lower filesystem.
 *
 * Cost: a mark and, on the first mark of a lower inode, its connector (one
 * allocation each) per backed directory in the inode cache; while it is
 * there, the lower filesystem is watched, and an event on a child of the
 * lower directory (a read, a write) takes its parent and looks at its mask.
 *
 * Context: process context, may sleep.
 */
void fuse_bpf_watch_lower(struct inode *inode)
{
	struct fuse_inode *fi = get_fuse_inode(inode);
	struct fuse_bpf_watch *w;

	if (!S_ISDIR(inode->i_mode) || !fuse_bpf_notify_group)
		return;
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return;
	fsnotify_init_mark(&w->mark, fuse_bpf_notify_group);
	w->mark.mask = FUSE_BPF_NOTIFY_MASK;
	/* The FUSE inode holds the lower one as long as the mark */
	w->mark.flags |= FSNOTIFY_MARK_FLAG_NO_IREF;
	w->dir = inode;
	if (fsnotify_add_inode_mark(&w->mark, fuse_bpf_inode(inode), 0)) {
		fsnotify_put_mark(&w->mark);
		return;
	}
	fi->bpf_watch = w;
}

/**
 * fuse_bpf_unwatch_lower() - stop hearing of changes made on the lower
 * @inode: a FUSE inode being evicted, backed or not
 *
 * A handler running still holds the mark, but no longer finds @inode.
 * The mark may be gone already: the lower directory was removed.
 *
 * Context: inode eviction, may sleep.
 */
void fuse_bpf_unwatch_lower(struct inode *inode)
{
	struct fuse_inode *fi = get_fuse_inode(inode);
	struct fuse_bpf_watch *w = fi->bpf_watch;

	if (!w)
		return;
	fi->bpf_watch = NULL;
	WRITE_ONCE(w->dir, NULL);
	fsnotify_destroy_mark(&w->mark, fuse_bpf_notify_group);
	fsnotify_put_mark(&w->mark);
}

/**
 * fuse_bpf_notify_init() - make the fsnotify group of FUSE-BPF's marks
 *
 * Without it, watchers of a mount do not hear of changes made on the lower
 * filesystem; everything else works.
 */
void fuse_bpf_notify_init(void)
{
	struct fsnotify_group *group;

	/* Two mounts of one lower directory: two marks on it */
	group = fsnotify_alloc_group(&fuse_bpf_notify_ops,
				     FSNOTIFY_GROUP_DUPS);
	if (IS_ERR(group)) {
		pr_warn("FUSE-BPF: no events of lower filesystems (%ld)\n",
			PTR_ERR(group));
		return;
	}
	fuse_bpf_notify_group = group;
}

/**
 * fuse_bpf_notify_exit() - free the fsnotify group of FUSE-BPF's marks
 *
 * Context: module exit: every FUSE inode is gone, and so every mark is
 * destroyed; they are freed here.
 */
void fuse_bpf_notify_exit(void)
{
	if (!fuse_bpf_notify_group)
		return;
	fsnotify_wait_marks_destroyed();
	fsnotify_put_group(fuse_bpf_notify_group);
	fuse_bpf_notify_group = NULL;
}
