// SPDX-License-Identifier: GPL-2.0
/*
 * Attaching the policy, and reaching what it pinned, safely on any bpffs.
 *
 * bpffs may be world-writable (mode 1777: what mount makes without mode=,
 * by hand or in a container), so anything but what root made there may be
 * a user's: a symlink to /etc, a directory whose lock the user holds. So
 * the only path opened is bpffs's root; every other access is an *at()
 * call relative to a directory fd checked to be tslack's (root's, 0700,
 * on that bpffs), and names that fail the check are never followed, used
 * or locked. A 0700 directory cannot be opened, hence not locked, by
 * anyone but root.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "compiler.h"
#include "policy.h"
#include "tslack.skel.h"

/* Linux 6.5's, which the build host's uapi headers may predate. */
#ifndef BPF_F_PATH_FD
#define BPF_F_PATH_FD (1U << 14)
#endif

enum pin_kind { PIN_LINK, PIN_MAP, PIN_PROG };

#define PIN(name, kind, field) { name, kind, offsetof(struct tslack_bpf, field) }

/*
 * What attach pins: a name and where its libbpf object is in the
 * skeleton. The policy's link comes first: detach unpins it first, so
 * that tslack is detached as soon as a detach starts, even if it is
 * killed. Detach removes whatever else the directory holds, so the pins
 * of an older or newer table go too.
 */
static const struct pin {
	const char *name;
	enum pin_kind kind;
	size_t off;
} pins[] = {
	PIN("policy", PIN_LINK, links.tslack),
	PIN("settings", PIN_MAP, maps.settings),
	PIN("rmdir", PIN_LINK, links.tslack_cgroup_rmdir),
	PIN("invalidate", PIN_PROG, progs.tslack_invalidate),
	PIN("query", PIN_PROG, progs.tslack_query),
};

/* Internal errors, beyond any errno. */
enum {
	/* Users may rename what is in bpffs's root: nothing there is trusted. */
	E_UNSAFE = 4096,
	/* Something tslack did not make has the name: never followed nor used. */
	E_FOREIGN,
};

#define ATTACHING_PREFIX "tslack-attaching-"

void policy_explain(const char *what, int err)
{
	err = err < 0 ? -err : err;
	if (err == EPERM || err == EACCES)
		fprintf(stderr,
			"%s: %s: permission denied (needs root: CAP_BPF and CAP_SYS_ADMIN)\n",
			program_invocation_short_name, what);
	else
		fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what,
			strerror(err));
}

/* policy_explain(), and what our own errors mean. */
static void explain(const char *what, int err)
{
	if (-err == E_UNSAFE)
		fprintf(stderr,
			"%s: %s: users may rename what is in it (not root's, or writable by others without the sticky bit): mount bpffs with mode=700 or mode=1777\n",
			program_invocation_short_name, TSLACK_BPFFS);
	else
		policy_explain(what, err);
}

/* Say that @name in bpffs is not tslack's (@why: what it is) and @what we do. */
static void say_foreign(const char *name, const char *why, const char *what)
{
	fprintf(stderr, "%s: %s/%s: %s, not made by tslackctl: %s\n",
		program_invocation_short_name, TSLACK_BPFFS, name, why, what);
}

/*
 * bpffs's root, the one path we open there; its stat in @root. Only root
 * may rename what is in it (sticky, or writable by root alone), or a user
 * could swap a checked directory for one of theirs between two of our
 * calls by name. -ENODEV if it is no bpffs, -E_UNSAFE, or -errno.
 */
