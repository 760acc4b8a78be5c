/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-task mode, on kernels without the hook: the policy's plan programs
 * (tslack.bpf.c) say which thread's own slack to write and what; this
 * writes it through /proc/TID/timerslack_ns, never to a thread other than
 * the one planned for (a number reused by a new thread is refused).
 */
#ifndef TSLACK_PERTASK_H
#define TSLACK_PERTASK_H

#include <stdbool.h>
#include <linux/types.h>

#include "../../bpf/tslack.h"

/*
 * Write @w if it still applies: 1 written, 0 not (the thread is gone or
 * is not the one planned for, or its slack changed meanwhile), -errno.
 */
int pertask_write(const struct tslack_write *w);

/*
 * Run the plan iterator @prog_fd over every thread (@pid and @tid 0), the
 * threads of process @pid or thread @tid, and write what it says, each
 * right after it is planned. The number of writes
 * made, or -errno if the pass could not be made; the first write that
 * failed (-errno) in *@failed, if it is 0, and the pass goes on.
 */
long pertask_pass(int prog_fd, int pid, int tid, int *failed);

/* Is this process in the initial pid namespace, where the plans number threads? */
bool pertask_in_init_pidns(void);

#endif
