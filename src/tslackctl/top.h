/* SPDX-License-Identifier: GPL-2.0 */
/* What tslackctl top (top.c) and stats (stats.c) share. */
#ifndef TSLACKCTL_TOP_H
#define TSLACKCTL_TOP_H

#include <signal.h>
#include <stdint.h>

/* Set by top_on_signal(), the handler of SIGINT, SIGTERM (and SIGHUP). */
extern volatile sig_atomic_t top_stop;
void top_on_signal(int sig);

/* CLOCK_MONOTONIC in seconds. */
double now_s(void);

/*
 * A file descriptor of the policy's query program where tslack is
 * attached, else -1 (after saying why, if it cannot be told).
 */
int top_query_fd(void);

/* What the policy (@qfd: top_query_fd()) imposes on @id; UINT64_MAX: unknown. */
uint64_t imposed(int qfd, uint64_t id);

#endif
