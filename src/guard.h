/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trial minimum that does not outlive tslackctl: stats --slack sets a
 * cgroup's min_slack_ns for a while, and a child process puts the old
 * value back if tslackctl dies before it does, even by SIGKILL.
 */
#ifndef TSLACK_GUARD_H
#define TSLACK_GUARD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup.h"

struct guard {
	int fd;		/* the pipe to the child; its end means "we died" */
	pid_t pid;
};

/*
 * Start the child that guards @trial on @cg's min_slack_ns. Before any BPF
 * object is open: the child keeps what it inherits until it exits.
 * 0, or -1 after printing why.
 */
int guard_start(struct guard *g, const struct cgroup *cg, uint64_t trial);

/* The trial value is set: @old is what the child puts back if we die. */
void guard_arm(struct guard *g, uint64_t old);

/*
 * Let the child go, and wait for it: with @restored (we put the old value
 * back ourselves) it does nothing, else it restores as if we had died.
 */
void guard_end(struct guard *g, bool restored);

#endif