static int bpffs_open(struct stat *root)
{
	struct statfs sfs;
	int fd, err;

	fd = open(TSLACK_BPFFS, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ENODEV : -errno;
	if (fstatfs(fd, &sfs) || fstat(fd, root)) {
		err = -errno;
	} else if (sfs.f_type != BPF_FS_MAGIC) {
		err = -ENODEV;
	} else if (root->st_uid ||
		   ((root->st_mode & (S_IWGRP | S_IWOTH)) && !(root->st_mode & S_ISVTX))) {
		err = -E_UNSAFE;
	} else {
		return fd;
	}
	close(fd);
	return err;
}

/*
 * Open @name in bpffs's root @bpffs (@root its stat) if it is a directory
 * tslack made: root's, 0700 (no user can open it, so none can lock it),
 * on that bpffs. A symlink is never followed. The fd, -ENOENT,
 * -E_FOREIGN with what is there instead in @why, or -errno.
 */
static int open_ours(int bpffs, const struct stat *root, const char *name, char *why,
		     size_t len)
{
	struct stat st;
	int fd;

	fd = openat(bpffs, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOTDIR && errno != ELOOP)
			return -errno;
		/* Only to say what it is: nothing is read through it. */
		if (fstatat(bpffs, name, &st, AT_SYMLINK_NOFOLLOW))
			return -errno;
		snprintf(why, len, "%s", S_ISLNK(st.st_mode) ? "a symbolic link" : "not a directory");
		return -E_FOREIGN;
	}
	if (fstat(fd, &st)) {
		close(fd);
		return -errno;
	}
	if (!S_ISDIR(st.st_mode) || st.st_dev != root->st_dev)
		snprintf(why, len, "not a directory of this bpffs");
	else if (st.st_uid)
		snprintf(why, len, "a directory of uid %u", (unsigned int)st.st_uid);
	else if (st.st_mode & 077)
		snprintf(why, len, "a directory others may open (mode %04o)",
			 (unsigned int)(st.st_mode & 07777));
	else
		return fd;
	close(fd);
	return -E_FOREIGN;
}

/*
 * The pin directory, if it is tslack's. -ENOENT if there is none or
 * something else has its name (then tslack is not attached: an attach
 * would have refused it), -E_UNSAFE, or -errno.
 */
static int open_pin_dir(void)
{
	struct stat root;
	char why[64];
	int bpffs, dir;

	bpffs = bpffs_open(&root);
	if (bpffs < 0)
		return bpffs == -ENODEV ? -ENOENT : bpffs;
	dir = open_ours(bpffs, &root, TSLACK_PIN_NAME, why, sizeof(why));
	close(bpffs);
	return dir == -E_FOREIGN ? -ENOENT : dir;
}

/* Is the policy's link pinned in the checked @dir? 1, 0, or -errno. */
static int has_link(int dir)
{
	struct stat st;

	if (!fstatat(dir, pins[0].name, &st, AT_SYMLINK_NOFOLLOW))
		return 1;
	return errno == ENOENT ? 0 : -errno;
}

/* What is pinned as @name in the checked directory @dir: an fd, or -errno. */
static int get_at(int dir, const char *name)
{
	LIBBPF_OPTS(bpf_obj_get_opts, opts, .file_flags = BPF_F_PATH_FD, .path_fd = dir);

	return bpf_obj_get_opts(name, &opts);
}

bool policy_kernel_has_hook(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool found;

	found = btf && btf__find_by_name_kind(btf, "timer_slack_ops", BTF_KIND_STRUCT) > 0;
	btf__free(btf);
	return found;
}

/*
 * TIMER_SLACK_ALIGN as this kernel defines it, or 0 if it cannot align
 * (a kernel without the series' alignment patch): asked of its BTF.
 */
__u64 policy_kernel_align_flag(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_type *t;
	const struct btf_enum64 *e64;
	const struct btf_enum *e;
	__u64 flag = 0;
	int id, i;

	id = btf ? btf__find_by_name_kind(btf, "timer_slack_ops_flags", BTF_KIND_ENUM) : -1;
	if (id < 0 && btf)
		id = btf__find_by_name_kind(btf, "timer_slack_ops_flags", BTF_KIND_ENUM64);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	for (i = 0; t && i < btf_vlen(t); i++) {
		if (btf_is_enum(t)) {
			e = btf_enum(t) + i;
			if (!strcmp(btf__name_by_offset(btf, e->name_off), "TIMER_SLACK_ALIGN"))
				flag = (__u32)e->val;
		} else {
			e64 = btf_enum64(t) + i;
			if (!strcmp(btf__name_by_offset(btf, e64->name_off), "TIMER_SLACK_ALIGN"))
				flag = btf_enum64_value(e64);
		}
	}
	btf__free(btf);
	return flag;
}

