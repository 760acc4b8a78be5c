// SPDX-License-Identifier: GPL-2.0
/* Reaching tslack's pins safely on any bpffs: see bpffs.h. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include <bpf/bpf.h>

#include "bpffs.h"
#include "policy.h"

/* Linux 6.5's, which the build host's uapi headers may predate. */
#ifndef BPF_F_PATH_FD
#define BPF_F_PATH_FD (1U << 14)
#endif

int explain(struct tslack_err *e, int ret, const char *what, int err)
{
	if (-err == E_UNSAFE)
		return err_set(e, ret,
			       "%s: users may rename what is in it (not root's, or writable by others without the sticky bit): mount bpffs with mode=700 or mode=1777",
			       TSLACK_BPFFS);
	if (-err == E_LOCK_BUSY)
		return err_set(e, ret,
			       "%s: another tslack command or tslackctl follow has held its lock for %d s: try again",
			       TSLACK_PIN_DIR, LOCK_TIMEOUT_S);
	return err_errno(e, ret, what, err);
}

/*
 * Polled rather than blocking: a blocking flock() has no timeout, and
 * tslackctl follow lets go of its shared lock for a while after each
 * slice of work (follow.c), so a waiting writer gets its turn.
 */
int lock_dir(int dir, int op)
{
	struct timespec start, t, nap = { 0, 1000000 };

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		if (!flock(dir, op | LOCK_NB))
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - start.tv_sec >= LOCK_TIMEOUT_S)
			return -E_LOCK_BUSY;
		nanosleep(&nap, NULL);
		/* 1 ms, doubling up to 8 ms: several tries in each of follow's gaps. */
		if (nap.tv_nsec < 8000000)
			nap.tv_nsec *= 2;
	}
}

int say_foreign(struct tslack_err *e, int ret, const char *name, const char *why,
		const char *what)
{
	if (!e) {
		warn_say("%s/%s: %s, not made by tslackctl: %s", TSLACK_BPFFS, name, why, what);
		return ret;
	}
	return err_set(e, ret, "%s/%s: %s, not made by tslackctl: %s", TSLACK_BPFFS, name, why,
		       what);
}

/*
 * bpffs's root, the one path we open there; its stat in @root. Only root
 * may rename what is in it (sticky, or writable by root alone), or a user
 * could swap a checked directory for one of theirs between two of our
 * calls by name. -ENODEV if it is no bpffs, -E_UNSAFE, or -errno.
 */
int bpffs_open(struct stat *root)
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
int open_ours(int bpffs, const struct stat *root, const char *name, char *why,
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
int open_pin_dir(void)
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
int has_link(int dir)
{
	struct stat st;

	if (!fstatat(dir, PIN_LINK_NAME, &st, AT_SYMLINK_NOFOLLOW))
		return 1;
	return errno == ENOENT ? 0 : -errno;
}

/*
 * Linux 6.5 pins and gets relative to a directory fd (BPF_F_PATH_FD) and
 * an older kernel refuses the flag: there, the same directory is reached
 * through /proc/self/fd, whose link resolves to it, not to its path.
 */
static const char *via_proc(int dir, const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "/proc/self/fd/%d/%s", dir, name);
	return buf;
}

/* What is pinned as @name in the checked directory @dir: an fd, or -errno. */
int get_at(int dir, const char *name)
{
	LIBBPF_OPTS(bpf_obj_get_opts, opts, .file_flags = BPF_F_PATH_FD, .path_fd = dir);
	char buf[PATH_MAX];
	int fd;

	fd = bpf_obj_get_opts(name, &opts);
	if (fd == -EINVAL)
		fd = bpf_obj_get(via_proc(dir, name, buf, sizeof(buf)));
	return fd;
}

int pin_at(int fd, int dir, const char *name)
{
	LIBBPF_OPTS(bpf_obj_pin_opts, opts, .file_flags = BPF_F_PATH_FD, .path_fd = dir);
	char buf[PATH_MAX];
	int err;

	err = bpf_obj_pin_opts(fd, name, &opts);
	if (err == -EINVAL)
		err = bpf_obj_pin(fd, via_proc(dir, name, buf, sizeof(buf)));
	return err;
}

/*
 * Empty tslack's directory @dir, @name in @bpffs, and remove it. The
 * policy's link goes first, so that tslack is detached whenever this is
 * killed. Only relative to the checked @dir: inside it, only root made
 * anything, and unlinkat() follows nothing anyway.
 */
int unpin_dir(int bpffs, const char *name, int dir)
{
	struct dirent *de;
	int fd, err = 0;
	DIR *d;

	if (unlinkat(dir, PIN_LINK_NAME, 0) && errno != ENOENT)
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
