/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Attaching the tslack BPF policy and reaching its pinned map. The paths
 * below are for messages: the library reaches bpffs only through
 * directory fds it checked, as bpffs may be world-writable (bpffs.h).
 * A call that fails says why in @e (err.h), which may be NULL.
 */
#ifndef TSLACK_POLICY_H
#define TSLACK_POLICY_H

#include <linux/types.h>

#include "../../bpf/tslack.h"
#include "err.h"

#define TSLACK_BPFFS "/sys/fs/bpf"
#define TSLACK_PIN_NAME "tslack"
#define TSLACK_PIN_DIR TSLACK_BPFFS "/" TSLACK_PIN_NAME
#define TSLACK_MAP_PIN TSLACK_PIN_DIR "/settings"
#define TSLACK_LINK_PIN TSLACK_PIN_DIR "/policy"
#define TSLACK_INVALIDATE_PIN TSLACK_PIN_DIR "/invalidate"

/* How the policy answers the hook; per-task mode has no such choice. */
enum policy_flag {
	/*
	 * futex_waitv() and the futex2 futex_wait() take its slack too, as
	 * every other sleep does (Wine and Proton wait with them); without,
	 * they keep the task's own.
	 */
	POLICY_FUTEX2 = 1 << 0,
};

/*
 * Load, attach and pin the policy, with room for @max_cgroups settings,
 * asking for @flags (enum policy_flag). 0 or -1. What it finds in bpffs
 * and leaves alone is a warning.
 */
int policy_attach(unsigned int max_cgroups, unsigned int flags, struct tslack_err *e);

/*
 * Detach the policy and unpin everything, also what a killed attach or
 * detach left. Not attached is fine. 0 or -1.
 */
int policy_detach(struct tslack_err *e);

/* 1 if attached (the policy's link is pinned), 0 if not, -1 if it cannot be told. */
int policy_attached(struct tslack_err *e);

/*
 * How the policy reaches a task's slack: through the kernel's
 * timer_slack_ops hook (every sleep asks it), or on a kernel without the
 * hook by writing each thread's own slack (tslackctl follow).
 */
enum policy_mode { POLICY_HOOK = 1, POLICY_PER_TASK };

/* The attached policy's mode, or -errno (-ENOENT: not attached). */
int policy_mode(void);

/* "hook" or "per-task", for status and messages. */
const char *policy_mode_name(enum policy_mode mode);

/*
 * How tslack can attach on the running kernel, by its BTF: POLICY_HOOK if
 * it has timer_slack_ops with its context (struct timer_slack_ctx, the
 * series' v6; an earlier form is not used), POLICY_PER_TASK if it is
 * Linux 6.1 or later,
 * -EOPNOTSUPP if older, -ENOENT without BTF.
 */
int policy_kernel_mode(void);

/* Why tslack cannot attach, for policy_kernel_mode()'s @mode, in @e; returns @ret. */
int policy_unsupported(struct tslack_err *e, int ret, int mode);

/*
 * Which of enum policy_flag the attached policy has, read from what
 * attach pinned ("config", the policy's read-only data); -errno if it
 * cannot be read (only root may).
 */
int policy_attached_flags(void);

/* That tslack is not attached, in @e; returns @ret. */
int policy_not_attached(struct tslack_err *e, int ret);

/* A file descriptor of the pinned map, or -1. */
int policy_map_fd(struct tslack_err *e);

/*
 * A file descriptor of what attach pinned as @name ("settings", ...), or
 * -errno: -ENOENT if tslack is not attached. Only through the checked pin
 * directory, never by a path a user could have redirected: use this, not
 * bpf_obj_get(TSLACK_MAP_PIN).
 */
int policy_obj_get(const char *name);

/*
 * Hold off attach and detach, and other writers, until policy_unlock():
 * returns a lock, -ENOENT when tslack is not attached, -1 for anything
 * else.
 */
int policy_lock(struct tslack_err *e);
void policy_unlock(int lock);

/*
 * policy_lock(), then a file descriptor of the pinned map in *@map_fd:
 * the lock, or what policy_lock() returns on failure (nothing held then).
 */
int policy_lock_map(int *map_fd, struct tslack_err *e);

/*
 * Make every task ask the policy again at its next sleep, rather than
 * within TSLACK_MAX_CACHE_AGE_MS; in per-task mode, wake tslackctl follow
 * for a full pass. 0 or -1.
 */
int policy_invalidate(struct tslack_err *e);
/* The same through the checked pin directory @dir: 0 or -errno. */
int policy_invalidate_at(int dir);

#endif