/* Set the flags of the policy's struct_ops before it is loaded; 0, or -errno. */
static int set_ops_flags(struct tslack_bpf *skel, __u64 flags)
{
	const struct btf *btf = bpf_object__btf(skel->obj);
	const struct btf_member *m;
	const struct btf_type *t;
	int id, i;

	id = btf__find_by_name_kind(btf, "timer_slack_ops", BTF_KIND_STRUCT);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	for (i = 0, m = t ? btf_members(t) : NULL; t && i < btf_vlen(t); i++, m++) {
		if (strcmp(btf__name_by_offset(btf, m->name_off), "flags"))
			continue;
		memcpy((char *)skel->struct_ops.tslack + btf_member_bit_offset(t, i) / 8,
		       &flags, sizeof(flags));
		return 0;
	}
	return flags ? -EOPNOTSUPP : 0;
}

static const char no_hook[] =
	"%s: this kernel has no timer_slack_ops: boot one with the tslack patches (CONFIG_TIMER_SLACK_BPF=y)\n";

void policy_say_no_hook(void)
{
	fprintf(stderr, no_hook, program_invocation_short_name);
}

void policy_not_attached(void)
{
	if (!policy_kernel_has_hook())
		policy_say_no_hook();
	else
		fprintf(stderr, "%s: tslack is not attached: run 'tslackctl attach' first\n",
			program_invocation_short_name);
}

int policy_attached(void)
{
	int dir, ret;

	dir = open_pin_dir();
	ret = dir < 0 ? dir : has_link(dir);
	if (dir >= 0)
		close(dir);
	if (ret >= 0 || ret == -ENOENT)
		return ret > 0;
	/* systemd mounts bpffs 0700: then only root may even look. */
	explain(TSLACK_PIN_DIR, ret);
	return -1;
}

int policy_obj_get(const char *name)
{
	int dir, fd;

	dir = open_pin_dir();
	if (dir == -E_UNSAFE)
		return -EPERM;
	if (dir < 0)
		return dir;
	fd = get_at(dir, name);
	close(dir);
	return fd;
}

/*
 * Empty tslack's directory @dir, @name in @bpffs, and remove it. The
 * policy's link goes first, so that tslack is detached whenever this is
 * killed. Only relative to the checked @dir: inside it, only root made
 * anything, and unlinkat() follows nothing anyway.
 */
static int unpin_dir(int bpffs, const char *name, int dir)
{
	struct dirent *de;
	int fd, err = 0;
	DIR *d;

	if (unlinkat(dir, pins[0].name, 0) && errno != ENOENT)
		err = -errno;
	fd = fcntl(dir, F_DUPFD_CLOEXEC, 0);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    unlinkat(dir, de->d_name, 0) && errno != ENOENT)
			err = -errno;
	}
	closedir(d);
	/*
	 * By name, as a directory can only be removed: in bpffs's root only
	 * root may rename root's entries (bpffs_open()), so it is still @dir.
	 */
	if (unlinkat(bpffs, name, AT_REMOVEDIR) && errno != ENOENT && !err)
		err = -errno;
	return err;
}

/* The pid in the name of an attach's private directory, or 0. */
static int attaching_pid(const char *name)
{
	const char *p = name + strlen(ATTACHING_PREFIX);
	char *end;
	long pid;

	if (strncmp(name, ATTACHING_PREFIX, strlen(ATTACHING_PREFIX)) ||
	    *p < '1' || *p > '9')
		return 0;
	errno = 0;
	pid = strtol(p, &end, 10);
	return *end || errno || pid > INT_MAX ? 0 : pid;
}

