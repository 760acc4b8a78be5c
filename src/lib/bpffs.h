/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reaching tslack's pins safely on any bpffs, for policy.c and attach.c.
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
#ifndef TSLACK_BPFFS_H
#define TSLACK_BPFFS_H

#include <stddef.h>
#include <sys/stat.h>

#include "err.h"

/* The policy's link: first pinned, first unpinned (attach.c's table). */
#define PIN_LINK_NAME "policy"
/* The hook policy's read-only data: how it was attached (policy_attached_flags()). */
#define PIN_CONFIG_NAME "config"

/* Internal errors, beyond any errno. */
enum {
	/* Users may rename what is in bpffs's root: nothing there is trusted. */
	E_UNSAFE = 4096,
	/* Something tslack did not make has the name: never followed nor used. */
	E_FOREIGN,
	/* Another writer held the pin directory's lock for LOCK_TIMEOUT_S. */
	E_LOCK_BUSY,
};

/* The longest a writer waits for the lock (lock_dir()) before it says so. */
#define LOCK_TIMEOUT_S 10

/*
 * bpffs's root, the one path we open there; its stat in @root. -ENODEV if
 * it is no bpffs, -E_UNSAFE, or -errno.
 */
int bpffs_open(struct stat *root);

/*
 * Open @name in bpffs's root @bpffs (@root its stat) if it is a directory
 * tslack made. The fd, -ENOENT, -E_FOREIGN with what is there instead in
 * @why, or -errno.
 */
int open_ours(int bpffs, const struct stat *root, const char *name, char *why, size_t len);

/*
 * The pin directory, if it is tslack's. -ENOENT if there is none or
 * something else has its name, -E_UNSAFE, or -errno.
 */
int open_pin_dir(void);

/*
 * Take the checked @dir's lock, LOCK_EX for writers, attach and detach,
 * LOCK_SH for tslackctl follow, waiting at most LOCK_TIMEOUT_S: 0,
 * -E_LOCK_BUSY, or -errno.
 */
int lock_dir(int dir, int op);

/* Is the policy's link pinned in the checked @dir? 1, 0, or -errno. */
int has_link(int dir);

/* What is pinned as @name in the checked directory @dir: an fd, or -errno. */
int get_at(int dir, const char *name);
/* Pin @fd as @name in the checked directory @dir: 0, or -errno. */
int pin_at(int fd, int dir, const char *name);

/* Empty tslack's directory @dir, @name in @bpffs, and remove it. 0 or -errno. */
int unpin_dir(int bpffs, const char *name, int dir);

/* err_errno(), and what our own errors mean. Returns @ret. */
int explain(struct tslack_err *e, int ret, const char *what, int err);

/* "@name in bpffs: @why, not made by tslackctl: @what", in @e or as a warning. */
int say_foreign(struct tslack_err *e, int ret, const char *name, const char *why,
		const char *what);

#endif
