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

#include "lib/cgroup.h"

struct guard {
	int fd;		/* the pipe to the child; its end means "we died" */
	pid_t pid;
	uint64_t trial, old;
};

/*
 * Start the child that guards @trial on @cg's min_slack_ns. Before any BPF
 * object is open: the child keeps what it inherits until it exits.
 * 0, or -1 after saying why.
 */
int guard_start(struct guard *g, const struct cgroup *cg, uint64_t trial);

/*
 * Under the writers' lock: read @cg's min_slack_ns, arm the child with it,
 * then write @trial. 0, or -1 after saying why.
 */
int guard_set(struct guard *g, const struct cgroup *cg, uint64_t trial);

/*
 * Under the lock: put back what guard_set() found, unless someone else
 * wrote another value meanwhile (then say so and leave it). 0 when done
 * either way, or -1 after saying why it failed.
 */
int guard_restore(struct guard *g, const struct cgroup *cg);

/*
 * Let the child go, and wait for it: with @restored (we put the old value
 * back ourselves) it does nothing, else it restores as if we had died.
 */
void guard_end(struct guard *g, bool restored);

#endif