/*
 * An attach killed before its rename leaves its pins in a directory named
 * after its pid, and with them maybe an attached policy: remove them. A
 * name like theirs that tslack did not make is left alone.
 */
static void remove_dead_attaches(int bpffs, const struct stat *root)
{
	struct dirent *de;
	char why[64];
	int fd, pid, dir;
	DIR *d;

	fd = fcntl(bpffs, F_DUPFD_CLOEXEC, 0);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		/* Skip those of attaches still running (ours is not made yet). */
		pid = attaching_pid(de->d_name);
		if (!pid || !kill(pid, 0) || errno != ESRCH)
			continue;
		dir = open_ours(bpffs, root, de->d_name, why, sizeof(why));
		if (dir == -E_FOREIGN)
			say_foreign(de->d_name, why, "left alone");
		if (dir < 0)
			continue;
		unpin_dir(bpffs, de->d_name, dir);
		close(dir);
	}
	closedir(d);
}

/*
 * Before an attach: whatever has the pin directory's name must go. What a
 * detach killed after unpinning the link left is removed; an attached
 * policy, or what someone else made, is refused. 0, or -1 after printing
 * why.
 */
static int clear_pin_dir(int bpffs, const struct stat *root)
{
	char why[64];
	int dir, err;

	dir = open_ours(bpffs, root, TSLACK_PIN_NAME, why, sizeof(why));
	if (dir == -ENOENT)
		return 0;
	if (dir == -E_FOREIGN) {
		say_foreign(TSLACK_PIN_NAME, why, "remove it and attach again");
		return -1;
	}
	if (dir < 0) {
		explain(TSLACK_PIN_DIR, dir);
		return -1;
	}
	err = flock(dir, LOCK_EX) ? -errno : has_link(dir);
	if (err > 0)
		fprintf(stderr,
			"%s: already attached (%s exists); 'tslackctl detach' first\n",
			program_invocation_short_name, TSLACK_LINK_PIN);
	else if (!err)
		err = unpin_dir(bpffs, TSLACK_PIN_NAME, dir);
	if (err < 0)
		explain(TSLACK_PIN_DIR, err);
	close(dir);
	return err ? -1 : 0;
}

/*
 * Make the private directory @name, in @bpffs, that an attach pins in and
 * return it. One of ours with that name is what an attach with our pid
 * left, and is removed; one made by a user (who can guess our pid) is
 * refused. -1 after printing why.
 */
static int make_attach_dir(int bpffs, const struct stat *root, const char *name)
{
	char why[64], path[128];
	int dir, err = 0;

	dir = open_ours(bpffs, root, name, why, sizeof(why));
	if (dir >= 0) {
		err = unpin_dir(bpffs, name, dir);
		close(dir);
	} else if (dir != -ENOENT) {
		err = dir;
	}
	if (!err && mkdirat(bpffs, name, 0700))
		err = -errno;
	/* Whatever has the name now, it is used only if it passes the check. */
	if (!err || err == -EEXIST)
		err = open_ours(bpffs, root, name, why, sizeof(why));
	if (err == -E_FOREIGN) {
		say_foreign(name, why, "remove it and attach again");
	} else if (err < 0) {
		snprintf(path, sizeof(path), "%s/%s", TSLACK_BPFFS, name);
		explain(path, err);
	}
	return err < 0 ? -1 : err;
}

/* The libbpf object of @p: a pointer of its own type, read as any pointer. */
static void *pin_object(const struct tslack_bpf *skel, const struct pin *p)
{
	void *obj;

	memcpy(&obj, (const char *)skel + p->off, sizeof(obj));
	return obj;
}

static int pin_fd(const struct tslack_bpf *skel, const struct pin *p)
{
	switch (p->kind) {
	case PIN_LINK:
		return bpf_link__fd(pin_object(skel, p));
	case PIN_MAP:
		return bpf_map__fd(pin_object(skel, p));
	default:
		return bpf_program__fd(pin_object(skel, p));
	}
}

