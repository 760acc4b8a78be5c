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
#include <stddef.h>
#include <linux/types.h>

#include "../../bpf/tslack.h"

/*
 * Write @w if it still applies: 1 written, 0 not (the thread is gone or
 * is not the one planned for, or its slack changed meanwhile), -errno.
 */
int pertask_write(const struct tslack_write *w);

/* Records a pass reads, writes, then reports to its slice function. */
#define PERTASK_SLICE 64

/*
 * Called after each slice of a pass (at most PERTASK_SLICE threads
 * planned and written, @n of them): 0 to go on, -errno to stop the pass
 * with that error. Nothing planned is left unwritten at that point.
 */
typedef int pertask_slice_fn(void *ctx, size_t n);

/*
 * Run the plan iterator @prog_fd over every thread (@pid and @tid 0), the
 * threads of process @pid or thread @tid, and write what it says, each
 * right after it is planned, calling @slice (if not NULL) between slices.
 * The number of writes made, or -errno if the pass could not be made or
 * @slice stopped it; the first write that failed (-errno) in *@failed,
 * if it is 0, and the pass goes on.
 */
long pertask_pass(int prog_fd, int pid, int tid, int *failed, pertask_slice_fn *slice,
		  void *ctx);

/*
 * Is this process in the initial pid and time namespaces, where the
 * plans number threads and date their start?
 */
bool pertask_in_init_ns(void);
/*
 * Does the kernel's task iterator find a thread that is not its process's
 * main one by its tid? Before the fix (6.1.115 on the 6.1 line) it found
 * main threads only. Tried on a thread of ours, with the query
 * iterator @query_prog: 1, 0, or -errno.
 */
int pertask_tid_filter_works(int query_prog);

#endif