/* Pin everything in the checked directory @dir. 0, or -errno. */
static int pin_all(const struct tslack_bpf *skel, int dir)
{
	LIBBPF_OPTS(bpf_obj_pin_opts, opts, .file_flags = BPF_F_PATH_FD, .path_fd = dir);
	unsigned int i;
	int err = 0;

	for (i = 0; !err && i < ARRAY_SIZE(pins); i++)
		err = bpf_obj_pin_opts(pin_fd(skel, &pins[i]), pins[i].name, &opts);
	return err;
}

/*
 * TSLACK_MAX_CACHE_AGE_MS in jiffies, which the policy reads for its age
 * check (one load, where a clock read costs a helper call). A coarse
 * clock ticks once a jiffy: its resolution is 1/HZ.
 */
static __u64 max_age_jiffies(void)
{
	struct timespec tick;
	__u64 ns;

	if (clock_getres(CLOCK_MONOTONIC_COARSE, &tick))
		return 1;
	ns = tick.tv_sec * 1000000000ULL + tick.tv_nsec;
	return ns ? TSLACK_MAX_CACHE_AGE_MS * 1000000ULL / ns : 1;
}

/* Load, attach and pin in @bpffs's private directory @tmp; 0, or -1. */
static int load_and_pin(int bpffs, const struct stat *root, const char *tmp,
			unsigned int max_cgroups, bool align)
{
	struct tslack_bpf *skel;
	unsigned int i;
	int dir = -1, err;

	skel = tslack_bpf__open();
	if (!skel) {
		policy_explain("opening the policy", errno);
		return -1;
	}
	skel->rodata->max_age_jiffies = max_age_jiffies();
	err = bpf_map__set_max_entries(skel->maps.settings, max_cgroups);
	if (!err)
		err = set_ops_flags(skel, align ? policy_kernel_align_flag() : 0);
	if (!err)
		err = tslack_bpf__load(skel);
	if (err) {
		policy_explain("loading the policy", err);
		goto out;
	}
	err = tslack_bpf__attach(skel);
	if (err == -EBUSY) {
		fprintf(stderr, "tslackctl: attaching: another timer slack policy is attached\n");
		goto out;
	} else if (err) {
		policy_explain("attaching the policy", err);
		goto out;
	}
	dir = make_attach_dir(bpffs, root, tmp);
	if (dir < 0) {
		err = -1;
		goto out;
	}
	err = pin_all(skel, dir);
	if (err) {
		policy_explain("pinning the policy", err);
		goto out;
	}
	/*
	 * Into place only now, so that a crash leaves either no policy or a
	 * complete one; never over what has taken the name meanwhile: that
	 * is refused, or cleared if a detach left it, and then once more.
	 */
	err = renameat2(bpffs, tmp, bpffs, TSLACK_PIN_NAME, RENAME_NOREPLACE) ? -errno : 0;
	if (err == -EEXIST) {
		if (clear_pin_dir(bpffs, root))
			goto out;
		err = renameat2(bpffs, tmp, bpffs, TSLACK_PIN_NAME, RENAME_NOREPLACE) ? -errno : 0;
	}
	if (err)
		policy_explain("pinning the policy", err);
out:
	if (dir >= 0) {
		if (err)
			unpin_dir(bpffs, tmp, dir);
		close(dir);
	}
	/* Once pinned, the pins keep the links: only drop our references. */
	for (i = 0; !err && i < ARRAY_SIZE(pins); i++) {
		if (pins[i].kind == PIN_LINK)
			bpf_link__disconnect(pin_object(skel, &pins[i]));
	}
	tslack_bpf__destroy(skel);
	return err ? -1 : 0;
}

int policy_attach(unsigned int max_cgroups, bool align)
{
	char tmp[64];
	struct stat root;
	int bpffs, err;

	bpffs = bpffs_open(&root);
	if (bpffs == -ENODEV) {
		fprintf(stderr,
			"%s: %s: not a bpf file system: mount one (mount -t bpf -o mode=700 bpf %s)\n",
			program_invocation_short_name, TSLACK_BPFFS, TSLACK_BPFFS);
		return -1;
	}
	if (bpffs < 0) {
		explain(TSLACK_PIN_DIR, bpffs);
		return -1;
	}
	err = clear_pin_dir(bpffs, &root);
	/* Before libbpf would say it in many lines of its own. */
	if (!err && !policy_kernel_has_hook()) {
		fprintf(stderr, no_hook, program_invocation_short_name);
		err = -1;
	}
	if (!err) {
		remove_dead_attaches(bpffs, &root);
		/* bpffs refuses dots in names. */
		snprintf(tmp, sizeof(tmp), ATTACHING_PREFIX "%d", getpid());
		err = load_and_pin(bpffs, &root, tmp, max_cgroups, align);
	}
	close(bpffs);
	return err;
}

int policy_detach(void)
{
	struct stat root;
	int bpffs, dir, err;
	char why[64];

	bpffs = bpffs_open(&root);
	if (bpffs == -ENODEV)
		return 0;
	if (bpffs < 0) {
		explain("detaching", bpffs);
		return -1;
	}
	remove_dead_attaches(bpffs, &root);
	dir = open_ours(bpffs, &root, TSLACK_PIN_NAME, why, sizeof(why));
	if (dir == -E_FOREIGN) {
		/* Nothing of tslack's is attached, and that one is not ours to remove. */
		say_foreign(TSLACK_PIN_NAME, why, "left alone");
		err = 0;
	} else if (dir == -ENOENT) {
		err = 0;
	} else if (dir < 0) {
		err = dir;
	} else {
		err = flock(dir, LOCK_EX) ? -errno : unpin_dir(bpffs, TSLACK_PIN_NAME, dir);
		close(dir);
	}
	close(bpffs);
	if (err) {
		explain("detaching", err);
		return -1;
	}
	return 0;
}

int policy_lock(void)
{
	int lock, err;

	lock = open_pin_dir();
	if (lock >= 0) {
		/* A detach that ran while we waited unpinned the link first. */
		err = flock(lock, LOCK_EX) ? -errno : has_link(lock);
		if (err <= 0) {
			close(lock);
			lock = err ? err : -ENOENT;
		}
	}
	if (lock == -ENOENT)
		policy_not_attached();
	else if (lock < 0)
		explain(TSLACK_PIN_DIR, lock);
	return lock < 0 && lock != -ENOENT ? -1 : lock;
}

void policy_unlock(int lock)
{
	close(lock);
}

int policy_lock_map(int *map_fd)
{
	int lock;

	lock = policy_lock();
	if (lock < 0)
		return lock;
	/* The lock is the checked pin directory: get the map through it. */
	*map_fd = get_at(lock, "settings");
	if (*map_fd < 0) {
		policy_explain(TSLACK_MAP_PIN, *map_fd);
		policy_unlock(lock);
		return -1;
	}
	return lock;
}

int policy_map_fd(void)
{
	int dir, fd;

	dir = open_pin_dir();
	fd = dir < 0 ? dir : has_link(dir);
	if (fd > 0) {
		fd = get_at(dir, "settings");
		if (fd < 0)
			policy_explain(TSLACK_MAP_PIN, fd);
	} else if (!fd || fd == -ENOENT) {
		policy_not_attached();
		fd = -ENOENT;
	} else {
		explain(TSLACK_PIN_DIR, fd);
	}
	if (dir >= 0)
		close(dir);
	return fd < 0 ? -1 : fd;
}

int policy_invalidate(void)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	int dir, fd, err;

	dir = open_pin_dir();
	fd = dir < 0 ? dir : get_at(dir, "invalidate");
	if (dir >= 0)
		close(dir);
	if (fd < 0) {
		explain(TSLACK_INVALIDATE_PIN, fd);
		return -1;
	}
	err = bpf_prog_test_run_opts(fd, &opts);
	close(fd);
	if (err) {
		policy_explain("making tasks use the new setting", err);
		return -1;
	}
	return 0;
}
